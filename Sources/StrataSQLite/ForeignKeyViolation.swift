/// A row whose foreign key points at no parent row, as `PRAGMA foreign_key_check` reports it.
/// See <https://www.sqlite.org/pragma.html#pragma_foreign_key_check>.
///
/// A row of an ordinary table is named by its rowid; a row of a `WITHOUT ROWID` table, which has
/// none, by its primary key:
///
/// ```swift
/// for violation in try db.foreignKeyViolations() {
///     print(violation)  // table book rowid 7 references a missing row of author
///                       // table edition row with isbn = '978-0' references a missing row of book
/// }
/// ```
public struct ForeignKeyViolation: Hashable, Sendable, CustomStringConvertible {
    /// One column of a row's primary key and its value.
    public struct ColumnValue: Hashable, Sendable {
        /// The column's name.
        public var column: String
        /// The row's value in that column.
        public var value: SQLValue

        public init(column: String, value: SQLValue) {
            self.column = column
            self.value = value
        }
    }

    /// The table holding the offending row.
    public let table: String
    /// The offending row's rowid, or nil for a WITHOUT ROWID table.
    public let rowid: Int64?
    /// The table the foreign key refers to.
    public let parent: String
    /// The foreign key's index in `PRAGMA foreign_key_list(table)`.
    public let foreignKeyIndex: Int
    /// For a WITHOUT ROWID table, the offending row's primary key, column by column in key order;
    /// empty for a table with rowids (``rowid`` names the row).
    public let primaryKey: [ColumnValue]

    public init(table: String, rowid: Int64?, parent: String, foreignKeyIndex: Int, primaryKey: [ColumnValue] = []) {
        self.table = table
        self.rowid = rowid
        self.parent = parent
        self.foreignKeyIndex = foreignKeyIndex
        self.primaryKey = primaryKey
    }

    public var description: String {
        let row: String
        if let rowid {
            row = "rowid \(rowid)"
        } else if primaryKey.isEmpty {
            row = "a row"
        } else {
            row = "row with " + primaryKey.map { "\($0.column) = \($0.value.sqlLiteral)" }.joined(separator: ", ")
        }
        return "table \(table) \(row) references a missing row of \(parent)"
    }
}

extension Database {
    /// The foreign key violations of the table named `table`, or of the whole database.
    ///
    /// ```swift
    /// for violation in try db.foreignKeyViolations(in: "book") { print(violation) }
    /// ```
    ///
    /// SQLite reports no row for a violation in a WITHOUT ROWID table; Strata finds the rows
    /// whose foreign key has no parent and reports each one's ``ForeignKeyViolation/primaryKey``.
    public func foreignKeyViolations(in table: String? = nil) throws -> [ForeignKeyViolation] {
        let sql =
            table.map { "PRAGMA foreign_key_check(\(SQLLiteral.quote(identifier: $0)))" }
            ?? "PRAGMA foreign_key_check"
        var violations = try fetchAll(sql: sql).map { row in
            ForeignKeyViolation(
                table: try row.decode(String.self, at: 0), rowid: try row.decode(Int64?.self, at: 1),
                parent: try row.decode(String.self, at: 2), foreignKeyIndex: try row.decode(Int.self, at: 3))
        }
        // The violations of one foreign key of a WITHOUT ROWID table, in the order SQLite listed
        // them (the table's scan order, which the query below follows too).
        var groups = [ForeignKeyGroup: [Int]]()
        var order = [ForeignKeyGroup]()
        for (i, v) in violations.enumerated() where v.rowid == nil {
            let group = ForeignKeyGroup(table: v.table, parent: v.parent, index: v.foreignKeyIndex)
            if groups[group] == nil { order.append(group) }
            groups[group, default: []].append(i)
        }
        for group in order {
            let indices = groups[group]!
            let keys = try orphanPrimaryKeys(group, limit: indices.count)
            for (i, key) in zip(indices, keys) {
                let v = violations[i]
                violations[i] = ForeignKeyViolation(
                    table: v.table, rowid: nil, parent: v.parent, foreignKeyIndex: v.foreignKeyIndex, primaryKey: key)
            }
        }
        return violations
    }

    private struct ForeignKeyGroup: Hashable {
        var table: String
        var parent: String
        var index: Int
    }

    /// The primary keys of the rows of `group.table` whose foreign key `group.index` is complete
    /// (no column NULL: SQLite checks only those) and matches no row of the parent, as SQLite's own
    /// check compares them: the parent column's collation and affinity apply.
    /// See <https://www.sqlite.org/foreignkeys.html#fk_basics>.
    private func orphanPrimaryKeys(_ group: ForeignKeyGroup, limit: Int) throws -> [[ForeignKeyViolation.ColumnValue]] {
        let q = SQLLiteral.quote(identifier:)
        let primaryKey = try fetchColumn(
            String.self, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [group.table]
        )
        let references = try fetchAll(
            sql: "SELECT \"from\", \"to\" FROM pragma_foreign_key_list(?) WHERE id = ? ORDER BY seq",
            arguments: [group.table, group.index])
        guard !primaryKey.isEmpty, !references.isEmpty else { return [] }
        let childColumns = try references.map { try $0.decode(String.self, at: 0) }
        var parentColumns = try references.map { try $0.decode(String?.self, at: 1) }
        let parentKey = try fetchColumn(
            String.self, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk",
            arguments: [group.parent])
        if parentColumns.contains(where: { $0 == nil }) {
            // `REFERENCES parent` without columns: the parent's primary key.
            guard parentKey.count == parentColumns.count else { return [] }
            parentColumns = parentKey
        }
        var conditions = childColumns.map { "c.\(q($0)) IS NOT NULL" }
        let parentExists =
            (try fetchValue(
                Int.self, sql: "SELECT count(*) FROM pragma_table_info(?)", arguments: [group.parent])).map { $0 > 0 }
            ?? false
        if parentExists {
            let matches = zip(parentColumns, childColumns).map { "p.\(q($0!)) = c.\(q($1))" }
            conditions.append(
                "NOT EXISTS (SELECT 1 FROM \(q(group.parent)) AS p WHERE \(matches.joined(separator: " AND ")))")
        }
        let sql =
            "SELECT \(primaryKey.map { "c.\(q($0))" }.joined(separator: ", ")) FROM \(q(group.table)) AS c "
            + "WHERE \(conditions.joined(separator: " AND ")) LIMIT \(limit)"
        return try fetchAll(sql: sql).map { row in
            primaryKey.enumerated().map { ForeignKeyViolation.ColumnValue(column: $1, value: row.values[$0]) }
        }
    }
}
