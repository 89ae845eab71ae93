import Foundation
import Strata

/// `strata-bench --restore-point [--mib N] [--rounds N]` (issue 38): what a restore point costs
/// against a plain copy of the same file. A database of N MiB (default 1,024) is built untimed;
/// then, in alternating order over the rounds:
/// - **plain copy**: the file read and written in 1 MiB blocks to a new file, which is flushed
///   (`fsync`) with its folder: the least a copy that survives a power cut does;
/// - **upgrade with a restore point**: `migrator.migrate(db, safety:)` with the policy `.always`
///   and one new additive migration;
/// - **the same upgrade without one**: the policy `.never`, the same kind of migration.
/// The restore point's cost is the difference of the last two (the migration is in both; the
/// tables' digests after it are taken only with a restore point), against the plain copy, and
/// the restore point's own time as it records it (`writeSeconds`). Release build; the figures of a run
/// are kept in Benchmarks/README.md ("Restore points").
enum RestorePointCase {
    static func run(directory: String, mebibytes: Int, rounds: Int) throws {
        let source = directory + "/restore-point-source.sqlite"
        removeDatabase(source)
        try? FileManager.default.removeItem(atPath: source + "-strata-upgrade")
        note("building a \(mebibytes) MiB database")
        do {
            let db = try Database(path: source)
            defer { db.close() }
            // Rows of about 1 KiB: an id, a short text and a random blob.
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB)")
            let rows = mebibytes * 1024
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                    INSERT INTO item(id, name, payload) SELECT i, 'item ' || i, randomblob(980) FROM n
                    """)
        }
        let bytes = (try FileManager.default.attributesOfItem(atPath: source)[.size] as? NSNumber)?.int64Value ?? 0
        var copies: [Double] = []
        var backups: [Double] = []
        var withPoint: [Double] = []
        var without: [Double] = []
        var pointBytes: Int64 = 0
        var written: [Double] = []
        var migration = 0
        func upgrade(_ policy: UpgradeSafety.RestorePoints) throws -> Double {
            try? FileManager.default.removeItem(atPath: source + "-strata-upgrade")
            migration += 1
            var migrator = Migrator()
            for n in 1...migration {
                migrator.registerMigration(
                    String(format: "%04d_add", n), sql: "CREATE TABLE added_\(n)(id INTEGER PRIMARY KEY)")
            }
            let db = try Database(path: source)
            defer { db.close() }
            var outcome: UpgradeOutcome?
            let seconds = try timed { outcome = try migrator.migrate(db, safety: UpgradeSafety(restorePoints: policy)) }
            guard outcome?.kind == .upgraded else {
                fail("restore point: the upgrade did not run: \(String(describing: outcome))")
            }
            if policy == .always {
                guard let point = outcome?.restorePoint else { fail("restore point: none was written") }
                pointBytes = point.bytes
                written.append(point.writeSeconds ?? .nan)
            }
            return seconds
        }
        func plainCopy() throws -> Double {
            let copy = directory + "/restore-point-plain-copy.sqlite"
            try? FileManager.default.removeItem(atPath: copy)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            return try timed { try copyFlushed(source, to: copy, folder: directory) }
        }
        func backup() throws -> Double {
            let copy = directory + "/restore-point-backup.sqlite"
            removeDatabase(copy)
            defer { removeDatabase(copy) }
            let db = try Database(path: source)
            defer { db.close() }
            return try timed { try db.backup(toPath: copy) }
        }
        for round in 0..<rounds {
            note("round \(round + 1) of \(rounds)")
            // Alternating order: the page cache and the machine's load favour no contender.
            if round % 2 == 0 {
                copies.append(try plainCopy())
                backups.append(try backup())
                withPoint.append(try upgrade(.always))
                without.append(try upgrade(.never))
            } else {
                without.append(try upgrade(.never))
                withPoint.append(try upgrade(.always))
                backups.append(try backup())
                copies.append(try plainCopy())
            }
        }
        try? FileManager.default.removeItem(atPath: source + "-strata-upgrade")
        removeDatabase(source)
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let cost = zip(withPoint, without).map { $0 - $1 }
        print("Restore points: a \(formatBytes(Int(bytes))) database, \(rounds) rounds (median, min–max)")
        print("")
        print("| Contender | Median | Min | Max | Against the plain copy |")
        print("|---|---|---|---|---|")
        let copyMedian = median(copies)
        for (label, values) in [
            ("plain copy (read, write, fsync)", copies),
            ("`db.backup(toPath:)` (SQLite's backup API, flushed)", backups),
            ("upgrade with a restore point", withPoint),
            ("the same upgrade without one", without),
            ("the restore point (the difference, round by round: with the tables' digests)", cost),
            ("the restore point written (`RestorePoint.writeSeconds`: copy, checksum, flush, record)", written),
        ] {
            print(
                "| \(label) | \(formatDuration(median(values))) | \(formatDuration(values.min()!)) | "
                    + "\(formatDuration(values.max()!)) | \(formatRatio(median(values) / copyMedian)) |")
        }
        print("")
        print("restore point: \(pointBytes) bytes for a file of \(bytes) bytes")
    }

    static func note(_ message: String) { FileHandle.standardError.write(Data("· \(message)\n".utf8)) }

    /// Copies `source` to `destination` in 1 MiB blocks and flushes it and `folder`.
    static func copyFlushed(_ source: String, to destination: String, folder: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CocoaError(.fileReadUnknown) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(output) }
        let block = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let read = Foundation.read(input, buffer, block)
            guard read >= 0 else { throw CocoaError(.fileReadUnknown) }
            if read == 0 { break }
            var written = 0
            while written < read {
                let n = write(output, buffer + written, read - written)
                guard n > 0 else { throw CocoaError(.fileWriteUnknown) }
                written += n
            }
        }
        guard fsync(output) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let dir = open(folder, O_RDONLY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }
}
