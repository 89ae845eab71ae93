import StrataSQLite
import StrataSchema

/// One step of an app's schema history: an identifier and a body that changes the database.
///
/// The body is SQL text, a Swift closure, or the desired schema (the declarative engine brings
/// the database to it). Migrations are registered in order in a ``Migrator`` and each one runs
/// once per database, atomically.
///
/// ```swift
/// let createPlayer = Migration("0001_create_player", sql: """
///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
///     """)
/// let backfill = Migration("0002_backfill_scores") { db in
///     try db.execute(sql: "UPDATE player SET score = 0 WHERE score IS NULL")
/// }
/// ```
public struct Migration: Sendable {
    enum Body: Sendable {
        case sql(String)
        case closure(@Sendable (Database, MigrationProgress) throws -> Void)
        case schema(String, SchemaChangeOptions)
        /// A desired schema with a data step between its expanding and contracting parts.
        case schemaWithData(String, SchemaChangeOptions, DataStep)
    }

    /// The data step of a declarative migration: SQL text or a Swift closure.
    enum DataStep: Sendable {
        case sql(String)
        case closure(@Sendable (Database) throws -> Void)
    }

    /// The identifier recorded in the ledger once the migration is applied. Unique in a migrator.
    public let identifier: String
    let body: Body

    /// A migration that runs SQL text (one or several statements separated by semicolons).
    ///
    /// The text runs inside the migration's transaction with foreign keys off, one statement at a
    /// time: `BEGIN`, `COMMIT`, `END`, `ROLLBACK`, and `RELEASE` / `ROLLBACK TO` of a savepoint the
    /// text did not open are refused (the migration rolls back); `PRAGMA foreign_keys` has no
    /// effect there. Its checksum is recorded so an edit after it was applied is detected.
    public init(_ identifier: String, sql: String) {
        self.identifier = identifier
        self.body = .sql(sql)
    }

    /// A migration that runs a Swift closure. It has no checksum: edits are not detected.
    ///
    /// ```swift
    /// Migration("0003_split_names") { db in
    ///     for row in try db.fetchAll(sql: "SELECT id, name FROM player") { ... }
    /// }
    /// ```
    public init(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        self.identifier = identifier
        self.body = .closure { db, _ in try migrate(db) }
    }

    /// A long-running closure migration that reports its progress: each call to
    /// ``MigrationProgress/report(completed:total:)`` reaches the migrator's event handler as
    /// ``MigrationEvent/progress(identifier:completed:total:)``.
    ///
    /// ```swift
    /// Migration("0004_rehash", reportingProgress: { db, progress in
    ///     let ids = try db.fetchColumn(Int64.self, sql: "SELECT id FROM document")
    ///     for (i, id) in ids.enumerated() {
    ///         try db.execute(sql: "UPDATE document SET hash = sha(body) WHERE id = ?", arguments: [id])
    ///         progress.report(completed: i + 1, total: ids.count)
    ///     }
    /// })
    /// ```
    public init(
        _ identifier: String,
        reportingProgress migrate: @escaping @Sendable (Database, MigrationProgress) throws -> Void
    ) {
        self.identifier = identifier
        self.body = .closure(migrate)
    }

    /// A migration written as the desired schema rather than as steps: the declarative engine
    /// plans and applies the changes that bring the database to `schema` (a full set of
    /// `CREATE` statements), inside the migration's transaction. Its checksum is that of the
    /// normalized schema, as the engine compares schemas: whitespace, comments, identifier
    /// quoting and the case of keywords and identifiers do not count (see ``checksum``).
    ///
    /// ```swift
    /// Migration("0005_library_v2", schema: """
    ///     CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, birth_year INTEGER);
    ///     CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), title TEXT);
    ///     """)
    /// ```
    ///
    /// Destructive changes (dropping a table or a column) fail the migration unless
    /// `options.allowDestructive` is set; renames need a `-- @renamed from=OLD` hint or
    /// `options.renames`. Note that the plan is computed when the migration runs, against the
    /// database as it is then.
    public init(_ identifier: String, schema: String, options: SchemaChangeOptions = SchemaChangeOptions()) {
        self.identifier = identifier
        self.body = .schema(schema, options)
    }

    /// A migration written as a desired schema declared with the DSL: as
    /// `Migration(_:schema:options:)` with a text with the definition's SQL, checksummed on
    /// the normalized schema (rendering the same definition differently is not an edit).
    ///
    /// ```swift
    /// var schema = SchemaDefinition()
    /// schema.table("author") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("name", .text).notNull()
    /// }
    /// let migration = Migration("0006_authors", schema: schema)
    /// ```
    public init(_ identifier: String, schema: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions()) {
        self.init(identifier, schema: schema.sql, options: options)
    }

