import Foundation
import StrataSQLite

/// The tests' seam into an online rebuild (`SchemaChangeOptions.online`).
package enum OnlineRebuildSeam {
    /// Called after each committed batch with the table's desired name and the batch's number
    /// (from 1, counted across resumed runs): tests write through another connection here, as an
    /// app does between batches, or throw ``OnlineRebuildInterrupted`` to stop as a kill would.
    @TaskLocal package static var afterBatch: (@Sendable (_ table: String, _ batch: Int) throws -> Void)?
}

/// Thrown through ``OnlineRebuildSeam/afterBatch`` to stop an online rebuild as a kill would:
/// its progress is kept for the next run (any other error discards it).
package struct OnlineRebuildInterrupted: Error {
    package init() {}
}

extension Database {
    /// Applies a plan with online rebuilds (``PlanStep/isOnline``): for each, the new table (with
    /// no foreign key), the change log and its triggers with a progress record in one short
    /// transaction (or those of an interrupted run of the same change, found again by its
    /// temporary name and plan identity), the rows copied in batches of `batchSize`, each in a
    /// short write transaction that first replays the log and records its last rowid (committed
    /// without a sync in WAL mode: see `withBatchCommitsUnsynchronized`); then the whole plan in
    /// one transaction as offline, each online rebuild's copy replaced by the log's last replay,
    /// a check and when needed a reconciliation by rowid, and its foreign keys written into its
    /// definition (see ``PlanStep/onlineSwap(droppingProgressTable:)``), the progress table
    /// dropped there when it holds no other change's record. Between batches the schema is the
    /// old one plus Strata's own objects. Any error but a kill discards those objects (the
    /// database is as it was). One online rebuild runs at a time on a file
    /// (``OnlineRebuildLock``): a second fails at once, before it changes anything.
    func applyOnline(
        _ plan: Plan, recording fingerprint: SchemaFingerprint?, progress: ProgressReporter?
    ) throws {
        let online = plan.steps.filter(\.isOnline)
        guard let first = online.first else { return }
        guard !isInTransaction else {
            throw SchemaError(
                code: .unsupported,
                message: "table \(first.object): an online rebuild commits its batches in transactions of its own: "
                    + "apply the plan outside a transaction, or without the online option (nothing was changed)",
                culprit: first.object)
        }
        let lock = try takeOnlineRebuildLock(for: first)
        defer { lock?.release() }
        try checkSchemaUnchanged(since: plan)
        do {
            try withForeignKeysOff { _ in
                // A progress table from before the rows were counted cannot be resumed.
                let columns: [String] = try fetchColumn(
                    sql: "SELECT name FROM pragma_table_info(?)", arguments: [ReservedNames.onlineProgressTable])
                try discardOnlineRebuilds(except: columns.isEmpty || columns.contains("net_rows") ? online : [])
                try withBatchCommitsUnsynchronized {
                    // The pause after each batch tells this process's writers from others' by
                    // their releases of the lock (see `OnlineBatchPause`).
                    try countingReleasesOfThisFile {
                        for step in online {
                            guard let ddl = step.onlineRebuild else { continue }
                            let batches =
                                plan.onlineBatchSize.map { OnlineBatchSize.fixed(max(1, $0)) }
                                ?? .adapting(to: plan.onlineBatchTime)
                            try copyOnline(step, ddl, batches: batches, progress)
                        }
                    }
                }
            }
            // The progress table goes in the swap when it holds no other change's record, so
            // that the fingerprint recorded there describes the file as it is left.
            let progressTable = OnlineRebuildDDL.progressTable
            let mine = Set(online.compactMap { $0.onlineRebuild?.table })
            let recorded: [String] = try fetchColumn(sql: "SELECT temporary_table FROM \(progressTable)")
            let others = recorded.filter { !mine.contains($0) }.count
            let lastOnline = plan.steps.lastIndex(where: \.isOnline)
            var swap = plan
            swap.steps = plan.steps.enumerated().map { index, step in
                guard step.isOnline else { return step }
                return step.onlineSwap(droppingProgressTable: others == 0 && index == lastOnline) ?? step
            }
            try acceptingDoubleQuotedStringLiterals {
                try withApplyCache(swap) { try applyInTransaction(swap, recording: fingerprint, progress: progress) }
            }
        } catch let error as OnlineRebuildInterrupted {
            throw error
        } catch {
            // Not a kill: leave the database as it was (the app's rows are all in the old table).
            // If this run's objects are already gone, another connection removed them during the
            // copy (a discard by a connection that ignored the lock, or an older version).
            let vanished = online.compactMap(\.onlineRebuild).filter { (try? onlineObjectsExist($0)) == false }
            try? discardOnlineRebuilds(except: [])
            if let gone = vanished.first, (error as? SchemaError)?.code != .schemaChanged {
                let step = online.first { $0.onlineRebuild?.table == gone.table } ?? first
                throw SchemaError(
                    code: .schemaChanged,
                    message: "table \(step.object): another connection removed this online rebuild's temporary table "
                        + "and progress record during the copy: this run changed nothing; plan again",
                    culprit: step.object, underlying: error as? SQLiteError ?? (error as? SchemaError)?.underlying)
            }
            throw error
        }
    }

