/// Orders tables so that foreign keys (and an FTS table's content table) point backwards
/// (parents first) or forwards.
enum ForeignKeyOrder {
    static func parentsFirst(_ tables: [TableInfo]) -> [TableInfo] {
        let byKey = Dictionary(tables.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        var visited = Set<String>()
        var result = [TableInfo]()
        func visit(_ t: TableInfo, _ path: Set<String>) {
            guard !visited.contains(t.key), !path.contains(t.key) else { return }
            for name in t.foreignKeys.map(\.parentTable) + contentTable(of: t) {
                if let parent = byKey[name.asciiLowercased()], parent.key != t.key {
                    visit(parent, path.union([t.key]))
                }
            }
            if visited.insert(t.key).inserted { result.append(t) }
        }
        for t in tables { visit(t, []) }
        return result
    }

    /// The content table of an FTS4/FTS5 table over external content: created (or renamed)
    /// before it, as indexing it (`'rebuild'`) reads it.
    static func contentTable(of t: TableInfo) -> [String] {
        guard Planner.isRebuiltFromContent(t), let content = VirtualTableArguments(sql: t.sql)?.option("content")
        else { return [] }
        return [content]
    }

    static func childrenFirst(_ tables: [TableInfo]) -> [TableInfo] { parentsFirst(tables).reversed() }
}