    /// A declarative migration with a data step written in Swift: the engine applies the
    /// expanding part of the change to `schema` (new tables and columns, relaxed constraints, new
    /// indexes), runs `data`, then the contracting part (drops, tightened constraints), all in the
    /// migration's one transaction. See `ExpandContractPlan` for which change goes where.
    ///
    /// ```swift
    /// Migration("0007_split_tags", schema: schemaV3) { db in
    ///     try db.execute(sql: "INSERT INTO note_tag(note_id, tag) SELECT note.id, value FROM note, json_each(note.tags)")
    /// }
    /// ```
    ///
    /// Its checksum is the schema's (a closure cannot be checksummed), marked as having a data step.
    public init(
        _ identifier: String, schema: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        data: @escaping @Sendable (Database) throws -> Void
    ) {
        self.identifier = identifier
        self.body = .schemaWithData(schema, options, .closure(data))
    }

    /// A declarative migration with a data step written in SQL (see
    /// ``init(_:schema:options:data:)``); its checksum covers the schema (normalized) and the
    /// data step's text (as ``checksum`` counts text edits).
    ///
    /// ```swift
    /// Migration("0007_split_tags", schema: schemaV3, dataSQL: "INSERT INTO note_tag SELECT ...")
    /// ```
    public init(
        _ identifier: String, schema: String, options: SchemaChangeOptions = SchemaChangeOptions(), dataSQL: String
    ) {
        self.identifier = identifier
        self.body = .schemaWithData(schema, options, .sql(dataSQL))
    }

    /// The SQL text of the body (the desired schema of a declarative migration), or nil for a closure migration.
    public var sql: String? {
        switch body {
        case .sql(let text), .schema(let text, _), .schemaWithData(let text, _, _): text
        case .closure: nil
        }
    }

    /// The SQL text of a declarative migration's data step, or nil.
    public var dataSQL: String? {
        if case .schemaWithData(_, _, .sql(let text)) = body { return text }
        return nil
    }

    /// The SHA-256 of the body's SQL text (64 hex digits), or nil for a closure migration.
    ///
    /// What an editor or a checkout changes without anyone meaning to is not an edit: a leading
    /// byte order mark, line endings (`\r\n` and a lone `\r` count as `\n`), spaces and tabs at
    /// the end of a line, and blank lines at the end of the text (a final newline added or
    /// removed). Everything else is: a changed statement, comment, blank line inside the text, or
    /// indentation. Checksums recorded with the earlier rule (line endings and byte order mark
    /// only) are still accepted, see ``acceptsRecordedChecksum(_:)``.
    ///
    /// A desired-schema migration (`Migration(_:schema:options:)` with a text) is checksummed
    /// on its normalized schema instead, the engine's comparison text: comments, whitespace,
    /// identifier quoting and the case of keywords and identifiers do not count; literals,
    /// types and expressions do. Rewriting `title TEXT NOT NULL` as `"title" text not null`
    /// is not an edit. Ledgers recorded with the text checksum are still accepted for the same text.
    ///
    /// Computed when asked, not when the migration is made: a start-up whose ledger carries the
    /// digest of the registered migrations (see ``Migrator``) compares that one value and hashes
    /// no migration; only a start-up that has to compare checksums computes them.
    public var checksum: String? {
        switch body {
        case .sql(let text): Migration.checksum(of: text)
        case .closure: nil
        case .schema(let text, _): Migration.schemaChecksum(of: text)
        case .schemaWithData(let text, _, .closure): Migration.schemaChecksum(of: text, dataStep: "closure")
        case .schemaWithData(let text, _, .sql(let data)):
            Migration.schemaChecksum(of: text, dataStep: "sql:" + Migration.checksum(of: data))
        }
    }

    /// Feeds what the checksum is computed from (the kind of body, the identifier, the texts) into
    /// `digest`: the start-up digest changes whenever a checksum can (and on edits the checksum
    /// ignores, which only send that start-up the long way).
    func feed(into digest: inout StartupDigest) {
        digest.add(identifier)
        switch body {
        case .sql(let text):
            digest.add(kind: 1)
            digest.add(text)
        case .closure:
            digest.add(kind: 2)
        case .schema(let text, _):
            digest.add(kind: 3)
            digest.add(text)
        case .schemaWithData(let text, _, .closure):
            digest.add(kind: 4)
            digest.add(text)
        case .schemaWithData(let text, _, .sql(let data)):
            digest.add(kind: 5)
            digest.add(text)
            digest.add(data)
        }
    }

    /// The number at the start of the identifier (`"0012_add_email"` → 12), or nil.
    public var number: Int? { Migration.leadingNumber(of: identifier) }