    /// The file lock of an online run (nil for a database without a file, which no other process
    /// opens), or `onlineRebuildRunning` when another run holds it.
    private func takeOnlineRebuildLock(for step: PlanStep) throws -> OnlineRebuildLock? {
        guard let file = fileName, !file.isEmpty else { return nil }
        guard let lock = try OnlineRebuildLock.take(database: file) else {
            let running = ((try? onlineRebuilds()) ?? []).map(\.table).filter { !$0.isEmpty }
            throw SchemaError(
                code: .onlineRebuildRunning,
                message: "table \(step.object): another online rebuild runs on this database now"
                    + (running.isEmpty ? "" : " (of \(running.joined(separator: ", ")))")
                    + ", in another connection or process: one runs at a time; nothing was changed, apply again when "
                    + "it is done",
                culprit: step.object)
        }
        return lock
    }

    /// True when the temporary table of `ddl` and its progress record both exist.
    private func onlineObjectsExist(_ ddl: OnlineRebuildDDL) throws -> Bool {
        guard try tableExists(ReservedNames.onlineProgressTable), try tableExists(ddl.table) else { return false }
        let records = try fetchValue(
            Int.self,
            sql:
                "SELECT count(*) FROM \(OnlineRebuildDDL.progressTable) WHERE temporary_table = ?",
            arguments: [ddl.table])
        return records ?? 0 > 0
    }

    /// Drops every online rebuild's leftovers (new table, change log and its triggers, progress
    /// record) but those of `steps` with the same plan identity, in one transaction (a savepoint
    /// inside one); the progress table when none is left. The tables the app sees are never
    /// touched. The caller holds the ``OnlineRebuildLock``, or knows no run holds it.
    func discardOnlineRebuilds(except steps: [PlanStep]) throws {
        let hasProgress = try tableExists(ReservedNames.onlineProgressTable)
        let kept = Set(steps.compactMap { $0.onlineRebuild?.table })
        let orphans = try onlineRebuildOrphans(keeping: kept)
        guard hasProgress || !orphans.isEmpty else { return }
        let keep = Set(
            steps.compactMap { step in step.onlineRebuild.map { $0.table + "\u{1F}" + step.onlineIdentity } })
        try transaction(.immediate) {
            let progressTable = OnlineRebuildDDL.progressTable
            var known = kept
            if hasProgress {
                let records = try fetchAll(sql: "SELECT temporary_table, plan_identity FROM \(progressTable)")
                for record in records {
                    let table: String = try record["temporary_table"]
                    let identity: String = try record["plan_identity"]
                    guard !keep.contains(table + "\u{1F}" + identity), ReservedNames.isRebuildTable(table) else {
                        known.insert(table)
                        continue
                    }
                    try dropOnlineObjects(temporaryTable: table)
                }
            }
            // Objects whose record is gone (no run can resume them).
            for table in try onlineRebuildOrphans(keeping: known) { try dropOnlineObjects(temporaryTable: table) }
            if hasProgress, steps.isEmpty, try fetchValue(Int.self, sql: "SELECT count(*) FROM \(progressTable)") == 0 {
                try execute(sql: "DROP TABLE \(progressTable)")
            }
        }
    }

