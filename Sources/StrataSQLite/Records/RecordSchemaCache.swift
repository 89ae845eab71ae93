/// What the record methods know about the tables of one connection: primary keys, unique keys,
/// and the prepared INSERT statement of each column set. Valid for one `PRAGMA schema_version`:
/// a different version (a table created, dropped or altered, here or by another connection, or
/// a rollback of such a change) empties it.
struct RecordSchemaCache {
    var tables: [String: RecordTable] = [:]
    /// The foreign keys each table declares (`PRAGMA foreign_key_list`), by lowercased table
    /// name, for the associations of the query interface; read at ``foreignKeysVersion``.
    var foreignKeys: [String: [DeclaredForeignKey]] = [:]
    /// The `PRAGMA schema_version` ``foreignKeys`` were read at.
    var foreignKeysVersion: Int64?
}

/// One foreign key a table declares: the parent table and (child column, parent column)
/// pairs, the parent column nil when the key refers to the parent's primary key.
struct DeclaredForeignKey {
    var parentTable: String
    var pairs: [(child: String, parent: String?)]
}

/// One table's record information.
final class RecordTable {
    let name: String
    let quotedName: String
    let primaryKey: PrimaryKeyInfo
    /// The name that reaches the rowid (`rowid`, `_rowid_` or `oid`, whichever no column takes),
    /// nil for a WITHOUT ROWID table.
    let rowIDName: String?
    /// The `PRAGMA schema_version` it was read at.
    let schemaVersion: Int64
    /// Unique column sets (primary key and unique indexes), lowercased and sorted; read when a
    /// key dictionary needs them.
    var uniqueKeys: [[String]]?
    /// The INSERT statements made so far, one per column list.
    var inserts: [InsertStatement] = []

    init(name: String, primaryKey: PrimaryKeyInfo, rowIDName: String?, schemaVersion: Int64) {
        self.name = name
        self.rowIDName = rowIDName
        self.quotedName = SQLLiteral.quote(identifier: name)
        self.primaryKey = primaryKey
        self.schemaVersion = schemaVersion
    }

    /// The cached INSERT of exactly these columns, in this order.
    @inline(__always)
    func insert(columns: [String]) -> InsertStatement? {
        for insert in inserts where insert.columns == columns { return insert }
        return nil
    }
}

/// An INSERT prepared for one column list, with the recompilation count it was last run at.
final class InsertStatement {
    let columns: [String]
    let statement: Statement
    var reprepareCount: Int32

    init(columns: [String], statement: Statement) {
        self.columns = columns
        self.statement = statement
        self.reprepareCount = statement.reprepareCount
    }
}
