import Foundation
import StrataSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole state of a database before an upgrade, kept beside it so that the upgrade can be
/// taken back (``StrataSQLite/Database/restore(from:acceptingLoss:)``).
///
/// A restore point is a consistent copy (the file copied in one pass under a read lock that keeps
/// it unchanged, checksummed as it is written; SQLite's backup API when that cannot be, as for an
/// encrypted database), encrypted with the database's key when the database is encrypted,
/// written under a temporary name, flushed to disk and only then
/// named `<database>-strata-upgrade/<id>.sqlite`; its record (size, page count, the digest of its
/// schema and of its migration ledger) is in `<database>-strata-upgrade/upgrade.json`. It is
/// checked before it is used: a file that is missing, truncated, corrupt, of another database,
/// under another key or not the state its record describes is refused.
///
/// ```swift
/// for point in try RestorePoint.all(forDatabaseAt: "app.sqlite") {
///     print(point.id, point.fromVersion, point.bytes)
/// }
/// ```
public struct RestorePoint: Sendable, Hashable, Codable, Identifiable {
    /// The restore point's id: `rp-<UTC time>-<random>`, also its file's name without `.sqlite`.
    public let id: String
    /// When it was written (ISO 8601, UTC).
    public let createdAt: String
    /// The database's version before the upgrade: its last applied migration, or `schema <digest>`.
    public let fromVersion: String
    /// The version the upgrade was going to: its last migration, or `schema <digest>`.
    public let toVersion: String
    /// Why it was kept (the policy that asked for it and what the upgrade does).
    public let reason: String
    /// Its size on disk, in bytes.
    public let bytes: Int64
    /// Whether it is encrypted (with the database's key).
    public let isEncrypted: Bool
    let pageCount: Int
    let schemaDigest: String
    let ledgerDigest: String
    /// A checksum of the file's bytes (``FileChecksum``).
    let checksum: String
    /// How long writing it took, in seconds: the copy, its checksum, its flush and the reading of
    /// its record (nil in a record written by an earlier Strata).
    public let writeSeconds: Double?

    /// The file name inside the restore folder.
    var fileName: String { id + ".sqlite" }

    /// The restore point's file, for the database at `database`:
    /// `<database>-strata-upgrade/<id>.sqlite` (symbolic links of the database's path resolved).
    ///
    /// ```swift
    /// for point in try RestorePoint.all(forDatabaseAt: "app.sqlite") {
    ///     print(point.path(forDatabaseAt: "app.sqlite"))
    /// }
    /// ```
    public func path(forDatabaseAt database: String) -> String {
        UpgradeStore(databasePath: database).path(of: self)
    }

    /// The restore points kept for the database at `path`, oldest first (none when there is no
    /// restore folder). Throws ``UpgradeError`` when the state file is unreadable.
    public static func all(forDatabaseAt path: String) throws -> [RestorePoint] {
        try UpgradeStore(databasePath: path).load().restorePoints
    }
}

/// The last upgrade of a database as the upgrade airbag follows it: whether it is confirmed, how
/// many times the app opened the database since without a successful launch, and the upgrades
/// held back after a crash loop.
///
/// ```swift
/// let status = try UpgradeStatus(forDatabaseAt: "app.sqlite")
/// if let held = status.heldBack.last { print("held back:", held.migrations, held.reason) }
/// ```
public struct UpgradeStatus: Sendable, Hashable, Codable {
    /// The restore points kept, oldest first.
    public let restorePoints: [RestorePoint]
    /// The last upgrade, nil when none was followed.
    public let lastUpgrade: UpgradeRecord?
    /// Upgrades that are not run again by the app build that holds them back (a crash loop
    /// restored the database before them).
    public let heldBack: [HeldBackUpgrade]

    /// The status of the database at `path`, read from its restore folder (empty when there is
    /// none). Nothing is written.
    public init(forDatabaseAt path: String) throws {
        let manifest = try UpgradeStore(databasePath: path).load()
        restorePoints = manifest.restorePoints
        lastUpgrade = manifest.upgrade
        heldBack = manifest.heldBack
    }
}

