import StrataSchema
import StrataSQLite

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
        // Hashed once here rather than at each status check (a start-up compares every one).
        self.checksum = Migration.checksum(of: sql)
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
        self.checksum = nil
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
    public init(_ identifier: String, reportingProgress migrate: @escaping @Sendable (Database, MigrationProgress) throws -> Void) {
        self.identifier = identifier
        self.body = .closure(migrate)
        self.checksum = nil
    }

    /// A migration written as the desired schema rather than as steps: the declarative engine
    /// plans and applies the changes that bring the database to `schema` (a full set of
    /// `CREATE` statements), inside the migration's transaction. Its checksum is the schema text's.
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
        self.checksum = Migration.checksum(of: schema)
    }

    /// The SQL text of the body, or nil for a closure migration.
    public var sql: String? {
        switch body {
        case .sql(let text), .schema(let text, _): text
        case .closure: nil
        }
    }

    /// The SHA-256 of the body's SQL text (64 hex digits), or nil for a closure migration.
    ///
    /// Line endings are normalized (`\r\n` counts as `\n`) and a leading byte order mark is
    /// ignored, so a checkout that converts line endings does not look like an edit.
    public let checksum: String?

    /// The number at the start of the identifier (`"0012_add_email"` → 12), or nil.
    public var number: Int? { Migration.leadingNumber(of: identifier) }

    static func checksum(of text: String) -> String {
        var normalized = text.replacingCRLF()
        if normalized.utf8.starts(with: [0xEF, 0xBB, 0xBF]) { normalized.removeFirst() }  // a BOM
        return SHA256.hexDigest(of: normalized)
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
