import StrataSQLite

/// A condition on the data that a step needs, checked by SQL inside the transaction that applies
/// the step.
///
/// The planner checks the data when it plans (the preflight), but rows can change between planning
/// and applying (another process commits), and a migration file written by `strata new` runs on
/// databases its author never saw. So every data-dependent condition is also part of the step's
/// statements, as a guard that fails the statement (and so rolls back the whole plan or
/// migration) when the data does not hold:
///
/// ```sql
/// CREATE TEMP TABLE "strata_guard" ("c1" INTEGER CONSTRAINT "table task: column id becomes ..." CHECK ("c1"));
/// INSERT INTO temp."strata_guard" SELECT NOT EXISTS (SELECT 1 FROM main."task" WHERE "id" IS NULL);
/// DROP TABLE temp."strata_guard";
/// ```
///
/// SQLite reports the failure as `CHECK constraint failed: table task: column id becomes ...`, so
/// the message reads the same from the applier, the migrator and the `sqlite3` shell. A CHECK
/// constraint is used because plain SQL has no other way to fail on a condition outside a trigger
/// (`RAISE` works only there). See <https://www.sqlite.org/lang_createtable.html#ckconst>.
struct DataGuard: Sendable, Hashable {
    /// What must hold, as the failure message says it (the CHECK constraint's name).
    var message: String
    /// The table the condition is about, as the user names it (the error's culprit).
    var culprit: String
    /// An SQL expression that is 1 when the condition holds, 0 when not (never NULL).
    var holds: String
    /// A query counting the rows that break the condition, for the applier's message.
    var violationCount: String?

    static let tableName = ReservedNames.guardTable
    static let failurePrefix = "CHECK constraint failed: "

    /// The rows of `table` where `column IS NULL` must not exist.
    static func noNulls(in table: String, column: String, message: String, culprit: String) -> DataGuard {
        noRows(
            from: "main.\(SQL.quoteIdentifier(table)) WHERE \(SQL.quoteIdentifier(column)) IS NULL", message: message,
            culprit: culprit)
    }

    /// `table` must have no rows.
    static func empty(_ table: String, message: String, culprit: String) -> DataGuard {
        noRows(from: "main.\(SQL.quoteIdentifier(table))", message: message, culprit: culprit)
    }

    /// `FROM \(from)` must select no row; the violations are counted over the same rows.
    private static func noRows(from: String, message: String, culprit: String) -> DataGuard {
        DataGuard(
            message: message, culprit: culprit, holds: "NOT EXISTS (SELECT 1 FROM \(from))",
            violationCount: "SELECT count(*) FROM \(from)")
    }

    /// `copy` must have as many rows as `source`.
    static func sameRowCount(_ copy: String, as source: String, message: String, culprit: String) -> DataGuard {
        let a = "(SELECT count(*) FROM main.\(SQL.quoteIdentifier(copy)))"
        let b = "(SELECT count(*) FROM main.\(SQL.quoteIdentifier(source)))"
        return DataGuard(message: message, culprit: culprit, holds: "\(a) = \(b)", violationCount: nil)
    }

    /// The statements that check `guards` (none when there are none): a temporary table whose
    /// CHECK constraints are the guards, one row inserted, the table dropped.
    static func statements(_ guards: [DataGuard]) -> [String] {
        guard !guards.isEmpty else { return [] }
        let q = SQL.quoteIdentifier
        let columns = guards.indices.map { i in
            "\(q("c\(i + 1)")) INTEGER CONSTRAINT \(q(guards[i].message)) CHECK (\(q("c\(i + 1)")))"
        }
        return [
            "CREATE TEMP TABLE \(q(tableName)) (\(columns.joined(separator: ", ")))",
            "INSERT INTO temp.\(q(tableName)) SELECT \(guards.map(\.holds).joined(separator: ", "))",
            "DROP TABLE temp.\(q(tableName))",
        ]
    }

    /// The guard among `guards` that SQLite's error message `sqliteMessage` reports as failed.
    static func failed(_ sqliteMessage: String, among guards: [DataGuard]) -> DataGuard? {
        guard sqliteMessage.hasPrefix(failurePrefix) else { return nil }
        let name = sqliteMessage.dropFirst(failurePrefix.count)
        return guards.first { $0.message == name }
    }
}

/// A condition on the data that a table change needs, stated once: the preflight counts the rows
/// that break it when planning, and its ``dataGuard`` checks it again inside the applying
/// transaction (rows may change in between, and a migration file runs on databases never seen).
struct DataCondition {
    enum Kind {
        /// A NOT NULL column without a non-NULL DEFAULT is added (`Planner.needsEmptyTable(adding:to:from:)`,
        /// AddColumnDDL's rule): the table must be empty.
        case addsNotNullColumn
        /// A column becomes the INTEGER PRIMARY KEY: it must hold no NULL (SQLite would give
        /// such a row a new rowid).
        case becomesRowIDAlias
        /// A column without a DEFAULT becomes NOT NULL: it must hold no NULL.
        case becomesNotNull
    }

    let kind: Kind
    /// The desired table and column, as messages name them.
    let table: String
    let column: String
    /// The check on the table as it is when the change runs.
    let dataGuard: DataGuard

    init(kind: Kind, table: String, column: String, in current: TableInfo, currentColumn: String?) {
        self.kind = kind
        self.table = table
        self.column = column
        let message: String
        switch kind {
        case .addsNotNullColumn:
            message = "table \(table): cannot add column \(column) NOT NULL without a DEFAULT to a table with rows"
        case .becomesRowIDAlias:
            message = "table \(table): column \(column) becomes the INTEGER PRIMARY KEY but rows hold NULL"
        case .becomesNotNull:
            message = "table \(table): column \(column) becomes NOT NULL but rows hold NULL and it has no DEFAULT"
        }
        if let currentColumn {
            dataGuard = .noNulls(in: current.name, column: currentColumn, message: message, culprit: table)
        } else {
            dataGuard = .empty(current.name, message: message, culprit: table)
        }
    }

    /// The preflight's message, with the number of rows that break the condition.
    func preflightMessage(violations count: Int) -> String {
        let rows = "\(count) row\(count == 1 ? " holds" : "s hold") NULL"
        switch kind {
        case .addsNotNullColumn:
            return "table \(table): cannot add column \(column) NOT NULL without a DEFAULT: "
                + "the table has \(count) row\(count == 1 ? "" : "s")"
        case .becomesRowIDAlias:
            return "table \(table): column \(column) becomes the INTEGER PRIMARY KEY but \(rows) "
                + "(SQLite would replace it with a new rowid)"
        case .becomesNotNull:
            return "table \(table): column \(column) becomes NOT NULL but \(rows) and it has no DEFAULT"
        }
    }
}