/// One upgrade, as the airbag follows it.
public struct UpgradeRecord: Sendable, Hashable, Codable {
    /// Where an upgrade stands.
    public enum Phase: String, Sendable, Hashable, Codable {
        /// Started; it did not finish (the process stopped in the middle, or it failed).
        case upgrading
        /// Committed, and not yet confirmed by the app.
        case unconfirmed
        /// Confirmed (``UpgradeSafety/confirmUpgrade(ofDatabaseAt:)`` or enough successful launches).
        case confirmed
        /// Taken back: the database was restored to its restore point.
        case restored
    }

    /// The upgrade's identity: a digest of what it runs (the migrations' identifiers and
    /// checksums, or the desired schema's fingerprint) and of the version it starts from.
    public let key: String
    /// What it runs: migration identifiers, or `schema <digest>`.
    public let migrations: [String]
    /// The version before it.
    public let fromVersion: String
    /// The version after it.
    public let toVersion: String
    /// The restore point written before it, nil when none was kept.
    public let restorePointID: String?
    /// Why a restore point was or was not kept.
    public let restorePointReason: String
    /// Where it stands.
    public internal(set) var phase: Phase
    /// Opens of the database since the upgrade (or since the last successful launch) that did
    /// not report a successful launch.
    public internal(set) var launchesWithoutSuccess: Int
    /// Successful launches reported since the upgrade.
    public internal(set) var successfulLaunches: Int
    /// Why it was restored, when it was.
    public internal(set) var restoredBecause: String?
    /// The digest of each table right after the upgrade: tables unchanged since take the restore
    /// point's rows when the upgrade is taken back.
    package internal(set) var tableDigests: [String: String]
    /// Digests of the file's schema and ledger before the upgrade: a launch that finds the record
    /// still upgrading tells from them whether the upgrade committed (the process stopped between
    /// its commit and this record). Nil in records written before they were kept.
    var schemaDigestBefore: String?
    var ledgerDigestBefore: String?
    /// Why the tables' digests were not kept although a restore point was (another connection
    /// committed between the restore point and the digests, so the restore point does not hold
    /// every row the digests describe): a restore then carries every table back. Nil when they
    /// were kept.
    package internal(set) var digestsWithheldBecause: String?
}

/// An upgrade that is not run again (a crash loop restored the database before it).
public struct HeldBackUpgrade: Sendable, Hashable, Codable {
    /// The upgrade's identity (``UpgradeRecord/key``): a build with other migrations has another.
    public let key: String
    /// What it runs.
    public let migrations: [String]
    /// The version it started from and the one it went to.
    public let fromVersion: String
    public let toVersion: String
    /// Why it is held back.
    public let reason: String
    /// When (ISO 8601, UTC).
    public let at: String
}

/// The state file beside a database: `<database>-strata-upgrade/upgrade.json`.
package struct UpgradeManifest: Sendable, Codable {
    /// The format this Strata writes; a file of a newer format is refused.
    static let currentFormat = 1
    var format = UpgradeManifest.currentFormat
    var restorePoints: [RestorePoint] = []
    package internal(set) var upgrade: UpgradeRecord?
    var heldBack: [HeldBackUpgrade] = []
}