    /// Before a plan with no online rebuild is applied (an empty one too): the leftovers of
    /// interrupted online rebuilds removed, unless a run holds the lock now (its objects are in
    /// use) or the lock cannot be told (a lock file that cannot be opened). Inside the caller's
    /// transaction when there is one.
    func discardLeftoversOfInterruptedOnlineRebuilds() throws {
        // One read of sqlite_master on the common path (no online rebuild's object at all).
        let names: [String] = try fetchColumn(
            sql: #"SELECT name FROM sqlite_master WHERE name LIKE 'strata\_%' ESCAPE '\'"#)
        guard names.contains(where: { $0 == ReservedNames.onlineProgressTable || Self.isOnlineRebuildObject($0) })
        else { return }
        var lock: OnlineRebuildLock?
        if let file = fileName, !file.isEmpty {
            guard let taken = try? OnlineRebuildLock.take(database: file) else { return }
            lock = taken
        }
        defer { lock?.release() }
        try discardOnlineRebuilds(except: [])
    }

    /// The new table, change log, log triggers and progress record of the online rebuild into
    /// `table`.
    private func dropOnlineObjects(temporaryTable table: String) throws {
        for sql in OnlineRebuildDDL.dropTriggers(ofTemporaryTable: table) { try execute(sql: sql) }
        try execute(sql: "DROP TABLE IF EXISTS " + SQL.quoteIdentifier(table))
        try execute(
            sql: "DROP TABLE IF EXISTS " + SQL.quoteIdentifier(OnlineRebuildDDL.logTable(ofTemporaryTable: table)))
        guard try tableExists(ReservedNames.onlineProgressTable) else { return }
        try execute(
            sql: "DELETE FROM \(OnlineRebuildDDL.progressTable) WHERE temporary_table = ?",
            arguments: [table])
    }

    fileprivate func tableExists(_ name: String) throws -> Bool {
        try fetchValue(
            Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name])
            ?? 0 > 0
    }

