import StrataSQLite

extension DatabaseSchema {
    /// The desired schema described by `sql`: CREATE TABLE / INDEX / VIEW / TRIGGER /
    /// VIRTUAL TABLE statements, executed into a scratch in-memory database (SQLite is the
    /// parser) and read back with the same code as a live database.
    ///
    /// `-- @renamed from=OLD` hints are kept on the tables and columns they belong to.
    /// Invalid SQL throws ``SchemaError`` with code ``SchemaError/Code/invalidSQL`` quoting the
    /// statement and SQLite's message; so do a FOREIGN KEY naming a missing table and a view
    /// that does not compile.
    ///
    /// The SQL is untrusted input: each statement is compiled and inspected before it runs, and
    /// anything that does more than create schema objects is refused with the statement named
    /// (a statement other than CREATE, `CREATE TABLE ... AS SELECT`, a temporary object,
    /// `load_extension()` or `fts3_tokenizer()` in an expression), as are Strata's own table
    /// names. The scratch database is hardened and its work bounded (see `ScratchDatabase`).
    ///
    /// ```swift
    /// let desired = try DatabaseSchema(sql: String(contentsOfFile: "schema.sql"))
    /// ```
    public init(sql: String) throws {
        try self.init(sql: sql, functions: [], collations: [])
    }

    /// The desired schema described by `sql`, parsed with Swift SQL functions and collations
    /// registered (see ``init(sql:)``).
    ///
    /// ```swift
    /// let desired = try DatabaseSchema(sql: text, functions: [initials], collations: [localized])
    /// ```
    ///
    /// A schema whose indexes, CHECK constraints, views or triggers use SQL functions or
    /// collations written in Swift needs them here too (SQLite refuses an unknown collation or
    /// function): pass them, or use ``StrataSQLite/Database/planSchemaChange(to:options:)-(String,_)``,
    /// which passes the connection's `Database.registeredFunctions` and
    /// `Database.registeredCollations`. Nothing is evaluated in the scratch
    /// database: it holds no rows.
    public init(sql: String, functions: [DatabaseFunction], collations: [DatabaseCollation]) throws {
        // The result is a pure function of the text, the functions and collations it may name,
        // and this SQLite: a text planned again (a plan, then `migrateSchema`, a data step's
        // second plan) is not executed into a scratch database again.
        let key = DesiredSchemaCache.Key(sql: sql, functions: functions, collations: collations)
        if let hit = DesiredSchemaCache.shared.schema(for: key) {
            self = hit
            return
        }
        let sql = SQLiteText.droppingByteOrderMark(sql)  // as in migration files
        let statements = SQLScript.statements(in: sql)
        // Strict parsing: a mistyped column name in "double quotes" is an error, not a string.
        var configuration = ScratchDatabase.configuration()
        configuration.acceptsDoubleQuotedStringLiterals = false
        configuration.functions = functions
        configuration.collations = collations
        var (scratch, guardian) = try ScratchDatabase.open(configuration)
        defer { scratch.close() }
        do {
            // Each statement's objects are attributed from what the guard saw it create, checked
            // once at the end (one query, not one per statement).
            try Self.create(statements, in: scratch, guardian: guardian, attributingEachStatement: false)
        } catch {
            // Any failure, or anything the batched checks could not attribute: the whole script
            // again on a new scratch database, each statement's objects read back as it runs, so
            // that the error names the first statement at fault exactly as it always did.
            scratch.close()
            (scratch, guardian) = try ScratchDatabase.open(configuration)
            try Self.create(statements, in: scratch, guardian: guardian, attributingEachStatement: true)
        }
        var schema = try DatabaseSchema.read(from: scratch)
        try schema.validateDesired(in: scratch)
        try schema.attachHints(from: statements.filter(\.hasRenameHint))
        DesiredSchemaCache.shared.store(schema, for: key)
        self = schema
    }