/// The restore folder of one database file: its state file, its restore points, its lock.
package struct UpgradeStore: Sendable {
    /// The database file as given.
    package let databasePath: String
    /// `<database after every symbolic link>-strata-upgrade`.
    package let folder: String

    package init(databasePath: String) {
        self.databasePath = databasePath
        self.folder = ((try? FileSystem.resolvedPath(databasePath)) ?? databasePath) + "-strata-upgrade"
    }

    package var manifestPath: String { folder + "/upgrade.json" }
    func path(of point: RestorePoint) -> String { folder + "/" + point.fileName }

    /// The state file read; an empty state when there is none.
    package func load() throws -> UpgradeManifest {
        guard let info = try? FileSystem.info(manifestPath, followingLinks: false) else { return UpgradeManifest() }
        guard info.kind == .regular else {
            throw UpgradeError(
                code: .stateUnreadable, message: "\(manifestPath): not a regular file", culprit: manifestPath)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: manifestPath))
        } catch {
            throw UpgradeError(
                code: .stateUnreadable, message: "\(manifestPath): cannot be read", culprit: manifestPath,
                cause: "\(error)")
        }
        struct Format: Decodable { var format: Int }
        guard let format = try? JSONDecoder().decode(Format.self, from: data) else {
            throw UpgradeError(
                code: .stateUnreadable,
                message:
                    "\(manifestPath): not an upgrade state file (truncated or damaged); move it away to start over",
                culprit: manifestPath)
        }
        guard format.format <= UpgradeManifest.currentFormat else {
            throw UpgradeError(
                code: .stateUnreadable,
                message:
                    "\(manifestPath): written by a newer Strata (format \(format.format), this one reads up to \(UpgradeManifest.currentFormat))",
                culprit: manifestPath)
        }
        do {
            return try JSONDecoder().decode(UpgradeManifest.self, from: data)
        } catch {
            throw UpgradeError(
                code: .stateUnreadable, message: "\(manifestPath): damaged upgrade state", culprit: manifestPath,
                cause: "\(error)")
        }
    }

    /// Writes the state file durably (temporary file, flushed, renamed, folder flushed).
    package func save(_ manifest: UpgradeManifest) throws {
        try makeFolder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(manifest)
        do {
            try DurableFile.write([UInt8](data), to: manifestPath, activity: "cannot write the upgrade state")
        } catch {
            throw UpgradeError(
                code: .restorePointWriteFailed, message: "\(manifestPath): cannot write the upgrade state",
                culprit: manifestPath, cause: "\(error)")
        }
    }

    func makeFolder() throws {
        if let info = try? FileSystem.info(folder, followingLinks: false) {
            guard info.kind == .directory else {
                throw UpgradeError(
                    code: .restorePointWriteFailed,
                    message: "\(folder): is not a folder (the restore folder's name is taken)", culprit: folder)
            }
            return
        }
        do {
            try DurableFile.makeDirectory(folder, activity: "cannot create the restore folder")
        } catch {
            // Another process made it between the look and the mkdir: a folder is what was wanted.
            if error.code == EEXIST, (try? FileSystem.info(folder, followingLinks: false))?.kind == .directory {
                return
            }
            throw UpgradeError(
                code: .restorePointWriteFailed, message: "\(folder): cannot create the restore folder",
                culprit: folder, cause: "\(error)")
        }
    }

    /// Runs `body` holding the restore folder's lock: one upgrade or restore of the file at a
    /// time, across connections and processes (a `flock`, released by the kernel however the
    /// process ends). Waits for another holder.
    package func withLock<T>(_ body: () throws -> T) throws -> T {
        try makeFolder()
        let lockPath = folder + "/lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw UpgradeError(
                code: .restorePointWriteFailed, message: "\(lockPath): cannot open the restore folder's lock",
                culprit: lockPath, cause: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw UpgradeError(
                code: .restorePointWriteFailed, message: "\(lockPath): cannot lock the restore folder",
                culprit: lockPath, cause: String(cString: strerror(errno)))
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    /// Files of the folder that no record names (a restore point whose writing was interrupted,
    /// or whose record was removed before the file): removed.
    func removeOrphans(_ manifest: UpgradeManifest) {
        let kept = Set(manifest.restorePoints.map(\.fileName))
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        var removed = false
        for name in names where name != "upgrade.json" && name != "lock" && !kept.contains(name) {
            guard name.hasPrefix("rp-") || DurableFile.isTemporaryName(name) || name.hasPrefix(".rp-") else { continue }
            if (try? DurableFile.removeWithoutSync(folder + "/" + name)) == true { removed = true }
        }
        if removed { try? DurableFile.synchronizeDirectory(folder) }
    }

    /// Writes a restore point of `db` (outside any transaction) and returns its record; nothing
    /// is recorded yet (the caller adds it to the state file).
    func writeRestorePoint(
        of db: Database, fromVersion: String, toVersion: String, reason: String
    ) throws
        -> RestorePoint
    {
        try makeFolder()
        let id = Self.newID()
        let final = folder + "/" + id + ".sqlite"
        let temporary = folder + "/." + id + ".sqlite.writing"
        let started = ContinuousClock.now
        // The file copied in one pass that checksums it as it goes; SQLite's backup API and a
        // second pass for the checksum when it cannot be (encrypted, a WAL log in the way).
        var stream = FileChecksum.Stream()
        let copiedInOnePass: Bool
        do {
            copiedInOnePass = try db.copyDatabaseFile(toNewFile: temporary) { stream.add($0) }
            if !copiedInOnePass { try db.writeSnapshot(toNewFile: temporary) }
        } catch {
            throw UpgradeError(
                code: .restorePointWriteFailed,
                message: "\(final): cannot write the restore point, so the upgrade did not start",
                culprit: final, cause: "\(error)")
        }
        do {
            let facts = try Self.facts(ofFileAt: temporary, key: db)
            let checksum = copiedInOnePass ? stream.value : try FileChecksum.of(temporary)
            try DurableFile.move(temporary, to: final)
            let bytes = (try? FileSystem.info(final, followingLinks: false))?.size ?? 0
            return RestorePoint(
                id: id, createdAt: Self.now(), fromVersion: fromVersion, toVersion: toVersion, reason: reason,
                bytes: bytes, isEncrypted: db.isEncrypted, pageCount: facts.pageCount,
                schemaDigest: facts.schemaDigest, ledgerDigest: facts.ledgerDigest, checksum: checksum,
                writeSeconds: (ContinuousClock.now - started).inSeconds)
        } catch {
            try? DurableFile.remove(temporary)
            try? DurableFile.remove(final)
            throw UpgradeError(
                code: .restorePointWriteFailed,
                message: "\(final): cannot write the restore point, so the upgrade did not start",
                culprit: final, cause: "\(error)")
        }
    }

    /// Opens `point` read-only with `db`'s key and checks it is whole and the state its record
    /// describes; the caller closes it.
    func openRestorePoint(_ point: RestorePoint, for db: Database) throws -> Database {
        let path = path(of: point)
        func invalid(_ why: String, _ cause: String? = nil) -> UpgradeError {
            UpgradeError(
                code: .restorePointInvalid, message: "\(path): \(why); the database was not changed", culprit: path,
                cause: cause)
        }
        guard let info = try? FileSystem.info(path, followingLinks: false), info.kind == .regular else {
            throw invalid("the restore point \(point.id) is missing")
        }
        guard info.size == point.bytes else {
            throw invalid(
                "the restore point is \(info.size) bytes, its record says \(point.bytes) (truncated or replaced)")
        }
        guard (try? FileChecksum.of(path)) == point.checksum else {
            throw invalid("the restore point's bytes are not those written (damaged or replaced)")
        }
        var configuration = Configuration()
        configuration.openMode = .readOnly
        configuration.encryptionKey = db.currentKeyProvider
        let copy: Database
        do {
            copy = try Database(path: path, configuration: configuration)
        } catch {
            throw invalid("cannot be opened", "\(error)")
        }
        do {
            let check = try copy.quickCheckProblems()
            guard check.isEmpty else {
                throw invalid("is corrupt (quick_check: \(check.prefix(3).joined(separator: "; ")))")
            }
            let facts = try Self.facts(of: copy)
            guard facts.pageCount == point.pageCount, facts.schemaDigest == point.schemaDigest,
                facts.ledgerDigest == point.ledgerDigest
            else {
                throw invalid(
                    "is not the state its record describes (another database's, or changed since it was written)")
            }
            if let other = try Self.lineageBreak(from: copy, to: db) { throw invalid(other) }
        } catch let error as UpgradeError {
            copy.close()
            throw error
        } catch {
            copy.close()
            throw invalid(
                db.isEncrypted
                    ? "cannot be read with the database's key (another key, or not a restore point)" : "cannot be read",
                "\(error)")
        }
        return copy
    }

    /// Removes the oldest restore points beyond `kept` (records first, then files).
    func prune(_ manifest: inout UpgradeManifest, keeping kept: Int, protecting: String?) throws {
        var removable = manifest.restorePoints.filter { $0.id != protecting }
        guard manifest.restorePoints.count > max(kept, 0) else { return }
        var excess = manifest.restorePoints.count - max(kept, 0)
        var gone: [RestorePoint] = []
        while excess > 0, !removable.isEmpty {
            gone.append(removable.removeFirst())
            excess -= 1
        }
        try remove(gone.map(\.id), from: &manifest)
    }

    /// Removes restore points: their records go first (one durable write), then their files, so
    /// a kill in between leaves files no record names, which the next run removes.
    func remove(_ ids: [String], from manifest: inout UpgradeManifest) throws {
        guard !ids.isEmpty else { return }
        let gone = manifest.restorePoints.filter { ids.contains($0.id) }
        manifest.restorePoints.removeAll { ids.contains($0.id) }
        try save(manifest)
        for point in gone { _ = try? DurableFile.removeWithoutSync(path(of: point)) }
        try? DurableFile.synchronizeDirectory(folder)
    }

    struct Facts {
        var pageCount: Int
        var schemaDigest: String
        var ledgerDigest: String
    }

    static func facts(ofFileAt path: String, key db: Database) throws -> Facts {
        var configuration = Configuration()
        configuration.openMode = .readOnly
        configuration.encryptionKey = db.currentKeyProvider
        let copy = try Database(path: path, configuration: configuration)
        defer { copy.close() }
        return try facts(of: copy)
    }

    /// The page count, a digest of `sqlite_master` and a digest of the ledger of `db`.
    static func facts(of db: Database) throws -> Facts {
        let pages = try db.fetchValue(Int.self, sql: "PRAGMA page_count") ?? 0
        var schema = ""
        for row in try db.fetchAll(sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_master ORDER BY rowid") {
            schema += (0..<4).map { "\(row.value(at: $0))" }.joined(separator: "\u{1}") + "\u{2}"
        }
        var ledger = ""
        let hasLedger =
            try db.fetchValue(
                Bool.self, sql: "SELECT count(*) > 0 FROM main.sqlite_master WHERE name = 'strata_migrations'") ?? false
        if hasLedger {
            for row in try db.fetchAll(sql: "SELECT * FROM main.strata_migrations ORDER BY rowid") {
                ledger += (0..<row.columnCount).map { "\(row.value(at: $0))" }.joined(separator: "\u{1}") + "\u{2}"
            }
        }
        let version = try db.fetchValue(Int.self, sql: "PRAGMA user_version") ?? 0
        return Facts(
            pageCount: pages, schemaDigest: SHA256.hexDigest(of: schema),
            ledgerDigest: SHA256.hexDigest(of: ledger + "user_version \(version)"))
    }

    /// Why the restore point `point` cannot be of `db`'s past, or `nil` when it can be: the ledger
    /// is append-only, so every migration the restore point records is still in `db`'s ledger with
    /// the same `applied_at` (to the millisecond). A database deleted and created again beside the
    /// folder of the old one records its migrations anew, at other moments, so the old restore
    /// points are refused rather than restored over the new database's rows. A restore point without
    /// a ledger (taken before the first migration, or of a declarative database) passes: its
    /// lineage cannot be read.
    static func lineageBreak(from point: Database, to db: Database) throws -> String? {
        func ledger(of database: Database) throws -> [String: SQLValue]? {
            let exists =
                try database.fetchValue(
                    Bool.self, sql: "SELECT count(*) > 0 FROM main.sqlite_master WHERE name = 'strata_migrations'")
                ?? false
            guard exists else { return nil }
            var rows: [String: SQLValue] = [:]
            for row in try database.fetchAll(sql: "SELECT identifier, applied_at FROM main.strata_migrations") {
                let identifier = row.value(at: 0)
                if case .text(let text) = identifier {
                    rows[text] = row.value(at: 1)
                } else {
                    rows["\(identifier)"] = row.value(at: 1)
                }
            }
            return rows
        }
        guard let past = try ledger(of: point), !past.isEmpty else { return nil }
        let present = try ledger(of: db) ?? [:]
        for identifier in past.keys.sorted() {
            guard let applied = present[identifier] else {
                return "is another database's: it records migration \(identifier), which this database's ledger "
                    + "does not (the database was created again, or its ledger was edited)"
            }
            if applied != past[identifier] {
                return "is another database's: it records migration \(identifier) applied at \(past[identifier]!), "
                    + "this database applied it at \(applied) (the database was created again beside the old "
                    + "restore points)"
            }
        }
        return nil
    }

    static func newID() -> String {
        let stamp = now().filter { $0.isNumber || $0 == "T" }
        return "rp-\(stamp)-" + String(UInt64.random(in: 0...UInt64.max) & 0xFF_FFFF_FFFF, radix: 36)
    }

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}

