/// What the record methods know about the tables of one connection: primary keys, unique keys,
/// and the prepared INSERT statement of each column set. Valid for one `PRAGMA schema_version`:
/// a different version (a table created, dropped or altered, here or by another connection, or
/// a rollback of such a change) empties it.
struct RecordSchemaCache {
    var tables: [String: RecordTable] = [:] {
        didSet { last = nil }
    }
    /// The table found last and the name it was asked by: the record insert asks for the same
    /// table record after record, and a name with the same bits compares without hashing.
    private var last: (name: String, table: RecordTable)?

    /// The cached table of `name` (as given to `recordTable`), nil when none is cached.
    @inline(__always)
    mutating func table(named name: String) -> RecordTable? {
        if let last, last.name == name { return last.table }
        guard let table = tables[name] else { return nil }
        last = (name, table)
        return table
    }
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
    /// The INSERT run last: the first candidate for the next record's columns.
    var lastInsert: InsertStatement? {
        didSet { encodingSlot.expected = lastInsert?.columns ?? [] }
    }
    /// What the `Encodable` encoder of the next record expects and reuses.
    let encodingSlot = RecordEncodingSlot()

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
        // The same array as the last insert's (the encoder shares it when the keys match) compares
        // by identity, without comparing names.
        if let last = lastInsert, last.columns == columns { return last }
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

/// What the `Encodable` encoder of a record inserted into one table reuses from one record to
/// the next: the columns of the last insert (the encoder shares that array when the record
/// encodes the same keys in the same order, so no column array is built and the cached INSERT
/// is found by identity), and the encoder itself with its keyed container (no allocation and no
/// generic metadata lookups per record). Used by one connection, one record at a time: an
/// encoder already in use (a record inserted while another encodes) is not shared.
final class RecordEncodingSlot {
    var expected: [String] = []
    var encoder: ReusableRecordEncoder?
    var encoderType: ObjectIdentifier?

    /// The kept encoder of `Record`, or a new one (kept when the slot is free).
    @inline(__always)
    func encoder<Record: EncodableRecord>(for type: Record.Type) -> RecordEncoder<Record> {
        if encoderType == ObjectIdentifier(Record.self), let encoder, !encoder.inUse {
            return unsafeDowncast(encoder, to: RecordEncoder<Record>.self)
        }
        return makeEncoder(for: type)
    }

    @inline(never)
    private func makeEncoder<Record: EncodableRecord>(for type: Record.Type) -> RecordEncoder<Record> {
        // The kept encoder is busy (a record inserted while another encodes): a one-off encoder,
        // which keeps no container (nothing would break that cycle).
        guard encoder?.inUse != true else { return RecordEncoder<Record>(reusable: false) }
        let made = RecordEncoder<Record>(reusable: true)
        encoder?.cachedContainer = nil
        encoder = made
        encoderType = ObjectIdentifier(Record.self)
        return made
    }

    deinit {
        // The encoder and its cached container refer to each other.
        encoder?.cachedContainer = nil
    }
}
