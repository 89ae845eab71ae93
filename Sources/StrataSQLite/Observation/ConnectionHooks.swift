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
}

extension SQLiteConnection {
    /// The tables the statement just compiled writes, as the authorizer noted them.
    func takeCompiledWrites() -> Set<String> {
        defer {
            authorizer.compiledWrites.removeAll(keepingCapacity: true)
            authorizer.isCompilingDrop = false
        }
        return authorizer.compiledWrites
    }

    /// Called when `statement` stopped stepping while observers are registered. A statement
    /// recompiled while it ran (after a schema change) may write other tables: they are added.
    func statementDidEnd(_ statement: Statement) {
        if !authorizer.compiledWrites.isEmpty { statement.writtenTables.formUnion(takeCompiledWrites()) }
        hooks.database?.statementDidEnd(writing: statement.writtenTables)
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
    /// the update hook cannot see, then a commit or a rollback that happened meanwhile.
    func statementDidEnd(writing tables: Set<String>) {
        let hooks = self.hooks
        guard hooks.isObserving, !hooks.isNotifying else { return }
        hooks.isNotifying = true
        defer { hooks.isNotifying = false }
        if !tables.isEmpty { reportTableLevelChanges(tables) }
        if hooks.isCommitting, isInTransaction {
            // The commit hook ran but the COMMIT failed (SQLITE_BUSY...) and the transaction is
            // still open: nothing is committed yet; its end will be reported.
            hooks.isCommitting = false
        } else if hooks.isCommitting, !hooks.isRollingBack {
            hooks.isCommitting = false
            hooks.changedTables.removeAll()
            for observer in hooks.observers { observer.databaseDidCommit(self) }
        } else if hooks.isRollingBack {
            // Also a commit that failed after the commit hook and was rolled back.
            hooks.isCommitting = false
            hooks.isRollingBack = false
            hooks.changedTables.removeAll()
            for observer in hooks.observers { observer.databaseDidRollback(self) }
        } else if !isInTransaction, !hooks.changedTables.isEmpty {
            // Changes without a commit hook call: an autocommit statement that failed halfway
            // (its changes are undone) or a transaction ended by an error. Nothing was committed.
            hooks.changedTables.removeAll()
            for observer in hooks.observers { observer.databaseDidRollback(self) }
        }
    }

    /// The update hook is not called for WITHOUT ROWID tables: a statement that wrote one (as
    /// the authorizer saw it compile) is reported with a table-level event, whose rowid is nil.
    private func reportTableLevelChanges(_ tables: Set<String>) {
        if tables.contains(AuthorizerState.schemaChange) { hooks.hasRowID.removeAll() }
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
        changedTables.insert(event.table.asciiLowercasedKey)
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
