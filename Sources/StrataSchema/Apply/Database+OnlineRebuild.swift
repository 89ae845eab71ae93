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
    /// Applies a plan with online rebuilds (``PlanStep/isOnline``): for each, the new table and
    /// the mirror triggers with a progress record in one short transaction (or those of an
    /// interrupted run of the same change, found again by its temporary name and plan identity),
    /// the rows copied in batches of `batchSize`, each in a short write transaction that records
    /// its last rowid (committed without a sync in WAL mode: see
    /// `withBatchCommitsUnsynchronized`); then the whole plan in one transaction as offline, each
    /// online rebuild's copy replaced by a check, and when needed a reconciliation, by rowid (see
    /// ``PlanStep/onlineSwap(droppingProgressTable:)``),
    /// the progress table dropped there when it holds no other change's record. Between batches
    /// the schema is the old one plus Strata's own objects. Any error but a kill discards those
    /// objects (the database is as it was).
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
            // copy: a run of the same change that swapped first (it shares them), or a discard.
            let vanished = online.compactMap(\.onlineRebuild).filter { (try? onlineObjectsExist($0)) == false }
            try? discardOnlineRebuilds(except: [])
            if let gone = vanished.first, (error as? SchemaError)?.code != .schemaChanged {
                let step = online.first { $0.onlineRebuild?.table == gone.table } ?? first
                throw SchemaError(
                    code: .schemaChanged,
                    message: "table \(step.object): another connection removed this online rebuild's temporary table "
                        + "and progress record during the copy (a run of the same change that finished first, or a "
                        + "discard of interrupted online rebuilds): this run changed nothing; plan again",
                    culprit: step.object, underlying: error as? SQLiteError ?? (error as? SchemaError)?.underlying)
            }
            throw error
        }
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

    /// Drops every online rebuild's leftovers (new table, mirror triggers, progress record) but
    /// those of `steps` with the same plan identity, in one transaction; the progress table when
    /// none is left. The tables the app sees are never touched.
    func discardOnlineRebuilds(except steps: [PlanStep]) throws {
        guard try tableExists(ReservedNames.onlineProgressTable) else { return }
        let keep = Set(
            steps.compactMap { step in step.onlineRebuild.map { $0.table + "\u{1F}" + step.onlineIdentity } })
        try transaction(.immediate) {
            let progressTable = OnlineRebuildDDL.progressTable
            let records = try fetchAll(sql: "SELECT temporary_table, plan_identity FROM \(progressTable)")
            for record in records {
                let table: String = try record["temporary_table"]
                let identity: String = try record["plan_identity"]
                guard !keep.contains(table + "\u{1F}" + identity), ReservedNames.isRebuildTable(table) else { continue }
                try dropOnlineObjects(temporaryTable: table)
            }
            if steps.isEmpty, try fetchValue(Int.self, sql: "SELECT count(*) FROM \(progressTable)") == 0 {
                try execute(sql: "DROP TABLE \(progressTable)")
            }
        }
    }

    /// The new table, mirror triggers and progress record of the online rebuild into `table`.
    private func dropOnlineObjects(temporaryTable table: String) throws {
        for sql in OnlineRebuildDDL.dropTriggers(ofTemporaryTable: table) { try execute(sql: sql) }
        try execute(sql: "DROP TABLE IF EXISTS " + SQL.quoteIdentifier(table))
        try execute(
            sql: "DELETE FROM \(OnlineRebuildDDL.progressTable) WHERE temporary_table = ?",
            arguments: [table])
    }

    fileprivate func tableExists(_ name: String) throws -> Bool {
        try fetchValue(
            Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name])
            ?? 0 > 0
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
            if let record, try tableExists(ddl.table), triggers == 3 {
                last = try record["last_rowid"]
                endRowID = try record["end_rowid"]
                batches = try record["batches"]
                return
            }
            // A fresh start (or leftovers of a different change under the same name).
            try dropOnlineObjects(temporaryTable: ddl.table)
            for sql in step.createTableStatements { try execute(sql: sql) }
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
        // The rows the app appended during the copy are not mirrored (see `OnlineRebuildDDL`):
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
                    // A batch the mirror never wrote into is copied without a probe per row.
                    let mirrored =
                        try fetchValue(
                            Bool.self, sql: ddl.batchHasMirroredRowsSQL(inclusive: last == nil), arguments: [from, end])
                        ?? true
                    let batch = ddl.batchSQL(inclusive: last == nil, skippingMirrored: mirrored)
                    do {
                        try execute(sql: batch, arguments: [from, end])
                    } catch let error as SQLiteError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                        // A row the app wrote past the copy may conflict with the copy of a row
                        // its REPLACE removed unseen (no DELETE trigger fires). When the counts
                        // say the mirror missed a removal, the stale copies go (as in the swap)
                        // and the batch runs again; a conflict left is in the rows themselves.
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
    /// name in them is itself derived from the old and the new table).
    var onlineIdentity: String {
        String(XXH64.hash(statements.joined(separator: "\u{1E}")), radix: 16)
    }
}

extension Database {
    /// Removes what interrupted online rebuilds left (``SchemaChangeOptions/online``): their new
    /// tables, mirror triggers and progress records, in one transaction. The app's tables and rows
    /// are never touched; the schema is then exactly the one the interrupted plans started from.
    /// Running the same change again instead resumes where it stopped.
    ///
    /// Returns the tables whose online rebuild was discarded (their names as the app knows them).
    @discardableResult
    public func discardInterruptedOnlineRebuilds() throws -> [String] {
        guard try tableExists(ReservedNames.onlineProgressTable) else { return [] }
        let tables: [String] = try fetchColumn(
            sql: "SELECT source_table FROM \(OnlineRebuildDDL.progressTable) "
                + "ORDER BY source_table")
        try discardOnlineRebuilds(except: [])
        return tables
    }
}
