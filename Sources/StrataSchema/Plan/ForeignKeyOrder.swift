/// Orders tables so that foreign keys point backwards (parents first) or forwards.
enum ForeignKeyOrder {
    static func parentsFirst(_ tables: [TableInfo]) -> [TableInfo] {
        let byKey = Dictionary(tables.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        var visited = Set<String>()
        var result = [TableInfo]()
        func visit(_ t: TableInfo, _ path: Set<String>) {
            guard !visited.contains(t.key), !path.contains(t.key) else { return }
            for fk in t.foreignKeys {
                if let parent = byKey[fk.parentTable.asciiLowercased()], parent.key != t.key {
                    visit(parent, path.union([t.key]))
                }
            }
            if visited.insert(t.key).inserted { result.append(t) }
        }
        for t in tables { visit(t, []) }
        return result
    }

    static func childrenFirst(_ tables: [TableInfo]) -> [TableInfo] { parentsFirst(tables).reversed() }
}