    /// The new table's foreign keys written into its stored definition, inside the swap (see
    /// ``OnlineRebuildDDL/ForeignKeyEdit``).
    func restoreForeignKeys(_ edit: OnlineRebuildDDL.ForeignKeyEdit) throws {
        let name = SQLValue.text(edit.table).sqlLiteral
        // The columns and indexes of the table `name` in `schema` (`main`, or `temp` for the probe
        // of the same name), as SQLite reads them from its definition.
        let shape = { [self] (schema: String) throws -> [String] in
            let columns = try fetchAll(sql: "PRAGMA \(schema).table_xinfo(\(name))").map { "\($0.values)" }
            // seq, name, unique, origin, partial: by name, without seq.
            let indexes = try fetchAll(sql: "PRAGMA \(schema).index_list(\(name))").map { "\($0.values.dropFirst())" }
            return columns + indexes.sorted()
        }
        let before = try shape("main")
        // SQLite parses and stores the definition with the keys for a TEMP table of the same
        // name: what it will read from `sqlite_master` once the text is there.
        try execute(sql: edit.probe)
        let probed = try shape("temp")
        // id, seq, table, from, to...: one id per key.
        let keys = Set(try fetchAll(sql: "PRAGMA temp.foreign_key_list(\(name))").map { "\($0.values.first ?? .null)" })
        let stored = try fetchValue(
            String.self, sql: "SELECT sql FROM sqlite_temp_master WHERE type = 'table' AND name = ?",
            arguments: [edit.table])
        try execute(sql: "DROP TABLE temp.\(SQL.quoteIdentifier(edit.table))")
        guard let stored, probed == before, keys.count == edit.keys else {
            throw SQLiteError(
                resultCode: .SQLITE_ERROR,
                message: "the definition with foreign keys does not read as the one the rows were copied into")
        }
        let version = try fetchValue(Int64.self, sql: "PRAGMA schema_version") ?? 0
        try withDefensiveModeOff {
            try execute(sql: "PRAGMA writable_schema = ON")
            // RESET also reloads this connection's schema (SQLite 3.33 and later; before, it is
            // OFF, and the swap's RENAME reloads the whole schema from `sqlite_master`).
            defer { try? execute(sql: "PRAGMA writable_schema = RESET") }
            try execute(
                sql: "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                arguments: [stored, edit.table])
            guard changes == 1 else {
                throw SQLiteError(resultCode: .SQLITE_ERROR, message: "no table \(edit.table) in sqlite_master")
            }
            // Every other connection reads the schema again at its next statement.
            try execute(sql: "PRAGMA schema_version = \(version + 1)")
        }
        let written = try fetchValue(
            String.self, sql: "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?",
            arguments: [edit.table])
        guard written == stored else {
            throw SQLiteError(resultCode: .SQLITE_ERROR, message: "the definition with foreign keys was not written")
        }
    }

    /// How many times the copy goes on past its end to the rows the app appended meanwhile.
    static let onlineCopyExtensions = 3

    /// Copies the rows of one online rebuild in batches, up to the old table's largest rowid at
    /// the start, then to the rows appended meanwhile. Resumes the progress of an earlier run of
    /// the same change.
    private func copyOnline(
        _ step: PlanStep, _ ddl: OnlineRebuildDDL, batches sizing: OnlineBatchSize, _ progress: ProgressReporter?
    ) throws {
        var batchSize = sizing.first
        let progressTable = OnlineRebuildDDL.progressTable
        var last: Int64?
        var endRowID: Int64?
        var batches = 0
        try transaction(.immediate) {
            try execute(sql: OnlineRebuildDDL.createProgressTable)
            let record = try fetchOne(
                sql: "SELECT last_rowid, end_rowid, batches FROM \(progressTable) "
                    + "WHERE temporary_table = ? AND plan_identity = ?",
                arguments: [ddl.table, step.onlineIdentity])
            let triggers = try fetchValue(
                Int.self,
                sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name IN (?, ?, ?)",
                arguments: [ddl.source, ddl.triggerNames[0], ddl.triggerNames[1], ddl.triggerNames[2]])
            if let record, try tableExists(ddl.table), try tableExists(ddl.log), triggers == 3 {
                last = try record["last_rowid"]
                endRowID = try record["end_rowid"]
                batches = try record["batches"]
                return
            }
            // A fresh start (or leftovers of a different change under the same name).
            try dropOnlineObjects(temporaryTable: ddl.table)
            // The new table without its foreign keys: the app's writes to a parent must not act
            // on the copies (see `OnlineRebuildDDL`).
            for sql in ddl.stagingCreateSQL.map({ [$0] }) ?? step.createTableStatements { try execute(sql: sql) }
            try execute(sql: ddl.createLog)
            for sql in ddl.createTriggers { try execute(sql: sql) }
            endRowID = try fetchValue(Int64.self, sql: ddl.copyEndSQL)
            let startRows = try fetchValue(Int64.self, sql: ddl.startRowsSQL)
            try execute(
                sql: "INSERT INTO \(progressTable) (temporary_table, source_table, plan_identity, phase, last_rowid, "
                    + "end_rowid, start_rows) VALUES (?, ?, ?, 'copy', NULL, ?, ?)",
                arguments: [ddl.table, ddl.source, step.onlineIdentity, endRowID, startRows])
        }
        var copied = 0
        var pause = OnlineBatchPause()
        var checkpoints = try OnlineCheckpoints(on: self)
        // The rows the app appended past the copy are left to it (see `OnlineRebuildDDL`):
        // at the end of the range, the batches go on to the largest rowid then, up to three times;
        // the swap copies what is left.
        var extensions = 0
        // An empty table at the start: the swap copies every row.
        while let bound = endRowID {
            // The time the batch holds the write lock: from BEGIN IMMEDIATE's success (not the
            // wait before it) to the commit.
            let clock = ContinuousClock()
            var locked = clock.now
            let end: Int64? = try transaction(.immediate) {
                locked = clock.now
                let from = last ?? Int64.min
                var end = try fetchValue(
                    Int64.self, sql: ddl.batchEndSQL(inclusive: last == nil), arguments: [from, batchSize, bound])
                if end == nil, extensions < Self.onlineCopyExtensions,
                    let appended = try fetchValue(Int64.self, sql: ddl.copyEndSQL), appended > bound
                {
                    extensions += 1
                    endRowID = appended
                    try execute(
                        sql: "UPDATE \(progressTable) SET end_rowid = ? WHERE temporary_table = ?",
                        arguments: [appended, ddl.table])
                    end = try fetchValue(
                        Int64.self, sql: ddl.batchEndSQL(inclusive: last == nil),
                        arguments: [from, batchSize, appended])
                }
                guard let end else {
                    try execute(
                        sql: "UPDATE \(progressTable) SET phase = 'swap' WHERE temporary_table = ?",
                        arguments: [ddl.table])
                    return nil
                }
                do {
                    // The app's writes since the last batch first, then the next rows.
                    try replayLog(ddl)
                    let batch = ddl.batchSQL(inclusive: last == nil)
                    do {
                        try execute(sql: batch, arguments: [from, end])
                    } catch let error as SQLiteError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                        // A row the app wrote may conflict with the copy of a row its REPLACE
                        // removed unseen (no DELETE trigger fires). When the counts say the log
                        // missed a removal, the stale copies go (as in the swap) and the batch
                        // runs again; a conflict left is in the rows themselves.
                        try execute(sql: ddl.removeRowsGoneFromSource)
                        guard changes > 0 else { throw error }
                        try execute(sql: batch, arguments: [from, end])
                    }
                } catch let error as SQLiteError {
                    let message = TemporaryNames.userFacing(error.message, renames: step.temporaryTables)
                    throw SchemaError(
                        code: .applyFailed,
                        message: "table \(step.object): the existing rows do not fit the new definition: \(message) "
                            + "(found while copying online; nothing was changed)",
                        culprit: step.object, underlying: error)
                }
                copied += changes
                try execute(
                    sql: "UPDATE \(progressTable) SET last_rowid = ?, batches = batches + 1 WHERE temporary_table = ?",
                    arguments: [end, ddl.table])
                return end
            }
            guard let end else { break }
            // The batch's COMMIT woke the app's connections of this process waiting for the lock.
            let woken = connectionsWokenAtLastRelease
            last = end
            batches += 1
            try progress?.report(
                .rowsCopied(table: step.object, copied: copied, total: max(copied, step.estimate.rows)))
            try OnlineRebuildSeam.afterBatch?(step.object, batches)
            let held = (clock.now - locked).inSeconds
            batchSize = sizing.next(after: batchSize, held: held)
            try checkpoints.afterBatch(on: self)
            try pause.rest(after: held, woken: woken, on: self)
        }
    }

