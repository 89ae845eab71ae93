/// One change SQLite reports while a statement runs: a row inserted, updated or deleted.
///
/// ```swift
/// func databaseDidChange(_ event: DatabaseEvent) {
///     if event.table == "player", let id = event.rowID { dirtyPlayers.insert(id) }
/// }
/// ```
///
/// Row-level events come from `sqlite3_update_hook` (<https://www.sqlite.org/c3ref/update_hook.html>),
/// which SQLite does not call in three cases. Strata covers them so a change is never silently
/// missed, but not always row by row:
/// - **WITHOUT ROWID tables**: a statement that writes one is reported once it ends, by one
///   *table-level* event: ``rowID`` is nil and ``kind`` is ``Kind/update`` (the rows are unknown).
/// - **`DELETE FROM t` without WHERE** (the "truncate optimization"): while observers are
///   registered, Strata's authorizer turns the optimization off, so each row is reported.
/// - **Rows deleted by `ON CONFLICT REPLACE`**: not reported; the insert that replaced them is.
///
/// Changes to SQLite's internal tables (`sqlite_sequence`, `sqlite_stat1`) are not reported.
public struct DatabaseEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the row.
    public enum Kind: String, Sendable, Hashable {
        /// A row was inserted.
        case insert
        /// A row was updated (also: some rows of a WITHOUT ROWID table changed, see ``DatabaseEvent/rowID``).
        case update
        /// A row was deleted.
        case delete
    }

    /// What happened.
    public let kind: Kind
    /// The table, as it is spelled in the schema (for a table-level event, lowercased).
    public let table: String
    /// The schema the table is in: `main`, `temp` or the name of an attached database.
    public let databaseName: String
    /// The row's rowid; nil for a table-level event (a WITHOUT ROWID table).
    public let rowID: Int64?

    /// An event from its parts.
    public init(kind: Kind, table: String, databaseName: String = "main", rowID: Int64?) {
        self.kind = kind
        self.table = table
        self.databaseName = databaseName
        self.rowID = rowID
    }

    /// `insert main.player #3`, `update main.tag (table-level)`.
    public var description: String {
        "\(kind) \(databaseName).\(table) " + (rowID.map { "#\($0)" } ?? "(table-level)")
    }
}

/// An object told about the changes made through one connection and about the end of each
/// transaction: for caches, synchronisation, audit logs. ``ValueObservation`` is built on it.
///
/// ```swift
/// final class ChangeLog: TransactionObserver {
///     var pending: [DatabaseEvent] = []
///     var committed: [[DatabaseEvent]] = []
///     func databaseDidChange(_ event: DatabaseEvent) { pending.append(event) }
///     func databaseDidCommit(_ db: Database) { committed.append(pending); pending = [] }
///     func databaseDidRollback(_ db: Database) { pending = [] }
/// }
/// let log = ChangeLog()
/// db.add(transactionObserver: log)
/// try db.execute(sql: "INSERT INTO player(name) VALUES ('Arthur')")   // one transaction
/// ```
///
/// The methods are called on the connection's thread, in this order: ``databaseDidChange(_:)``
/// for each changed row while a statement runs (do not use the connection there), then
/// ``databaseDidCommit(_:)`` once the transaction's COMMIT has completed (the changes are
/// durable and visible to other connections), or ``databaseDidRollback(_:)`` when it was rolled
/// back: its changes were undone and must be forgotten. Changes undone by `ROLLBACK TO` a
/// savepoint were reported and are not taken back: the transaction's end settles them.
/// The connection holds the observer until ``Database/remove(transactionObserver:)``.
public protocol TransactionObserver: AnyObject {
    /// Whether ``databaseDidChange(_:)`` should hear about `event` (default: yes). Commits and
    /// rollbacks are always reported.
    func observes(_ event: DatabaseEvent) -> Bool
    /// A row changed (or, with a nil ``DatabaseEvent/rowID``, rows of a WITHOUT ROWID table).
    /// Called while the statement runs: do not use the connection here.
    func databaseDidChange(_ event: DatabaseEvent)
    /// The transaction that made the reported changes committed. The connection may be read.
    func databaseDidCommit(_ db: Database)
    /// The transaction was rolled back: the reported changes were undone.
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    /// Every event is observed.
    public func observes(_ event: DatabaseEvent) -> Bool { true }
}

extension Database {
    /// Registers `observer`: it hears about every change made through this connection and about
    /// every commit and rollback, until removed. Registering the same object twice has no effect.
    ///
    /// ```swift
    /// let log = ChangeLog()
    /// db.add(transactionObserver: log)
    /// ```
    ///
    /// Only changes made through this connection are seen; with a ``DatabasePool``, register on
    /// the writer (`pool.writeWithoutTransaction { db in db.add(transactionObserver: log) }`),
    /// or use ``ValueObservation``, which does it for you. Registering installs
    /// `sqlite3_update_hook`, `sqlite3_commit_hook`, `sqlite3_rollback_hook` and makes the
    /// connection's authorizer note which tables each statement writes.
    public func add(transactionObserver observer: some TransactionObserver) {
        guard !isClosed, !hooks.observers.contains(where: { $0 === observer }) else { return }
        hooks.database = self
        hooks.observers.append(observer)
        if hooks.observers.count == 1 { installObservationHooks() }
    }

    /// Unregisters `observer`; with no observer left, the hooks are removed. Does nothing for an
    /// observer that was not registered.
    ///
    /// ```swift
    /// db.remove(transactionObserver: log)
    /// ```
    public func remove(transactionObserver observer: some TransactionObserver) {
        guard let index = hooks.observers.firstIndex(where: { $0 === observer }) else { return }
        hooks.observers.remove(at: index)
        if hooks.observers.isEmpty, !isClosed {
            hooks.resetTransaction()
            hooks.isCommitting = false
            hooks.isRollingBack = false
            installObservationHooks()
        }
    }
}
