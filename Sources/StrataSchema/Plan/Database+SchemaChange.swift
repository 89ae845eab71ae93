import StrataSQLite

extension Database {
    /// Plans the changes that turn this database into the schema described by `desiredSQL`.
    /// The plan is proven on a schema-only copy before it is returned; nothing is written.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: """
    ///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER DEFAULT 0);
    ///     """)
    /// print(plan.summary)
    /// ```
    ///
    /// Throws ``SchemaError``: invalid desired SQL, destructive changes not allowed (listing each),
    /// a failed preflight, an unresolved rename hint.
    public func planSchemaChange(to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()) throws -> Plan {
        try planSchemaChange(to: desiredSchema(sql: desiredSQL), options: options)
    }

    /// The desired schema `sql` declares, parsed with this connection's Swift functions and
    /// collations registered (an index may use them).
    func desiredSchema(sql: String) throws -> DatabaseSchema {
        try DatabaseSchema(sql: sql, functions: registeredFunctions, collations: registeredCollations)
    }

    /// Plans the changes that turn this database into `desired`.
    public func planSchemaChange(to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions()) throws -> Plan {
        let live = try DatabaseSchema.read(from: self)
        // The planner proves the plan: it runs every statement on a schema-only copy and checks
        // the result equals `desired` (see Planner.plan()).
        return try Planner(db: self, live: live, desired: desired, options: options).plan()
    }

    /// Applies a plan made by ``planSchemaChange(to:options:)-(String,_)`` in one
    /// `BEGIN EXCLUSIVE` transaction.
    ///
    /// Foreign keys are turned off outside the transaction (so no ON DELETE action fires when a
    /// table is rebuilt) and restored on every path; violations that did not exist before make
    /// the whole plan roll back. Called inside a transaction (a migration), the plan runs in a
    /// savepoint; foreign keys must then already be off if the plan rebuilds a referenced table.
    /// On any failure the database is left exactly as it was.
    public func applySchemaChange(_ plan: Plan) throws {
        guard !plan.isEmpty else { return }
        if isInTransaction {
            if try foreignKeysEnabled() {
                if !plan.childrenOfRebuiltTables.isEmpty {
                    throw SchemaError(
                        code: .unsupported,
                        message: "cannot rebuild or drop a table referenced by \(plan.childrenOfRebuiltTables.joined(separator: ", ")) "
                            + "inside a transaction with foreign keys on (SQLite cannot turn them off there): "
                            + "turn foreign keys off before the transaction begins")
                }
                try execute(sql: "PRAGMA defer_foreign_keys = ON")
            }
            try savepoint { try runPlan(plan) }
            return
        }
        do {
            // EXCLUSIVE, not IMMEDIATE: in rollback-journal mode a writer needs the EXCLUSIVE lock
            // to spill changed pages into the file and to commit, and waits for readers to finish
            // each time; behind a long reader that was one busy timeout per spilling statement plus
            // one at COMMIT, while new readers were locked out. Taking it at BEGIN waits once, and
            // fails before anything is written. In WAL mode the two are the same and readers go on.
            // https://www.sqlite.org/lang_transaction.html
            try withForeignKeysOff { _ in try transaction(.exclusive) { try runPlan(plan) } }
        } catch let error as SchemaError where hasHotJournal() {
            // The disk filled up (or an I/O error struck) and SQLite could not finish the rollback,
            // even when retried: the file is not as it was until the journal is played back.
            throw error.rollbackUnfinished(journal: (fileName ?? path) + "-journal")
        }
    }

    /// Plans and applies in one call; returns the plan that was applied (empty if none was needed).
    ///
    /// ```swift
    /// try db.migrateSchema(to: String(contentsOfFile: "schema.sql"), options: .init(allowDestructive: false))
    /// ```
    @discardableResult
    public func migrateSchema(to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()) throws -> Plan {
        let plan = try planSchemaChange(to: desiredSQL, options: options)
        try applySchemaChange(plan)
        return plan
    }

