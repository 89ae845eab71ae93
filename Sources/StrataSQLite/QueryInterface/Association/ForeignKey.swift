/// The columns that link two tables of an association, when the schema has several foreign keys
/// between them (or none declared).
///
/// ```swift
/// struct Note: TableRecord {
///     static let folder = belongsTo(Folder.self, using: ForeignKey(["folderId"]))
///     static let movedFrom = belongsTo(Folder.self, key: "movedFrom", using: ForeignKey(["previousFolderId"]))
/// }
/// ```
///
/// Without one, an association finds its foreign key with `PRAGMA foreign_key_list`. The
/// destination columns default to the referenced table's primary key. GRDB's `ForeignKey`.
/// See <https://www.sqlite.org/foreignkeys.html>.
public struct ForeignKey: Sendable, Hashable {
    /// The columns of the child table (the one that holds the key), in order.
    public let originColumns: [String]
    /// The columns of the parent table they refer to; nil for its primary key.
    public let destinationColumns: [String]?

    /// A key made of `originColumns`, referring to `destinationColumns` (the parent's primary key
    /// when nil).
    ///
    /// ```swift
    /// ForeignKey(["folderId"])
    /// ForeignKey(["noteId", "lang"], to: ["noteId", "lang"])
    /// ```
    public init(_ originColumns: [String], to destinationColumns: [String]? = nil) {
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
    }
}

/// A foreign key resolved against the schema: pairs of (child column, parent column).
package struct ResolvedForeignKey: Sendable {
    package var child: String
    package var parent: String
    package var pairs: [(child: String, parent: String)]
}

extension Database {
    /// The foreign key from table `child` to table `parent`: the one given, or the only one the
    /// schema declares. A missing or ambiguous key throws, naming both tables and the candidates.
    package func resolveForeignKey(
        from child: String, to parent: String, given: ForeignKey?
    ) throws -> ResolvedForeignKey {
        // https://www.sqlite.org/pragma.html#pragma_foreign_key_list: id, seq, table, from, to.
        let rows = try fetchAll(sql: "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", arguments: [child])
        var declared: [Int: (table: String, pairs: [(String, String?)])] = [:]
        for row in rows {
            let id: Int = try row["id"]
            let table: String = try row["table"]
            let from: String = try row["from"]
            let to: String? = try row["to"]
            declared[id, default: (table, [])].pairs.append((from, to))
        }
        let parentKey = try recordTable(parent, validate: true).primaryKey.columns
        // SQLite numbers the keys of a table from the last declared: candidates in declaration order.
        var candidates: [[(child: String, parent: String)]] = declared.keys.sorted(by: >).compactMap { id in
            let key = declared[id]!
            guard key.table.lowercased() == parent.lowercased() else { return nil }
            if key.pairs.contains(where: { $0.1 == nil }) {
                guard parentKey.count == key.pairs.count else { return nil }
                return zip(key.pairs, parentKey).map { ($0.0.0, $0.1) }
            }
            return key.pairs.map { ($0.0, $0.1!) }
        }
        if let given {
            let matching = candidates.filter { pairs in
                pairs.map { $0.child.lowercased() } == given.originColumns.map { $0.lowercased() }
            }
            if let destination = given.destinationColumns {
                guard destination.count == given.originColumns.count else {
                    throw associationError(
                        "ForeignKey has \(given.originColumns.count) origin columns "
                            + "and \(destination.count) destination columns")
                }
                candidates = [Array(zip(given.originColumns, destination)).map { ($0.0, $0.1) }]
            } else if let first = matching.first {
                candidates = [first]
            } else {
                guard parentKey.count == given.originColumns.count else {
                    throw associationError(
                        "ForeignKey(\(given.originColumns)) has \(given.originColumns.count) columns and the primary "
                            + "key of \"\(parent)\" has \(parentKey.count) (\(parentKey.joined(separator: ", ")))")
                }
                candidates = [Array(zip(given.originColumns, parentKey)).map { ($0.0, $0.1) }]
            }
        }
        guard candidates.count == 1 else {
            let list = candidates.map { "(" + $0.map(\.child).joined(separator: ", ") + ")" }.joined(separator: ", ")
            throw associationError(
                candidates.isEmpty
                    ? "no foreign key from table \"\(child)\" to table \"\(parent)\"; give one with ForeignKey([...])"
                    : "ambiguous foreign key from table \"\(child)\" to table \"\(parent)\": candidates \(list); "
                        + "choose one with ForeignKey([...])")
        }
        return ResolvedForeignKey(child: child, parent: parent, pairs: candidates[0])
    }

    package func associationError(_ message: String) -> SQLiteError {
        SQLiteError(resultCode: .SQLITE_ERROR, message: message)
    }
}
