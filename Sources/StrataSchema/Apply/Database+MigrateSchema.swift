import StrataSQLite

extension Database {
    /// Plans and applies in one call; returns the plan that was applied (empty if none was needed).
    ///
    /// ```swift
    /// try db.migrateSchema(to: String(contentsOfFile: "schema.sql"), options: .init(allowDestructive: false))
    /// ```
    ///
    /// **Launch fast path.** Each call that leaves the database equal to `desiredSQL` records a
    /// fingerprint in Strata's table `strata_schema_fingerprint`, in the applying transaction: a
    /// digest of the text (keyed with Strata's planner version, the SQLite version and the renames and `useNativeAlter` of `options`),
    /// `PRAGMA schema_version` and a digest of `sqlite_master`. The next call with the same text
    /// and options on an unchanged database reads them back and returns an empty plan
    /// (``Plan/isVerifiedByFingerprint``) without planning: a hash, a PRAGMA and two small reads.
    /// Any change to the schema by anyone, another text, another Strata or SQLite version, or a
    /// missing or edited row runs the full plan. The fingerprint is not a secret: a writer of the
    /// file who forges a row for the file's current `sqlite_master` is believed (such a writer
    /// can replace the schema itself anyway).
    @discardableResult
    public func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try migrateSchema(to: desiredSQL, options: options, reporter: nil)
    }

    /// Plans and applies in one call, reporting the apply's progress to `progress` (see
    /// ``applySchemaChange(_:progress:)``); an error thrown by `progress` rolls everything back.
    ///
    /// ```swift
    /// try db.migrateSchema(to: schemaSQL) { event in print(event) }
    /// ```
    @discardableResult
    public func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        progress: (SchemaChangeEvent) throws -> Void
    ) throws -> Plan {
        try withoutActuallyEscaping(progress) { progress in
            try migrateSchema(to: desiredSQL, options: options, reporter: ProgressReporter(report: progress))
        }
    }

    private func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions, reporter: ProgressReporter?
    ) throws -> Plan {
        let fingerprint = SchemaFingerprint(sql: desiredSQL, options: options, db: self)
        if fingerprint.matches(self) { return Plan(unchangedFrom: desiredSQL) }
        let plan = try planSchemaChange(to: desiredSQL, options: options)
        if plan.isEmpty {
            recordUnchanged(fingerprint, plan)
        } else {
            try applySchemaChange(plan, recording: fingerprint, progress: reporter)
        }
        return plan
    }

    /// After an empty full plan, records the fingerprint when the database can be written; a
    /// failure (a read-only or busy database, a full disk) only means the next call plans again.
    private func recordUnchanged(_ fingerprint: SchemaFingerprint, _ plan: Plan) {
        func record() throws {
            // The plan was made outside this transaction: record only if the schema it was made
            // from is still the live one.
            guard plan.base.differences(from: try DatabaseSchema.read(from: self)).isEmpty else { return }
            try fingerprint.record(in: self)
        }
        if isReadOnly { return }
        if isInTransaction {
            try? savepoint { try record() }
            return
        }
        // Never wait for another writer just to record it (the plan said there is nothing to
        // do): without the lock at once, the next launch plans again.
        let timeout = (try? fetchValue(Int.self, sql: "PRAGMA busy_timeout")) ?? nil
        if timeout != nil { try? execute(sql: "PRAGMA busy_timeout = 0") }
        defer { if let timeout { try? execute(sql: "PRAGMA busy_timeout = \(timeout)") } }
        try? transaction(.immediate) { try record() }
    }

    /// Plans and applies `desired` in one call.
    @discardableResult
    public func migrateSchema(
        to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        let plan = try planSchemaChange(to: desired, options: options)
        try applySchemaChange(plan)
        return plan
    }
}
