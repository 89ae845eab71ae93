import StrataSQLite

extension Planner {
    /// Phase D: the FTS tables over external content (``FullTextContent``) whose content the plan
    /// touches. Returns every one of them, for the proof and the apply to run its integrity check.
    ///
    /// Each one whose content table a step rebuilt or created (or whose content view reads such a
    /// table) is indexed again, in a step after phase C, unless the plan made it from its content
    /// after that content's last step: a rebuild copies the rows into a new table, where a row's
    /// rowid is the value of its new INTEGER PRIMARY KEY (or a fresh one when the copy cannot keep
    /// it, as when the table loses WITHOUT ROWID), and a backfill changes values. An index kept
    /// from before would answer `MATCH` with the wrong rows. When the FTS table cannot be indexed
    /// from its content as the change leaves it (FTS4 or an FTS5 `content_rowid` of `rowid` over
    /// a table that becomes WITHOUT ROWID, a column it reads that is gone), the change is refused
    /// naming both tables.
    func keepFullTextIndexesInStep(
        _ diff: SchemaDiff, changed: [TableChange], into builder: inout StepBuilder
    ) throws -> [FullTextContent] {
        let rowsReplaced = FullTextContent.reach(
            of: Set(builder.rebuiltTables + diff.createdTables.filter { !$0.isVirtual }.map(\.key)),
            views: desired.views)
        let touched = FullTextContent.reach(
            of: Set(
                changed.filter { !$0.live.isVirtual }.flatMap { [$0.live.key, $0.desired.key] }
                    + diff.createdTables.filter { !$0.isVirtual }.map(\.key) + diff.droppedTables.map(\.key)),
            views: desired.views)
        var checks = [FullTextContent]()
        for f in FullTextContent.all(in: desired) where touched.contains(f.contentKey) {
            checks.append(f)
            guard rowsReplaced.contains(f.contentKey) else { continue }
            // Made (again) from its content after the content's last step: already in step.
            if let made = builder.tableStepsEnd[f.table.asciiLowercased()],
                let contentChanged = builder.tableStepsEnd[f.contentKey], made > contentChanged
            {
                continue
            }
            let step = PlanStep.rebuildFullTextIndex(f)
            do {
                try builder.add(step)
            } catch let error as SchemaError where error.code == .planDidNotConverge {
                throw fullTextRefusal(
                    f, reason: error.underlying?.message ?? error.message, in: builder.scratch, changed: changed)
            }
        }
        return checks
    }

    /// The refusal of a change after which full-text table `f` cannot be indexed from its content:
    /// names both (and the new name of a content table renamed away), and what is missing when
    /// that can be told (a column the FTS table reads, the rowid), else SQLite's message.
    func fullTextRefusal(
        _ f: FullTextContent, reason: String, in scratch: Database, changed: [TableChange]
    ) -> SchemaError {
        let missing = Self.missingContentColumns(f, in: scratch)
        var why = missing.isEmpty ? reason : "\(f.content) has no \(missing.joined(separator: ", "))"
        if let renamed = changed.first(where: { $0.isRenamed && $0.live.key == f.contentKey }) {
            why += "; table \(renamed.live.name) is renamed to \(renamed.desired.name)"
        }
        return SchemaError(
            code: .unsupported,
            message: "full-text table \(f.table): its content table \(f.content) would no longer match it after "
                + "the change (\(why)); change both in the desired schema (nothing was changed)",
            culprit: f.table)
    }

    /// What `f` reads that its content lacks in `db`: columns (`column body`), the key (`rowid`
    /// for FTS4 and a default FTS5, or the `content_rowid` column).
    static func missingContentColumns(_ f: FullTextContent, in db: Database) -> [String] {
        let q = SQL.quoteIdentifier
        let columnsOf = { (name: String) -> [String] in
            let rows: [String]? = try? db.fetchColumn(
                sql: "SELECT name FROM pragma_table_info(\(SQLValue.text(name).sqlLiteral))")
            return rows ?? []
        }
        let columns = columnsOf(f.content)
        if columns.isEmpty { return ["table or view \(f.content)"] }
        let have = Set(columns.map { $0.asciiLowercased() })
        var missing = columnsOf(f.table).filter { !have.contains($0.asciiLowercased()) }.map { "column \($0)" }
        if let key = f.contentRowID {
            if !have.contains(key.asciiLowercased()) { missing.append("column \(key) (its content_rowid)") }
        } else if (try? db.makeStatement(sql: "SELECT rowid FROM \(q(f.content))")) == nil {
            missing.append("rowid (the key of \(f.table))")
        }
        return missing
    }
}
