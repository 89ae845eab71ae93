import StrataSQLite

extension Database {
    /// Plans and applies `desiredSQL` (behind `migrateSchema(to:options:)` for a `String` and for a
    /// `SchemaDefinition`, `Database+SchemaEngine.swift`), through the launch fast path: an
    /// unchanged database whose fingerprint matches returns an empty plan without planning.
    func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions, reporter: ProgressReporter?
    ) throws -> Plan {
        let fingerprint = SchemaFingerprint(sql: desiredSQL, options: options, db: self)
        if fingerprint.matches(self) { return Plan(unchangedFrom: desiredSQL) }
        let plan = try planSchemaChange(to: desiredSQL, options: options)
        if plan.isEmpty {
            if !isReadOnly { try discardLeftoversOfInterruptedOnlineRebuilds() }
            recordUnchanged(fingerprint, plan)
        } else {
            try applySchemaChange(plan, recording: fingerprint, progress: reporter)
        }
        return plan
    }

    /// Applies `plan`, made from the text `desiredSQL` with `options`, and records the launch
    /// fingerprint of that text as ``migrateSchema(to:options:)-(String,_)`` does (in the applying
    /// transaction, or after an empty plan): for `strata apply --record-fingerprint`, which parses
    /// the schema file once for every database it brings up to date. An app that then calls
    /// `migrateSchema(to:)` with the same text and options on the unchanged database takes the fast
    /// path. Without a text (`nil`), the plan is applied and nothing else is written.
    package func applySchemaChange(
        _ plan: Plan, recordingFingerprintOf desiredSQL: String?, options: SchemaChangeOptions,
        progress: ((SchemaChangeEvent) throws -> Void)? = nil
    ) throws {
        guard let desiredSQL else {
            if let progress { try applySchemaChange(plan, progress: progress) } else { try applySchemaChange(plan) }
            return
        }
        let fingerprint = SchemaFingerprint(sql: desiredSQL, options: options, db: self)
        if plan.isEmpty {
            if !isReadOnly { try discardLeftoversOfInterruptedOnlineRebuilds() }
            recordUnchanged(fingerprint, plan)
            return
        }
        guard let progress else {
            try applySchemaChange(plan, recording: fingerprint, progress: nil)
            return
        }
        try withoutActuallyEscaping(progress) { progress in
            try applySchemaChange(plan, recording: fingerprint, progress: ProgressReporter(report: progress))
        }
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
        withoutWaitingForLocks { _ = try? transaction(.immediate) { try record() } }
    }

    /// Plans and applies `desired` (no fingerprint: there is no text to digest).
    func migrateSchema(
        to desired: DatabaseSchema, options: SchemaChangeOptions, reporter: ProgressReporter?
    ) throws -> Plan {
        let plan = try planSchemaChange(to: desired, options: options)
        try applySchemaChange(plan, recording: nil, progress: reporter)
        return plan
    }

    /// Plans and applies a schema declared in Swift, through its SQL text so that an unchanged
    /// database takes the launch fingerprint's fast path (the DSL renders the same text for the
    /// same definition).
    func migrateSchema(
        to definition: SchemaDefinition, options: SchemaChangeOptions, reporter: ProgressReporter?
    ) throws -> Plan {
        try definition.validate()
        return try migrateSchema(to: definition.sql, options: definition.engineOptions(options), reporter: reporter)
    }
}
