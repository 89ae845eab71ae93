import StrataSQLite

extension Database {
    /// Applies `plan`; with a `fingerprint`, records it in the same transaction when the database
    /// is then equal to the plan's desired schema (read back and compared, not assumed).
    func applySchemaChange(
        _ plan: Plan, recording fingerprint: SchemaFingerprint?, progress: ProgressReporter?
    ) throws {
        if plan.steps.contains(where: \.isOnline) {
            try applyOnline(plan, recording: fingerprint, progress: progress)
            return
        }
        // What interrupted online rebuilds left goes with any other apply, an empty one too
        // (their triggers would go on logging the app's writes, and no plan shows them): inside
        // the plan's transaction (`runPlan`), or on its own for an empty plan.
        guard !plan.isEmpty else { return try discardLeftoversOfInterruptedOnlineRebuilds() }
        // Stored objects re-created as SQLite stored them may rely on double-quoted string
        // literals (a legacy schema): accepted while the plan runs, as when they were created.
        try acceptingDoubleQuotedStringLiterals {
            try withApplyCache(plan) { try applyInTransaction(plan, recording: fingerprint, progress: progress) }
        }
    }

    /// The page cache a plan that copies rows or builds indexes runs with, at least: 16 MiB.
    /// SQLite sizes the sorter of `CREATE INDEX` from `cache_size` (vdbesort.c), so with the
    /// default 2 MiB an index of a large table is sorted in many runs spilled to temporary files
    /// and merged; with 16 MiB, in far fewer (measured on case 3 of the benchmarks: 8.6% fewer
    /// instructions for a 250,000-row rebuild with two indexes). The cache is bounded: memory
    /// does not grow with the table beyond it.
    static let applyCacheKiB = 16 * 1024

    /// Runs `body` with `cache_size` raised to ``applyCacheKiB`` when `plan` rebuilds a table
    /// or builds an index and the connection's cache is smaller; restores it on every path.
    func withApplyCache<T>(_ plan: Plan, _ body: () throws -> T) throws -> T {
        let heavy = plan.steps.contains { $0.kind == .rebuildTable || $0.kind == .createIndex }
        guard heavy, let current = try fetchValue(Int.self, sql: "PRAGMA main.cache_size") else { return try body() }
        let pageSize = try fetchValue(Int.self, sql: "PRAGMA main.page_size") ?? 4096
        let currentKiB = current < 0 ? -current : current * pageSize / 1024
        guard currentKiB < Self.applyCacheKiB else { return try body() }
        try execute(sql: "PRAGMA main.cache_size = -\(Self.applyCacheKiB)")
        defer { try? execute(sql: "PRAGMA main.cache_size = \(current)") }
        return try body()
    }

    func applyInTransaction(
        _ plan: Plan, recording fingerprint: SchemaFingerprint?, progress: ProgressReporter?
    ) throws {
        if isInTransaction {
            if try foreignKeysEnabled() {
                if !plan.childrenOfRebuiltTables.isEmpty {
                    throw SchemaError(
                        code: .unsupported,
                        message:
                            "cannot rebuild or drop a table referenced by \(plan.childrenOfRebuiltTables.joined(separator: ", ")) "
                            + "inside a transaction with foreign keys on (SQLite cannot turn them off there): "
                            + "turn foreign keys off before the transaction begins",
                        culprit: plan.childrenOfRebuiltTables[0])
                }
                try execute(sql: "PRAGMA defer_foreign_keys = ON")
            }
            try savepoint { try runPlan(plan, recording: fingerprint, progress: progress) }
            return
        }
        do {
            // EXCLUSIVE, not IMMEDIATE: in rollback-journal mode a writer needs the EXCLUSIVE lock
            // to spill changed pages into the file and to commit, and waits for readers to finish
            // each time; behind a long reader that was one busy timeout per spilling statement plus
            // one at COMMIT, while new readers were locked out. Taking it at BEGIN waits once, and
            // fails before anything is written. In WAL mode the two are the same and readers go on.
            // https://www.sqlite.org/lang_transaction.html
            try withForeignKeysOff { _ in
                try transaction(.exclusive) { try runPlan(plan, recording: fingerprint, progress: progress) }
            }
        } catch let error as SchemaError where hasHotJournal() {
            // The disk filled up (or an I/O error struck) and SQLite could not finish the rollback,
            // even when retried: the file is not as it was until the journal is played back.
            throw error.rollbackUnfinished(journal: (fileName ?? path) + "-journal")
        }
    }

