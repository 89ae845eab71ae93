/// A part of the database a fetch depends on: whole tables, some columns of a table, some rows
/// (by rowid) of a table, or the whole database. ``ValueObservation`` fetches again only after
/// a commit that changed its region.
///
/// ```swift
/// let region = DatabaseRegion(table: "note", columns: ["title"], rowIDs: [1])
///     .union(DatabaseRegion(table: "folder"))
/// ```
///
/// Table and column names are compared as SQLite compares them: ASCII case-insensitively.
/// A region never misses a change to it; it may be refreshed by a change that did not alter it
/// (see ``ValueObservation`` for what the commit side knows).
public struct DatabaseRegion: Sendable, Hashable, CustomStringConvertible {
    /// What a region holds of one table: nil columns or rowids mean all of them.
    struct TableRegion: Sendable, Hashable {
        var columns: Set<String>?
        var rowIDs: Set<Int64>?

        mutating func formUnion(_ other: TableRegion) {
            columns = columns.flatMap { mine in other.columns.map { mine.union($0) } }
            rowIDs = rowIDs.flatMap { mine in other.rowIDs.map { mine.union($0) } }
        }
    }

    /// By lowercased table name; nil for the whole database.
    private(set) var tables: [String: TableRegion]?

    /// The empty region: no table.
    public init() { tables = [:] }

    /// The whole database: every change counts.
    public static let fullDatabase = DatabaseRegion(tables: nil)

    private init(tables: [String: TableRegion]?) { self.tables = tables }

    /// A table, or some of its columns (nil: all), or some of its rows (nil: all). Rowids apply
    /// to rowid tables only: on a `WITHOUT ROWID` table SQLite reports changes table by table,
    /// so a region naming rows of one is refreshed by any change to the table.
    ///
    /// ```swift
    /// DatabaseRegion(table: "player", columns: ["score"], rowIDs: [42])
    /// ```
    public init(table: String, columns: Set<String>? = nil, rowIDs: Set<Int64>? = nil) {
        tables = [
            table.asciiLowercasedKey: TableRegion(
                columns: columns.map { Set($0.map(\.asciiLowercasedKey)) }, rowIDs: rowIDs)
        ]
    }

    /// True for the region of no table.
    public var isEmpty: Bool { tables?.isEmpty ?? false }

    /// True for ``fullDatabase``.
    public var isFullDatabase: Bool { tables == nil }

    /// The tables of the region (lowercased), nil for the whole database.
    public var tableNames: Set<String>? { tables.map { Set($0.keys) } }

    /// The columns of `table` in the region (lowercased): nil when all of them count (or for the
    /// whole database), empty when the table is not in the region.
    public func columns(of table: String) -> Set<String>? {
        guard let tables else { return nil }
        guard let region = tables[table.asciiLowercasedKey] else { return [] }
        return region.columns
    }

    /// The rows of `table` in the region: nil when all of them count (or for the whole database),
    /// empty when the table is not in the region.
    public func rowIDs(of table: String) -> Set<Int64>? {
        guard let tables else { return nil }
        guard let region = tables[table.asciiLowercasedKey] else { return [] }
        return region.rowIDs
    }

