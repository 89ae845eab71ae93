import StrataSQLite

/// The statements of an online rebuild (`SchemaChangeOptions.online`) beyond those of the offline
/// one: the triggers that mirror the app's writes to the old table into the new one, the copy of
/// one batch of rows, the catch-up inside the swap, and the progress record.
///
/// ```sql
/// CREATE TRIGGER "strata_mirror_00c0ffee00c0ffee_insert" AFTER INSERT ON "player" BEGIN
///   DELETE FROM "strata_tmp_00c0ffee00c0ffee" WHERE rowid = NEW.rowid;
///   INSERT OR IGNORE INTO "strata_tmp_00c0ffee00c0ffee" (rowid, "id", "name")
///     SELECT rowid, "id", coalesce("name", '') FROM "player" WHERE "player".rowid = NEW.rowid;
/// END
/// INSERT OR ABORT INTO "strata_tmp_00c0ffee00c0ffee" (rowid, "id", "name")
///   SELECT rowid, "id", coalesce("name", '') FROM "player" WHERE "player".rowid > ? AND "player".rowid <= ?
///   AND NOT EXISTS (SELECT 1 FROM "strata_tmp_00c0ffee00c0ffee" WHERE "strata_tmp_00c0ffee00c0ffee".rowid = "player".rowid)
/// ```
///
/// Rows keep their rowid (the planner offers an online rebuild only then), so a row of the new
/// table is the row of the old one with the same rowid. The mirror reads the row back from the
/// old table by rowid with the copy's own column mapping (the same expressions as
/// ``RebuildCopyDDL``), so it always writes the newest version; a batch skips the rows the mirror
/// already wrote (`NOT EXISTS`), and fails (`OR ABORT`) on a row that does not fit the new
/// definition. The mirror's `INSERT OR IGNORE` never fails an app's write for a row that does not
/// fit: the row is left out, and the row-count guard of the swap refuses the change. (A
/// conflict clause on the app's own statement, `INSERT OR REPLACE`, overrides the mirror's, as
/// SQLite specifies for trigger bodies: <https://www.sqlite.org/lang_createtrigger.html>.)
package struct OnlineRebuildDDL: Sendable, Hashable {
    /// The copy of the offline rebuild: the new table, the old one and the column mapping.
    package var copy: RebuildCopyDDL
    /// The name that reads the old table's rowid (`rowid`, `_rowid_` or `oid`).
    package var sourceRowID: String
    /// The name that reads the new table's rowid.
    package var tableRowID: String

    package init(copy: RebuildCopyDDL, sourceRowID: String, tableRowID: String) {
        self.copy = copy
        self.sourceRowID = sourceRowID
        self.tableRowID = tableRowID
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

    /// The three mirror triggers, AFTER INSERT, AFTER UPDATE, AFTER DELETE on the old table.
    package var createTriggers: [String] {
        let names = triggerNames.map(SQL.quoteIdentifier)
        let copyNew = insert("IGNORE", where: "\(quotedSource).\(sourceRowID) = NEW.\(sourceRowID)")
        return [
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(quotedSource) BEGIN "
                + "\(deleteNew(rowID: "NEW.\(sourceRowID)")); \(copyNew); END",
            // An UPDATE may change the rowid: the row under the old one goes away.
            "CREATE TRIGGER \(names[1]) AFTER UPDATE ON \(quotedSource) BEGIN "
                + "\(deleteNew(rowID: "OLD.\(sourceRowID)")); \(deleteNew(rowID: "NEW.\(sourceRowID)")); "
                + "\(copyNew); END",
            "CREATE TRIGGER \(names[2]) AFTER DELETE ON \(quotedSource) BEGIN "
                + "\(deleteNew(rowID: "OLD.\(sourceRowID)")); END",
        ]
    }

    /// The mirror triggers dropped (`IF EXISTS`: a cleanup may find some gone).
    package var dropTriggers: [String] { Self.dropTriggers(ofTemporaryTable: table) }

    /// The mirror triggers of the temporary table `table` dropped, for a cleanup that knows only
    /// the table's name (from a progress record).
    package static func dropTriggers(ofTemporaryTable table: String) -> [String] {
        triggerNames(ofTemporaryTable: table).map { "DROP TRIGGER IF EXISTS " + SQL.quoteIdentifier($0) }
    }

    /// The largest rowid of the old table when the copy starts: the batches stop there. A row
    /// with a larger rowid was written after the mirror triggers were created (in the same
    /// transaction as this read), so the mirror has it; without this bound an app that keeps
    /// inserting at the end would keep the copy chasing its rows.
    package var copyEndSQL: String { "SELECT max(\(sourceRowID)) FROM \(quotedSource)" }

    /// The rowid that ends the batch after `?1` (from `?1` on, `inclusive`, for the first batch,
    /// which starts at the smallest rowid) of at most `?2` rows of the old table, up to rowid `?3`.
    package func batchEndSQL(inclusive: Bool) -> String {
        "SELECT max(r) FROM (SELECT \(sourceRowID) AS r FROM \(quotedSource) WHERE \(sourceRowID) \(inclusive ? ">=" : ">") ?1 "
            + "AND \(sourceRowID) <= ?3 ORDER BY \(sourceRowID) LIMIT ?2)"
    }

    /// The copy of the rows whose rowid is in (`?1`, `?2`] (`[?1, ?2]`, `inclusive`) and that the
    /// mirror has not written.
    package func batchSQL(inclusive: Bool) -> String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        return insert(
            "ABORT",
            where:
                "\(rowID) \(inclusive ? ">=" : ">") ?1 AND \(rowID) <= ?2 AND NOT EXISTS (SELECT 1 FROM \(quotedTable) "
                + "WHERE \(quotedTable).\(tableRowID) = \(rowID))")
    }

    /// Inside the swap, first: the rows of the new table whose rowid the old table no longer has.
    ///
    /// The mirror cannot see every removal. A row that the app's `INSERT OR REPLACE` or
    /// `UPDATE OR REPLACE` removes to resolve a UNIQUE conflict fires no DELETE trigger (unless
    /// the app's connection turned `recursive_triggers` on:
    /// <https://www.sqlite.org/lang_conflict.html>), so its copy would stay in the new table; and
    /// the row that replaced it may then have been left out by the mirror's `OR IGNORE` (the stale
    /// copy holds its unique value). A row count would not see the pair (one row too many, one
    /// too few). So the swap removes the stale copies here, then ``catchUp(after:)`` over the
    /// whole table copies every row still missing: the new table then has exactly the old one's
    /// rowids, each row as the mirror or the copy last wrote it from the old table.
    package var removeRowsGoneFromSource: String {
        "DELETE FROM \(quotedTable) WHERE NOT EXISTS (SELECT 1 FROM \(quotedSource) WHERE \(quotedSource).\(sourceRowID) = "
            + "\(quotedTable).\(tableRowID))"
    }

    /// Inside the swap: the rows after rowid `last` (all when nil) not yet in the new table (none
    /// when the copy finished; a safety net that costs a range scan).
    package func catchUp(after last: Int64?) -> String {
        let rowID = "\(quotedSource).\(sourceRowID)"
        let range = last.map { "\(rowID) > \($0) AND " } ?? ""
        return insert(
            "ABORT",
            where: range + "NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE \(quotedTable).\(tableRowID) = \(rowID))")
    }

    /// The progress table, created when missing.
    package static var createProgressTable: String {
        "CREATE TABLE IF NOT EXISTS \(SQL.quoteIdentifier(ReservedNames.onlineProgressTable)) ("
            + "temporary_table TEXT PRIMARY KEY, source_table TEXT NOT NULL, plan_identity TEXT NOT NULL, "
            + "phase TEXT NOT NULL, last_rowid INTEGER, end_rowid INTEGER, batches INTEGER NOT NULL DEFAULT 0)"
    }

    /// The progress record of this rebuild removed (in the swap, or by a cleanup).
    package var deleteProgress: String {
        "DELETE FROM \(SQL.quoteIdentifier(ReservedNames.onlineProgressTable)) WHERE temporary_table = "
            + SQLValue.text(table).sqlLiteral
    }
}