    /// Throws `schemaChanged`, naming the differences, when the schema is no longer the one
    /// `plan` was made from.
    func checkSchemaUnchanged(since plan: Plan) throws {
        let changed = plan.base.differences(from: try DatabaseSchema.read(from: self))
        if !changed.isEmpty {
            throw SchemaError(
                code: .schemaChanged,
                message: "the database schema changed since the plan was made: " + changed.joined(separator: "; "))
        }
    }

    private func runPlan(_ plan: Plan, recording fingerprint: SchemaFingerprint?, progress: ProgressReporter?) throws {
        try checkSchemaUnchanged(since: plan)
        if !plan.steps.contains(where: \.isOnline) { try discardLeftoversOfInterruptedOnlineRebuilds() }
        let before = try foreignKeyViolations(plan, afterPlan: false)
        for (index, step) in plan.steps.enumerated() {
            try progress?.report(.stepStarted(step, index: index, count: plan.steps.count))
            for part in step.parts {
                if case .restoreForeignKeys(let edit) = part {
                    do {
                        try restoreForeignKeys(edit)
                    } catch let error as SQLiteError {
                        throw applyError(step, part, edit.statements[3], error)
                    }
                    continue
                }
                for sql in part.statements {
                    do {
                        if let progress {
                            try progress.run(sql, of: part, in: self)
                        } else {
                            try execute(sql: sql)
                        }
                    } catch let error as SQLiteError {
                        throw applyError(step, part, sql, error)
                    }
                }
            }
            try progress?.report(.stepFinished(step, index: index, count: plan.steps.count))
        }
        let after = try foreignKeyViolationList(plan, afterPlan: true)
        var fresh = [Violation]()
        var remaining = before
        for v in after {
            if let n = remaining[v.key], n > 0 { remaining[v.key] = n - 1 } else { fresh.append(v) }
        }
        if !fresh.isEmpty {
            throw SchemaError(
                code: .foreignKeyViolation,
                message:
                    "foreign key violation\(fresh.count == 1 ? "" : "s") after the change (rolled back, the database "
                    + "is unchanged): " + fresh.prefix(5).map(\.text).joined(separator: "; ")
                    + (fresh.count > 5 ? "; and \(fresh.count - 5) more" : ""),
                culprit: fresh[0].table)
        }
        // The FTS tables over external content whose content the plan touched: the index must
        // answer for the rows as they are now (Planner+FullText.swift).
        for f in plan.fullTextChecks {
            do {
                try execute(sql: f.integrityCheckSQL)
            } catch let error as SQLiteError {
                throw SchemaError(
                    code: .applyFailed,
                    message: "full-text table \(f.table): its index no longer matches its content table \(f.content) "
                        + "after the change (FTS integrity-check: \(error.message); rolled back, the database is "
                        + "unchanged)",
                    culprit: f.table, underlying: error)
            }
        }
        // The fast path trusts this record: write it only when the database now is the desired
        // schema, as read back, not as the plan expected (the names it renames by case alone, or
        // all with `exactNames`, compared exactly).
        if let fingerprint,
            SchemaDiff(
                from: try DatabaseSchema.read(from: self), to: plan.desired, names: plan.diff.exactNameComparison
            )
            .isEmpty
        {
            try fingerprint.record(in: self)
        }
    }

