import Foundation
import Strata

// strata-bench: runs every case, each contender in its own child process, and prints a markdown table.
//
//   swift run -c release --package-path Benchmarks strata-bench [--quick] [--cases 1,2,...] [--dir PATH]
//
// The parent builds the template databases (untimed), then starts this executable again with
// `--child KEY` for each contender, alternating contenders over several rounds so that a slow
// moment of the machine does not land on one contender only.

let jobs = RawCases.jobs.merging(StrataCases.jobs) { a, _ in a }.merging(GRDBCases.jobs) { a, _ in a }
    .merging(ObservationStrataCases.jobs) { a, _ in a }.merging(ObservationGRDBCases.jobs) { a, _ in a }
    .merging(QueryStrataCases.jobs) { a, _ in a }.merging(QueryGRDBCases.jobs) { a, _ in a }
    .merging(RawCases.orderJobs) { a, _ in a }.merging(StrataCases.orderJobs) { a, _ in a }
    .merging(GRDBCases.orderJobs) { a, _ in a }
let arguments = CommandLine.arguments

func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("strata-bench: \(message)\n".utf8))
    exit(1)
}

/// The folder of a single-case mode (`--estimates`, `--online`, `--restore-point`): `--dir`, or a
/// new one in the temporary directory.
func modeDirectory() throws -> String {
    let directory =
        option("--dir")
        ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "strata-bench-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
}

// MARK: Child mode

if let key = option("--child") {
    guard let job = jobs[key] else { fail("\(key): no such job") }
    guard let directory = option("--dir") else { fail("--dir is required") }
    let context = JobContext(
        repetitions: Int(option("--repetitions") ?? "") ?? 5, warmup: Int(option("--warmup") ?? "") ?? 1,
        directory: directory)
    do {
        let seconds = try job(context)
        guard seconds.count == context.repetitions else {
            fail("\(key): \(seconds.count) timings for \(context.repetitions) repetitions")
        }
        try reportChild(Sample(seconds: seconds, peakBytes: peakResidentBytes()))
        exit(0)
    } catch {
        fail("\(key): \(error)")
    }
}

// MARK: Estimate accuracy (issue 29)

if arguments.contains("--estimates") {
    let directory = try modeDirectory()
    do {
        try EstimateCases.run(directory: directory)
    } catch {
        fail("estimates: \(error)")
    }
    exit(0)
}

// MARK: Online rebuilds (issue 29)

if arguments.contains("--online") {
    let directory = try modeDirectory()
    do {
        try OnlineRebuildCase.run(
            directory: directory, rows: Int(option("--rows") ?? "") ?? 4_000_000,
            batch: option("--batch").flatMap { Int($0) }, batchMilliseconds: option("--batch-ms").flatMap { Int($0) })
    } catch {
        fail("online: \(error)")
    }
    exit(0)
}

// MARK: Restore points (issue 38)

if arguments.contains("--restore-point") {
    let directory = try modeDirectory()
    do {
        try RestorePointCase.run(
            directory: directory, mebibytes: Int(option("--mib") ?? "") ?? 1024,
            rounds: Int(option("--rounds") ?? "") ?? 3)
    } catch {
        fail("restore point: \(error)")
    }
    exit(0)
}

// MARK: Parent mode

if arguments.contains("--help") || arguments.contains("-h") {
    print(
        """
        usage: strata-bench [--quick] [--cases 1,2,3,4,5,6,7,7b,8,8b,9,10,11,12,13,14,15] [--dir PATH] [--keep]
          --quick   fewer rounds and repetitions (same data sizes)
          --cases   which cases to run (default: all, 1 to 15 with 7b and 8b; 10 needs SQLite 3.53+)
          --dir     where to put the databases (default: a new folder in the temporary directory)
          --prepare-only  build the data of the selected cases in --dir and stop (with --keep)
          --list-keys     print "CASE KEY" for each contender of the selected cases and stop
          --keep    keep the databases afterwards
        strata-bench --online [--rows N] [--batch N | --batch-ms N]   (online rebuilds beside a writer)
        strata-bench --restore-point [--mib N] [--rounds N]           (a restore point against a plain copy)
        """)
    exit(0)
}