    /// Plans and applies `desired` in one call.
    @discardableResult
    public func migrateSchema(to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions()) throws -> Plan {
        let plan = try planSchemaChange(to: desired, options: options)
        try applySchemaChange(plan)
        return plan
    }

    private func runPlan(_ plan: Plan) throws {
        let now = try DatabaseSchema.read(from: self)
        let changed = plan.base.differences(from: now)
        if !changed.isEmpty {
            throw SchemaError(
                code: .schemaChanged,
                message: "the database schema changed since the plan was made: " + changed.joined(separator: "; "))
        }
        let before = try foreignKeyViolations(plan, afterPlan: false)
        for step in plan.steps {
            for sql in step.statements {
                do {
                    try execute(sql: sql)
                } catch let error as SQLiteError {
                    throw applyError(step, sql, error)
                }
            }
        }
        let after = try foreignKeyViolationList(plan, afterPlan: true)
        var fresh = [String]()
        var remaining = before
        for v in after {
            if let n = remaining[v.key], n > 0 { remaining[v.key] = n - 1 } else { fresh.append(v.text) }
        }
        if !fresh.isEmpty {
            throw SchemaError(
                code: .foreignKeyViolation,
                message: "foreign key violation\(fresh.count == 1 ? "" : "s") after the change (rolled back, the database "
                    + "is unchanged): " + fresh.prefix(5).joined(separator: "; ")
                    + (fresh.count > 5 ? "; and \(fresh.count - 5) more" : ""))
        }
    }

    /// The error for a statement of `step` that SQLite refused, in the user's terms: a guard's
    /// condition with the rows that break it, a copy that the rows do not fit, never the name of a
    /// temporary table.
    private func applyError(_ step: PlanStep, _ sql: String, _ error: SQLiteError) -> SchemaError {
        let sqliteMessage = TemporaryNames.userFacing(error.message ?? "\(error)", statements: step.statements)
        if let guarded = DataGuard.failed(sqliteMessage, among: step.guards) {
            // Still inside the transaction: count what broke the condition for the message.
            let count = guarded.violationCount.flatMap { try? fetchValue(Int.self, sql: $0) }
            let rows = count.map { " (\($0) row\($0 == 1 ? "" : "s"))" } ?? ""
            return SchemaError(
                code: .preflightFailed,
                message: "\(guarded.message)\(rows), found inside the applying transaction: the data changed after the "
                    + "plan was made (rolled back, the database is unchanged)",
                underlying: error)
        }
        // SQLite 3.53's ADD CHECK and SET NOT NULL check every row themselves.
        if step.kind == .addConstraint || step.kind == .setNotNull, error.resultCode == .SQLITE_CONSTRAINT {
            return SchemaError(
                code: .applyFailed,
                message: "\(step.summary): the existing rows do not fit the new definition: \(sqliteMessage) "
                    + "(rolled back, the database is unchanged)",
                underlying: error)
        }
        if step.kind == .rebuildTable, SQLTokenizer.significantTokens(sql).first?.isKeyword("INSERT") == true {
            return SchemaError(
                code: .applyFailed,
                message: "table \(step.object): the existing rows do not fit the new definition: \(sqliteMessage) "
                    + "(rolled back, the database is unchanged)",
                underlying: error)
        }
        return SchemaError(
            code: .applyFailed,
            message: "\(step.kind.rawValue) \(step.object): `\(TemporaryNames.userFacing(sql, statements: step.statements))`: "
                + "\(sqliteMessage) (rolled back, the database is unchanged)",
            underlying: error)
    }

    private struct Violation {
        var key: String
        var text: String
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
                        key: "\(finalChild.asciiLowercased())|\(rowid.map(String.init) ?? key)|\(finalParent.asciiLowercased())",
                        text: "table \(finalChild) \(rowText) references a missing row of \(finalParent)"))
            }
        }
        return result
    }
}
