import CSQLite

/// The per-connection state of the observation hooks: transaction observers with the changes of
/// the open transaction, the statement tracer, and the registered functions and collations.
///
/// It lives as long as its ``SQLiteConnection`` and is the context pointer of the C callbacks
/// (`sqlite3_update_hook`, `sqlite3_commit_hook`, `sqlite3_rollback_hook`, `sqlite3_trace_v2`),
/// which are only ever called on the thread using the connection.
final class ConnectionHooks {
    /// The observers, in registration order.
    var observers: [any TransactionObserver] = []
    /// Set by the commit hook: the transaction is committing; reported once the statement ends.
    var isCommitting = false
    /// Set by the rollback hook; reported once the statement ends.
    var isRollingBack = false
    /// Tables changed by the open transaction (lowercased names), for table-level observers.
    var changedTables: Set<String> = []
    /// True while observers are being notified (their own statements are not reported again).
    var isNotifying = false
    /// Tables known to have a rowid (true) or not (false), by lowercased name; cleared by DDL.
    var hasRowID: [String: Bool] = [:]
    /// The columns of each rowid table whose UPDATE may move a row to another rowid (its
    /// primary key columns and the rowid's own names), by lowercased name; cleared by DDL.
    var rowIDColumns: [String: Set<String>] = [:]
    /// Rows the update hook reported since the last statement ended, by lowercased table.
    var pendingRows: [String: PendingRows] = [:]
    /// What the open transaction changed (rows, columns), for ``ValueObservation``.
    var transactionChanges = DatabaseChanges()
    /// What the transaction being reported as committed changed: read by the observers'
    /// `databaseDidCommit`.
    var committedChanges = DatabaseChanges()
    /// What the schema allows, read once per transaction (nil until needed).
    var schemaFacts: SchemaFacts?
    /// The last facts read, with the `schema_version` they were read at.
    var lastSchemaFacts: (Int, SchemaFacts)?
    /// The statement tracer of ``Database/trace(options:_:)``.
    var tracer: ((TraceEvent) -> Void)?
    /// Whether ``tracer`` receives expanded SQL (bound values inlined).
    var tracesExpandedSQL = false
    /// Functions registered on the connection, by `name/argumentCount`, for copies of the schema.
    var functions: [String: DatabaseFunction] = [:]
    /// Collations registered on the connection, by lowercased name.
    var collations: [String: DatabaseCollation] = [:]

    /// The connection's `Database`, for the observers' commit and rollback calls (set when the
    /// first observer is added; weak: the `Database` owns the connection).
    weak var database: Database?

    var isObserving: Bool { !observers.isEmpty }

    /// The rows of one table the update hook reported while a statement ran.
    struct PendingRows {
        /// An insert or a delete (all columns count), or a table-level event.
        var hasInsertOrDelete = false
        /// Nil when a table-level event came, or too many rows.
        var rowIDs: Set<Int64>? = []
    }

    /// Schema features that hide changes from the update hook, which then cannot be narrowed
    /// to rows or columns (SQLite's text is searched: a false match only costs a fetch).
    struct SchemaFacts {
        /// Some table or trigger mentions REPLACE: rows deleted by `ON CONFLICT REPLACE` are not
        /// reported ("the update hook is not invoked when conflicting rows are deleted because
        /// of an ON CONFLICT REPLACE clause", https://www.sqlite.org/c3ref/update_hook.html).
        var mayReplace: Bool
        /// Some foreign key has an action (CASCADE, SET NULL, SET DEFAULT): the columns it
        /// writes are not reported to the authorizer.
        var hasForeignKeyActions: Bool
    }

    /// Forgets what the open transaction changed.
    func resetTransaction() {
        changedTables.removeAll()
        pendingRows.removeAll()
        transactionChanges = DatabaseChanges()
        schemaFacts = nil
    }
}

extension SQLiteConnection {
    /// The tables the statement just compiled writes and the columns its UPDATEs write, as the
    /// authorizer noted them.
    func takeCompiledWrites() -> (tables: Set<String>, updates: [String: Set<String>]) {
        defer {
            authorizer.compiledWrites.removeAll(keepingCapacity: true)
            authorizer.compiledUpdates.removeAll(keepingCapacity: true)
            authorizer.isCompilingDrop = false
        }
        return (authorizer.compiledWrites, authorizer.compiledUpdates)
    }

    /// Called when `statement` stopped stepping while observers are registered. A statement
    /// recompiled while it ran (after a schema change) may write other tables: they are added.
    func statementDidEnd(_ statement: Statement) {
        if !authorizer.compiledWrites.isEmpty {
            let (tables, updates) = takeCompiledWrites()
            statement.writtenTables.formUnion(tables)
            statement.updatedColumns.merge(updates) { $0.union($1) }
        }
        hooks.database?.statementDidEnd(statement)
    }
}

extension Database {
    /// The hooks of this connection.
    var hooks: ConnectionHooks { connection.hooks }