    /// Both regions.
    ///
    /// ```swift
    /// let both = DatabaseRegion(table: "note").union(DatabaseRegion(table: "tag"))
    /// ```
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        var copy = self
        copy.formUnion(other)
        return copy
    }

    /// Adds `other` to this region.
    public mutating func formUnion(_ other: DatabaseRegion) {
        guard let mine = tables, let theirs = other.tables else {
            tables = nil
            return
        }
        tables = mine.merging(theirs) { a, b in
            var merged = a
            merged.formUnion(b)
            return merged
        }
    }

    /// The same region where `table` is narrowed to the rows `rowIDs` (rows it already had
    /// outside `rowIDs` are dropped). Other tables are unchanged; a table not in the region
    /// stays out of it.
    ///
    /// ```swift
    /// let one = DatabaseRegion(table: "note").narrowed(toRows: [7], of: "note")
    /// ```
    public func narrowed(toRows rowIDs: Set<Int64>, of table: String) -> DatabaseRegion {
        let key = table.asciiLowercasedKey
        guard var tables, var region = tables[key] else { return self }
        region.rowIDs = region.rowIDs.map { $0.intersection(rowIDs) } ?? rowIDs
        tables[key] = region
        return DatabaseRegion(tables: tables)
    }

    /// Adds a column read by a statement (`""`: the table without a named column, as for
    /// `count(*)`: the whole table).
    mutating func insertRead(table: String, column: String?) {
        guard tables != nil else { return }
        let key = table.asciiLowercasedKey
        let columns: Set<String>? = column.flatMap { $0.isEmpty ? nil : [$0.asciiLowercasedKey] }
        let added = TableRegion(columns: columns, rowIDs: nil)
        if var region = tables?[key] {
            region.formUnion(added)
            tables?[key] = region
        } else {
            tables?[key] = added
        }
    }

    /// Whether a committed transaction's `changes` may have altered this region. An empty
    /// region (a fetch that read no table: a constant, or an old SQLite that does not report
    /// `count(*)` reads) counts as the whole database.
    func isModified(by changes: DatabaseChanges) -> Bool {
        if changes.isEmpty { return false }
        if changes.isSchemaChanged { return true }
        guard let tables, !tables.isEmpty else { return true }
        for (table, writes) in changes.tables {
            guard let region = tables[table] else { continue }
            for (changedColumns, changedRows) in writes {
                if let columns = region.columns, let changedColumns, columns.isDisjoint(with: changedColumns) {
                    continue
                }
                if let rows = region.rowIDs, let changedRows, rows.isDisjoint(with: changedRows) { continue }
                return true
            }
        }
        return false
    }

    /// `note(title)[#1, #2], tag`, or `full database`, or `empty`.
    public var description: String {
        guard let tables else { return "full database" }
        if tables.isEmpty { return "empty" }
        return tables.keys.sorted().map { table in
            let region = tables[table] ?? TableRegion()
            var text = table
            if let columns = region.columns { text += "(" + columns.sorted().joined(separator: ", ") + ")" }
            if let rows = region.rowIDs { text += "[" + rows.sorted().map { "#\($0)" }.joined(separator: ", ") + "]" }
            return text
        }.joined(separator: ", ")
    }
}

/// What a committed transaction changed, as the writer's hooks saw it: per table (lowercased),
/// the rows (nil: all, or unknown) written for each set of columns (nil: all, or unknown); and
/// whether the schema changed, which counts as a change to everything. Rows are kept per set of
/// columns, so that "column a of row 1, then column b of row 2" does not read as "a or b of
/// 1 or 2".
struct DatabaseChanges: Sendable, Hashable {
    /// Rows by the columns written to them, for each table.
    var tables: [String: [Set<String>?: Set<Int64>?]] = [:]
    var isSchemaChanged = false

    /// Beyond this many rows for one set of columns of one table, the rows are forgotten (all
    /// rows count): a bulk write does not grow memory without bound.
    static let rowIDLimit = 10_000

    var isEmpty: Bool { tables.isEmpty && !isSchemaChanged }

    mutating func formUnion(_ other: DatabaseChanges) {
        isSchemaChanged = isSchemaChanged || other.isSchemaChanged
        for (table, writes) in other.tables {
            for (columns, rowIDs) in writes { insert(table, columns: columns, rowIDs: rowIDs) }
        }
    }

    mutating func insert(_ table: String, columns: Set<String>?, rowIDs: Set<Int64>?) {
        var writes = tables[table] ?? [:]
        if let known = writes[columns] {
            var merged = known.flatMap { mine in rowIDs.map { mine.union($0) } }
            if let rows = merged, rows.count > Self.rowIDLimit { merged = nil }
            writes[columns] = .some(merged)
        } else {
            writes[columns] = .some(rowIDs)
        }
        tables[table] = writes
    }
}