    /// Brings the new table up to date with the app's writes the log holds, inside a batch's
    /// transaction: the logged rows' copies removed, the log's counts folded into the progress
    /// record, stale copies removed when the counts say so, and the logged rows the batches
    /// already passed copied again as they are now (later ones are left to their batch). When
    /// that copy fails on a row (one that does not fit the new definition, or collides with
    /// another), the rows are copied one by one and each that fails stays logged: the app may
    /// still change it, and the swap copies it with `OR ABORT`, refusing the change if it still
    /// does not fit, as the offline rebuild does. The rest of the log is emptied.
    /// True for an error a row's copy raises because of the row: a constraint, a type, a
    /// function of a generated column or CHECK that fails on its value (not a full disk, an I/O
    /// error, a lock or an interrupt, which stop the batch).
    static func isRowRefusal(_ error: SQLiteError) -> Bool {
        [.SQLITE_CONSTRAINT, .SQLITE_ERROR, .SQLITE_MISMATCH, .SQLITE_RANGE, .SQLITE_TOOBIG].contains(error.resultCode)
    }

    private func replayLog(_ ddl: OnlineRebuildDDL) throws {
        guard try fetchValue(Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM \(SQL.quoteIdentifier(ddl.log)))") == true
        else { return }
        try execute(sql: ddl.replayDeletesLogged)
        try execute(sql: ddl.foldLoggedCounts)
        try execute(sql: ddl.zeroLoggedCounts)
        try execute(sql: ddl.removeRowsGoneFromSource)
        do {
            try savepoint { try execute(sql: ddl.replayCopiesLogged) }
            try execute(sql: ddl.clearWholeLog)
            return
        } catch let error as SQLiteError where Self.isRowRefusal(error) {
            // One by one below.
        }
        let rowIDs: [Int64] = try fetchColumn(sql: ddl.loggedRowIDsCopied)
        for rowID in rowIDs {
            do {
                try savepoint { try execute(sql: ddl.replayCopyOne, arguments: [rowID]) }
                try execute(sql: ddl.clearLogged, arguments: [rowID])
            } catch let error as SQLiteError where Self.isRowRefusal(error) {
                continue  // stays logged
            }
        }
        try execute(sql: ddl.clearLoggedPastCopied)
    }