    static func checksum(of text: String) -> String {
        // One pass over the bytes: no BOM, "\r\n" and "\r" as "\n", spaces and tabs before a line
        // end dropped, line ends at the very end dropped.
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        var blanks = [UInt8]()  // spaces and tabs not yet known to stand inside a line
        var newlines = 0  // line ends not yet known to stand before more text
        var bytes = text.utf8[...]
        if bytes.starts(with: SQLiteText.utf8ByteOrderMark) { bytes = bytes.dropFirst(3) }
        var previousWasCR = false
        for byte in bytes {
            defer { previousWasCR = byte == 0x0D }
            switch byte {
            case 0x0A where previousWasCR:
                continue  // the "\n" of "\r\n", counted at its "\r"
            case 0x0A, 0x0D:
                blanks.removeAll(keepingCapacity: true)
                newlines += 1
            case 0x20, 0x09:
                blanks.append(byte)
            default:
                out.append(contentsOf: repeatElement(0x0A, count: newlines))
                out.append(contentsOf: blanks)
                newlines = 0
                blanks.removeAll(keepingCapacity: true)
                out.append(byte)
            }
        }
        return SHA256.hex(SHA256.digest(of: out))
    }

    /// The checksum of a desired schema: SHA-256 of its normalized text (``SQLNormalizer``: the
    /// engine's comparison of SQL, tokens without comments or whitespace, identifiers unquoted and
    /// lowercased, keywords lowercased, literals kept), prefixed by `schema:` in the hashed bytes
    /// so that it never equals a text checksum.
    static func schemaChecksum(of text: String) -> String {
        let normalized = SQLNormalizer.normalize(SQLiteText.droppingByteOrderMark(text))
        return SHA256.hex(SHA256.digest(of: Array(("schema:" + normalized).utf8)))
    }

    /// The checksum of a desired schema with a data step: the normalized schema and `dataStep`
    /// (`closure`, or `sql:` and the data text's checksum), so that an edit of either is one.
    static func schemaChecksum(of text: String, dataStep: String) -> String {
        let normalized = SQLNormalizer.normalize(SQLiteText.droppingByteOrderMark(text))
        return SHA256.hex(SHA256.digest(of: Array(("schema:" + normalized + "\u{0}data:" + dataStep).utf8)))
    }

    /// The checksum as Strata computed it before trailing blanks and final newlines were ignored:
    /// line endings and a byte order mark only. Ledgers written then hold it.
    static func lineEndingChecksum(of text: String) -> String {
        var normalized = text.replacingCRLF()
        if normalized.utf8.starts(with: SQLiteText.utf8ByteOrderMark) { normalized.removeFirst() }
        return SHA256.hexDigest(of: normalized)
    }

    /// True when `recorded`, a checksum in the ledger, is this migration's: computed by the current
    /// rule, or by the earlier one (line endings and byte order mark only) for a ledger written then.
    ///
    /// ```swift
    /// migration.acceptsRecordedChecksum(row.checksum)   // false: edited after it was applied
    /// ```
    public func acceptsRecordedChecksum(_ recorded: String) -> Bool {
        guard let checksum else { return true }
        if recorded == checksum { return true }
        guard let sql else { return false }
        // Only on a mismatch: the earlier rules cost another hash. A desired-schema migration
        // was checksummed on its text before it was on its normalized schema.
        if case .schema = body, recorded == Migration.checksum(of: sql) { return true }
        return recorded == Migration.lineEndingChecksum(of: sql)
    }

    static func leadingNumber(of identifier: String) -> Int? {
        let digits = identifier.prefix(while: { $0.isASCII && $0.isNumber })
        return digits.isEmpty ? nil : Int(digits)
    }
}

extension String {
    func replacingCRLF() -> String {
        // A byte scan: `contains("\r\n")` goes through Foundation's string search, and this runs
        // for every registered migration at every start-up.
        let hasCR = utf8.withContiguousStorageIfAvailable { $0.contains(0x0D) } ?? utf8.contains(0x0D)
        guard hasCR else { return self }
        // "\r\n" is a single Character (a grapheme cluster) in Swift.
        return String(map { $0 == "\r\n" ? "\n" : $0 })
    }
}

/// Reports the progress of a long closure migration to the migrator's event handler.
///
/// ```swift
/// progress.report(completed: done, total: count)
/// ```
public final class MigrationProgress: Sendable {
    /// The identifier of the running migration.
    public let identifier: String
    private let handler: (@Sendable (MigrationEvent) -> Void)?

    init(identifier: String, handler: (@Sendable (MigrationEvent) -> Void)?) {
        self.identifier = identifier
        self.handler = handler
    }

    /// Sends ``MigrationEvent/progress(identifier:completed:total:)`` to the event handler.
    public func report(completed: Int, total: Int) {
        handler?(.progress(identifier: identifier, completed: completed, total: total))
    }
}
