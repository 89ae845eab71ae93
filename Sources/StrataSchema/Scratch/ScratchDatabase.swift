import StrataSQLite

/// The private in-memory databases the engine runs SQL it did not write in: the desired schema's
/// (SQLite parses the schema file there) and the schema-only copies plans are proven on.
///
/// A desired schema file is untrusted input, and so is the schema of a database file. These
/// connections are hardened so that no such input can run code or hang the tool:
/// - an authorizer (``ScratchGuard``) lets CREATE statements do only what creating schema
///   objects needs: no `CREATE TABLE ... AS SELECT` (it would run a query), no ATTACH, no PRAGMA,
///   no `load_extension()` or `fts3_tokenizer()`;
/// - SQLite's defensive mode and the two-argument `fts3_tokenizer()` off. (`trusted_schema` stays
///   on: SQLite's FTS3/4/5 and R*Tree modules are not marked innocuous, so with it off a view or
///   a trigger over an FTS table could not even be compiled, "unsafe use of virtual table"; and
///   a scratch database holds no rows, so nothing a schema declares is evaluated there anyway.)
/// - bounded work: each statement may run at most ``instructionLimit`` virtual-machine
///   instructions, strings and statements are at most ``lengthLimit`` bytes, the database at most
///   ``maximumPageCount`` pages, and nothing can be attached.
enum ScratchDatabase {
    /// Instructions one statement may run: far above what creating, copying or reading a schema
    /// of thousands of tables needs, about a second of runaway work.
    static let instructionLimit = 100_000_000
    /// The longest string, blob or statement, in bytes.
    static let lengthLimit = 16 * 1024 * 1024
    /// The most pages of the in-memory database (256 MiB at the default 4 KiB page size).
    static let maximumPageCount = 65_536

    /// The hardened configuration of a scratch database; `capabilityLimit` as the live database's.
    static func configuration(capabilityLimit: SQLiteVersion? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.capabilityLimit = capabilityLimit
        configuration.defensive = true
        configuration.fts3TokenizerRegistration = false
        configuration.statementInstructionLimit = instructionLimit
        configuration.limits = [.length: lengthLimit, .sqlLength: lengthLimit, .attached: 0]
        configuration.setupSQL = ["PRAGMA max_page_count = \(maximumPageCount)"]
        configuration.label = "strata.scratch"
        return configuration
    }

    /// Opens a hardened scratch database with its guard installed.
    static func open(_ configuration: Configuration) throws -> (Database, ScratchGuard) {
        let db = try Database(inMemory: configuration)
        let guardian = ScratchGuard()
        db.setAuthorizer { [guardian] request in guardian.decide(request) }
        return (db, guardian)
    }
}

/// The authorizer policy of a ``ScratchDatabase``, in three phases.
///
/// SQLite asks the authorizer about every action of a statement while it *compiles* it (and about
/// the statements virtual table modules compile while they run), never while it processes rows.
/// So a CREATE statement is compiled under ``Phase/compilingCreate``, which allows only what
/// creating schema objects needs, then run under ``Phase/runningCreate``, which allows only what
/// a virtual table module does to set up its shadow tables. See
/// <https://www.sqlite.org/c3ref/set_authorizer.html>.
final class ScratchGuard {
    enum Phase {
        /// Compiling one CREATE statement.
        case compilingCreate
        /// Running a compiled CREATE statement: only CREATE VIRTUAL TABLE compiles more SQL then.
        case runningCreate
        /// Everything else: reading the schema, planning and proving on a copy.
        case planning
    }

    var phase = Phase.planning
    /// Why the last refused request was refused, for the error message.
    private(set) var refusal: String?
    /// The names (ASCII-lowercased) of the objects the last ``create(_:in:)`` was allowed to
    /// create in the main schema, as SQLite asked: while compiling (the table, index, view,
    /// trigger or virtual table) and while running (a virtual table's shadow tables).
    private(set) var createdNames = [String]()

    /// Why `CREATE TABLE ... AS SELECT` is refused.
    static let createTableAsSelect = "CREATE TABLE ... AS SELECT runs a query: declare the table's columns instead"

    /// SQL functions no schema has a use for and that reach outside the database: extensions
    /// (native code) and tokenizers registered from raw pointers.
    static let forbiddenFunctions: Set<String> = ["load_extension", "fts3_tokenizer"]
    /// What SQLite's virtual table modules (FTS3/4/5, R*Tree) ask while they create their shadow
    /// tables: read-only pragmas.
    static let modulePragmas: Set<String> = ["data_version", "page_size", "schema_version", "encoding"]