    /// Runs `body` with `PRAGMA synchronous = NORMAL` when the database is in WAL mode and the
    /// connection syncs more, restoring the setting after. A batch of an online rebuild need not
    /// be durable: one lost in a power cut is copied again by the next run, which resumes from the
    /// progress recorded in the same transaction (WAL keeps each commit atomic at NORMAL:
    /// <https://www.sqlite.org/pragma.html#pragma_synchronous>). It saves a sync per batch. In
    /// the other journal modes the setting is left alone (NORMAL there may corrupt the file on a
    /// power cut).
    private func withBatchCommitsUnsynchronized(_ body: () throws -> Void) throws {
        let mode = try fetchValue(String.self, sql: "PRAGMA journal_mode")?.lowercased()
        let level = try fetchValue(Int.self, sql: "PRAGMA synchronous") ?? 2
        guard mode == "wal", level > 1 else { return try body() }
        try execute(sql: "PRAGMA synchronous = NORMAL")
        defer { try? execute(sql: "PRAGMA synchronous = \(level)") }
        try body()
    }
}

/// The pause after each batch of an online rebuild, in which the app's writers take the lock.
///
/// A writer of this process waits in Strata's busy handler, which the batch's end wakes
/// (``StrataSQLite/Database/wakeConnectionsWaitingForThisFile()``): when one was waiting, the
/// pause lasts until it has left its handler to retry, plus an eighth of the time the batch held
/// the lock. A writer of another process, or one with a busy handler of its own, cannot be woken:
/// it polls (SQLite's busy handler retries after 1, 3, 8, 18, 33, 53 and 78 ms), so the share of
/// the time the lock is free sets its chance of finding it free. When no writer was woken, the
/// pause is therefore as long as the batch held the lock (at most 50 ms) as long as someone
/// writes during it unseen (`PRAGMA data_version` changes while no connection of this process
/// released the lock through `execute(sql:)`, which every commit of `transaction` and every
/// write of a `DatabasePool` does); while nobody does, each pause is half the last, down to an
/// eighth.
struct OnlineBatchPause {
    /// The least share of a batch's time left free after it, for writers that poll.
    static let leastShare = 0.125
    /// The longest pause, whatever the batch held.
    static let longest = 0.05
    private(set) var share = 1.0

    /// Pauses after a batch that held the lock `held` seconds and woke `woken` writers, sleeping
    /// through `sleep` (seconds).
    mutating func rest(
        after held: Double, woken: Int, on db: Database,
        sleep: (Double) -> Void = { usleep(useconds_t($0 * 1_000_000)) }
    ) throws {
        let time = min(max(0, held), Self.longest)
        if woken > 0 {
            db.waitForWokenConnectionsToRetry(atMost: Self.longest)
            sleep(time * Self.leastShare)
            return
        }
        let version = try db.fetchValue(Int.self, sql: "PRAGMA data_version")
        let releases = db.releasesOfThisFile
        sleep(time * share)
        // Written by a connection that did not release the lock through Strata in this process
        // (another process, most likely): it polls, and needs the room.
        let written = try db.fetchValue(Int.self, sql: "PRAGMA data_version") != version
        let after = db.releasesOfThisFile
        let unseen = written && after.count == releases.count && !after.running
        share = unseen ? 1 : max(share / 2, Self.leastShare)
    }
}

/// The checkpoints of an online rebuild in WAL mode. The batches add pages to the WAL quickly;
/// left alone, the connection whose commit finds the WAL past `wal_autocheckpoint` frames copies
/// them into the database and syncs it, and that is most often the app's writer, whose write
/// then lasts hundreds of milliseconds. So the rebuild checkpoints (`PASSIVE`: it never waits
/// for, nor blocks, the app's writes) after a batch once the pages in use have grown by half the
/// autocheckpoint limit since its last checkpoint, before any commit reaches the limit. A
/// database not in WAL mode, or whose connection turned autocheckpoints off, is left alone.
struct OnlineCheckpoints {
    private let threshold: Int?
    private var inUse: Int