    /// Runs the desired schema's statements into `scratch`, each checked, compiled under the guard
    /// and run (see `ScratchGuard.create`), in one transaction.
    ///
    /// With `attributingEachStatement`, the rows of `sqlite_master` each statement added are read
    /// after it runs: a statement that created nothing or an object with a reserved name is
    /// refused, named. Without, the names the guard saw each statement create stand in for that
    /// read, and one read at the end checks them: a statement the guard saw create no new name
    /// (`IF NOT EXISTS` over an existing object), a reserved name or a temporary object throws a
    /// `BatchedCheckFailed`, and the caller runs the script again attributing each statement.
    /// Every other error is the same either way.
    static func create(
        _ statements: [SQLScript.Statement], in scratch: Database, guardian: ScratchGuard,
        attributingEachStatement: Bool
    ) throws {
        var lastRowID: Int64 = 0
        var seenNames = Set<String>()
        // One transaction for the whole script (see SchemaCopy.make).
        try scratch.execute(sql: "BEGIN")
        for (number, statement) in statements.enumerated() {
            func refusal(_ reason: String, _ underlying: SQLiteError? = nil) -> SchemaError {
                SchemaError(
                    code: .invalidSQL,
                    message: "statement \(number + 1) `\(DesiredSchemaText.excerpt(statement.text))`: \(reason)",
                    culprit: "statement \(number + 1)", underlying: underlying)
            }
            let tokens = statement.significantTokens
            guard let first = tokens.first else { continue }
            guard first.isKeyword("CREATE") else {
                throw refusal("a desired schema holds only CREATE statements")
            }
            if CreateTableStatement.isCreateTableAsSelect(tokens) { throw refusal(ScratchGuard.createTableAsSelect) }
            // A feature this SQLite lacks is named, not left to its parser ("near "AS": syntax error").
            if let missing = SchemaStatementChecks.missingFeature(statement.text, tokens, scratch.capabilities) {
                let refused = refusal(missing)
                throw SchemaError(code: .featureUnavailable, message: refused.message, culprit: refused.culprit)
            }
            if let unresolved = try SchemaStatementChecks.unresolvedDoubleQuotedName(
                statement.text, tokens, runtime: scratch.capabilities.version,
                columnsOf: { table in
                    let names = try scratch.fetchColumn(
                        String.self, sql: "SELECT name FROM pragma_table_xinfo(?)", arguments: [table])
                    return names.isEmpty ? nil : names
                })
            {
                throw refusal(unresolved)
            }
            do {
                // Compiled, inspected by the guard, and only then run: a statement that would do
                // more than create schema objects is refused before anything runs.
                try guardian.create(statement.text, in: scratch)
            } catch let error as SQLiteError {
                throw refusal(guardian.refusal ?? error.message, error)
            }
            if !attributingEachStatement {
                // SQLite asks the guard about every object a statement creates as it compiles
                // (and a virtual table's shadow tables as it runs), before it creates it; it asks
                // nothing when IF NOT EXISTS finds an index, trigger or virtual table already
                // there, and asks about a table or view of a name already there. So a statement
                // that created something new named only names never seen before, and at least one.
                let names = guardian.createdNames
                guard !names.isEmpty, names.allSatisfy({ seenNames.insert($0).inserted }) else {
                    throw BatchedCheckFailed()
                }
                continue
            }
            // A statement that created nothing in the main schema would be silently ignored.
            let created = try scratch.fetchAll(
                sql: "SELECT rowid, type, name FROM sqlite_master WHERE rowid > ? ORDER BY rowid",
                arguments: [lastRowID])
            if created.isEmpty {
                // The guard refuses temporary objects as they compile, so none was there before
                // this statement: any now is this statement's.
                let temporary = try scratch.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_temp_master") != 0
                throw refusal(
                    temporary
                        ? ScratchGuard.temporaryObject
                        : "creates nothing: an object of that name already exists (IF NOT EXISTS hides a second definition)"
                )
            }
            lastRowID = try created.last!["rowid"]
            for row in created {
                let name: String = try row["name"]
                if DatabaseSchema.isStrataName(name) {
                    throw refusal(
                        "\(try row["type"] as String) \(name): the name is reserved for Strata's own tables "
                            + "(the strata_migrations ledger, the strata_schema_fingerprint table and strata_tmp_ rebuild tables)"
                    )
                }
            }
        }
        if !attributingEachStatement {
            // The one read that stands in for the per-statement reads: every name the guard saw
            // is in the main schema (but the automatic index of a WITHOUT ROWID table's primary
            // key, which has no row of its own), no object has a reserved name, nothing temporary
            // exists.
            var stored = Set<String>()
            for name in try scratch.fetchColumn(String.self, sql: "SELECT name FROM main.sqlite_master") {
                if DatabaseSchema.isStrataName(name) { throw BatchedCheckFailed() }
                stored.insert(name.asciiLowercased())
            }
            guard seenNames.allSatisfy({ stored.contains($0) || $0.hasPrefix("sqlite_autoindex_") }),
                try scratch.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_temp_master") == 0
            else { throw BatchedCheckFailed() }
        }
        try scratch.execute(sql: "COMMIT")
    }

    /// The batched attribution could not vouch for the script: it is run again statement by statement.
    struct BatchedCheckFailed: Error {}