    /// The error for a statement of `step` that SQLite refused, in the user's terms: a guard's
    /// condition with the rows that break it, a copy that the rows do not fit, never the name of a
    /// temporary table.
    private func applyError(_ step: PlanStep, _ part: PlanStep.Part, _ sql: String, _ error: SQLiteError) -> SchemaError
    {
        let sqliteMessage = TemporaryNames.userFacing(error.message, renames: step.temporaryTables)
        if let guarded = DataGuard.failed(sqliteMessage, among: step.guards) {
            // Still inside the transaction: count what broke the condition for the message.
            let count = guarded.violationCount.flatMap { try? fetchValue(Int.self, sql: $0) }
            let rows = count.map { " (\($0) row\($0 == 1 ? "" : "s"))" } ?? ""
            return SchemaError(
                code: .preflightFailed,
                message: "\(guarded.message)\(rows), found inside the applying transaction: the data changed after the "
                    + "plan was made (rolled back, the database is unchanged)",
                culprit: guarded.culprit, underlying: error)
        }
        // SQLite 3.53's ADD CHECK and SET NOT NULL check every row themselves.
        if step.kind == .addConstraint || step.kind == .setNotNull, error.resultCode == .SQLITE_CONSTRAINT {
            return SchemaError(
                code: .applyFailed,
                message: "\(step.summary): the existing rows do not fit the new definition: \(sqliteMessage) "
                    + "(rolled back, the database is unchanged)",
                culprit: step.object, underlying: error)
        }
        if step.kind == .rebuildTable, part.copiesRows {
            return SchemaError(
                code: .applyFailed,
                message: "table \(step.object): the existing rows do not fit the new definition: \(sqliteMessage) "
                    + "(rolled back, the database is unchanged)",
                culprit: step.object, underlying: error)
        }
        return SchemaError(
            code: .applyFailed,
            message:
                "\(step.kind.rawValue) \(step.object): `\(TemporaryNames.userFacing(sql, renames: step.temporaryTables))`: "
                + "\(sqliteMessage) (rolled back, the database is unchanged)",
            culprit: step.object, underlying: error)
    }

    private struct Violation {
        var key: String
        var text: String
        /// The child table, by its final name: the culprit.
        var table: String
    }

    /// `PRAGMA foreign_key_check` on the plan's tables, names mapped to their final names.
    private func foreignKeyViolations(_ plan: Plan, afterPlan: Bool) throws -> [String: Int] {
        var counts = [String: Int]()
        for v in try foreignKeyViolationList(plan, afterPlan: afterPlan) { counts[v.key, default: 0] += 1 }
        return counts
    }

    private func foreignKeyViolationList(_ plan: Plan, afterPlan: Bool) throws -> [Violation] {
        var reverse = [String: String]()
        for (old, new) in plan.tableRenames { reverse[new.asciiLowercased()] = old }
        var result = [Violation]()
        for table in plan.foreignKeyCheckTables {
            let name: String
            if afterPlan {
                name = table
            } else {
                name = reverse[table.asciiLowercased()] ?? table
                guard plan.base.table(named: name) != nil else { continue }
            }
            for violation in try foreignKeyViolations(in: name) {
                let (child, rowid, parent) = (violation.table, violation.rowid, violation.parent)
                let finalChild = plan.tableRenames[child.asciiLowercased()] ?? child
                let finalParent = plan.tableRenames[parent.asciiLowercased()] ?? parent
                // A WITHOUT ROWID table's row is named by its primary key.
                let key = violation.primaryKey.map { "\($0.column) = \($0.value.sqlLiteral)" }.joined(separator: ", ")
                let rowText = rowid.map { "row \($0)" } ?? (key.isEmpty ? "a row" : "row with \(key)")
                result.append(
                    Violation(
                        key:
                            "\(finalChild.asciiLowercased())|\(rowid.map(String.init) ?? key)|\(finalParent.asciiLowercased())",
                        text: "table \(finalChild) \(rowText) references a missing row of \(finalParent)",
                        table: finalChild))
            }
        }
        return result
    }
}