/// A 128-bit checksum of a file's bytes, fast enough to run over a restore point of gigabytes
/// (eight bytes per step in two independent lanes); it detects damage, not forgery (whoever can
/// write the folder can write the record too).
enum FileChecksum {
    /// The block size: the checksum depends on it (each block starts its two lanes afresh).
    static let blockSize = 1 << 20

    static func of(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UpgradeErrorCause(description: "\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var stream = Stream()
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            // A full block each time (short reads joined), so the words do not depend on them.
            var n = 0
            while n < blockSize {
                let got = read(fd, buffer + n, blockSize - n)
                if got < 0 {
                    if errno == EINTR { continue }
                    throw UpgradeErrorCause(description: "\(path): \(String(cString: strerror(errno)))")
                }
                if got == 0 { break }
                n += got
            }
            if n == 0 { break }
            stream.add(UnsafeRawBufferPointer(start: buffer, count: n))
            if n < blockSize { break }
        }
        return stream.value
    }

    /// The checksum of bytes handed over block by block: every block of ``blockSize`` bytes but
    /// the last, which may be shorter (the checksum of a file copied in such blocks is known
    /// when the copy is written, without reading it again).
    struct Stream {
        private var a: UInt64 = 0x9E37_79B9_7F4A_7C15
        private var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        private var total: UInt64 = 0