    init(on db: Database) throws {
        let wal = try db.fetchValue(String.self, sql: "PRAGMA journal_mode")?.lowercased() == "wal"
        let limit = try db.fetchValue(Int.self, sql: "PRAGMA wal_autocheckpoint") ?? 0
        threshold = wal && limit > 0 ? max(1, limit / 2) : nil
        inUse = threshold == nil ? 0 : try Self.pagesInUse(db)
    }

    private static func pagesInUse(_ db: Database) throws -> Int {
        try db.fetchValue(
            Int.self, sql: "SELECT page_count - freelist_count FROM pragma_page_count, pragma_freelist_count") ?? 0
    }

    mutating func afterBatch(on db: Database) throws {
        guard let threshold else { return }
        let now = try Self.pagesInUse(db)
        // Pages freed (the app deleted rows) only move the baseline down.
        guard now - inUse >= threshold else { return inUse = min(inUse, now) }
        _ = try db.fetchOne(sql: "PRAGMA wal_checkpoint(PASSIVE)")
        inUse = now
    }
}

/// The rows of each batch of an online rebuild: fixed, or adapting so that each batch holds the
/// write lock about a given time (``SchemaChangeOptions/onlineBatchTime``).
enum OnlineBatchSize: Equatable {
    case fixed(Int)
    /// Seconds each batch should hold the lock.
    case adapting(seconds: Double)

    static func adapting(to time: Duration) -> OnlineBatchSize {
        .adapting(seconds: max(0, time.inSeconds))
    }

    /// The first batch's rows.
    var first: Int {
        switch self {
        case .fixed(let rows): rows
        case .adapting: SchemaChangeOptions.defaultOnlineBatchSize
        }
    }

    /// The next batch's rows after one of `rows` that held the lock `held` seconds: scaled by
    /// the target over `held`, at most halved or doubled (one slow batch, a page cache to fill
    /// again, must not swing the size), within ``SchemaChangeOptions/onlineBatchRowRange``.
    func next(after rows: Int, held: Double) -> Int {
        guard case .adapting(let target) = self else { return rows }
        let range = SchemaChangeOptions.onlineBatchRowRange
        let scaled = held > 0 && held.isFinite ? Double(rows) * target / held : Double(rows) * 2
        let bounded = min(max(scaled, Double(rows) / 2), Double(rows) * 2)
        return min(max(Int(bounded), range.lowerBound), range.upperBound)
    }
}

extension PlanStep {
    /// What identifies an online rebuild across runs: a digest of its statements (the temporary
    /// name in them is itself derived from the old and the new table) and of the way its rows are
    /// kept in step (`log`: a run of an earlier version, which mirrored the writes into the new
    /// table, is discarded rather than resumed).
    var onlineIdentity: String {
        String(XXH64.hash("log\u{1E}" + statements.joined(separator: "\u{1E}")), radix: 16)
    }
}

/// An online rebuild whose objects a database holds (``StrataSQLite/Database/onlineRebuilds()``):
/// one running now in another connection or process, or one interrupted (killed, or stopped by
/// a crash), which the same change applied online resumes, and any other apply, or
/// ``StrataSQLite/Database/discardInterruptedOnlineRebuilds()``, removes.
public struct OnlineRebuildState: Sendable, Hashable {
    /// The table being rebuilt, as the app names it.
    public var table: String
    /// The new table being filled (`strata_tmp_` and 16 hexadecimal digits).
    public var temporaryTable: String
    /// The batches copied so far.
    public var batches: Int
    /// The rows copied into the new table so far.
    public var rowsCopied: Int
    /// True when a run holds the database's online rebuild lock now: its objects are in use.
    public var isRunning: Bool
}