let quick = arguments.contains("--quick")
// Case 10 compares SQLite 3.53's native ADD CONSTRAINT with a rebuild: only on such a runtime (run
// with LD_LIBRARY_PATH=$(scripts/sqlite-versions.sh path 3.54.0) on an older system).
let defaultCases =
    SQLiteVersion.runtime >= SQLiteVersion(3, 53)
    ? "1,2,3,4,5,6,7,7b,8,8b,9,10,11,12,13,14,15,16" : "1,2,3,4,5,6,7,7b,8,8b,9,11,12,13,14,15,16"
let selected = Set((option("--cases") ?? defaultCases).split(separator: ",").map(String.init))
if selected.contains("10"), SQLiteVersion.runtime < SQLiteVersion(3, 53) {
    fail("case 10 needs SQLite 3.53 or newer (ADD CONSTRAINT); this one is \(SQLiteVersion.runtime)")
}
let directory =
    option("--dir")
    ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(
        "strata-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
@MainActor func path(_ name: String) -> String { directory + "/" + name }
func progress(_ message: String) { FileHandle.standardError.write(Data("· \(message)\n".utf8)) }

// MARK: Preparation (untimed)

@MainActor func prepare() throws {
    if !selected.isDisjoint(with: ["7b", "8b"]) {
        progress("building the 16,000-row orders table (cases 7b and 8b)")
        try Fixtures.makeOrderTemplate(path: path("orders.sqlite"))
    }
    if !selected.isDisjoint(with: ["2", "7"]) {
        progress("building the 200,000-row table (cases 2 and 7)")
        try Fixtures.makeWideTemplate(path: path("wide.sqlite"), rows: Fixtures.fetchRows)
    }
    if !selected.isDisjoint(with: ["3", "4", "10"]) {
        progress("building the 250,000-, 1,000,000- and 4,000,000-row tables")
        try Fixtures.makeItemTemplate(path: path("item-250k.sqlite"), rows: 250_000)
        try Fixtures.makeItemTemplate(path: path("item-1m.sqlite"), rows: 1_000_000)
        if selected.contains("3") { try Fixtures.makeItemTemplate(path: path("item-4m.sqlite"), rows: 4_000_000) }
        // The statements Strata plans, for the raw C API to run directly.
        let scratch = path("plan-scratch.sqlite")
        try copyDatabase(path("item-250k.sqlite"), to: scratch)
        let rebuild = try StrataCases.plannedStatements(
            path: scratch, to: Fixtures.itemSchemaTypeChange, useNativeAlter: true)
        let naive = try StrataCases.plannedStatements(
            path: scratch, to: Fixtures.itemSchemaAddColumn, useNativeAlter: false)
        removeDatabase(scratch)
        try JSONEncoder().encode(rebuild).write(to: URL(fileURLWithPath: path("c3-statements.json")))
        try JSONEncoder().encode(naive).write(to: URL(fileURLWithPath: path("c4-statements.json")))
    }
    if selected.contains("5") {
        progress("applying 500 migrations with Strata and with GRDB")
        removeDatabase(path("migrations-strata.sqlite"))
        removeDatabase(path("migrations-grdb.sqlite"))
        try StrataCases.applyAllMigrations(path: path("migrations-strata.sqlite"))
        try GRDBCases.applyAllMigrations(path: path("migrations-grdb.sqlite"))
    }
    if selected.contains("15") {
        progress("building the 100,000- and 1,000,000-row tables (case 15)")
        try Fixtures.makeWideTemplate(path: path("wide-100k.sqlite"), rows: 100_000)
        try Fixtures.makeWideTemplate(path: path("wide-1m.sqlite"), rows: 1_000_000)
    }
    if selected.contains("14") {
        progress("applying 5,000 migrations with Strata (one transaction)")
        removeDatabase(path("migrations-5000.sqlite"))
        removeDatabase(path("migrations-5000-squashed.sqlite"))
        try StrataCases.applyManyMigrations(
            path: path("migrations-5000.sqlite"), squashedPath: path("migrations-5000-squashed.sqlite"))
    }
    if selected.contains("9") {
        progress("creating the 5-, 25- and 100-table launch schemas with Strata and with GRDB")
        for tables in Fixtures.launchSizes {
            removeDatabase(path("launch-\(tables)-strata.sqlite"))
            removeDatabase(path("launch-\(tables)-grdb.sqlite"))
            try StrataCases.makeLaunchDatabase(path: path("launch-\(tables)-strata.sqlite"), tables: tables)
            try GRDBCases.makeLaunchDatabase(path: path("launch-\(tables)-grdb.sqlite"), tables: tables)
        }
    }
    if !selected.isDisjoint(with: ["12", "13"]) {
        progress("building the notes database: 1,000 folders × 100 notes × 3 tags (cases 12 and 13)")
        try QueryFixtures.makeTemplate(path: path("notes.sqlite"))
    }
    if selected.contains("13") {
        // The query count, from each library's trace (untimed, once).
        let strata = try QueryStrataCases.includingStatements(path: path("notes.sqlite"))
        let grdb = try QueryGRDBCases.includingStatements(path: path("notes.sqlite"))
        progress("case 13 statements, Strata (\(strata.count)): \(strata.map { String($0.prefix(120)) })")
        progress("case 13 statements, GRDB (\(grdb.count)): \(grdb.map { String($0.prefix(120)) })")
    }
    if selected.contains("6") {
        progress("creating the 300-table schema")
        removeDatabase(path("plan.sqlite"))
        try StrataCases.makePlanDatabase(path: path("plan.sqlite"))
    }
}

// MARK: Cases

/// One contender of a case: a row of the table.
struct Entry {
    var label: String
    var key: String
    /// The entry the ratio is computed against (nil: this row is a baseline).
    var baseline: String?
    var repetitions: Int
    var warmup: Int
}

struct CaseSpec {
    var number: String
    var title: String
    var entries: [Entry]
    var rounds: Int
    /// Each target: what it says, what was measured, and whether it is met.
    var targets: ([String: Summary]) -> [(String, String, Bool)]
}

@MainActor func entry(_ label: String, _ key: String, vs baseline: String? = nil, reps: Int, warmup: Int = 1) -> Entry {
    Entry(
        label: label, key: key, baseline: baseline, repetitions: quick ? max(1, reps / 3) : reps,
        warmup: warmup)
}

func ratio(_ s: [String: Summary], _ a: String, _ b: String) -> Double { s[a]!.median / s[b]!.median }

let cases: [CaseSpec] = [
    CaseSpec(
        number: "1", title: "Insert 50,000 rows × 10 integer columns, one transaction, reused prepared statement",
        entries: [
            entry("raw C API", "c1.raw", reps: 5),
            entry("Strata", "c1.strata", vs: "c1.raw", reps: 5),
            entry("GRDB 7.10.0", "c1.grdb", vs: "c1.raw", reps: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let raw = ratio(s, "c1.strata", "c1.raw")
            let grdb = ratio(s, "c1.strata", "c1.grdb")
            return [
                ("Strata ≤ 1.10× raw C", formatRatio(raw), raw <= 1.10),
                ("Strata ≤ 1.00× GRDB", formatRatio(grdb), grdb <= 1.0),
            ]
        }),
    CaseSpec(
        number: "2", title: "Fetch 200,000 rows × 10 integer columns, every value read",
        entries: [
            entry("raw C API, by index", "c2.raw.index", reps: 5),
            entry("Strata, by index", "c2.strata.index", vs: "c2.raw.index", reps: 5),
            entry("GRDB 7.10.0, by index", "c2.grdb.index", vs: "c2.raw.index", reps: 5),
            entry("raw C API, by name (indexes looked up once)", "c2.raw.name", reps: 5),
            entry("Strata, by name", "c2.strata.name", vs: "c2.raw.name", reps: 5),
            entry("GRDB 7.10.0, by name", "c2.grdb.name", vs: "c2.raw.name", reps: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let values = [
                ratio(s, "c2.strata.index", "c2.raw.index"), ratio(s, "c2.strata.index", "c2.grdb.index"),
                ratio(s, "c2.strata.name", "c2.raw.name"), ratio(s, "c2.strata.name", "c2.grdb.name"),
            ]
            return [
                ("by index: Strata ≤ 1.10× raw C", formatRatio(values[0]), values[0] <= 1.10),
                ("by index: Strata ≤ 1.00× GRDB", formatRatio(values[1]), values[1] <= 1.0),
                ("by name: Strata ≤ 1.10× raw C", formatRatio(values[2]), values[2] <= 1.10),
                ("by name: Strata ≤ 1.00× GRDB", formatRatio(values[3]), values[3] <= 1.0),
            ]
        }),
    CaseSpec(
        number: "3", title: "Rebuild a table with two secondary indexes (column type change REAL → NUMERIC)",
        entries: [
            entry("planned statements via C API, 250k rows", "c3.raw.250k", reps: 1, warmup: 0),
            entry("Strata plan + apply, 250k rows", "c3.strata.250k", vs: "c3.raw.250k", reps: 1, warmup: 0),
            entry("planned statements via C API, 1M rows", "c3.raw.1m", reps: 1, warmup: 0),
            entry("Strata plan + apply, 1M rows", "c3.strata.1m", vs: "c3.raw.1m", reps: 1, warmup: 0),
            entry("planned statements via C API, 4M rows", "c3.raw.4m", reps: 1, warmup: 0),
            entry("Strata plan + apply, 4M rows", "c3.strata.4m", vs: "c3.raw.4m", reps: 1, warmup: 0),
        ], rounds: 3,
        targets: { s in
            let r = ratio(s, "c3.strata.1m", "c3.raw.1m")
            let r4 = ratio(s, "c3.strata.4m", "c3.raw.4m")
            // Strata raises the page cache to 16 MiB for the apply: memory grows with the table
            // until that bound, then stays flat.
            let small = s["c3.strata.1m"]!.peakBytes
            let large = s["c3.strata.4m"]!.peakBytes
            let growth = Double(large) / Double(small)
            return [
                ("Strata ≤ 1.00× the raw statements (1M rows)", formatRatio(r), r <= 1.0),
                ("Strata ≤ 1.00× the raw statements (4M rows)", formatRatio(r4), r4 <= 1.0),
                (
                    "bounded memory: Strata's peak RSS at 4M rows vs 1M rows",
                    "\(formatBytes(large)) vs \(formatBytes(small)) (\(formatRatio(growth)))", growth <= 1.10
                ),
            ]
        }),
    CaseSpec(
        number: "4", title: "Add a nullable column to a 1,000,000-row table (two secondary indexes)",
        entries: [
            entry("naive rebuild (statements via C API)", "c4.naive", reps: 1, warmup: 0),
            entry("Strata plan + apply (native ALTER TABLE ADD COLUMN)", "c4.strata", vs: "c4.naive", reps: 3),
        ], rounds: 3,
        targets: { s in
            let speedup = ratio(s, "c4.naive", "c4.strata")
            return [("Strata ≥ 100× faster than the naive rebuild", formatRatio(speedup) + " faster", speedup >= 100)]
        }),
    CaseSpec(
        number: "10",
        title:
            "Add a table CHECK to a 1,000,000-row table (two secondary indexes): SQLite 3.53's native ADD CONSTRAINT vs a rebuild",
        entries: [
            entry("Strata plan + apply, capabilities below 3.53 (rebuild)", "c10.rebuild", reps: 1, warmup: 0),
            entry("Strata plan + apply (native ALTER TABLE ADD CONSTRAINT)", "c10.native", vs: "c10.rebuild", reps: 3),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let speedup = ratio(s, "c10.rebuild", "c10.native")
            return [("native ≥ 5× faster than the rebuild", formatRatio(speedup) + " faster", speedup >= 5)]
        }),
    CaseSpec(
        number: "5", title: "App start-up with 500 registered migrations, all applied (DatabaseQueue, file database)",
        entries: [
            entry("GRDB DatabaseMigrator.migrate", "c5.grdb.check", reps: 100, warmup: 5),
            entry("Strata Migrator.migrate", "c5.strata.check", vs: "c5.grdb.check", reps: 100, warmup: 5),
            entry("GRDB register 500 + migrate", "c5.grdb.startup", reps: 100, warmup: 5),
            entry("Strata register 500 + migrate", "c5.strata.startup", vs: "c5.grdb.startup", reps: 100, warmup: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let strata = s["c5.strata.check"]!.median
            let r = ratio(s, "c5.strata.check", "c5.grdb.check")
            let startup = ratio(s, "c5.strata.startup", "c5.grdb.startup")
            return [
                ("Strata < 1 ms", formatDuration(strata), strata < 1e-3),
                ("Strata ≤ 1.00× GRDB (migrate)", formatRatio(r), r <= 1.0),
                ("Strata ≤ 1.00× GRDB (register + migrate)", formatRatio(startup), startup <= 1.0),
            ]
        }),
    CaseSpec(
        number: "6", title: "Plan for a 300-table schema (599 indexes, 50 views, 60 triggers), 10 tables changed",
        entries: [entry("Strata planSchemaChange (read, diff, plan, prove)", "c6.strata", reps: 5)],
        rounds: quick ? 1 : 3,
        targets: { s in
            let median = s["c6.strata"]!.median
            return [("Strata < 200 ms", formatDuration(median), median < 0.2)]
        }),
    CaseSpec(
        number: "7", title: "Fetch 200,000 rows × 10 integer columns into a `Decodable` struct (`fetchAll`)",
        entries: [
            entry("raw C API, hand-written loop into the struct", "c7.raw", reps: 5),
            entry("Strata FetchableRecord & Decodable", "c7.strata", vs: "c7.raw", reps: 5),
            entry("GRDB 7.10.0 FetchableRecord & Decodable", "c7.grdb", vs: "c7.raw", reps: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let grdb = ratio(s, "c7.strata", "c7.grdb")
            let raw = ratio(s, "c7.strata", "c7.raw")
            return [
                ("Strata ≤ 1.00× GRDB", formatRatio(grdb), grdb <= 1.0),
                ("Strata ≤ 1.50× raw C", formatRatio(raw), raw <= 1.5),
            ]
        }),
    CaseSpec(
        number: "8", title: "Insert 50,000 `Encodable` records with `insert(db)`, one transaction, empty table",
        entries: [
            entry("GRDB 7.10.0 PersistableRecord & Encodable", "c8.grdb", reps: 5),
            entry("Strata PersistableRecord & Encodable", "c8.strata", vs: "c8.grdb", reps: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let grdb = ratio(s, "c8.strata", "c8.grdb")
            return [("Strata ≤ 1.00× GRDB", formatRatio(grdb), grdb <= 1.0)]
        }),
    CaseSpec(
        number: "7b",
        title:
            "Fetch 16,000 order rows × 14 mixed TEXT/REAL/INTEGER columns (6 nullable, dates as text) into a "
            + "struct (`fetchAll`)",
        entries: [
            entry("raw C API, hand-written loop into the struct", "c7b.raw", reps: 15),
            entry("Strata FetchableRecord & Decodable", "c7b.strata.codable", vs: "c7b.raw", reps: 15),
            entry("Strata hand-written init(row:), by name", "c7b.strata.row", vs: "c7b.raw", reps: 15),
            entry(
                "Strata init(row: some RowReader) through forEachRow, by name, in place", "c7b.strata.inplace",
                vs: "c7b.raw", reps: 15),
            entry("GRDB 7.10.0 FetchableRecord & Decodable", "c7b.grdb.codable", vs: "c7b.raw", reps: 15),
            entry("GRDB 7.10.0 hand-written init(row:), by name", "c7b.grdb.row", vs: "c7b.raw", reps: 15),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let codable = ratio(s, "c7b.strata.codable", "c7b.raw")
            let row = ratio(s, "c7b.strata.row", "c7b.raw")
            let rowGRDB = ratio(s, "c7b.strata.row", "c7b.grdb.row")
            return [
                ("Codable: Strata ≤ 1.30× raw C", formatRatio(codable), codable <= 1.3),
                ("init(row:): Strata ≤ 1.10× raw C", formatRatio(row), row <= 1.1),
                ("init(row:): Strata ≤ 1.00× GRDB's", formatRatio(rowGRDB), rowGRDB <= 1.0),
            ]
        }),
    CaseSpec(
        number: "8b", title: "Insert the 16,000 order records with `insert(db)`, one transaction, empty table",
        entries: [
            entry("raw C API, one prepared statement, 14 binds per row", "c8b.raw", reps: 15),
            entry("Strata PersistableRecord & Encodable", "c8b.strata", vs: "c8b.raw", reps: 15),
            entry("GRDB 7.10.0 PersistableRecord & Encodable", "c8b.grdb", vs: "c8b.raw", reps: 15),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let raw = ratio(s, "c8b.strata", "c8b.raw")
            return [("Strata ≤ 1.50× raw C", formatRatio(raw), raw <= 1.5)]
        }),
    CaseSpec(
        number: "9",
        title: "App launch with a declarative schema, unchanged file (DatabaseQueue, file database): Strata "
            + "`migrateSchema(to:)` vs GRDB register one migration per table + `migrate`; and Strata's full plan",
        entries: [
            entry("GRDB register 5 + migrate (5 tables)", "c9.grdb.5", reps: 100, warmup: 5),
            entry("Strata migrateSchema (5 tables)", "c9.strata.5", vs: "c9.grdb.5", reps: 100, warmup: 5),
            entry("GRDB register 25 + migrate (25 tables)", "c9.grdb.25", reps: 100, warmup: 5),
            entry(
                "Strata migrateSchema (25 tables, 50 indexes, 5 views, 4 triggers)", "c9.strata.25", vs: "c9.grdb.25",
                reps: 100, warmup: 5),
            entry("GRDB register 100 + migrate (100 tables)", "c9.grdb.100", reps: 100, warmup: 5),
            entry("Strata migrateSchema (100 tables)", "c9.strata.100", vs: "c9.grdb.100", reps: 100, warmup: 5),
            entry(
                "Strata full planSchemaChange, 25 tables unchanged (no fast path)", "c9.strata.plan25", reps: 10,
                warmup: 2),
            entry(
                "Strata full planSchemaChange, 25 tables changed (add column, add index)", "c9.strata.changed25",
                reps: 10, warmup: 2),
            entry(
                "Strata full planSchemaChange, 25 tables changed, a new text each time (desired schema never cached)",
                "c9.strata.changed25cold", reps: 10, warmup: 2),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let t25 = s["c9.strata.25"]!.median
            let t100 = s["c9.strata.100"]!.median
            let changed = s["c9.strata.changed25"]!.median
            let r25 = ratio(s, "c9.strata.25", "c9.grdb.25")
            return [
                ("unchanged 25 tables: Strata < 0.5 ms", formatDuration(t25), t25 < 0.5e-3),
                ("unchanged 100 tables: Strata < 1 ms", formatDuration(t100), t100 < 1e-3),
                ("unchanged 25 tables: Strata ≤ 1.00× GRDB's migrator", formatRatio(r25), r25 <= 1.0),
                ("changed 25 tables: full plan ≤ 5 ms", formatDuration(changed), changed <= 5e-3),
                (
                    "changed 25 tables, text never planned before: full plan ≤ 5 ms",
                    formatDuration(s["c9.strata.changed25cold"]!.median), s["c9.strata.changed25cold"]!.median <= 5e-3
                ),
            ]
        }),
    CaseSpec(
        number: "11",
        title:
            "1,000 small writes (one `pool.write` each) with one active `ValueObservation` of the table, until it delivered the last value",
        entries: [
            entry("Strata, no observation", "c11.strata.none", reps: 5),
            entry("Strata, one observation", "c11.strata.observed", vs: "c11.strata.none", reps: 5),
            entry("GRDB 7.10.0, no observation", "c11.grdb.none", reps: 5),
            entry("GRDB 7.10.0, one observation", "c11.grdb.observed", vs: "c11.grdb.none", reps: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let perWrite = (s["c11.strata.observed"]!.median - s["c11.strata.none"]!.median) / 1000
            let grdbPerWrite = (s["c11.grdb.observed"]!.median - s["c11.grdb.none"]!.median) / 1000
            let observed = ratio(s, "c11.strata.observed", "c11.grdb.observed")
            return [
                (
                    "observation overhead per write (Strata)",
                    formatDuration(perWrite) + " (GRDB: " + formatDuration(grdbPerWrite) + ")", true
                ),
                ("Strata observed ≤ 1.00× GRDB observed", formatRatio(observed), observed <= 1.0),
            ]
        }),
    CaseSpec(
        number: "12",
        title:
            "2,000 `filter/order/limit` requests (10 notes each, a different folder each time) through `fetchAll`: the query interface vs the same SQL string",
        entries: [
            entry("Strata, SQL string `fetchAll(db, sql:)`", "c12.strata.sql", reps: 5),
            entry("Strata, request `fetchAll(db)`", "c12.strata.request", vs: "c12.strata.sql", reps: 5),
            entry("GRDB 7.10.0, SQL string", "c12.grdb.sql", reps: 5),
            entry("GRDB 7.10.0, request", "c12.grdb.request", vs: "c12.grdb.sql", reps: 5),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let overhead = ratio(s, "c12.strata.request", "c12.strata.sql")
            let grdb = ratio(s, "c12.strata.request", "c12.grdb.request")
            return [
                (
                    "Strata request ≤ 1.05× its SQL string (time; instructions in the notes)", formatRatio(overhead),
                    overhead <= 1.05
                ),
                ("Strata request ≤ 1.00× GRDB request", formatRatio(grdb), grdb <= 1.0),
            ]
        }),
    CaseSpec(
        number: "13",
        title:
            "`Folder.including(all: Folder.notes.including(all: Note.tags))` on 1,000 folders × 100 notes × 3 tags, decoded into nested records",
        entries: [
            entry("GRDB 7.10.0", "c13.grdb", reps: 3),
            entry("Strata", "c13.strata", vs: "c13.grdb", reps: 3),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let grdb = ratio(s, "c13.strata", "c13.grdb")
            return [("Strata ≤ 1.00× GRDB", formatRatio(grdb), grdb <= 1.0)]
        }),
    CaseSpec(
        number: "14",
        title:
            "App start-up with 5,000 registered migrations, all applied: plain, and squashed into a baseline the database applied before the squash",
        entries: [
            entry("Strata register 5,000 + migrate", "c14.strata.startup", reps: 50, warmup: 3),
            entry(
                "Strata registerBaseline covering 5,000 + 1 + migrate (old ledger)", "c14.strata.baseline",
                vs: "c14.strata.startup", reps: 50, warmup: 3),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let plain = s["c14.strata.startup"]!.median
            let baseline = s["c14.strata.baseline"]!.median
            return [
                ("register 5,000 + migrate < 2 ms", formatDuration(plain), plain < 2e-3),
                ("baseline over 5,000 + migrate < 2 ms", formatDuration(baseline), baseline < 2e-3),
            ]
        }),
    CaseSpec(
        number: "16",
        title:
            "SQLite advisories at open: the first computation in a process (version, compile options, table), then the lookup each open makes (1,000 per repetition), against opening an in-memory database",
        entries: [
            entry("first computation of SQLiteAdvisory.runtime", "c16.advisories.first", reps: 1, warmup: 0),
            entry("1,000 lookups of db.sqliteAdvisories", "c16.advisories.lookup", reps: 50, warmup: 3),
            entry("1,000 opens of Database(inMemory:)", "c16.open", reps: 10, warmup: 1),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let first = s["c16.advisories.first"]!.median
            let lookup = s["c16.advisories.lookup"]!.median / 1000
            return [
                ("first computation < 0.05 ms", formatDuration(first), first < 5e-5),
                ("lookup at open < 0.05 ms", formatDuration(lookup), lookup < 5e-5),
            ]
        }),
    CaseSpec(
        number: "15",
        title:
            "Peak memory of reading 100,000 and 1,000,000 `Decodable` records (10 INTEGER columns): `fetchCursor` (one record at a time) and `fetchAll`, against a process that only opens the database",
        entries: [
            entry("open the database only", "c15.open", reps: 1, warmup: 0),
            entry("Strata fetchCursor, 100,000 records", "c15.cursor.100k", reps: 1, warmup: 0),
            entry("Strata fetchCursor, 1,000,000 records", "c15.cursor.1m", reps: 1, warmup: 0),
            entry("Strata fetchAll, 100,000 records", "c15.all.100k", reps: 1, warmup: 0),
            entry("Strata fetchAll, 1,000,000 records", "c15.all.1m", reps: 1, warmup: 0),
        ], rounds: quick ? 1 : 3,
        targets: { s in
            let open = Double(s["c15.open"]!.peakBytes)
            let cursorGrowth = Double(s["c15.cursor.1m"]!.peakBytes) - Double(s["c15.cursor.100k"]!.peakBytes)
            // 1,000,000 records of 80 bytes: the array's own storage.
            let records = 80.0 * 1_000_000
            let allOverhead = Double(s["c15.all.1m"]!.peakBytes) - open - records
            return [
                (
                    "fetchCursor flat: 1,000,000 records peak ≤ 100,000's + 2 MiB",
                    formatBytes(Int(cursorGrowth)) + " more", cursorGrowth <= 2 * 1_048_576
                ),
                (
                    "fetchAll 1,000,000: peak ≤ open + records' size (80 MB) + 16 MiB",
                    formatBytes(Int(allOverhead)) + " above open + records", allOverhead <= 16 * 1_048_576
                ),
            ]
        }),
]

@MainActor func runCases() throws -> [(CaseSpec, [String: Summary])] {
    var results = [(CaseSpec, [String: Summary])]()
    for spec in cases where selected.contains(spec.number) {
        var samples = [String: Sample]()
        for round in 1...spec.rounds {
            for entry in spec.entries {
                progress("case \(spec.number), round \(round)/\(spec.rounds): \(entry.label)")
                let context = JobContext(repetitions: entry.repetitions, warmup: entry.warmup, directory: directory)
                let sample = try runChild(key: entry.key, context: context)
                samples[entry.key, default: Sample(seconds: [], peakBytes: 0)].seconds += sample.seconds
                samples[entry.key]!.peakBytes = max(samples[entry.key]!.peakBytes, sample.peakBytes)
            }
        }
        results.append((spec, samples.mapValues(Summary.init)))
    }
    return results
}

// MARK: Report

@MainActor func report(_ results: [(CaseSpec, [String: Summary])]) -> String {
    var lines = [String]()
    lines.append("Machine: \(machineDescription(sqliteVersion: RawConnection.libraryVersion)).")
    lines.append(
        "Each contender runs in its own child process (peak RSS is that process's own high-water mark, `VmHWM` on Linux); contenders "
            + "alternate over rounds; every connection uses WAL, synchronous=NORMAL, foreign keys on.")
    lines.append("")
    lines.append("| Case | Contender | Median | Min | Max | Runs | Peak RSS | Ratio |")
    lines.append("|---|---|--:|--:|--:|--:|--:|--:|")
    for (spec, summaries) in results {
        for entry in spec.entries {
            guard let s = summaries[entry.key] else { continue }
            let r = entry.baseline.flatMap { summaries[$0] }.map { formatRatio(s.median / $0.median) } ?? "1 (baseline)"
            lines.append(
                "| \(spec.number). \(spec.title) | \(entry.label) | \(formatDuration(s.median)) | \(formatDuration(s.min)) "
                    + "| \(formatDuration(s.max)) | \(s.count) | \(formatBytes(s.peakBytes)) | \(r) |")
        }
    }
    lines.append("")
    lines.append("| Case | Target | Measured | Met |")
    lines.append("|---|---|--:|:-:|")
    for (spec, summaries) in results {
        for (target, measured, met) in spec.targets(summaries) {
            lines.append("| \(spec.number) | \(target) | \(measured) | \(met ? "yes" : "**no**") |")
        }
    }
    return lines.joined(separator: "\n")
}

// MARK: Run

do {
    // For Benchmarks/instructions.sh: the child key of each contender of the selected cases, or
    // their data only, so each contender can be counted alone under callgrind.
    if arguments.contains("--list-keys") {
        for spec in cases where selected.contains(spec.number) {
            for entry in spec.entries { print(spec.number, entry.key) }
        }
        exit(0)
    }
    try prepare()
    if arguments.contains("--prepare-only") { exit(0) }
    let results = try runCases()
    print(report(results))
} catch {
    fail("\(error)")
}
if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: directory) }