    /// Installs or removes the update, commit and rollback hooks and the write tracking of the
    /// authorizer, depending on whether any observer is registered.
    func installObservationHooks() {
        let on = hooks.isObserving
        let context = on ? Unmanaged.passUnretained(hooks).toOpaque() : nil
        // https://www.sqlite.org/c3ref/update_hook.html
        sqlite3_update_hook(
            handle,
            on
                ? { context, operation, database, table, rowID in
                    guard let context, let table else { return }
                    let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
                    let kind: DatabaseEvent.Kind
                    switch operation {
                    case SQLITE_INSERT: kind = .insert
                    case SQLITE_DELETE: kind = .delete
                    default: kind = .update
                    }
                    hooks.record(
                        DatabaseEvent(
                            kind: kind, table: String(cString: table),
                            databaseName: database.map { String(cString: $0) } ?? "main", rowID: rowID))
                } : nil,
            context)
        // "If the callback on a commit hook function returns non-zero, then the COMMIT is
        // converted into a ROLLBACK." The commit is not complete yet when the hook runs: observers
        // are told once the statement that committed has finished. https://www.sqlite.org/c3ref/commit_hook.html
        sqlite3_commit_hook(
            handle,
            on
                ? { context in
                    guard let context else { return 0 }
                    Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue().isCommitting = true
                    return 0
                } : nil,
            context)
        sqlite3_rollback_hook(
            handle,
            on
                ? { context in
                    guard let context else { return }
                    Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue().isRollingBack = true
                } : nil,
            context)
        connection.authorizer.tracksWrites = on
        installAuthorizer()
    }

    /// Called after a statement stopped stepping (done, failed, or reset): reports the changes
    /// the update hook cannot see, folds the rows it reported into the transaction's changes,
    /// then reports a commit or a rollback that happened meanwhile.
    func statementDidEnd(_ statement: Statement) {
        let hooks = self.hooks
        guard hooks.isObserving, !hooks.isNotifying else { return }
        hooks.isNotifying = true
        defer { hooks.isNotifying = false }
        let tables = statement.writtenTables
        if !tables.isEmpty { reportTableLevelChanges(tables) }
        if tables.contains(AuthorizerState.schemaChange) { hooks.transactionChanges.isSchemaChanged = true }
        if !hooks.pendingRows.isEmpty { foldPendingRows(of: statement) }
        if hooks.isCommitting, isInTransaction {
            // The commit hook ran but the COMMIT failed (SQLITE_BUSY...) and the transaction is
            // still open: nothing is committed yet; its end will be reported.
            hooks.isCommitting = false
        } else if hooks.isCommitting, !hooks.isRollingBack {
            hooks.isCommitting = false
            hooks.committedChanges = hooks.transactionChanges
            hooks.resetTransaction()
            for observer in hooks.observers { observer.databaseDidCommit(self) }
            hooks.committedChanges = DatabaseChanges()
        } else if hooks.isRollingBack {
            // Also a commit that failed after the commit hook and was rolled back.
            hooks.isCommitting = false
            hooks.isRollingBack = false
            hooks.resetTransaction()
            for observer in hooks.observers { observer.databaseDidRollback(self) }
        } else if !isInTransaction, !hooks.changedTables.isEmpty || !hooks.transactionChanges.isEmpty {
            // Changes without a commit hook call: an autocommit statement that failed halfway
            // (its changes are undone) or a transaction ended by an error. Nothing was committed.
            hooks.resetTransaction()
            for observer in hooks.observers { observer.databaseDidRollback(self) }
        } else if !isInTransaction {
            hooks.schemaFacts = nil
        }
    }

    /// Turns the rows the update hook reported while `statement` ran into the transaction's
    /// changes. An UPDATE is narrowed to the columns its SET clauses (and its triggers') write,
    /// as the authorizer reported them; an INSERT or DELETE writes every column. Precision is
    /// dropped where the hooks cannot see everything: rows when REPLACE may delete rows
    /// silently or an UPDATE writes the primary key (the row may move to another rowid);
    /// columns when a foreign key action may write columns the authorizer is not told about,
    /// or when another writing statement is still running (its rows are mixed with these).
    private func foldPendingRows(of statement: Statement) {
        let hooks = self.hooks
        let pending = hooks.pendingRows
        hooks.pendingRows.removeAll()
        let facts = schemaFacts()
        let nested = isAnotherWritingStatementBusy(than: statement)
        let statementMayReplace = statement.sql.range(of: "replace", options: .caseInsensitive) != nil
        for (table, rows) in pending {
            var columns: Set<String>? = nil
            var rowIDs = rows.rowIDs
            if !rows.hasInsertOrDelete, !nested, !facts.hasForeignKeyActions,
                let written = statement.updatedColumns[table]
            {
                columns = written
                if !written.isDisjoint(with: rowIDColumns(of: table)) { rowIDs = nil }
            }
            if nested || facts.mayReplace || statementMayReplace { rowIDs = nil }
            hooks.transactionChanges.insert(table, columns: columns, rowIDs: rowIDs)
        }
    }

