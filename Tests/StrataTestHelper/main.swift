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
//   StrataTestHelper wal-race PATH COUNT TAG  through a DatabasePool (default configuration: the
//                                             WAL-reset mitigation on affected SQLite), COUNT times:
//                                             commit a row (TAG, n) into race, then checkpoint on the
//                                             writer (PASSIVE); a reader reads meanwhile; print
//                                             "started", then "done COUNT" (WALResetMitigationTests)
//   StrataTestHelper rekey PATH              print "started", change the key of the file to
//                                             $STRATA_TEST_NEW_KEY (remove it when empty) with
//                                             Database.rekey(fileAt:from:to:), print "done"
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
    configuration.busyTimeout = 30
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