    /// Compiles `sql` (exactly one statement) under ``Phase/compilingCreate`` and runs it under
    /// ``Phase/runningCreate``. A refusal throws SQLITE_AUTH; ``refusal`` says why.
    func create(_ sql: String, in db: Database) throws {
        refusal = nil
        createdNames.removeAll(keepingCapacity: true)
        phase = .compilingCreate
        defer { phase = .planning }
        let statement: Statement
        do {
            statement = try db.makeStatement(sql: sql)
        } catch let error as SQLiteError where error.resultCode == .SQLITE_MISUSE && refusal == nil {
            refusal = "holds more than one statement"
            throw error
        }
        phase = .runningCreate
        try statement.execute(arguments: StatementArguments())
    }

    func decide(_ r: Database.AuthorizationRequest) -> Database.AuthorizationDecision {
        switch phase {
        case .compilingCreate: return compiling(r)
        case .runningCreate: return running(r)
        case .planning: return planning(r)
        }
    }

    private func refuse(_ reason: String) -> Database.AuthorizationDecision {
        if refusal == nil { refusal = reason }
        return .deny
    }

    private static func isSchemaTable(_ name: String?) -> Bool {
        guard let name = name?.asciiLowercased() else { return false }
        return name == "sqlite_master" || name == "sqlite_schema"
    }

    static let temporaryObject = "creates a temporary object, which is not part of a database schema"

    private func compiling(_ r: Database.AuthorizationRequest) -> Database.AuthorizationDecision {
        if r.database?.asciiLowercased() == "temp" { return refuse(Self.temporaryObject) }
        switch r.action {
        case .createTable, .createIndex, .createView, .createTrigger, .createVirtualTable:
            return inMainSchema(r)
        case .createTempTable, .createTempIndex, .createTempView, .createTempTrigger:
            return refuse(Self.temporaryObject)
        case .insert, .update:
            // SQLite records the new object in sqlite_schema with a nested INSERT and UPDATE.
            return Self.isSchemaTable(r.first) ? .allow : refuse("writes rows into \(r.first ?? "a table")")
        case .read, .reindex:
            // Column references of CHECK constraints, index expressions and generated columns are
            // resolved (not evaluated); a new index is filled from its table, empty here.
            return .allow
        case .function:
            // Functions are resolved here, not called: nothing is evaluated while a schema is
            // created in an empty database (CREATE TABLE ... AS SELECT is refused below).
            return function(r)
        case .select, .recursive:
            // The root cause, whatever else the query was refused for.
            refusal = nil
            return refuse(Self.createTableAsSelect)
        default:
            return refuse("does more than create a schema object (\(r.action) \(r.first ?? ""))")
        }
    }

    private func running(_ r: Database.AuthorizationRequest) -> Database.AuthorizationDecision {
        switch r.action {
        case .createTable, .createIndex:
            return inMainSchema(r)
        case .insert, .update, .delete, .read, .select, .reindex:
            return .allow
        case .function:
            return function(r)
        case .pragma where r.second == nil && Self.modulePragmas.contains(r.first?.asciiLowercased() ?? ""):
            return .allow
        default:
            return refuse(
                "its virtual table module asked for more than creating its tables (\(r.action) \(r.first ?? ""))")
        }
    }

    /// A function may be named, but not one that reaches outside SQL (the same rule in every phase).
    private func function(_ r: Database.AuthorizationRequest) -> Database.AuthorizationDecision {
        let name = r.second?.asciiLowercased() ?? ""
        return Self.forbiddenFunctions.contains(name) ? refuse("calls \(name)(), which a schema may not use") : .allow
    }

    /// Objects are created in the main schema only.
    private func inMainSchema(_ r: Database.AuthorizationRequest) -> Database.AuthorizationDecision {
        guard r.database?.asciiLowercased() == "main" else {
            return refuse("creates an object outside the main schema")
        }
        createdNames.append(r.first?.asciiLowercased() ?? "")
        return .allow
    }

    private func planning(_ r: Database.AuthorizationRequest) -> Database.AuthorizationDecision {
        switch r.action {
        case .attach, .detach:
            return refuse("attaches a database")
        case .function:
            return function(r)
        case .pragma where r.first?.asciiLowercased() == "writable_schema":
            return refuse("uses PRAGMA writable_schema")
        default:
            return .allow
        }
    }
}
