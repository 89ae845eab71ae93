import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Online rebuilds (issue 29, `SchemaChangeOptions.online`): the rows are copied in batches while
/// the app writes through another connection between them (the seam `OnlineRebuildSeam`), the
/// tables are swapped in one transaction; an interrupted run resumes, another change discards
/// its leftovers, and what cannot go online is refused with the schema and rows unchanged.
@Suite("Online rebuilds")
struct OnlineRebuildTests {
    static let rows = 3_000
    static let live = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
        CREATE INDEX item_name ON item(name);
        CREATE TABLE audit(item INTEGER, name TEXT);
        CREATE TRIGGER item_audit AFTER UPDATE OF name ON item BEGIN
          INSERT INTO audit(item, name) VALUES (NEW.id, NEW.name);
        END;
        """
    static let desired = live.replacingOccurrences(of: "price REAL", with: "price NUMERIC")
    static var options: SchemaChangeOptions {
        var options = SchemaChangeOptions(online: true)
        options.onlineBatchSize = 250
        return options
    }

    /// The app's own connection, written through from the seam (which must be `@Sendable`).
    final class AppConnection: @unchecked Sendable {
        private let db: UnsafeSendableLockedValue<Database>
        init(path: String) throws { db = UnsafeSendableLockedValue(try Database(path: path)) }
        func callAsFunction<T>(_ body: (Database) throws -> T) rethrows -> T { try db.withLock { try body($0) } }
    }

    func makeDatabase(_ dir: TemporaryDirectory) throws -> Database {
        try ItemTableFixture.makeDatabase(dir, live: Self.live, rows: Self.rows)
    }

    /// Every row of `item`, in rowid order, with its rowid first (prices as REAL: NUMERIC stores
    /// 2.0 as 2).
    static func rows(_ db: Database) throws -> [[SQLValue]] {
        try db.fetchAll(sql: "SELECT rowid, id, name, price * 1.0 FROM item ORDER BY rowid").map(\.values)
    }

    /// Runs the online rebuild to ``desired`` and stops it after batch `n`, as a kill would.
    static func interrupt(_ db: Database, afterBatch n: Int) throws {
        #expect(throws: OnlineRebuildInterrupted.self) {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                if batch == n { throw OnlineRebuildInterrupted() }
            }) {
                try db.migrateSchema(to: Self.desired, options: Self.options)
            }
        }
    }

    /// The app's schema and rows: everything but Strata's own objects.
    static func appContents(_ db: Database) throws -> [String] {
        let contents = try DatabaseContents(db)
        return contents.schema.filter { !$0.contains("strata_") }
            + contents.rows.filter { !$0.key.hasPrefix("strata_") }.sorted { $0.key < $1.key }.map { "\($0)" }
    }

    /// The names of Strata's own objects in the file.
    static func strataObjects(_ db: Database) throws -> [String] {
        try db.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata%' ORDER BY name")
    }

    /// The app's writes of round `n`: rows inserted after and before the copy's position, rows
    /// updated and deleted ahead of it and behind it, a rowid changed by UPDATE both ways.
    static func appWrites(_ app: Database, round n: Int) throws {
        try app.transaction {
            try app.execute(
                sql: "INSERT INTO item(id, name, price) VALUES (?, ?, ?)", arguments: [100_000 + n, "new \(n)", n])
            try app.execute(
                sql: "INSERT INTO item(id, name, price) VALUES (?, ?, NULL)", arguments: [-n, "before \(n)"])
            try app.execute(
                sql: "UPDATE item SET name = name || ' (edited)' WHERE id IN (?, ?)", arguments: [n, 2_000 + n])
            try app.execute(sql: "DELETE FROM item WHERE id IN (?, ?)", arguments: [20 + n, 2_500 + n])
            try app.execute(sql: "UPDATE item SET id = ? WHERE id = ?", arguments: [200_000 + n, 40 + n])
            try app.execute(sql: "UPDATE item SET id = ? WHERE id = ?", arguments: [-1_000 - n, 2_800 + n])
            try app.execute(sql: "UPDATE item SET price = price + 1 WHERE id = ?", arguments: [100_000 + n - 1])
        }
    }

    @Test func theAppsWritesDuringTheCopyAreAllKept() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let plan = try db.planSchemaChange(to: Self.desired, options: Self.options)
        let rebuilds = plan.steps.filter { $0.kind == .rebuildTable }
        #expect(rebuilds.count == 1 && rebuilds.allSatisfy(\.isOnline))
        #expect(plan.steps.filter { $0.kind != .rebuildTable }.allSatisfy { !$0.isOnline })
        #expect(plan.summary.contains("(online)"))
        // The old table as the app left it after its last writes: what the new table must hold.
        let expected = LockedValue<[[SQLValue]]>([])
        let batches = LockedValue<[Int]>([])
        var copied = [Int]()
        try OnlineRebuildSeam.$afterBatch.withValue({ table, batch in
            #expect(table == "item")
            batches.withLock { $0.append(batch) }
            // Between batches the app sees its own schema, Strata's objects left out.
            #expect(try app { try DatabaseSchema.read(from: $0) }.differences(from: plan.base).isEmpty)
            try app { try Self.appWrites($0, round: batch) }
            let now = try app { try Self.rows($0) }
            expected.withLock { $0 = now }
        }) {
            try db.applySchemaChange(plan) { event in
                if case .rowsCopied(let table, let n, _) = event, table == "item" { copied.append(n) }
            }
        }
        let rounds = batches.withLock { $0 }
        #expect(rounds.count >= Self.rows / 250 && rounds == Array(1...rounds.count))
        #expect(copied.count >= rounds.count && copied == copied.sorted())
        #expect(try Self.rows(db) == expected.withLock { $0 })
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try Self.strataObjects(db).isEmpty)
        // The app's trigger fired for every edit during the copy, and is there again after it.
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM audit") == rounds.count * 2)
        try app { try $0.execute(sql: "UPDATE item SET name = 'after' WHERE id = 1") }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM audit") == rounds.count * 2 + 1)
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// A row removed to resolve a UNIQUE conflict (REPLACE) fires no DELETE trigger (unless the
    /// app's connection turned `recursive_triggers` on), so the mirror never hears of it and its
    /// copy stays in the new table. Where the new table keeps the UNIQUE constraint and the app
    /// wrote with a plain INSERT or UPDATE (the old table's constraint says `ON CONFLICT
    /// REPLACE`), the mirror's own `OR IGNORE` then leaves out the replacing row: one row too
    /// many, one too few, and equal counts. Where the new table drops the constraint, the stale
    /// copy is one row too many. The swap reconciles by rowid; the rows are the app's, exactly.
    @Test(arguments: [
        (
            "CREATE TABLE tag(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE ON CONFLICT REPLACE, name TEXT, weight REAL);",
            "CREATE TABLE tag(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE ON CONFLICT REPLACE, name TEXT, weight NUMERIC);",
            ""
        ),
        (
            "CREATE TABLE tag(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT, weight REAL);",
            "CREATE TABLE tag(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, name TEXT, weight NUMERIC);",
            " OR REPLACE"
        ),
        // With `recursive_triggers` on, the removals fire the DELETE trigger: the mirror sees them.
        (
            "PRAGMA recursive_triggers = ON; CREATE TABLE tag(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT, weight REAL);",
            "CREATE TABLE tag(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT, weight NUMERIC);",
            " OR REPLACE"
        ),
    ])
    func rowsReplacedOnAUniqueConflictDuringTheCopyAreNeitherKeptStaleNorLost(
        live: String, desired: String, conflict: String
    ) throws {
        let recursive = live.hasPrefix("PRAGMA")
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: live.replacingOccurrences(of: "PRAGMA recursive_triggers = ON; ", with: ""))
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO tag(id, uuid, name, weight) SELECT i, 'u' || i, 'tag ' || i, i FROM n
                """)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let expected = LockedValue<[[SQLValue]]>([])
        let rounds = LockedValue(0)
        let rows = "SELECT rowid, id, uuid, name, weight * 1.0 FROM tag ORDER BY rowid"
        try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
            try app {
                if recursive { try $0.execute(sql: "PRAGMA recursive_triggers = ON") }
                // A row replaced under its own rowid (the mirror counts an insert, the table
                // keeps its count).
                try $0.execute(
                    sql: "INSERT OR REPLACE INTO tag(id, uuid, name, weight) VALUES (?, ?, 'same rowid', 1)",
                    arguments: [500 + batch, "u\(500 + batch)"])
                // Rows already copied (low ids) and not yet copied (high ids) replaced by new rows
                // with new rowids, and an update that takes another row's unique value.
                try $0.execute(
                    sql: "INSERT\(conflict) INTO tag(id, uuid, name, weight) VALUES (?, ?, 'replacing', 0)",
                    arguments: [10_000 + batch, "u\(batch)"])
                try $0.execute(
                    sql: "INSERT\(conflict) INTO tag(id, uuid, name, weight) VALUES (?, ?, 'replacing ahead', 0)",
                    arguments: [20_000 + batch, "u\(1_990 - batch)"])
                try $0.execute(
                    sql: "UPDATE\(conflict) tag SET uuid = ? WHERE id = ?", arguments: ["u\(100 + batch)", 200 + batch])
            }
            rounds.withLock { $0 += 1 }
            let now = try app { try $0.fetchAll(sql: rows).map(\.values) }
            expected.withLock { $0 = now }
        }) {
            var options = SchemaChangeOptions(online: true)
            options.onlineBatchSize = 300
            try db.migrateSchema(to: desired, options: options)
        }
        // Each round's UPDATE removed one row; each INSERT replaced one.
        let n = rounds.withLock { $0 }
        #expect(n >= 2_000 / 300)
        #expect(expected.withLock { $0.count } == 2_000 - n)
        #expect(try db.fetchAll(sql: rows).map(\.values) == expected.withLock { $0 })
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        let leftovers = try Self.strataObjects(db).filter { $0 != "strata_schema_fingerprint" }  // migrateSchema's own
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// The batches commit with `synchronous = NORMAL` in WAL mode (a lost batch is copied again);
    /// the connection's own level is back after the rebuild, and after a failed one; and a file in
    /// another journal mode is left at its level throughout.
    @Test(arguments: [("WAL", 3), ("WAL", 1), ("DELETE", 2)])
    func theConnectionsSynchronousLevelIsRestored(mode: String, level: Int) throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(mode)")
        try db.execute(sql: "PRAGMA synchronous = \(level)")
        let seen = LockedValue<Set<Int>>([])
        let rebuilding = UnsafeSendableLockedValue(db)
        try OnlineRebuildSeam.$afterBatch.withValue({ _, _ in
            // The seam runs on the rebuild's own thread, between batches: the connection is idle.
            let level = try rebuilding.withLock { try $0.fetchValue(Int.self, sql: "PRAGMA synchronous") }
            seen.withLock { $0.insert(level ?? -1) }
        }) {
            try db.migrateSchema(to: Self.desired, options: Self.options)
        }
        #expect(seen.withLock { $0 } == [mode == "WAL" ? min(level, 1) : level])
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA synchronous") == level)
        // A change that fails during the copy (a row that does not fit) restores it too.
        try db.execute(sql: "UPDATE item SET name = 'same' WHERE id IN (10, 2900)")
        let error = try #require(throws: SchemaError.self) {
            try db.migrateSchema(
                to: Self.live.replacingOccurrences(of: "name TEXT NOT NULL", with: "name TEXT NOT NULL UNIQUE"),
                options: Self.options)
        }
        #expect(error.message.contains("found while copying online"), "\(error.message)")
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA synchronous") == level)
    }

    /// Two runs of the same change at once, on two connections (as two processes launching the
    /// same app version would). One online rebuild runs at a time on a file: exactly one swap
    /// commits; the other run finds nothing left to do, or fails before it changes anything
    /// (another run holds the lock) or at its swap (the schema changed), naming the table; the
    /// file ends with the new schema, every row, and none of Strata's objects but the fingerprint.
    @Test(arguments: [(100, 100), (100, 450)])
    func twoRunsOfTheSameChangeAtOnce(batch: Int, otherBatch: Int) throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL")
        let before = try Self.rows(db)
        let path = dir.file("app.sqlite")
        let outcomes = LockedValue<[String]>([])
        let group = DispatchGroup()
        for size in [batch, otherBatch] {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    var configuration = Configuration()
                    configuration.busyTimeout = 60
                    let connection = try Database(path: path, configuration: configuration)
                    defer { connection.close() }
                    var options = SchemaChangeOptions(online: true)
                    options.onlineBatchSize = size
                    let plan = try connection.migrateSchema(to: Self.desired, options: options)
                    outcomes.withLock { $0.append(plan.isEmpty ? "nothing to do" : "applied") }
                } catch let error as SchemaError {
                    let kind =
                        error.code == .schemaChanged
                        ? "schema changed" : error.code == .onlineRebuildRunning ? "running" : "\(error.code)"
                    outcomes.withLock { $0.append("\(kind): \(error.message)") }
                } catch {
                    outcomes.withLock { $0.append("other error: \(error)") }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 300) == .success)
        let seen = outcomes.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.contains { $0 == "applied" }, "\(seen)")
        // The other found nothing to do, or says the schema changed under it, naming the table.
        for outcome in seen where outcome != "applied" && outcome != "nothing to do" {
            // (From the swap's check, "the database schema changed since the plan was made: table
            // item: ..."; from a copy whose objects vanished, "table item: another connection ...".)
            #expect(
                (outcome.hasPrefix("schema changed: ") || outcome.hasPrefix("running: "))
                    && outcome.contains("table item"),
                "\(outcome)")
            #expect(!outcome.contains("strata_") && !outcome.contains("do not fit"), "\(outcome)")
        }
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try Self.rows(db) == before)
        let leftovers = try Self.strataObjects(db).filter { $0 != "strata_schema_fingerprint" }
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func anInterruptedRunResumesWhereItStopped() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let before = try DatabaseSchema.read(from: db)
        #expect(throws: OnlineRebuildInterrupted.self) {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                try app { try Self.appWrites($0, round: batch) }
                if batch == 3 { throw OnlineRebuildInterrupted() }
            }) {
                try db.migrateSchema(to: Self.desired, options: Self.options)
            }
        }
        // Stopped: the app's schema is the old one, plus Strata's own objects.
        #expect(try DatabaseSchema.read(from: db).differences(from: before).isEmpty)
        let leftovers = try Self.strataObjects(db)
        #expect(leftovers.count == 6)  // the new table, its log, three log triggers, the progress table
        #expect(leftovers.contains(ReservedNames.onlineProgressTable))
        #expect(try db.fetchValue(Int.self, sql: "SELECT batches FROM strata_online_rebuild") == 3)
        // The app goes on writing while nothing runs: the log keeps every write for the next run.
        try app { try Self.appWrites($0, round: 50) }
        let batches = LockedValue<[Int]>([])
        let expected = LockedValue<[[SQLValue]]>(try app { try Self.rows($0) })
        try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
            batches.withLock { $0.append(batch) }
            try app { try Self.appWrites($0, round: 100 + batch) }
            let now = try app { try Self.rows($0) }
            expected.withLock { $0 = now }
        }) {
            try db.migrateSchema(to: Self.desired, options: Self.options)
        }
        // Resumed after batch 3, not started again.
        #expect(batches.withLock { $0.first } == 4)
        #expect(try Self.rows(db) == expected.withLock { $0 })
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try Self.strataObjects(db) == ["strata_schema_fingerprint"])
    }

    /// Fills the file system that holds `path` to the last byte with a file at `path`, which
    /// the test removes to give the space back.
    static func fillTheDisk(with path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw FillFailed(description: "cannot create \(path): errno \(errno)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5a, count: 4_096)
        for size in [4_096, 512, 1] {
            while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size {}
        }
        guard errno == ENOSPC else { throw FillFailed(description: "filling \(path) stopped with errno \(errno)") }
    }

    struct FillFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// The disk fills during the copy (after batch 1 or 6 of 12) or just before the swap (after
    /// the last batch), in WAL and rollback-journal mode, while the app writes between batches.
    /// The run fails naming the full disk; the app's schema is the old one with every row the
    /// app committed; the connection's synchronous level is its own again; once space is given
    /// back, a rerun completes with every row and leaves nothing of Strata's behind.
    @Test(
        .enabled(if: SmallFileSystem.isAvailable, "mounting a small tmpfs failed: needs root on Linux"),
        arguments: [("WAL", 1), ("WAL", 6), ("WAL", 12), ("DELETE", 1), ("DELETE", 6), ("DELETE", 12)])
    func aDiskThatFillsUpLosesNothingAndARerunCompletes(journal: String, fullAfter: Int) throws {
        let fs = try SmallFileSystem(kilobytes: 4_096)
        let path = fs.file("app.sqlite")
        let db = try ItemTableFixture.makeDatabase(path: path, live: Self.live, rows: Self.rows)
        _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(journal)")
        try db.execute(sql: "PRAGMA synchronous = FULL")
        let schema = try DatabaseSchema.read(from: db)
        let app = try AppConnection(path: path)
        let expected = LockedValue<[[SQLValue]]>(try Self.rows(db))
        let ballast = fs.file("ballast")
        let label = "\(journal), full after batch \(fullAfter)"
        let error = #expect(throws: (any Error).self, "\(label)") {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                guard batch <= fullAfter else { return }
                try app { try Self.appWrites($0, round: batch) }
                let now = try app { try Self.rows($0) }
                expected.withLock { $0 = now }
                if batch == fullAfter { try Self.fillTheDisk(with: ballast) }
            }) {
                try db.migrateSchema(to: Self.desired, options: Self.options)
            }
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("full"), "\(label): \(message)")
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA synchronous") == 2, "\(label)")
        #expect(try DatabaseSchema.read(from: db).differences(from: schema).isEmpty, "\(label)")
        #expect(try Self.rows(db) == expected.withLock { $0 }, "\(label)")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok", "\(label)")

        try FileManager.default.removeItem(atPath: ballast)
        try app { try Self.appWrites($0, round: 90) }
        let final = try app { try Self.rows($0) }
        try db.migrateSchema(to: Self.desired, options: Self.options)
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty, "\(label)")
        #expect(try Self.rows(db) == final, "\(label)")
        #expect(try Self.strataObjects(db) == ["strata_schema_fingerprint"], "\(label)")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok", "\(label)")
        db.close()
        withExtendedLifetime((app, fs)) {}
    }

    /// Without a fixed ``SchemaChangeOptions/onlineBatchSize``, the batches adapt to the time they
    /// hold the lock: from 2,000 rows, halved after each batch that took longer than the target
    /// (down to 100 rows), doubled after each that was quicker (the last batch takes what is left).
    @Test(arguments: [("a nanosecond", Duration.nanoseconds(1)), ("a minute", Duration.seconds(60))])
    func theBatchesAdaptToTheTimeTheyHoldTheLock(_ label: String, time: Duration) throws {
        let dir = TemporaryDirectory()
        let db = try ItemTableFixture.makeDatabase(dir, live: Self.live, rows: 20_000)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let ends = LockedValue<[Int64]>([])
        var options = SchemaChangeOptions(online: true)
        options.onlineBatchTime = time
        try OnlineRebuildSeam.$afterBatch.withValue({ _, _ in
            let end = try app {
                try $0.fetchValue(Int64.self, sql: "SELECT last_rowid FROM \(ReservedNames.onlineProgressTable)")
            }
            ends.withLock { $0.append(end ?? 0) }
        }) {
            try db.migrateSchema(to: Self.desired, options: options)
        }
        let batchEnds = ends.withLock { $0 }
        let sizes = zip(batchEnds, [0] + batchEnds).map { Int($0 - $1) }
        if time < .milliseconds(1) {
            #expect(Array(sizes.prefix(6)) == [2000, 1000, 500, 250, 125, 100], "\(label)")
            #expect(sizes.dropFirst(6).dropLast().allSatisfy { $0 == 100 }, "\(label): \(sizes)")
            #expect(sizes.last == 25, "\(label): \(sizes)")
            #expect(sizes.count == 5 + (20_000 - 3_875) / 100 + 1, "\(label): \(sizes)")
        } else {
            #expect(sizes == [2000, 4000, 8000, 6000], "\(label)")
        }
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == 20_000)
        #expect(try Self.strataObjects(db) == ["strata_schema_fingerprint"])
    }

    /// The pause after a batch: as long as the batch held the lock while someone writes in it
    /// unseen (not releasing the lock through Strata's `execute`, as a connection of another
    /// process), halving down to an eighth while nobody does or only this process's connections
    /// do (woken at the batch's end), an eighth when the batch's end woke writers.
    @Test func thePauseShrinksWhileNobodyWritesAndGrowsBackWhenSomeoneDoes() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let app = try Database(path: dir.file("app.sqlite"))
        // A write that no `execute(sql:)` ends: what a connection of another process looks like.
        let unseen = try app.makeStatement(sql: "INSERT INTO item(name, price) VALUES ('unseen', 1)")
        var pause = OnlineBatchPause()
        var slept: [Double] = []
        enum Writer { case none, unseen, execute }
        var writer = Writer.none
        let sleep: (Double) -> Void = { seconds in
            slept.append(seconds)
            switch writer {
            case .none: break
            case .unseen: try? unseen.execute()
            case .execute: try? app.execute(sql: "INSERT INTO item(name, price) VALUES ('app', 1)")
            }
        }
        try db.countingReleasesOfThisFile {
            for _ in 0..<5 { try pause.rest(after: 0.02, woken: 0, on: db, sleep: sleep) }
            #expect(slept == [0.02, 0.01, 0.005, 0.0025, 0.0025], "halved while nobody writes, down to an eighth")
            writer = .execute
            try pause.rest(after: 0.02, woken: 0, on: db, sleep: sleep)
            #expect(slept.last == 0.0025 && pause.share == OnlineBatchPause.leastShare, "this process's writers")
            writer = .unseen
            try pause.rest(after: 0.02, woken: 0, on: db, sleep: sleep)
            try pause.rest(after: 0.02, woken: 0, on: db, sleep: sleep)
            #expect(slept.suffix(2) == [0.0025, 0.02], "written unseen in the pause: the next one is whole again")
            try pause.rest(after: 0.02, woken: 1, on: db, sleep: sleep)
            #expect(slept.last == 0.0025 && pause.share == 1, "writers woken: an eighth, the share kept")
            try pause.rest(after: 10, woken: 0, on: db, sleep: sleep)
            #expect(slept.last == 0.05, "never longer than 50 ms")
        }
        let written = try db.fetchAll(
            sql: "SELECT name, count(*) FROM item WHERE name IN ('app', 'unseen') GROUP BY name")
        #expect(written.map(\.values) == [[.text("app"), .integer(1)], [.text("unseen"), .integer(4)]])
        #expect(db.releasesOfThisFile.count == 0, "counted only inside")
    }

    /// In WAL mode the rebuild checkpoints after a batch once the pages in use grew by half the
    /// autocheckpoint limit: the file itself grows then (the pages leave the WAL), not before.
    /// Outside WAL mode, or with autocheckpoints off, it never does.
    @Test func theRebuildCheckpointsOnceThePagesGrewByHalfTheLimit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("wal.sqlite")
        let app = try Database(path: path)
        try app.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(x)")
        let db = try Database(path: path)
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 100")
        var checkpoints = try OnlineCheckpoints(on: db)
        func fileBytes() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        }
        func grow(pages: Int) throws {
            // A row of 3,000 bytes fills a page of its own.
            try app.execute(
                sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                    + "INSERT INTO t SELECT randomblob(3000) FROM n",
                arguments: [pages])
        }
        let start = try fileBytes()
        try grow(pages: 30)
        try checkpoints.afterBatch(on: db)
        #expect(try fileBytes() == start, "30 pages: under half of 100, no checkpoint")
        try grow(pages: 30)
        try checkpoints.afterBatch(on: db)
        #expect(try fileBytes() >= start + 60 * 4096, "60 pages: checkpointed into the file")
        try app.execute(sql: "DELETE FROM t")
        try checkpoints.afterBatch(on: db)
        let afterDelete = try fileBytes()
        try grow(pages: 40)
        try checkpoints.afterBatch(on: db)
        #expect(
            try fileBytes() == afterDelete,
            "40 pages reused after 60 freed: under half the limit from the lowered baseline")

        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        var off = try OnlineCheckpoints(on: db)
        let before = try fileBytes()
        try grow(pages: 200)
        try off.afterBatch(on: db)
        #expect(try fileBytes() == before, "autocheckpoints off: the app's choice is kept")
    }

    @Test func anotherChangeDiscardsTheLeftoversAndStartsAgain() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        try Self.interrupt(db, afterBatch: 2)
        let old = try Self.strataObjects(db)
        let other = Self.live.replacingOccurrences(of: "price REAL", with: "price INTEGER")
        let first = LockedValue<Int?>(nil)
        try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
            first.withLock { if $0 == nil { $0 = batch } }
        }) {
            try db.migrateSchema(to: other, options: Self.options)
        }
        #expect(first.withLock { $0 } == 1)
        #expect(try db.planSchemaChange(to: other).isEmpty)
        #expect(try Self.strataObjects(db).allSatisfy { !old.contains($0) || $0 == "strata_schema_fingerprint" })
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == Self.rows)
    }

    @Test func discardingLeavesTheOldSchemaAndEveryRow() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let contents = try DatabaseContents(db)
        #expect(throws: OnlineRebuildInterrupted.self) {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, _ in throw OnlineRebuildInterrupted() }) {
                try db.applySchemaChange(try db.planSchemaChange(to: Self.desired, options: Self.options))
            }
        }
        #expect(try DatabaseContents(db) != contents)
        #expect(try db.discardInterruptedOnlineRebuilds() == ["item"])
        #expect(try DatabaseContents(db) == contents)
        #expect(try db.discardInterruptedOnlineRebuilds() == [])
    }

    @Test func aWithoutRowIDTableIsRefusedNamingIt() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        let table = #""tag ""x""""#
        try db.execute(sql: "CREATE TABLE \(table)(name TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        try db.execute(sql: "INSERT INTO \(table)(name, n) VALUES ('a', 1), ('b', 2)")
        let contents = try DatabaseContents(db)
        let desired = "CREATE TABLE \(table)(name TEXT PRIMARY KEY, n TEXT) WITHOUT ROWID;"
        let error = #expect(throws: SchemaError.self) {
            try db.migrateSchema(to: desired, options: SchemaChangeOptions(online: true))
        }
        #expect(error?.code == .unsupported)
        #expect(error?.culprit == #"tag "x""#)
        #expect(error?.message.contains("WITHOUT ROWID") == true)
        #expect(try DatabaseContents(db) == contents)
        // Offline, it is rebuilt.
        try db.migrateSchema(to: desired)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM \(table)") == 2)
    }

    @Test func aRebuildThatGivesRowsNewRowIDsIsRefused() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: "CREATE TABLE t(code INTEGER NOT NULL, name TEXT); INSERT INTO t VALUES (7, 'a'), (9, 'b')")
        let contents = try DatabaseContents(db)
        let error = #expect(throws: SchemaError.self) {
            try db.migrateSchema(
                to: "CREATE TABLE t(code INTEGER PRIMARY KEY, name TEXT);", options: SchemaChangeOptions(online: true))
        }
        #expect(error?.code == .unsupported)
        #expect(error?.culprit == "t")
        #expect(error?.message.contains("new rowids") == true)
        #expect(try DatabaseContents(db) == contents)
    }

    @Test func insideATransactionItIsRefused() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let contents = try DatabaseContents(db)
        let plan = try db.planSchemaChange(to: Self.desired, options: Self.options)
        let error = #expect(throws: SchemaError.self) {
            try db.transaction { try db.applySchemaChange(plan) }
        }
        #expect(error?.code == .unsupported)
        #expect(error?.culprit == "item")
        #expect(try DatabaseContents(db) == contents)
    }

    @Test func theThresholdSendsOnlyLargeTablesOnline() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        try db.execute(sql: "CREATE TABLE small(id INTEGER PRIMARY KEY, v REAL); INSERT INTO small(v) VALUES (1), (2)")
        let desired = Self.desired + "CREATE TABLE small(id INTEGER PRIMARY KEY, v NUMERIC);"
        let plan = try db.planSchemaChange(to: desired, options: SchemaChangeOptions(onlineRowThreshold: 1_000))
        let online = plan.steps.filter { $0.kind == .rebuildTable }.map { "\($0.object) \($0.isOnline)" }
        #expect(online.sorted() == ["item true", "small false"])
        try db.applySchemaChange(plan)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        #expect(try Self.strataObjects(db).isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == Self.rows)
    }

    /// Without statistics, the threshold is decided by counting as far as the threshold, not by
    /// an extrapolation: a table whose first rows are sparse (which makes the rowid span say
    /// far fewer rows) still goes online when it holds the threshold's rows, and one just under
    /// it stays offline.
    @Test(arguments: [(3_000, true), (2_999, false)])
    func theThresholdIsCountedNotExtrapolated(denseRows: Int, online: Bool) throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)
                INSERT INTO item(id, name) SELECT i * 1000, 'sparse' FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(denseRows))
                INSERT INTO item(id, name) SELECT 1000000 + i, 'dense' FROM n;
                """)
        let desired = "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');"
        var options = SchemaChangeOptions(estimateCountLimit: 500, onlineRowThreshold: 3_600)
        options.onlineBatchSize = 500
        let plan = try db.planSchemaChange(to: desired, options: options)
        let step = try #require(plan.steps.first { $0.kind == .rebuildTable })
        #expect(step.isOnline == online, "\(step.estimate)")
        // The extrapolation alone would have said far fewer rows.
        let alone = try #require(
            try db.planSchemaChange(to: desired, options: SchemaChangeOptions(estimateCountLimit: 500)).steps.first)
        #expect(alone.estimate.rows < 3_000, "\(alone.estimate)")
        try db.applySchemaChange(plan)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == 600 + denseRows)
        #expect(try Self.strataObjects(db).isEmpty)
    }

    @Test func rowsThatDoNotFitFailTheCopyAndChangeNothing() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        try db.execute(sql: "UPDATE item SET name = 'same' WHERE id IN (10, 2900)")
        let desired = Self.live.replacingOccurrences(of: "name TEXT NOT NULL", with: "name TEXT NOT NULL UNIQUE")
        let contents = try DatabaseContents(db)
        let error = #expect(throws: SchemaError.self) {
            try db.migrateSchema(to: desired, options: Self.options)
        }
        #expect(error?.culprit == "item")
        #expect(error?.message.contains("strata_tmp") == false)
        #expect(try DatabaseContents(db) == contents)
    }

    @Test func anAppWriteThatDoesNotFitIsKeptAndTheChangeRefused() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let desired = Self.live.replacingOccurrences(of: "name TEXT NOT NULL", with: "name TEXT NOT NULL UNIQUE")
        let error = #expect(throws: SchemaError.self) {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                // A duplicate of a row already copied: the app's write succeeds, the swap refuses.
                if batch == 2 { try app { try $0.execute(sql: "INSERT INTO item(id, name) VALUES (50000, 'item 1')") } }
            }) {
                try db.migrateSchema(to: desired, options: Self.options)
            }
        }
        #expect(error?.culprit == "item")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE name = 'item 1'") == 2)
        #expect(try Self.strataObjects(db).isEmpty)
        #expect(try DatabaseSchema.read(from: db).differences(from: DatabaseSchema(sql: Self.live)).isEmpty)
    }

    /// A `REFERENCES` the new table adds never fails an app's write during the copy (the new
    /// table gets its keys only in the swap); a row that breaks it is judged by the swap's
    /// foreign-key check, which refuses the change. Rows whose parent exists go through, by a named parent column, by the parent's
    /// primary key (`REFERENCES kind` alone), and by the table itself (a self-reference).
    @Test(arguments: [false, true])
    func aNewReferencesClauseNeverFailsTheAppsWrites(orphan: Bool) throws {
        let dir = TemporaryDirectory()
        let live = """
            CREATE TABLE "kind list"(code TEXT PRIMARY KEY, label TEXT);
            CREATE TABLE "shelf ""a"" b"(n INTEGER PRIMARY KEY);
            CREATE TABLE item(id INTEGER PRIMARY KEY, kind TEXT, shelf INTEGER, parent INTEGER, price REAL);
            """
        let desired = """
            CREATE TABLE "kind list"(code TEXT PRIMARY KEY, label TEXT);
            CREATE TABLE "shelf ""a"" b"(n INTEGER PRIMARY KEY);
            CREATE TABLE item(id INTEGER PRIMARY KEY, kind TEXT REFERENCES "kind list",
              shelf INTEGER REFERENCES "shelf ""a"" b"(n), parent INTEGER REFERENCES item(id), price NUMERIC);
            """
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(
            sql: live + """
                INSERT INTO "kind list" VALUES ('k1', 'one'), ('k2', 'two');
                INSERT INTO "shelf ""a"" b" VALUES (1), (2);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
                INSERT INTO item(id, kind, shelf, parent, price) SELECT i, 'k' || (1 + i % 2), 1 + i % 2,
                  CASE WHEN i > 1 THEN i - 1 END, i FROM n;
                """)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let failedWrites = LockedValue<[String]>([])
        var options = SchemaChangeOptions(online: true)
        options.onlineBatchSize = 200
        let result = Result {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                do {
                    try app {
                        #expect(try $0.fetchValue(Int.self, sql: "PRAGMA foreign_keys") == 1)
                        try $0.execute(
                            sql: "INSERT INTO item(id, kind, shelf, parent, price) VALUES (?, 'k2', 2, 3, 1)",
                            arguments: [5_000 + batch])
                        try $0.execute(
                            sql: "UPDATE item SET kind = 'k1', parent = ? WHERE id = ?", arguments: [batch, 1_400])
                        if orphan && batch == 2 {
                            try $0.execute(sql: "INSERT INTO item(id, kind, shelf) VALUES (9000, 'missing', 7)")
                            try $0.execute(sql: "UPDATE item SET parent = 123456 WHERE id = 10")
                        }
                    }
                } catch {
                    failedWrites.withLock { $0.append("\(error)") }
                }
            }) {
                try db.migrateSchema(to: desired, options: options)
            }
        }
        #expect(failedWrites.withLock { $0 }.isEmpty, "\(failedWrites.withLock { $0 })")
        let rows = try db.fetchAll(sql: "SELECT id, kind, shelf, parent FROM item ORDER BY id").map(\.values)
        #expect(
            rows.count == 1_500
                + (try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE id > 5000 AND id < 9000") ?? -1)
                + (orphan ? 1 : 0))
        if orphan {
            #expect(throws: SchemaError.self) { try result.get() }
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE id = 9000") == 1)
            #expect(try db.fetchValue(Int.self, sql: "SELECT parent FROM item WHERE id = 10") == 123456)
            #expect(try Self.strataObjects(db).isEmpty)
            #expect(try DatabaseSchema.read(from: db).differences(from: DatabaseSchema(sql: live)).isEmpty)
        } else {
            try result.get()
            #expect(try db.planSchemaChange(to: desired).isEmpty)
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE id > 5000") ?? 0 >= 1_500 / 200)
            #expect(try db.fetchValue(Int.self, sql: "SELECT parent FROM item WHERE id = 1400") != 1399)
            #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty)
        }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func hostileNamesAColumnNamedRowIDAndAutoincrement() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        let table = #""order ""items"" select""#
        try db.execute(
            sql: """
                CREATE TABLE \(table)(id INTEGER PRIMARY KEY AUTOINCREMENT, "rowid" TEXT, "from" REAL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                INSERT INTO \(table)(id, "rowid", "from") SELECT i, 'r' || i, i FROM n;
                """)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let desired = "CREATE TABLE \(table)(id INTEGER PRIMARY KEY AUTOINCREMENT, \"rowid\" TEXT, \"from\" NUMERIC);"
        var options = SchemaChangeOptions(online: true)
        options.onlineBatchSize = 100
        let expected = LockedValue<[[SQLValue]]>([])
        let rounds = LockedValue(0)
        try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
            rounds.withLock { $0 += 1 }
            try app { app in
                try app.execute(
                    sql: "INSERT INTO \(table)(\"rowid\", \"from\") VALUES (?, ?)", arguments: ["w\(batch)", batch])
                try app.execute(sql: "UPDATE \(table) SET \"rowid\" = 'u' WHERE id = ?", arguments: [batch * 50])
                // The largest id goes away: AUTOINCREMENT must never give it out again.
                try app.execute(sql: "DELETE FROM \(table) WHERE id = (SELECT max(id) FROM \(table))")
            }
            let now = try app {
                try $0.fetchAll(sql: "SELECT id, \"rowid\", \"from\" * 1.0 FROM \(table) ORDER BY id").map(\.values)
            }
            expected.withLock { $0 = now }
        }) {
            try db.migrateSchema(to: desired, options: options)
        }
        #expect(
            try db.fetchAll(sql: "SELECT id, \"rowid\", \"from\" * 1.0 FROM \(table) ORDER BY id").map(\.values)
                == expected.withLock { $0 })
        let maxEver = 1_000 + rounds.withLock { $0 }
        #expect(maxEver > 1_000)
        try db.execute(sql: "INSERT INTO \(table)(\"rowid\") VALUES ('after')")
        #expect(try db.fetchValue(Int.self, sql: "SELECT max(id) FROM \(table)") == maxEver + 1)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
    }
    /// Issue 37, item 1: a foreign-key action the new table adds (`ON DELETE SET NULL`, `ON DELETE
    /// CASCADE`, `ON UPDATE CASCADE`) never acts on the copies while the app, on the old schema,
    /// deletes a parent or changes its key; and a `NO ACTION` or `RESTRICT` key never refuses such
    /// a write. The swap judges what the app wrote: its children now lack a parent, so the change
    /// is refused, as offline, with every row as the app left it.
    @Test(arguments: [
        ("ON DELETE SET NULL", "DELETE FROM kind WHERE id = 2"),
        ("ON DELETE CASCADE", "DELETE FROM kind WHERE id = 2"),
        ("", "DELETE FROM kind WHERE id = 2"),
        ("ON DELETE RESTRICT", "DELETE FROM kind WHERE id = 2"),
        ("ON UPDATE CASCADE", "UPDATE kind SET id = 20 WHERE id = 2"),
        ("ON UPDATE SET NULL", "UPDATE kind SET id = 20 WHERE id = 2"),
    ])
    func aNewForeignKeyActionNeverActsOnTheCopies(action: String, write: String) throws {
        let dir = TemporaryDirectory()
        let live = """
            CREATE TABLE kind(id INTEGER PRIMARY KEY, label TEXT);
            CREATE TABLE item(id INTEGER PRIMARY KEY, kind INTEGER, name TEXT);
            """
        let desired = """
            CREATE TABLE kind(id INTEGER PRIMARY KEY, label TEXT);
            CREATE TABLE item(id INTEGER PRIMARY KEY, kind INTEGER REFERENCES kind(id) \(action), name TEXT);
            """
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(
            sql: live + """
                INSERT INTO kind VALUES (1, 'one'), (2, 'two'), (3, 'three');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                INSERT INTO item(id, kind, name)
                  SELECT i, CASE WHEN i <= 300 THEN 2 ELSE 1 + 2 * (i % 2) END, 'item ' || i FROM n;
                """)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        var options = SchemaChangeOptions(online: true)
        options.onlineBatchSize = 100
        let failed = LockedValue<[String]>([])
        let expected = LockedValue<[String]?>(nil)
        let error = #expect(throws: SchemaError.self) {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                // Every child of kind 2 (ids 1 to 300) was copied by the first three batches.
                guard batch == 5 else { return }
                do {
                    try app {
                        #expect(try $0.fetchValue(Int.self, sql: "PRAGMA foreign_keys") == 1)
                        try $0.execute(sql: write)
                    }
                } catch {
                    failed.withLock { $0.append("\(error)") }
                }
                expected.withLock { $0 = try? app { try Self.appContents($0) } }
            }) {
                try db.migrateSchema(to: desired, options: options)
            }
        }
        #expect(failed.withLock { $0 }.isEmpty, "\(failed.withLock { $0 })")
        #expect(error?.code == .foreignKeyViolation, "\(String(describing: error))")
        // Every child of kind 2 kept the value the app left: 2 (no one wrote NULL, 20 or a delete).
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE kind = 2") == 300)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == 1000)
        #expect(try Self.appContents(db) == expected.withLock { $0 })
        #expect(try Self.strataObjects(db).isEmpty)
        // The offline rebuild of the same state refuses it too.
        #expect(throws: SchemaError.self) { try db.migrateSchema(to: desired) }
    }

    /// Issue 37, item 1: the new definition never fails an app's write during the copy, whatever
    /// the app's statement says on conflict: a STRICT type, a CHECK, a STORED generated column
    /// whose function raises, and a CHECK broken by `UPDATE OR ABORT/FAIL/ROLLBACK/REPLACE`. The
    /// row that does not fit stays in the old table as the app wrote it, the change is refused at
    /// the swap with nothing changed; when the app puts the row right before the swap, the change
    /// goes through.
    @Test(arguments: [
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL) STRICT",
            "UPDATE item SET price = 'cheap' WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL CHECK (price >= 0))",
            "UPDATE item SET price = -1 WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, "
                + "g GENERATED ALWAYS AS (json_extract(name, '$.x')) STORED)",
            "UPDATE item SET name = 'not json' WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL CHECK (price >= 0))",
            "UPDATE OR ABORT item SET price = -1 WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL CHECK (price >= 0))",
            "UPDATE OR FAIL item SET price = -1 WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL CHECK (price >= 0))",
            "UPDATE OR ROLLBACK item SET price = -1 WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL CHECK (price >= 0))",
            "UPDATE OR REPLACE item SET price = -1 WHERE id = 10"
        ),
        (
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL)",
            "INSERT OR REPLACE INTO item(id, name, price) VALUES (50000, 'item 10', 1)"
        ),
    ])
    func theNewDefinitionNeverFailsAnAppsWrite(table: String, write: String) throws {
        // STRICT since SQLite 3.37, generated columns since 3.31 (the matrix runs 3.28).
        if table.contains("STRICT"), SQLiteVersion.runtime < SQLiteVersion(3, 37) { return }
        if table.contains("GENERATED"), SQLiteVersion.runtime < SQLiteVersion(3, 31) { return }
        for putRight in [false, true] {
            let dir = TemporaryDirectory()
            let live = "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);"
            let db = try ItemTableFixture.makeDatabase(dir, live: live, rows: 1_000)
            if table.contains("json_extract") {
                try db.execute(sql: "UPDATE item SET name = json_object('x', id)")
            }
            let app = try AppConnection(path: dir.file("app.sqlite"))
            var options = SchemaChangeOptions(online: true)
            options.onlineBatchSize = 100
            let failed = LockedValue<[String]>([])
            let expected = LockedValue<[String]?>(nil)
            let result = Result {
                try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                    do {
                        try app {
                            if batch == 3 { try $0.execute(sql: write) }
                            if batch == 6, putRight {
                                try $0.execute(sql: "DELETE FROM item WHERE id IN (10, 50000)")
                            }
                        }
                    } catch {
                        failed.withLock { $0.append("\(error)") }
                    }
                    expected.withLock { $0 = try? app { try Self.appContents($0) } }
                }) {
                    try db.migrateSchema(to: table + ";", options: options)
                }
            }
            #expect(failed.withLock { $0 }.isEmpty, "\(write): \(failed.withLock { $0 })")
            if putRight {
                try result.get()
                #expect(try db.planSchemaChange(to: table + ";").isEmpty)
                #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == 999)
            } else {
                let error = #expect(throws: SchemaError.self) { try result.get() }
                #expect(error?.culprit == "item", "\(String(describing: error))")
                #expect(try Self.appContents(db) == expected.withLock { $0 })
                #expect(try Self.strataObjects(db).isEmpty)
            }
            #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        }
    }

    /// Issue 37, item 2: an online rebuild interrupted, then the same change applied offline (an
    /// app that gave up on online): the offline apply removes the new table, the log, its
    /// triggers and the progress record, which no plan shows; `onlineRebuilds()` lists them
    /// before. An empty apply removes them too.
    @Test(arguments: [false, true])
    func anyApplyRemovesAnInterruptedOnlineRebuild(sameChange: Bool) throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        try Self.interrupt(db, afterBatch: 2)
        let states = try db.onlineRebuilds()
        #expect(states.map(\.table) == ["item"])
        #expect(states.first?.batches == 2 && states.first?.rowsCopied == 500 && states.first?.isRunning == false)
        #expect(try Self.strataObjects(db).count == 6)
        if sameChange {
            try db.migrateSchema(to: Self.desired)
        } else {
            // Nothing to change: the plan is empty, the leftovers go all the same.
            try db.migrateSchema(to: Self.live)
        }
        #expect(try Self.strataObjects(db).filter { $0 != "strata_schema_fingerprint" }.isEmpty)
        #expect(try db.onlineRebuilds().isEmpty)
        #expect(try Self.rows(db).count == Self.rows)
    }

    /// Issue 37, item 2: while an online rebuild runs, another online rebuild of another table on
    /// the same file (another connection, as another process would) fails at once, changing
    /// nothing and leaving the running one's objects alone; a discard and an offline apply leave
    /// them alone too; the running one completes.
    @Test func aSecondOnlineRebuildWaitsItsTurnAndTheFirstCompletes() throws {
        let dir = TemporaryDirectory()
        let live = Self.live + "CREATE TABLE other(id INTEGER PRIMARY KEY, v REAL);"
        let db = try ItemTableFixture.makeDatabase(dir, live: live, rows: Self.rows)
        try db.execute(sql: "INSERT INTO other(id, v) SELECT id, price FROM item")
        let desired = live.replacingOccurrences(of: "price REAL", with: "price NUMERIC")
        let otherDesired = live.replacingOccurrences(of: "v REAL", with: "v NUMERIC")
        // The other connection opens the file through a symbolic link: the lock is the file's.
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.sqlite"), withDestinationPath: "app.sqlite")
        let second = try AppConnection(path: dir.file("link.sqlite"))
        let outcomes = LockedValue<[String]>([])
        try OnlineRebuildSeam.$afterBatch.withValue({ table, batch in
            guard table == "item", batch == 2 else { return }
            try second { second in
                let before = try DatabaseContents(second)
                do {
                    try second.migrateSchema(to: otherDesired, options: Self.options)
                    outcomes.withLock { $0.append("applied") }
                } catch let error as SchemaError {
                    outcomes.withLock { $0.append("\(error.code): \(error.message)") }
                }
                #expect(try DatabaseContents(second) == before)
                #expect(try second.discardInterruptedOnlineRebuilds() == [])
                #expect(try second.onlineRebuilds().map(\.isRunning) == [true])
                #expect(try DatabaseContents(second) == before)
                // An apply with nothing to change leaves the running rebuild's objects alone.
                try second.applySchemaChange(try second.planSchemaChange(to: live))
                #expect(try DatabaseContents(second) == before)
            }
        }) {
            try db.migrateSchema(to: desired, options: Self.options)
        }
        let seen = outcomes.withLock { $0 }
        #expect(seen.count == 1 && seen[0].hasPrefix("online-rebuild-running: table other:"), "\(seen)")
        #expect(try db.planSchemaChange(to: desired).steps.map(\.object) == [])
        #expect(try Self.strataObjects(db).filter { $0 != "strata_schema_fingerprint" }.isEmpty)
        // Its turn now.
        try second { try $0.migrateSchema(to: otherDesired, options: Self.options) }
        #expect(try second { try $0.planSchemaChange(to: otherDesired) }.isEmpty)
    }

    /// Issue 37, item 8: the swap checks the schema again, online plans too. A column the app
    /// adds to the old table during the copy (with values in it) would be dropped with the old
    /// table; the swap refuses instead, naming the change, and the column keeps its values.
    @Test func aColumnTheAppAddsDuringTheCopyIsNeverDropped() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let app = try AppConnection(path: dir.file("app.sqlite"))
        let error = #expect(throws: SchemaError.self) {
            try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                guard batch == 2 else { return }
                try app {
                    try $0.execute(sql: "ALTER TABLE item ADD COLUMN note TEXT")
                    try $0.execute(sql: "UPDATE item SET note = 'kept ' || id WHERE id % 10 = 0")
                }
            }) {
                try db.migrateSchema(to: Self.desired, options: Self.options)
            }
        }
        #expect(error?.code == .schemaChanged, "\(String(describing: error))")
        #expect(error?.message.contains("note") == true, "\(String(describing: error))")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(note) FROM item") == Self.rows / 10)
        #expect(try Self.strataObjects(db).isEmpty)
    }

    /// Issue 37, item 8: each batch records its progress in its own transaction: every commit of
    /// the rebuild's connection that wrote rows into the new table also moved the progress record
    /// on (a record written after the commit would make a kill in between copy the batch twice).
    @Test func eachBatchCommitsItsRowsAndItsProgressTogether() throws {
        final class Commits: TransactionObserver, @unchecked Sendable {
            var tables = Set<String>()
            var commits = [Set<String>]()
            func databaseDidChange(_ event: DatabaseEvent) { tables.insert(event.table) }
            func databaseDidCommit(_ db: Database) {
                commits.append(tables)
                tables = []
            }
            func databaseDidRollback(_ db: Database) { tables = [] }
        }
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let commits = Commits()
        db.add(transactionObserver: commits)
        try db.migrateSchema(to: Self.desired, options: Self.options)
        let batches = commits.commits.filter { $0.contains { ReservedNames.isRebuildTable($0) } }
        #expect(batches.count >= Self.rows / 250, "\(commits.commits)")
        for tables in batches {
            #expect(tables.contains(ReservedNames.onlineProgressTable), "\(tables)")
        }
    }
}