        mutating func add(_ block: UnsafeRawBufferPointer) {
            let n = block.count
            let whole = n / 8
            var i = 0
            while i + 1 < whole {
                a = (a ^ block.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                a ^= a >> 29
                b = (b ^ block.loadUnaligned(fromByteOffset: (i + 1) * 8, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
                b ^= b >> 31
                i += 2
            }
            // The words left (one whole word, a partial one zero-padded, or both), lane a first.
            var rest: [UInt64] = []
            if i < whole { rest.append(block.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) }
            if n % 8 != 0 {
                var last: UInt64 = 0
                withUnsafeMutableBytes(of: &last) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: block[(whole * 8)...]))
                }
                rest.append(last)
            }
            for (k, word) in rest.enumerated() {
                if k == 0 {
                    a = (a ^ word) &* 0xFF51_AFD7_ED55_8CCD
                    a ^= a >> 29
                } else {
                    b = (b ^ word) &* 0xC4CE_B9FE_1A85_EC53
                    b ^= b >> 31
                }
            }
            total &+= UInt64(n)
        }

        var value: String {
            let a = (a ^ total) &* 0xFF51_AFD7_ED55_8CCD
            let b = (b ^ (total << 1)) &* 0xC4CE_B9FE_1A85_EC53
            return String(a ^ (a >> 33), radix: 16) + "-" + String(b ^ (b >> 33), radix: 16)
        }
    }
}