    /// Checks what SQLite accepts at CREATE time but a desired schema must not hold: a FOREIGN
    /// KEY to a missing table or column, a view that does not compile.
    func validateDesired(in db: Database) throws {
        for table in tables {
            for fk in table.foreignKeys {
                guard let parent = self.table(named: fk.parentTable) else {
                    throw SchemaError(
                        code: .invalidSQL,
                        message: "table \(table.name): FOREIGN KEY (\(fk.columns.joined(separator: ", "))) "
                            + "references missing table \(fk.parentTable)",
                        culprit: table.name)
                }
                for case let column? in fk.parentColumns where parent.column(named: column) == nil && !parent.isVirtual
                {
                    throw SchemaError(
                        code: .invalidSQL,
                        message: "table \(table.name): FOREIGN KEY references missing column "
                            + "\(parent.name).\(column)",
                        culprit: table.name)
                }
            }
        }
        for view in views {
            do {
                _ = try db.makeStatement(sql: "SELECT * FROM \(SQL.quoteIdentifier(view.name)) LIMIT 0")
            } catch let error as SQLiteError {
                throw SchemaError(
                    code: .invalidSQL,
                    message: "view \(view.name) `\(DesiredSchemaText.excerpt(view.sql))`: \(error.message)",
                    culprit: view.name, underlying: error)
            }
        }
    }

    /// Copies `-- @renamed from=` hints from the statements onto the tables and columns they
    /// belong to. The hints are read from the statements' comment tokens (``RenameHint``), in
    /// any letter case; only CREATE TABLE statements (not virtual) carry them.
    mutating func attachHints(from statements: [SQLScript.Statement]) throws {
        for statement in statements {
            if statement.hasRenameHint, VirtualTableArguments.isVirtualTable(statement.text) {
                // A virtual table is not renamed by a hint: ignored, it would be a drop and a create.
                let name = VirtualTableArguments(sql: statement.text).flatMap { $0.name.nameValue } ?? "?"
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "virtual table \(name): `-- @renamed` hints rename ordinary tables only "
                        + "(a virtual table under a new name is dropped and created)",
                    culprit: name)
            }
            guard CreateTableStatement.isCreateTable(statement.significantTokens) else { continue }
            let parsed = try ParseCache.createTable(statement.text)
            if let stray = parsed.unattachedHints.first {
                // Ignored, the rename would be a drop and a create: refused instead.
                throw SchemaError(
                    code: .unresolvedRename,
                    message:
                        "table \(parsed.name): the hint `\(stray.trimmedSQL(" \t\r\n"))` belongs to no table or column: "
                        + "write a table's hint on its CREATE TABLE line, a column's at the end of its line",
                    culprit: parsed.name)
            }
            guard let index = tables.firstIndex(where: { $0.key == parsed.name.asciiLowercased() }) else { continue }
            tables[index].renamedFrom = parsed.renamedFrom
            for definition in parsed.columns where definition.renamedFrom != nil {
                if let c = tables[index].columns.firstIndex(where: {
                    $0.name.asciiCaseInsensitiveEquals(definition.name)
                }) {
                    tables[index].columns[c].renamedFrom = definition.renamedFrom
                }
            }
        }
    }
}

/// Messages about a desired schema's statements.
enum DesiredSchemaText {
    /// The statement shortened for messages: one line, at most 120 characters (read no further).
    static func excerpt(_ sql: String) -> String { SQLiteText.excerpt(sql, limit: 120) }
}

/// Desired schemas already parsed, keyed by everything the result depends on: the text exactly
/// as given, the SQL functions and collations registered for it (a CHECK or an index may name
/// them, and SQLite refuses a non-deterministic function there), and, process-wide, this SQLite
/// library and Strata. Errors are never kept: an invalid text is parsed again, and fails the same
/// way. Bounded: emptied when it holds `limit` schemas; a text over `textLimit` bytes is not kept.
final class DesiredSchemaCache: Sendable {
    /// The cache `DatabaseSchema(sql:functions:collations:)` uses.
    static let shared = DesiredSchemaCache()

    let limit: Int
    let textLimit: Int
    private let schemas = LockedValue([Key: DatabaseSchema]())

    init(limit: Int = 8, textLimit: Int = 4 * 1024 * 1024) {
        self.limit = limit
        self.textLimit = textLimit
    }

    struct Key: Hashable, Sendable {
        var sql: String
        /// Each function's name (lowercased), argument count, determinism and kind; sorted.
        var functions: [String]
        /// Each collation's name (lowercased); sorted.
        var collations: [String]

        init(sql: String, functions: [DatabaseFunction], collations: [DatabaseCollation]) {
            self.sql = sql
            self.functions = functions.map { f in
                "\(f.name.asciiLowercased())/\(f.argumentCount.map(String.init) ?? "*")/"
                    + "\(f.isDeterministic ? "deterministic" : "")/\(f.isAggregate ? "aggregate" : "scalar")"
            }.sorted()
            self.collations = collations.map { $0.name.asciiLowercased() }.sorted()
        }
    }

    func schema(for key: Key) -> DatabaseSchema? {
        guard key.sql.utf8.count <= textLimit else { return nil }
        return schemas.withLock { $0[key] }
    }

    func store(_ schema: DatabaseSchema, for key: Key) {
        guard key.sql.utf8.count <= textLimit else { return }
        schemas.withLock { cache in
            if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
            cache[key] = schema
        }
    }

    var count: Int { schemas.withLock { $0.count } }
}