    /// Whether a statement other than `statement` that writes is in the middle of a run on
    /// this connection (a function or an observer running SQL while it steps).
    private func isAnotherWritingStatementBusy(than statement: Statement) -> Bool {
        var next = sqlite3_next_stmt(handle, nil)
        while let current = next {
            if current != statement.handle, sqlite3_stmt_busy(current) != 0, sqlite3_stmt_readonly(current) == 0 {
                return true
            }
            next = sqlite3_next_stmt(handle, current)
        }
        return false
    }

    /// What the schema allows, read once per transaction (a schema change by another connection
    /// cannot happen while this one writes).
    private func schemaFacts() -> ConnectionHooks.SchemaFacts {
        if let known = hooks.schemaFacts { return known }
        // Kept across transactions while the schema cookie stays the same (another connection's
        // schema change bumps it). https://www.sqlite.org/pragma.html#pragma_schema_version
        let version = try? fetchValue(Int.self, sql: "PRAGMA schema_version")
        if let version, let (known, facts) = hooks.lastSchemaFacts, known == version {
            hooks.schemaFacts = facts
            return facts
        }
        // A failed query counts as "yes": precision is dropped, never a change.
        let replace = try? fetchValue(
            Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'trigger') AND sql LIKE ?",
            arguments: ["%replace%"])
        let actions = try? fetchValue(
            Int.self,
            sql: """
                SELECT count(*) FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f
                WHERE m.type = 'table' AND (upper(f.on_update) NOT IN ('NO ACTION', 'RESTRICT')
                    OR upper(f.on_delete) NOT IN ('NO ACTION', 'RESTRICT'))
                """)
        let facts = ConnectionHooks.SchemaFacts(
            mayReplace: replace != 0, hasForeignKeyActions: actions != 0)
        hooks.schemaFacts = facts
        hooks.lastSchemaFacts = version.map { ($0, facts) }
        return facts
    }

    /// The columns of `table` whose UPDATE may give a row another rowid: the primary key
    /// columns and the rowid's own names (cached until the next schema change).
    private func rowIDColumns(of table: String) -> Set<String> {
        if let known = hooks.rowIDColumns[table] { return known }
        var names: Set<String> = ["rowid", "oid", "_rowid_"]
        if let columns = try? fetchAll(sql: "PRAGMA table_info(\(SQLLiteral.quote(identifier: table)))") {
            for column in columns {
                let pk: Int = (try? column["pk"]) ?? 0
                if pk > 0, let name: String = try? column["name"] { names.insert(name.asciiLowercasedKey) }
            }
        }
        hooks.rowIDColumns[table] = names
        return names
    }

    /// The update hook is not called for WITHOUT ROWID tables: a statement that wrote one (as
    /// the authorizer saw it compile) is reported with a table-level event, whose rowid is nil.
    private func reportTableLevelChanges(_ tables: Set<String>) {
        if tables.contains(AuthorizerState.schemaChange) {
            hooks.hasRowID.removeAll()
            hooks.rowIDColumns.removeAll()
            hooks.schemaFacts = nil
            hooks.lastSchemaFacts = nil
        }
        for table in tables where table != AuthorizerState.schemaChange && !hooks.changedTables.contains(table) {
            guard let hasRowID = rowIDStatus(of: table), !hasRowID else { continue }
            hooks.record(DatabaseEvent(kind: .update, table: table, databaseName: "main", rowID: nil))
        }
    }

    /// Whether `table` has a rowid (cached until the next schema change on this connection);
    /// nil when it is no table (a view written through a trigger: the trigger's writes count).
    private func rowIDStatus(of table: String) -> Bool? {
        if let known = hooks.hasRowID[table] { return known }
        guard let columns = try? fetchAll(sql: "PRAGMA table_info(\(SQLLiteral.quote(identifier: table)))"),
            !columns.isEmpty
        else { return nil }
        let names: [String] = columns.compactMap { try? $0["name"] }
        // A rowid table answers to at least one of the rowid's names that no column shadows; a
        // table whose columns shadow all three is taken for WITHOUT ROWID (reported table-level).
        let status =
            ((try? hiddenRowIDName(quotedTable: SQLLiteral.quote(identifier: table), columns: names)) ?? nil) != nil
        hooks.hasRowID[table] = status
        return status
    }
}

extension ConnectionHooks {
    /// One changed row (or table) reported by SQLite: remembered for the commit, passed on.
    func record(_ event: DatabaseEvent) {
        let key = event.table.asciiLowercasedKey
        changedTables.insert(key)
        var rows = pendingRows[key] ?? PendingRows()
        if event.kind != .update || event.rowID == nil { rows.hasInsertOrDelete = true }
        if let rowID = event.rowID, rows.rowIDs != nil {
            rows.rowIDs?.insert(rowID)
            if (rows.rowIDs?.count ?? 0) > DatabaseChanges.rowIDLimit { rows.rowIDs = nil }
        } else {
            rows.rowIDs = nil
        }
        pendingRows[key] = rows
        for observer in observers where observer.observes(event) { observer.databaseDidChange(event) }
    }
}

extension String {
    /// The key a table is tracked by: its name, ASCII-lowercased (SQLite's names are case-insensitive).
    var asciiLowercasedKey: String {
        if !utf8.contains(where: { $0 >= 65 && $0 <= 90 }) { return self }
        return String(decoding: utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
