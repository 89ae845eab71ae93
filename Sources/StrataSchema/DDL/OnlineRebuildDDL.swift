import StrataSQLite

/// The statements of an online rebuild (`SchemaChangeOptions.online`) beyond those of the offline
/// one: the triggers that mirror the app's writes to the old table into the new one, the copy of
/// one batch of rows, the check and reconciliation inside the swap, and the progress record.
///
/// ```sql
/// CREATE TRIGGER "strata_mirror_00c0ffee00c0ffee_insert" AFTER INSERT ON "player" BEGIN
///   DELETE FROM "strata_tmp_00c0ffee00c0ffee" WHERE rowid = NEW.rowid;
///   INSERT OR IGNORE INTO "strata_tmp_00c0ffee00c0ffee" (rowid, "id", "name")
///     SELECT rowid, "id", coalesce("name", '') FROM "player" WHERE "player".rowid = NEW.rowid
///       AND NEW.rowid <= (SELECT last_rowid FROM "strata_online_rebuild" WHERE temporary_table = '...');
///   UPDATE "strata_online_rebuild" SET net_rows = net_rows + 1 WHERE temporary_table = 'strata_tmp_00c0ffee00c0ffee';
/// END
/// INSERT OR ABORT INTO "strata_tmp_00c0ffee00c0ffee" (rowid, "id", "name")
///   SELECT rowid, "id", coalesce("name", '') FROM "player" WHERE "player".rowid > ? AND "player".rowid <= ?
/// ```
///
/// Rows keep their rowid (the planner offers an online rebuild only then), so a row of the new
/// table is the row of the old one with the same rowid. The mirror writes only rows the batches
/// already passed (rowid up to the progress record's `last_rowid`); a later row is left to the
/// batch that reaches it or to the swap (``catchUpPastCopied``), which read it as it is then. So
/// the app's rows appended past the copy never sit at the end of the new table's b-tree while
/// the batches fill it: every batch appends there (measured: a copy about 1.2× slower, and 5 %
/// more pages, with one row past it). The mirror reads the row back from the
/// old table by rowid with the copy's own column mapping (the same expressions as
/// ``RebuildCopyDDL``), so it always writes the newest version; a batch whose rowids the mirror
/// already wrote into skips those rows (`NOT EXISTS`, a probe per row, only then), and fails
/// (`OR ABORT`) on a row that does not fit the new definition. The mirror's `INSERT OR IGNORE`
/// never fails an app's write for a row that does not fit: the row is left out, and the swap's
/// catch-up refuses the change. (A conflict clause on the app's own statement, `INSERT OR
/// REPLACE`, overrides the mirror's, as SQLite specifies for trigger bodies:
/// <https://www.sqlite.org/lang_createtrigger.html>.)
///
/// The mirror can miss two things: a row SQLite removes to resolve a REPLACE conflict (no
/// DELETE trigger fires), which the swap detects by the row counts and repairs
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

    /// The new table's foreign keys that the mirror checks before it writes a row: see
    /// ``ParentCheck``.
    package var parentChecks: [ParentCheck] = []

    /// A foreign key of the new table, checked by the mirror before it copies a row. During the
    /// copy the new table's `REFERENCES` are live: with `foreign_keys` on, an app's write to the old
    /// table whose copy would break one would fail (foreign-key errors ignore the mirror's
    /// `OR IGNORE`). So the mirror leaves such a row out instead (`nil` parent columns when the
    /// parent table does not exist yet: any row whose key is not NULL); the swap's catch-up copies
    /// it with the foreign keys off, and the swap's foreign-key check of the touched tables then
    /// refuses the change if the row still has no parent. The app's write always succeeds.
    package struct ParentCheck: Sendable, Hashable {
        /// The positions in ``RebuildCopyDDL/columns`` of the child columns.
        package var positions: [Int]
        package var parentTable: String
        /// The parent key's columns, in the order of `positions`; nil when the parent is missing.
        package var parentColumns: [String]?

        package init(positions: [Int], parentTable: String, parentColumns: [String]?) {
            self.positions = positions
            self.parentTable = parentTable
            self.parentColumns = parentColumns
        }
    }

    package init(copy: RebuildCopyDDL, sourceRowID: String, tableRowID: String, parentChecks: [ParentCheck] = []) {
        self.copy = copy
        self.sourceRowID = sourceRowID
        self.tableRowID = tableRowID
        self.parentChecks = parentChecks
    }

    /// The old table (its live name).
    package var source: String { copy.source }
    /// The new table (its temporary name).
    package var table: String { copy.table }

    /// The mirror triggers' names.
    package var triggerNames: [String] { Self.triggerNames(ofTemporaryTable: table) }

    /// The mirror triggers' names for the temporary table `table`: its 16 hex digits name them.
    private static func triggerNames(ofTemporaryTable table: String) -> [String] {
        let suffix = table.dropFirst(ReservedNames.rebuildTablePrefix.count)
        return ["insert", "update", "delete"].map { ReservedNames.mirrorTriggerPrefix + suffix + "_" + $0 }
    }

    private var targets: String { copy.columns.map(\.target.sql).joined(separator: ", ") }
    private var expressions: String { copy.columns.map(\.expression).joined(separator: ", ") }
    private var quotedSource: String { SQL.quoteIdentifier(source) }
    private var quotedTable: String { SQL.quoteIdentifier(table) }

    /// `INSERT OR <conflict> INTO new (...) SELECT ... FROM old WHERE <condition>`.
    private func insert(_ conflict: String, where condition: String) -> String {
        "INSERT OR \(conflict) INTO \(quotedTable) (\(targets)) SELECT \(expressions) FROM \(quotedSource) WHERE "
            + condition
    }

    private func deleteNew(rowID: String) -> String {
        "DELETE FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) = \(rowID)"
    }

    /// The mirror's copy of the row `NEW.rowid`: through a derived table whose columns the
    /// ``parentChecks`` test, when there are any.
    private var mirrorCopy: String {
        // Only a row the batches already passed: a later one is copied by a batch or the swap
        // (``catchUpPastCopied``), so the copy appends at the end of the new table's b-tree.
        let row = "\(quotedSource).\(sourceRowID) = NEW.\(sourceRowID) AND NEW.\(sourceRowID) <= \(copiedUpTo)"
        guard !parentChecks.isEmpty else { return insert("IGNORE", where: row) }
        let alias = { (i: Int) in "\"strata_row\".\"c\(i)\"" }
        let aliased = copy.columns.enumerated().map { "\($1.expression) AS \"c\($0)\"" }.joined(separator: ", ")
        let conditions = parentChecks.map { check -> String in
            let anyNull = check.positions.map { "\(alias($0)) IS NULL" }.joined(separator: " OR ")
            guard let parentColumns = check.parentColumns else { return "(\(anyNull))" }
            let parent = SQL.quoteIdentifier(check.parentTable)
            let match = zip(parentColumns, check.positions).map {
                "\(parent).\(SQL.quoteIdentifier($0)) = \(alias($1))"
            }
            return "(\(anyNull) OR EXISTS (SELECT 1 FROM \(parent) WHERE \(match.joined(separator: " AND "))))"
        }
        return "INSERT OR IGNORE INTO \(quotedTable) (\(targets)) SELECT "
            + copy.columns.indices.map(alias).joined(separator: ", ")
            + " FROM (SELECT \(aliased) FROM \(quotedSource) WHERE \(row)) AS \"strata_row\" WHERE "
            + conditions.joined(separator: " AND ")
    }

    /// The three mirror triggers, AFTER INSERT, AFTER UPDATE, AFTER DELETE on the old table. The
    /// INSERT and DELETE ones also count the rows they see come and go in the progress record
    /// (`net_rows`): see ``removeRowsGoneFromSource``.
    package var createTriggers: [String] {
        let names = triggerNames.map(SQL.quoteIdentifier)
        let copyNew = mirrorCopy
        return [
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(quotedSource) BEGIN "
                + "\(deleteNew(rowID: "NEW.\(sourceRowID)")); \(copyNew); \(countRows(by: 1)); END",
            // An UPDATE may change the rowid: the row under the old one goes away.
            "CREATE TRIGGER \(names[1]) AFTER UPDATE ON \(quotedSource) BEGIN "
                + "\(deleteNew(rowID: "OLD.\(sourceRowID)")); \(deleteNew(rowID: "NEW.\(sourceRowID)")); "
                + "\(copyNew); END",
            "CREATE TRIGGER \(names[2]) AFTER DELETE ON \(quotedSource) BEGIN "
                + "\(deleteNew(rowID: "OLD.\(sourceRowID)")); \(countRows(by: -1)); END",
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

    /// Inside the swap, after ``removeRowsGoneFromSource``: the rows past the last one the
    /// batches copied (appended by the app after the copy's end, or every row when the table was
    /// empty at the start), which the mirror leaves to the copy. A rowid range, so it reads only
    /// those rows; the probe per row skips any a mirror that copied every row (a run resumed from
    /// an earlier version) already wrote. Then ``catchUp`` finds nothing left to copy unless the
    /// mirror missed a removal.
    package var catchUpPastCopied: String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        return insert(
            "ABORT",
            where: "\(rowID) >= coalesce((SELECT last_rowid + 1 FROM \(progressTable) WHERE \(progressKey)), "
                + "-9223372036854775808) AND NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE "
                + "\(quotedTable).\(tableRowID) = \(rowID))")
    }

    private func countRows(by delta: Int) -> String {
        "UPDATE \(progressTable) SET net_rows = net_rows + \(delta) WHERE \(progressKey)"
    }

    /// The old table's row count when the mirror triggers are created (in the same transaction):
    /// the progress record's `start_rows`.
    package var startRowsSQL: String { "SELECT count(*) FROM \(quotedSource)" }

    /// True when the mirror wrote a row of the batch `[?1, ?2]` (from `?1` excluded unless
    /// `inclusive`): one probe of the new table, so that a batch the mirror never touched is
    /// copied without a probe per row.
    package func batchHasMirroredRowsSQL(inclusive: Bool) -> String {
        "SELECT EXISTS (SELECT 1 FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) \(inclusive ? ">=" : ">") ?1 "
            + "AND \(quotedTable).\(tableRowID) <= ?2)"
    }

    /// The mirror triggers dropped (`IF EXISTS`: a cleanup may find some gone).
    package var dropTriggers: [String] { Self.dropTriggers(ofTemporaryTable: table) }

    /// The mirror triggers of the temporary table `table` dropped, for a cleanup that knows only
    /// the table's name (from a progress record).
    package static func dropTriggers(ofTemporaryTable table: String) -> [String] {
        triggerNames(ofTemporaryTable: table).map { "DROP TRIGGER IF EXISTS " + SQL.quoteIdentifier($0) }
    }

    /// The largest rowid of the old table when the copy starts: the batches stop there, then go
    /// on to the largest rowid at that time, at most three times (the rows the app appended
    /// meanwhile, which the mirror leaves to the copy), so that an app that keeps inserting at the
    /// end cannot keep the copy chasing its rows; the swap copies what is left.
    package var copyEndSQL: String { "SELECT max(\(sourceRowID)) FROM \(quotedSource)" }

    /// The rowid that ends the batch after `?1` (from `?1` on, `inclusive`, for the first batch,
    /// which starts at the smallest rowid) of at most `?2` rows of the old table, up to rowid `?3`.
    package func batchEndSQL(inclusive: Bool) -> String {
        "SELECT max(r) FROM (SELECT \(sourceRowID) AS r FROM \(quotedSource) WHERE \(sourceRowID) \(inclusive ? ">=" : ">") ?1 "
            + "AND \(sourceRowID) <= ?3 ORDER BY \(sourceRowID) LIMIT ?2)"
    }

    /// The copy of the rows whose rowid is in (`?1`, `?2`] (`[?1, ?2]`, `inclusive`) and that the
    /// mirror has not written (`skippingMirrored`: a probe per row; without it the batch must
    /// hold none of the mirror's rows, see ``batchHasMirroredRowsSQL(inclusive:)``).
    package func batchSQL(inclusive: Bool, skippingMirrored: Bool = true) -> String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        let range = "\(rowID) \(inclusive ? ">=" : ">") ?1 AND \(rowID) <= ?2"
        guard skippingMirrored else { return insert("ABORT", where: range) }
        return insert(
            "ABORT",
            where: range
                + " AND NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) = \(rowID))")
    }

    /// Inside the swap, first (and in a batch that hit a UNIQUE conflict): the rows of the new
    /// table whose rowid the old table no longer has.
    ///
    /// The mirror cannot see every removal. A row that the app's `INSERT OR REPLACE` or
    /// `UPDATE OR REPLACE` removes to resolve a UNIQUE conflict fires no DELETE trigger (unless
    /// the app's connection turned `recursive_triggers` on:
    /// <https://www.sqlite.org/lang_conflict.html>), so its copy would stay in the new table; and
    /// the row that replaced it may then have been left out by the mirror's `OR IGNORE` (the stale
    /// copy holds its unique value). A row count would not see the pair (one row too many, one
    /// too few). So the swap removes the stale copies here, then ``catchUp`` copies every row
    /// still missing: the new table then has exactly the old one's rowids, each row as the mirror
    /// or the copy last wrote it from the old table.
    ///
    /// Both passes cost a probe per row, so they run only when needed (``needsReconciliation``):
    /// when the old table's count differs from its count at the start plus the rows the mirror
    /// saw come and go (a removal the mirror did not see), or when the new table holds more rows
    /// than the old one. Otherwise every row of the new table came from a row the old table still
    /// has (the batch and the mirror copy only rows that exist, and every removal they saw was
    /// mirrored), so the new table's rowids are a subset of the old one's.
    package var removeRowsGoneFromSource: String {
        let stale =
            "SELECT \(quotedTable).\(tableRowID) FROM (SELECT 1 WHERE \(needsReconciliation)) CROSS JOIN "
            + "\(quotedTable) WHERE NOT EXISTS (SELECT 1 FROM \(quotedSource) WHERE \(quotedSource).\(sourceRowID) = "
            + "\(quotedTable).\(tableRowID))"
        return "DELETE FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) IN (\(stale))"
    }

    /// True (in SQL) when the swap must reconcile by rowid (see ``removeRowsGoneFromSource``).
    /// An uncorrelated condition in a one-row subquery joined first (`CROSS JOIN` fixes the
    /// order), so that SQLite evaluates it once and never scans the tables when it is false.
    private var needsReconciliation: String {
        let count = "(SELECT count(*) FROM \(quotedSource))"
        return "(SELECT start_rows + net_rows FROM \(progressTable) WHERE \(progressKey)) IS NOT \(count) "
            + "OR (SELECT count(*) FROM \(quotedTable)) > \(count)"
    }

    /// Inside the swap, after ``removeRowsGoneFromSource``: every row of the old table not in the
    /// new one, copied when the counts differ (the new table's rowids are then a subset of the
    /// old one's, so equal counts mean the same rows).
    package var catchUp: String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        let differ = "(SELECT count(*) FROM \(quotedSource)) IS NOT (SELECT count(*) FROM \(quotedTable))"
        return "INSERT OR ABORT INTO \(quotedTable) (\(targets)) SELECT \(expressions) FROM (SELECT 1 WHERE \(differ)) "
            + "CROSS JOIN \(quotedSource) WHERE NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) = "
            + "\(rowID))"
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
}
