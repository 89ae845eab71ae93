// A second process for the DatabasePool tests: it opens the same database file and holds the
// write lock or writes in a loop, so the tests can show the busy timeout at work across processes.
//
//   StrataTestHelper hold-until-input PATH    BEGIN IMMEDIATE, insert 'helper' into log, print
//                                             "locked", COMMIT when a line arrives on stdin, print "done"
//   StrataTestHelper increment PATH COUNT     COUNT times: BEGIN IMMEDIATE; counter += 1; COMMIT
//
// For the reliability tests (a process that can be killed at any moment, or that holds a lock):
//
//   StrataTestHelper apply-schema PATH SCHEMA [--old-sqlite]
//                                             print "started", bring the database to the schema in
//                                             the SQL file SCHEMA (destructive changes allowed;
//                                             --old-sqlite lowers capabilities to 3.31.0), print "done"
//   StrataTestHelper migrate PATH DIR [--user-version] [--single-transaction] [--adopt-user-version]
//                                             print "started", apply the migration folder DIR (with
//                                             these migrator options), print "applied ID" for each
//                                             migration it applied, then "done"
//   StrataTestHelper baseline PATH DIR ID     print "started", baseline the database at migration ID of
//                                             the folder DIR, print "recorded ID" for each migration
//                                             it recorded, then "done"
//   StrataTestHelper lock PATH                BEGIN EXCLUSIVE, print "locked", wait for a line on
//                                             stdin (or its end), ROLLBACK, print "done"
//   StrataTestHelper read-until-input PATH    BEGIN, read every table name (a read transaction holding
//                                             SHARED in rollback-journal mode), print "reading", COMMIT
//                                             when a line arrives on stdin (or it ends), print "done"
//   StrataTestHelper write-and-hang PATH SQL  with a 10-page cache (so changed pages spill into the
//                                             database file): BEGIN, run SQL, print "written", then
//                                             sleep until killed: a crashed writer's hot journal
//   StrataTestHelper apply-online PATH SCHEMA BATCH
//                                             print "started", bring the database to the schema in
//                                             the SQL file SCHEMA with online rebuilds of BATCH rows
//                                             (destructive changes allowed), print "done"
//   StrataTestHelper write-loop PATH FIRST STOP
//                                             until the file STOP exists: insert row id FIRST, FIRST+1...
//                                             into item (name 'w ID'), every 3rd round rename the row
//                                             before ('u ID'), every 5th delete the row 2 before; each
//                                             its own transaction, printed after COMMIT as "i ID", "u ID",
//                                             "d ID"; then "done" (a failed write: "failed ..." on stdout
//                                             and exit 1)
//   StrataTestHelper copy-writer PATH STOP    until the file STOP exists, commit n = max(id)+1, +2...:
//                                             insert row n into t (payload copyPayload(n), touched n),
//                                             set touched = n on row copyTouched(n), set meta.n = n, in
//                                             one transaction; then a checkpoint, PASSIVE, FULL,
//                                             RESTART, TRUNCATE in turn (errors ignored), 1 ms
//                                             pause; print "started" after the first commit, "done
//                                             N" at the end
//   StrataTestHelper try-write PATH           with no busy timeout: insert a row into t (payload
//                                             'try-write', touched 0) in its own transaction; print
//                                             "written", or "busy" when a lock refused it
//   StrataTestHelper copy-loop PATH DIR       copy the database file again and again with
//                                             copyDatabaseFile into DIR/copy-N.sqlite (N from 1),
//                                             printing "copying N" before each, until killed
//   StrataTestHelper wal-race PATH COUNT TAG  through a DatabasePool (default configuration: the
//                                             WAL-reset mitigation on affected SQLite), COUNT times:
//                                             commit a row (TAG, n) into race, then checkpoint on the
//                                             writer (PASSIVE); a reader reads meanwhile; print
//                                             "started", then "done COUNT" (WALResetMitigationTests)
//   StrataTestHelper rekey PATH              print "started", change the key of the file to
//                                             $STRATA_TEST_NEW_KEY (remove it when empty) with
//                                             Database.rekey(fileAt:from:to:), print "done"
//   StrataTestHelper airbag PATH DIR ACTION [--crash-loop N] [--start-file FILE]
//                                             the upgrade airbag (issue 38) with the migration folder
//                                             DIR, all pending migrations in one transaction, and
//                                             UpgradeSafety(crashLoopLaunches: N, default 2). ACTION:
//                                             migrate: print "outcome KIND", then "done";
//                                             restore: db.restore() (the newest restore point), print
//                                             "restored exact" or "restored carried", then "done";
//                                             crash: migrate as above, then die by SIGKILL before
//                                             reporting a successful launch (a launch that crashed);
//                                             abort: the same, dying by abort();
//                                             succeed: migrate, then launchSucceeded, print "done".
//                                             With --start-file, waits (at most 60 s) until FILE
//                                             exists before opening the database (two processes
//                                             started together). An UpgradeError or MigrationError
//                                             prints "error CODE: MESSAGE" on stderr, exit status 3.
//                                             $STRATA_TEST_MARKERS=1 prints "marker N DESCRIPTION"
//                                             before each kill point: each file step of the package
//                                             (DurableFile's hook) and each migration's start and end;
//                                             $STRATA_TEST_KILL_AT=N dies by SIGKILL at kill point N
//
// $STRATA_TEST_KEY, when set, is the passphrase every command opens the database with.
//
// Errors go to stderr with exit status 1.
import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema

func say(_ line: String) {
    // Unbuffered, so the test reads each line as soon as it is written.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A flag set once from one thread and read from another.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StrataTestHelper: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail(
        "usage: StrataTestHelper hold-until-input PATH | increment PATH COUNT | apply-schema PATH SCHEMA | migrate PATH DIR [options] | baseline PATH DIR ID | lock PATH | read-until-input PATH | write-and-hang PATH SQL"
    )
}
let command = arguments[1]
let path = arguments[2]
/// Argument `i`, or a usage failure naming the command (never an out-of-range trap).
func argument(_ i: Int) -> String {
    guard i < arguments.count else { fail("\(command) needs \(i - 2) argument\(i == 3 ? "" : "s") after PATH") }
    return arguments[i]
}

do {
    var configuration = Configuration()
    configuration.busyTimeout = command == "try-write" ? 0 : 30
    // The oldest SQLite with generated columns (the crash fixture's new schema has one): no
    // DROP COLUMN, RETURNING, STRICT, PRAGMA table_list or 3.53 ALTER forms.
    if arguments.contains("--old-sqlite") { configuration.capabilityLimit = SQLiteVersion(3, 31, 0) }
    if let key = ProcessInfo.processInfo.environment["STRATA_TEST_KEY"] {
        configuration.encryptionKey = { .passphrase(key) }
    }
    if command == "rekey" {
        // The file-level rekey (a new file renamed over the old one), as `strata rekey` runs it.
        say("started")
        let environment = ProcessInfo.processInfo.environment
        try Database.rekey(
            fileAt: path, from: environment["STRATA_TEST_KEY"].map { .passphrase($0) },
            to: environment["STRATA_TEST_NEW_KEY"].flatMap { $0.isEmpty ? nil : .passphrase($0) },
            configuration: configuration)
        say("done")
        exit(0)
    }
    if command == "wal-race" {
        guard arguments.count >= 5, let count = Int(argument(3)) else { fail("wal-race needs COUNT and TAG") }
        let tag = argument(4)
        let pool = try DatabasePool(path: path, configuration: configuration)
        say("started")
        let reading = DispatchGroup()
        let stop = LockedFlag()
        DispatchQueue.global().async(group: reading) {
            while !stop.isSet {
                _ = try? pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM race") }
            }
        }
        for n in 0..<count {
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO race(tag, n, payload) VALUES (?, ?, randomblob(200))", arguments: [tag, n])
            }
            _ = try pool.writeWithoutTransaction { db in try db.fetchOne(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        }
        stop.set()
        reading.wait()
        pool.close()
        say("done \(count)")
        exit(0)
    }
    if command == "airbag" {
        try runAirbag(configuration: configuration)
        exit(0)
    }
    let db = try Database(path: path, configuration: configuration)
    defer { db.close() }
    switch command {
    case "hold-until-input":
        try db.execute(sql: "BEGIN IMMEDIATE")
        try db.execute(sql: "INSERT INTO log(who) VALUES ('helper')")
        say("locked")
        _ = readLine()
        try db.execute(sql: "COMMIT")
        say("done")
    case "increment":
        guard arguments.count == 4, let count = Int(argument(3)) else { fail("increment needs COUNT") }
        say("started")
        for round in 0..<count {
            do {
                try db.transaction(.immediate) {
                    try db.execute(sql: "UPDATE counter SET value = value + 1")
                }
            } catch {
                fail("increment \(round + 1) of \(count): \(error)")
            }
        }
        say("done")
    case "apply-schema":
        guard arguments.count >= 4 else { fail("apply-schema needs SCHEMA") }
        let sql = try String(contentsOfFile: argument(3), encoding: .utf8)
        say("started")
        try db.migrateSchema(to: sql, options: SchemaChangeOptions(allowDestructive: true))
        say("done")
    case "migrate":
        guard arguments.count >= 4 else { fail("migrate needs DIR") }
        var migrator = Migrator(storage: arguments.contains("--user-version") ? .userVersion : .ledger)
        if arguments.contains("--single-transaction") { migrator.transactionMode = .singleTransaction }
        if arguments.contains("--adopt-user-version") { migrator.legacyVersion = .userVersion }
        migrator.registerMigrations(from: try MigrationDirectory(path: argument(3)))
        say("started")
        for identifier in try migrator.migrate(db) { say("applied \(identifier)") }
        say("done")
    case "baseline":
        guard arguments.count >= 5 else { fail("baseline needs DIR and ID") }
        var migrator = Migrator()
        migrator.registerMigrations(from: try MigrationDirectory(path: argument(3)))
        say("started")
        for identifier in try migrator.baseline(db, at: argument(4)) { say("recorded \(identifier)") }
        say("done")
    case "lock":
        try db.execute(sql: "BEGIN EXCLUSIVE")
        say("locked")
        _ = readLine()
        try db.execute(sql: "ROLLBACK")
        say("done")
    case "read-until-input":
        try db.execute(sql: "BEGIN DEFERRED")
        let names = try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        for name in names { _ = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM \(SQL.quoteIdentifier(name))") }
        say("reading")
        _ = readLine()
        try db.execute(sql: "COMMIT")
        say("done")
    case "apply-online":
        // BATCH: rows per batch, or `adaptive-MS` for batches that adapt to hold the lock MS ms.
        var options = SchemaChangeOptions(allowDestructive: true, online: true)
        if arguments.count >= 5, let batch = Int(argument(4)) {
            options.onlineBatchSize = batch
        } else if arguments.count >= 5, argument(4).hasPrefix("adaptive-"),
            let milliseconds = Int(argument(4).dropFirst("adaptive-".count))
        {
            options.onlineBatchTime = .milliseconds(milliseconds)
        } else {
            fail("apply-online needs SCHEMA and BATCH (rows, or adaptive-MS)")
        }
        let sql = try String(contentsOfFile: argument(3), encoding: .utf8)
        say("started")
        try db.migrateSchema(to: sql, options: options)
        say("done")
    case "write-loop":
        guard arguments.count >= 5, let first = Int(argument(3)) else { fail("write-loop needs FIRST and STOP") }
        let stop = argument(4)
        var id = first
        say("started")
        while !FileManager.default.fileExists(atPath: stop) {
            let round = id - first
            do {
                try db.transaction(.immediate) {
                    try db.execute(sql: "INSERT INTO item(id, name) VALUES (?, ?)", arguments: [id, "w \(id)"])
                }
                say("i \(id)")
                if round % 3 == 2 {
                    try db.transaction(.immediate) {
                        try db.execute(
                            sql: "UPDATE item SET name = ? WHERE id = ?", arguments: ["u \(id - 1)", id - 1])
                    }
                    say("u \(id - 1)")
                }
                if round % 5 == 4 {
                    try db.transaction(.immediate) {
                        try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id - 2])
                    }
                    say("d \(id - 2)")
                }
            } catch {
                say("failed \(error)")
                exit(1)
            }
            id += 1
            usleep(2_000)
        }
        say("done")
    case "copy-writer":
        let stop = argument(3)
        let modes = ["PASSIVE", "FULL", "RESTART", "TRUNCATE"]
        var n = (try db.fetchValue(Int.self, sql: "SELECT max(id) FROM t") ?? 0) + 1
        var first = true
        while first || !FileManager.default.fileExists(atPath: stop) {
            do {
                try db.transaction(.immediate) {
                    try db.execute(
                        sql: "INSERT INTO t(id, payload, touched) VALUES (?, \(copyPayloadSQL("?1")), ?1)",
                        arguments: [n])
                    try db.execute(sql: "UPDATE t SET touched = ? WHERE id = ?", arguments: [n, copyTouched(n)])
                    try db.execute(sql: "UPDATE meta SET n = ?", arguments: [n])
                }
            } catch let error as SQLiteError where error.resultCode == .SQLITE_BUSY {
                continue  // the same n again
            }
            _ = try? db.fetchAll(sql: "PRAGMA wal_checkpoint(\(modes[n % modes.count]))")
            if first { say("started") }
            first = false
            n += 1
            usleep(1_000)  // room for the reader between commits (rollback mode would starve it)
        }
        say("done \(n - 1)")
    case "try-write":
        do {
            try db.transaction(.immediate) {
                try db.execute(sql: "INSERT INTO t(payload, touched) VALUES ('try-write', 0)")
            }
            say("written")
        } catch let error as SQLiteError where error.resultCode == .SQLITE_BUSY {
            say("busy")
        }
    case "copy-loop":
        let folder = argument(3)
        var n = 1
        while true {
            say("copying \(n)")
            let target = folder + "/copy-\(n).sqlite"
            if try !db.copyDatabaseFile(toNewFile: target, eachBlock: { _ in }) {
                try db.writeSnapshot(toNewFile: target)
            }
            try FileManager.default.removeItem(atPath: target)
            n += 1
        }
    case "write-and-hang":
        guard arguments.count >= 4 else { fail("write-and-hang needs SQL") }
        try db.execute(sql: "PRAGMA cache_size = 10")
        try db.execute(sql: "BEGIN IMMEDIATE")
        try db.execute(sql: argument(3))
        say("written")
        while true { sleep(60) }
    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}

/// The kill points of `airbag`: every file step of the package and every migration's start and
/// end, numbered from 1; printed with `$STRATA_TEST_MARKERS=1`, and the process killed at number
/// `$STRATA_TEST_KILL_AT`.
enum KillPoints {
    static let environment = ProcessInfo.processInfo.environment
    static let printing = environment["STRATA_TEST_MARKERS"] == "1"
    static let killAt = environment["STRATA_TEST_KILL_AT"].flatMap { Int($0) }
    static let count = LockedValue(0)

    static func reached(_ what: String) {
        let n = count.withLock { value in
            value += 1
            return value
        }
        if printing { say("marker \(n) \(what)") }
        if n == killAt { kill(getpid(), SIGKILL) }
    }
}

func runAirbag(configuration: Configuration) throws {
    guard arguments.count >= 5 else { fail("airbag needs DIR and ACTION") }
    let action = argument(4)
    var crashLoop = 2
    var startFile: String?
    var index = 5
    while index < arguments.count {
        switch arguments[index] {
        case "--crash-loop":
            guard let n = Int(argument(index + 1)) else { fail("--crash-loop needs a number") }
            crashLoop = n
            index += 2
        case "--start-file":
            startFile = argument(index + 1)
            index += 2
        default:
            fail("airbag: unknown option \(arguments[index])")
        }
    }
    let safety = UpgradeSafety(crashLoopLaunches: crashLoop)
    var migrator = Migrator()
    migrator.transactionMode = .singleTransaction
    migrator.registerMigrations(from: try MigrationDirectory(path: argument(3)))
    if KillPoints.printing || KillPoints.killAt != nil {
        DurableFile.installProcessHook { step in KillPoints.reached("\(step)") }
        migrator.eventHandler = { event in
            switch event {
            case .started, .finished: KillPoints.reached("\(event)")
            default: break
            }
        }
    }
    if let startFile {
        var waits = 0
        while !FileManager.default.fileExists(atPath: startFile) {
            waits += 1
            if waits > 60_000 { fail("\(startFile) never appeared") }
            usleep(1_000)
        }
    }
    say("started")
    do {
        let db = try Database(path: path, configuration: configuration)
        defer { db.close() }
        switch action {
        case "migrate", "crash", "abort", "succeed":
            let outcome = try migrator.migrate(db, safety: safety)
            say("outcome \(outcome.kind.rawValue)")
            say("message \(outcome.message)")
            if action == "crash" {
                kill(getpid(), SIGKILL)
            } else if action == "abort" {
                abort()
            } else if action == "succeed" {
                try UpgradeSafety.launchSucceeded(forDatabaseAt: path)
            }
        case "restore":
            let report = try db.restore()
            say("restored \(report.isExact ? "exact" : "carried")")
        default:
            fail("airbag: unknown action \(action)")
        }
    } catch let error as UpgradeError {
        FileHandle.standardError.write(Data("error \(error.code.rawValue): \(error.message)\n".utf8))
        exit(3)
    } catch let error as MigrationError {
        FileHandle.standardError.write(Data("error \(error.code.rawValue): \(error.message)\n".utf8))
        exit(3)
    }
    say("done")
}

/// The payload of row `id` of `copy-writer`'s table, as SQL of the expression `id`.
func copyPayloadSQL(_ id: String) -> String {
    "substr(replace(hex(zeroblob(300)), '00', printf('%08d', \(id))), 1, 1500)"
}

/// The earlier row commit `n` of `copy-writer` touches.
func copyTouched(_ n: Int) -> Int { (n &* 7919) % max(n - 1, 1) + 1 }
