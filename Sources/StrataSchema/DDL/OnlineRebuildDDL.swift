import StrataSQLite

/// The statements of an online rebuild (`SchemaChangeOptions.online`) beyond those of the offline
/// one: the triggers that log the app's writes to the old table, the copy of one batch of rows,
/// the replay of the log, the check and reconciliation inside the swap, and the progress record.
///
/// ```sql
/// CREATE TABLE "strata_log_00c0ffee00c0ffee" (r INTEGER, d INTEGER)
/// CREATE TRIGGER "strata_mirror_00c0ffee00c0ffee_insert" AFTER INSERT ON "player" BEGIN
///   INSERT INTO "strata_log_00c0ffee00c0ffee" (r, d) VALUES (NEW.rowid, 1);
/// END
/// INSERT OR ABORT INTO "strata_tmp_00c0ffee00c0ffee" (rowid, "id", "name")
///   SELECT rowid, "id", coalesce("name", '') FROM "player" WHERE "player".rowid > ? AND "player".rowid <= ?
/// ```
///
/// **Nothing the new definition enforces touches an app's write.** While the rows are copied,
/// the app writes to the old table under the old schema. Its statements run the three triggers,
/// which only append the rowids they touched to a change log: a table with no constraint, no
/// index and no trigger, so no conflict clause of the app's statement (`OR ABORT`, `OR FAIL`,
/// `OR ROLLBACK`, `OR REPLACE`), no STRICT type, CHECK, NOT NULL, generated column or foreign key
/// of the new definition can fail, change or widen the app's write
/// (<https://www.sqlite.org/lang_createtrigger.html>: a conflict clause on the outer statement
/// overrides the trigger's). And the new table carries no foreign key while it is filled
/// (``stagingCreateSQL``): an app's delete of a parent row, or a change of its key, would
/// otherwise run the new table's `ON DELETE SET NULL`/`CASCADE` on the copies, or be refused by a
/// `NO ACTION`/`RESTRICT` there. The keys are written into the new table's definition inside the
/// swap (``foreignKeyEdit``), where the swap's foreign-key check then judges what the app wrote,
/// exactly as the offline rebuild does.
///
/// Strata's own transactions then bring the new table up to date: each batch first replays the
/// log (``replayDeletesLogged``, ``replayCopiesLogged``: the logged rows the batches already
/// passed are copied again from the old table as they are now; a row that does not fit the new
/// definition stays logged and is tried again, and the swap, which copies the rest with
/// `OR ABORT`, refuses the change if it still does not fit), then copies its range of rows. Rows
/// keep their rowid (the planner offers an online rebuild only then), so a row of the new table
/// is the row of the old one with the same rowid, and the new table only ever holds rows up to
/// the last one the batches copied: a batch appends at the end of its b-tree.
///
/// The log can miss two things: a row SQLite removes to resolve a REPLACE conflict (no DELETE
/// trigger fires), which the swap detects by the row counts and repairs
/// (``removeRowsGoneFromSource``); and every write of a connection that turned triggers off
/// (`SQLITE_DBCONFIG_ENABLE_TRIGGER`), which no trigger can see: such a connection must not write
/// to the table during an online rebuild.
package struct OnlineRebuildDDL: Sendable, Hashable {
    /// The copy of the offline rebuild: the new table, the old one and the column mapping.
    package var copy: RebuildCopyDDL
    /// The name that reads the old table's rowid (`rowid`, `_rowid_` or `oid`).
    package var sourceRowID: String
    /// The name that reads the new table's rowid.
    package var tableRowID: String
    /// The new table's `CREATE TABLE` during the copy, without its foreign keys; nil when it
    /// declares none (the offline statement is used as it is).
    package var stagingCreateSQL: String?
    /// The new table's `CREATE TABLE` with its foreign keys, as a `TEMP` table of the same name:
    /// run inside the swap so that SQLite itself writes the definition it stores, which
    /// ``ForeignKeyEdit`` then puts in `sqlite_master` (set with ``stagingCreateSQL``).
    package var foreignKeyProbeSQL: String?
    /// How many foreign keys the new table declares.
    package var foreignKeyCount = 0

    package init(copy: RebuildCopyDDL, sourceRowID: String, tableRowID: String) {
        self.copy = copy
        self.sourceRowID = sourceRowID
        self.tableRowID = tableRowID
    }

    /// The old table (its live name).
    package var source: String { copy.source }
    /// The new table (its temporary name).
    package var table: String { copy.table }
    /// The change log (`strata_log_` and the temporary table's 16 hex digits).
    package var log: String { Self.logTable(ofTemporaryTable: table) }

    /// The change log's name for the temporary table `table`.
    package static func logTable(ofTemporaryTable table: String) -> String {
        ReservedNames.onlineLogPrefix + table.dropFirst(ReservedNames.rebuildTablePrefix.count)
    }

    /// The log triggers' names (`strata_mirror_...`, the name earlier versions gave the triggers
    /// that mirrored the writes, kept so that every version finds and removes the others').
    package var triggerNames: [String] { Self.triggerNames(ofTemporaryTable: table) }

    /// The log triggers' names for the temporary table `table`: its 16 hex digits name them.
    private static func triggerNames(ofTemporaryTable table: String) -> [String] {
        let suffix = table.dropFirst(ReservedNames.rebuildTablePrefix.count)
        return ["insert", "update", "delete"].map { ReservedNames.mirrorTriggerPrefix + suffix + "_" + $0 }
    }

    private var targets: String { copy.columns.map(\.target.sql).joined(separator: ", ") }
    private var expressions: String { copy.columns.map(\.expression).joined(separator: ", ") }
    private var quotedSource: String { SQL.quoteIdentifier(source) }
    private var quotedTable: String { SQL.quoteIdentifier(table) }
    private var quotedLog: String { SQL.quoteIdentifier(log) }

    /// `INSERT OR <conflict> INTO new (...) SELECT ... FROM old WHERE <condition>`.
    private func insert(_ conflict: String, where condition: String) -> String {
        "INSERT OR \(conflict) INTO \(quotedTable) (\(targets)) SELECT \(expressions) FROM \(quotedSource) WHERE "
            + condition
    }

    /// The change log: the rowid `r` an app's statement touched and `d`, the rows it added (1, an
    /// insert), removed (-1, a delete) or neither (0, both rowids of an update). No constraint,
    /// no index: nothing an app's statement writes there can conflict.
    package var createLog: String { "CREATE TABLE \(quotedLog) (r INTEGER, d INTEGER)" }

    /// The three log triggers, AFTER INSERT, AFTER UPDATE, AFTER DELETE on the old table.
    package var createTriggers: [String] {
        let names = triggerNames.map(SQL.quoteIdentifier)
        let into = "INSERT INTO \(quotedLog) (r, d) VALUES"
        return [
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(quotedSource) BEGIN "
                + "\(into) (NEW.\(sourceRowID), 1); END",
            // An UPDATE may change the rowid: the row under the old one goes away.
            "CREATE TRIGGER \(names[1]) AFTER UPDATE ON \(quotedSource) BEGIN "
                + "\(into) (OLD.\(sourceRowID), 0), (NEW.\(sourceRowID), 0); END",
            "CREATE TRIGGER \(names[2]) AFTER DELETE ON \(quotedSource) BEGIN "
                + "\(into) (OLD.\(sourceRowID), -1); END",
        ]
    }

    /// The progress table's name, quoted for SQL text.
    package static let progressTable = SQL.quoteIdentifier(ReservedNames.onlineProgressTable)
    private var progressTable: String { Self.progressTable }
    private var progressKey: String { "temporary_table = " + SQLValue.text(table).sqlLiteral }

    /// The last rowid the batches copied (NULL before the first batch), from the progress record.
    private var copiedUpTo: String {
        "(SELECT last_rowid FROM \(progressTable) WHERE \(progressKey))"
    }

    /// The rows the log counted coming and going, added to the progress record's `net_rows`
    /// (then the log's counts are zeroed by ``zeroLoggedCounts``, or the log emptied).
    package var foldLoggedCounts: String {
        "UPDATE \(progressTable) SET net_rows = net_rows + (SELECT coalesce(sum(d), 0) FROM \(quotedLog)) "
            + "WHERE \(progressKey)"
    }

    /// The log's counts zeroed, once ``foldLoggedCounts`` added them to the progress record.
    package var zeroLoggedCounts: String { "UPDATE \(quotedLog) SET d = 0 WHERE d <> 0" }

    /// The copies of the logged rows removed from the new table: each is copied again as it is
    /// now (``replayCopiesLogged``), or by a batch, or is gone.
    package var replayDeletesLogged: String {
        "DELETE FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) IN (SELECT r FROM \(quotedLog))"
    }

    /// The logged rows that the batches already passed (rowid up to the progress record's
    /// `last_rowid`) copied again from the old table, as they are now; a later row is left to the
    /// batch that reaches it or to the swap (``catchUpPastCopied``).
    package var replayCopiesLogged: String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        return insert("ABORT", where: "\(rowID) IN (SELECT r FROM \(quotedLog)) AND \(rowID) <= \(copiedUpTo)")
    }

    /// The distinct logged rowids the batches already passed, for a replay row by row when the
    /// whole replay failed on a row that does not fit (it stays logged).
    package var loggedRowIDsCopied: String {
        "SELECT DISTINCT r FROM \(quotedLog) WHERE r <= \(copiedUpTo) ORDER BY r"
    }

    /// The copy of the row `?1` (a replay row by row).
    package var replayCopyOne: String { insert("ABORT", where: "\(quotedSource).\(sourceRowID) = ?1") }

    /// The logged row `?1` removed from the log (a replay row by row copied it).
    package var clearLogged: String { "DELETE FROM \(quotedLog) WHERE r = ?1" }

    /// The logged rows past the last one the batches copied removed from the log: the batch that
    /// reaches them, or the swap, copies them as they are then.
    package var clearLoggedPastCopied: String {
        "DELETE FROM \(quotedLog) WHERE \(copiedUpTo) IS NULL OR r > \(copiedUpTo)"
    }

    /// The log emptied.
    package var clearWholeLog: String { "DELETE FROM \(quotedLog)" }

    /// Inside the swap, after the replay: the rows past the last one the batches copied (appended
    /// by the app after the copy's end, or every row when the table was empty at the start). A
    /// rowid range, so it reads only those rows; the probe per row skips any already there. Then
    /// ``catchUp`` finds nothing left to copy unless the log missed a removal.
    package var catchUpPastCopied: String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        return insert(
            "ABORT",
            where: "\(rowID) >= coalesce((SELECT last_rowid + 1 FROM \(progressTable) WHERE \(progressKey)), "
                + "-9223372036854775808) AND NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE "
                + "\(quotedTable).\(tableRowID) = \(rowID))")
    }

    /// The old table's row count when the log triggers are created (in the same transaction):
    /// the progress record's `start_rows`.
    package var startRowsSQL: String { "SELECT count(*) FROM \(quotedSource)" }

    /// The log triggers dropped (`IF EXISTS`: a cleanup may find some gone).
    package var dropTriggers: [String] { Self.dropTriggers(ofTemporaryTable: table) }

    /// The log triggers of the temporary table `table` dropped, for a cleanup that knows only
    /// the table's name (from a progress record).
    package static func dropTriggers(ofTemporaryTable table: String) -> [String] {
        triggerNames(ofTemporaryTable: table).map { "DROP TRIGGER IF EXISTS " + SQL.quoteIdentifier($0) }
    }

    /// The change log dropped.
    package var dropLog: String { "DROP TABLE IF EXISTS " + quotedLog }

    /// The largest rowid of the old table when the copy starts: the batches stop there, then go
    /// on to the largest rowid at that time, at most three times (the rows the app appended
    /// meanwhile), so that an app that keeps inserting at the end cannot keep the copy chasing
    /// its rows; the swap copies what is left.
    package var copyEndSQL: String { "SELECT max(\(sourceRowID)) FROM \(quotedSource)" }

    /// The rowid that ends the batch after `?1` (from `?1` on, `inclusive`, for the first batch,
    /// which starts at the smallest rowid) of at most `?2` rows of the old table, up to rowid `?3`.
    package func batchEndSQL(inclusive: Bool) -> String {
        "SELECT max(r) FROM (SELECT \(sourceRowID) AS r FROM \(quotedSource) WHERE \(sourceRowID) \(inclusive ? ">=" : ">") ?1 "
            + "AND \(sourceRowID) <= ?3 ORDER BY \(sourceRowID) LIMIT ?2)"
    }

    /// The copy of the rows whose rowid is in (`?1`, `?2`] (`[?1, ?2]`, `inclusive`). The new
    /// table holds no row past the last batch's, so no probe is needed.
    package func batchSQL(inclusive: Bool) -> String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        return insert("ABORT", where: "\(rowID) \(inclusive ? ">=" : ">") ?1 AND \(rowID) <= ?2")
    }

    /// Inside the swap (and in a batch or replay that hit a UNIQUE conflict): the rows of the new
    /// table whose rowid the old table no longer has.
    ///
    /// The log cannot see every removal. A row that the app's `INSERT OR REPLACE` or
    /// `UPDATE OR REPLACE` removes to resolve a UNIQUE conflict fires no DELETE trigger (unless
    /// the app's connection turned `recursive_triggers` on:
    /// <https://www.sqlite.org/lang_conflict.html>), so its copy would stay in the new table,
    /// where it would also hold the unique value of the row that replaced it. So the stale copies
    /// are removed here; then ``catchUp`` copies every row still missing.
    ///
    /// The pass costs a probe per row, so it runs only when needed (``needsReconciliation``):
    /// when the old table's count differs from its count at the start plus the rows the log saw
    /// come and go (a removal the log did not see), or when the new table holds more rows than
    /// the old one. Otherwise every row of the new table came from a row the old table still has.
    package var removeRowsGoneFromSource: String {
        let stale =
            "SELECT \(quotedTable).\(tableRowID) FROM (SELECT 1 WHERE \(needsReconciliation)) CROSS JOIN "
            + "\(quotedTable) WHERE NOT EXISTS (SELECT 1 FROM \(quotedSource) WHERE \(quotedSource).\(sourceRowID) = "
            + "\(quotedTable).\(tableRowID))"
        return "DELETE FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) IN (\(stale))"
    }

    /// True (in SQL) when the swap must reconcile by rowid (see ``removeRowsGoneFromSource``),
    /// once the log's counts are folded into the progress record. An uncorrelated condition in a
    /// one-row subquery joined first (`CROSS JOIN` fixes the order), so that SQLite evaluates it
    /// once and never scans the tables when it is false.
    private var needsReconciliation: String {
        let count = "(SELECT count(*) FROM \(quotedSource))"
        return "(SELECT start_rows + net_rows FROM \(progressTable) WHERE \(progressKey)) IS NOT \(count) "
            + "OR (SELECT count(*) FROM \(quotedTable)) > \(count)"
    }

    /// Inside the swap, last: every row of the old table not in the new one, copied when the
    /// counts differ (the new table's rowids are then a subset of the old one's, so equal counts
    /// mean the same rows).
    package var catchUp: String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        let differ = "(SELECT count(*) FROM \(quotedSource)) IS NOT (SELECT count(*) FROM \(quotedTable))"
        return "INSERT OR ABORT INTO \(quotedTable) (\(targets)) SELECT \(expressions) FROM (SELECT 1 WHERE \(differ)) "
            + "CROSS JOIN \(quotedSource) WHERE NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) = "
            + "\(rowID))"
    }

    /// The swap's statements in place of the offline copy, in order: the log replayed (the copies
    /// of logged rows removed, the counts folded, stale copies removed, the logged rows copied
    /// again), the rows past the copy copied, every row still missing copied, the log dropped.
    package var swapCatchUp: [String] {
        [
            replayDeletesLogged, foldLoggedCounts, removeRowsGoneFromSource, replayCopiesLogged,
            catchUpPastCopied, catchUp, dropLog,
        ]
    }

    /// The progress table, created when missing.
    package static var createProgressTable: String {
        "CREATE TABLE IF NOT EXISTS \(progressTable) ("
            + "temporary_table TEXT PRIMARY KEY, source_table TEXT NOT NULL, plan_identity TEXT NOT NULL, "
            + "phase TEXT NOT NULL, last_rowid INTEGER, end_rowid INTEGER, batches INTEGER NOT NULL DEFAULT 0, "
            + "start_rows INTEGER, net_rows INTEGER NOT NULL DEFAULT 0)"
    }

    /// The progress record of this rebuild removed (in the swap, or by a cleanup).
    package var deleteProgress: String { "DELETE FROM \(progressTable) WHERE \(progressKey)" }

    /// The edit of the new table's stored definition that gives it back its foreign keys inside
    /// the swap, when ``stagingCreateSQL`` left them out (see ``ForeignKeyEdit``).
    package var foreignKeyEdit: ForeignKeyEdit? {
        guard stagingCreateSQL != nil, let foreignKeyProbeSQL else { return nil }
        return ForeignKeyEdit(table: table, probe: foreignKeyProbeSQL, keys: foreignKeyCount)
    }

    /// The new table's foreign keys written into its stored definition inside the swap's
    /// transaction: SQLite writes the definition with the keys for a `TEMP` table of the same name
    /// (created and dropped at once), that text replaces the new table's in `sqlite_master` under
    /// `PRAGMA writable_schema`, then the schema version is raised so that every connection reads
    /// the schema again, as SQLite documents for changing a table's constraints
    /// (<https://www.sqlite.org/lang_altertable.html#otheralter>). Foreign keys live only in that
    /// text (no b-tree, no index depends on them), and the swap's foreign-key check then judges
    /// the rows. The edit checks first that the TEMP table's columns and indexes read as the new
    /// table's, and that it has its keys.
    package struct ForeignKeyEdit: Sendable, Hashable {
        /// The new table (its temporary name).
        package var table: String
        /// ``OnlineRebuildDDL/foreignKeyProbeSQL``.
        package var probe: String
        /// How many foreign keys the table must have after the edit.
        package var keys: Int

        /// The statements as a plan shows them (the text and the version are read when applying).
        package var statements: [String] {
            let name = SQLValue.text(table).sqlLiteral
            return [
                probe,
                "DROP TABLE temp.\(SQL.quoteIdentifier(table))",
                "PRAGMA writable_schema = ON",
                "UPDATE sqlite_master SET sql = /* the text the TEMP table was stored with */ NULL "
                    + "WHERE type = 'table' AND name = \(name)",
                "PRAGMA schema_version = /* the version read before, plus 1 */ 0",
                "PRAGMA writable_schema = RESET",
            ]
        }
    }
}