extension Database {
    /// The online rebuilds whose objects this database holds: each new table, change log and
    /// triggers with its progress record, running now or interrupted (see ``OnlineRebuildState``).
    /// Empty when there are none; objects of Strata's online rebuilds without a progress record
    /// (which no run can resume) are listed under the table `""`.
    ///
    /// ```swift
    /// for rebuild in try db.onlineRebuilds() where !rebuild.isRunning {
    ///     print("interrupted online rebuild of \(rebuild.table): \(rebuild.rowsCopied) rows copied")
    /// }
    /// ```
    public func onlineRebuilds() throws -> [OnlineRebuildState] {
        let running = fileName.map { !$0.isEmpty && OnlineRebuildLock.isHeld(database: $0) } ?? false
        var states = [OnlineRebuildState]()
        var known = Set<String>()
        if try tableExists(ReservedNames.onlineProgressTable) {
            for record in try fetchAll(
                sql: "SELECT source_table, temporary_table, batches FROM \(OnlineRebuildDDL.progressTable) "
                    + "ORDER BY source_table, temporary_table")
            {
                let temporary: String = try record["temporary_table"]
                known.insert(temporary)
                let rows =
                    try tableExists(temporary)
                    ? try fetchValue(Int.self, sql: "SELECT count(*) FROM \(SQL.quoteIdentifier(temporary))") ?? 0 : 0
                states.append(
                    OnlineRebuildState(
                        table: try record["source_table"], temporaryTable: temporary, batches: try record["batches"],
                        rowsCopied: rows, isRunning: running))
            }
        }
        for orphan in try onlineRebuildOrphans(keeping: known) {
            states.append(
                OnlineRebuildState(table: "", temporaryTable: orphan, batches: 0, rowsCopied: 0, isRunning: running))
        }
        return states
    }

    /// True for the name of an online rebuild's new table, change log or log trigger.
    static func isOnlineRebuildObject(_ name: String) -> Bool {
        (ReservedNames.isRebuildTable(name) && name.utf8.count == 27) || ReservedNames.isOnlineLog(name)
            || ReservedNames.isMirrorTrigger(name)
    }

    /// The 16 hex digits' temporary tables (`strata_tmp_...`) of Strata's online rebuild objects
    /// (new tables, change logs, log triggers) that no progress record in `keeping` names.
    func onlineRebuildOrphans(keeping known: Set<String>) throws -> [String] {
        let objects = try fetchAll(sql: #"SELECT type, name FROM sqlite_master WHERE name LIKE 'strata\_%' ESCAPE '\'"#)
        var orphans = [String]()
        for object in objects {
            let type: String = try object["type"]
            let name: String = try object["name"]
            var temporary: String?
            if type == "table", ReservedNames.isRebuildTable(name), name.utf8.count == 27 {
                temporary = name
            } else if type == "table", ReservedNames.isOnlineLog(name) {
                temporary = ReservedNames.rebuildTablePrefix + name.dropFirst(ReservedNames.onlineLogPrefix.count)
            } else if type == "trigger", ReservedNames.isMirrorTrigger(name) {
                let hex = name.dropFirst(ReservedNames.mirrorTriggerPrefix.count).prefix(16)
                temporary = ReservedNames.rebuildTablePrefix + hex
            }
            if let temporary, !known.contains(temporary), !orphans.contains(temporary) { orphans.append(temporary) }
        }
        return orphans
    }

    /// Removes what interrupted online rebuilds left (``SchemaChangeOptions/online``): their new
    /// tables, change logs and their triggers, and progress records, in one transaction. The
    /// app's tables and rows are never touched; the schema is then exactly the one the
    /// interrupted plans started from. Running the same change again instead resumes where it
    /// stopped. An online rebuild running now in another connection or process is left alone
    /// (see ``onlineRebuilds()``). Any apply of a plan without online rebuilds does the same.
    ///
    /// Returns the tables whose online rebuild was discarded (their names as the app knows them).
    @discardableResult
    public func discardInterruptedOnlineRebuilds() throws -> [String] {
        let states = try onlineRebuilds()
        guard !states.isEmpty, !states.contains(where: \.isRunning) else { return [] }
        var lock: OnlineRebuildLock?
        if let file = fileName, !file.isEmpty {
            guard let taken = try OnlineRebuildLock.take(database: file) else { return [] }
            lock = taken
        }
        defer { lock?.release() }
        try discardOnlineRebuilds(except: [])
        return states.map(\.table).filter { !$0.isEmpty }
    }
}
