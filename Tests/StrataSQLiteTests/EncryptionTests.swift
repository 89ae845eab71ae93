import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// Encrypted databases through the connection layer, against a real encryption-capable SQLite
/// (SQLite3 Multiple Ciphers 3.54.0 with the SQLCipher v4 cipher, loaded by
/// `scripts/sqlite-versions.sh test`); skipped, with the reason, on the system SQLite.
@Suite("Encryption", .timeLimit(.minutes(3)))
struct EncryptionTests {
    static let marker = "STRATA-SECRET-MARKER-7f3a"

    static func configuration(_ passphrase: String) -> Configuration {
        var configuration = Configuration()
        configuration.encryptionKey = { .passphrase(passphrase) }
        return configuration
    }

    /// A database with enough marked rows to span many pages, encrypted with `passphrase`.
    static func makeDatabase(_ path: String, passphrase: String, journalMode: String = "DELETE", rows: Int = 500) throws
    {
        let db = try Database(path: path, configuration: configuration(passphrase))
        defer { db.close() }
        _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(journalMode)")
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.execute(sql: "CREATE INDEX note_body ON note(body)")
        try db.transaction {
            for i in 0..<rows {
                try db.execute(
                    sql: "INSERT INTO note(body) VALUES (?)",
                    arguments: ["\(marker) row \(i) " + String(repeating: "x", count: 200)])
            }
        }
    }

    static func rows(_ db: Database) throws -> [String] {
        try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
    }

    @Test(.requiresEncryption) func theFileIsEncryptedAndOpensWithItsKey() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("app.sqlite")
        try Self.makeDatabase(path, passphrase: "correct horse")
        let bytes = fileBytes(path)
        #expect(bytes.count > 100_000)
        #expect(!bytes.starts(with: Data("SQLite format 3\0".utf8)), "the header is plaintext")
        #expect(
            plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
            "\(plaintextLeaks(in: dir.path, marker: Self.marker))")

        let db = try Database(path: path, configuration: Self.configuration("correct horse"))
        defer { db.close() }
        #expect(db.isEncrypted)
        #expect(try Self.rows(db).count == 500)
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        // Sorts and temporary tables of a keyed connection stay in memory (2 = MEMORY).
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA temp_store") == 2)
    }

    @Test(.requiresEncryption) func aWrongOrMissingKeyFailsWithOneClearError() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("app.sqlite")
        try Self.makeDatabase(path, passphrase: "right", rows: 20)
        let before = fileBytes(path)
        let wrongKeys: [Configuration] = [
            Self.configuration("wrong"), Self.configuration("righ"),
            {
                var c = Configuration()
                c.encryptionKey = { .rawKey([UInt8](repeating: 7, count: 32)) }
                return c
            }(),
        ]
        for configuration in wrongKeys {
            #expect {
                try Database(path: path, configuration: configuration)
            } throws: { error in
                guard let error = error as? SQLiteError else { return false }
                return error.resultCode == .SQLITE_NOTADB && error.message == "wrong key or not a database: \(path)"
            }
        }
        // No key at all: SQLite's own "not a database".
        #expect { try Database(path: path) } throws: { ($0 as? SQLiteError)?.resultCode == .SQLITE_NOTADB }
        // A plaintext database opened with a key is refused the same way, and left alone.
        let plain = dir.file("plain.sqlite")
        do {
            let db = try Database(path: plain)
            try db.execute(sql: "CREATE TABLE t(x)")
            db.close()
        }
        let plainBefore = fileBytes(plain)
        #expect { try Database(path: plain, configuration: Self.configuration("key")) } throws: {
            ($0 as? SQLiteError)?.message == "wrong key or not a database: \(plain)"
        }
        #expect(fileBytes(path) == before)
        #expect(fileBytes(plain) == plainBefore)
    }

    @Test(.requiresEncryption) func rawKeysAndInvalidKeys() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("raw.sqlite")
        let key = (0..<32).map { UInt8($0 * 7 % 256) }
        var configuration = Configuration()
        configuration.encryptionKey = { .rawKey(key) }
        do {
            let db = try Database(path: path, configuration: configuration)
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [Self.marker])
            db.close()
        }
        #expect(plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty)
        let db = try Database(path: path, configuration: configuration)
        #expect(try db.fetchValue(String.self, sql: "SELECT x FROM t") == Self.marker)
        db.close()

        // Not 32 bytes, or an empty passphrase: refused before anything is written.
        for invalid in [EncryptionKey.rawKey([1, 2, 3]), .passphrase("")] {
            var c = Configuration()
            c.encryptionKey = { invalid }
            let fresh = dir.file("invalid-\(UUID().uuidString).sqlite")
            #expect { try Database(path: fresh, configuration: c) } throws: { error in
                guard let error = error as? SQLiteError else { return false }
                return error.resultCode == .SQLITE_MISUSE && error.message.hasPrefix("invalid encryption key")
            }
            #expect(fileBytes(fresh).isEmpty)
        }
    }

    @Test(.requiresEncryption) func theKeyIsAskedForAtEachOpeningAndItsErrorsComeBeforeTheFileIsOpened() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("app.sqlite")
        let calls = LockedCounter()
        var configuration = Configuration()
        configuration.encryptionKey = {
            calls.increment()
            return .passphrase("k")
        }
        for _ in 0..<3 { try Database(path: path, configuration: configuration).close() }
        #expect(calls.value == 3)

        struct KeychainLocked: Error {}
        configuration.encryptionKey = { throw KeychainLocked() }
        let fresh = dir.file("fresh.sqlite")
        #expect(throws: KeychainLocked.self) { try Database(path: fresh, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: fresh), "the file was created before the key was known")
    }

    @Test(.requiresEncryption) func changingAddingAndRemovingTheKey() throws {
        for mode in ["DELETE", "WAL"] {
            let dir = TemporaryDirectory("strata-encryption")
            let path = dir.file("app.sqlite")
            try Self.makeDatabase(path, passphrase: "old", journalMode: mode, rows: 300)
            let expected: [String]
            do {
                let db = try Database(path: path, configuration: Self.configuration("old"))
                expected = try Self.rows(db)
                try db.changeKey(to: .passphrase("new"))
                #expect(db.isEncrypted)
                #expect(try Self.rows(db) == expected, "\(mode): rows after changeKey, same connection")
                db.close()
            }
            #expect { try Database(path: path, configuration: Self.configuration("old")) } throws: {
                ($0 as? SQLiteError)?.resultCode == .SQLITE_NOTADB
            }
            do {
                let db = try Database(path: path, configuration: Self.configuration("new"))
                #expect(try Self.rows(db) == expected, "\(mode): rows with the new key")
                try db.removeKey()
                #expect(!db.isEncrypted)
                db.close()
            }
            #expect(
                fileBytes(path).starts(with: Data("SQLite format 3\0".utf8)),
                "\(mode): removeKey left no plaintext file")
            do {
                let db = try Database(path: path)
                #expect(try Self.rows(db) == expected, "\(mode): rows after removeKey")
                // A plaintext database gets a key (in WAL mode through the rollback journal).
                try db.changeKey(to: .passphrase("third"))
                #expect(try db.fetchValue(String.self, sql: "PRAGMA journal_mode")?.lowercased() == mode.lowercased())
                db.close()
            }
            #expect(
                !fileBytes(path).starts(with: Data("SQLite format 3\0".utf8)),
                "\(mode): changeKey left a plaintext header")
            let db = try Database(path: path, configuration: Self.configuration("third"))
            #expect(try Self.rows(db) == expected, "\(mode): rows after encrypting again")
            #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
            db.close()
            #expect(
                plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
                "\(mode): \(plaintextLeaks(in: dir.path, marker: Self.marker))")
        }
    }

    @Test(.requiresEncryption) func changingTheKeyIsRefusedWhereItCannotBeDone() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("app.sqlite")
        try Self.makeDatabase(path, passphrase: "k", rows: 10)
        let before = fileBytes(path)
        let db = try Database(path: path, configuration: Self.configuration("k"))
        try db.execute(sql: "BEGIN")
        #expect { try db.changeKey(to: .passphrase("n")) } throws: {
            ($0 as? SQLiteError)?.resultCode == .SQLITE_MISUSE
        }
        try db.execute(sql: "ROLLBACK")
        #expect { try db.changeKey(to: .passphrase("")) } throws: { ($0 as? SQLiteError)?.resultCode == .SQLITE_MISUSE }
        db.close()
        var readOnly = Self.configuration("k")
        readOnly.openMode = .readOnly
        let reader = try Database(path: path, configuration: readOnly)
        #expect { try reader.changeKey(to: .passphrase("n")) } throws: {
            ($0 as? SQLiteError)?.resultCode == .SQLITE_READONLY
        }
        reader.close()
        #expect(fileBytes(path) == before)
        // An in-memory database cannot be keyed.
        #expect { try Database(inMemory: Self.configuration("k")) } throws: { $0 is SQLiteError }
        let memory = try Database(inMemory: Configuration())
        #expect { try memory.changeKey(to: .passphrase("n")) } throws: {
            ($0 as? SQLiteError)?.resultCode == .SQLITE_MISUSE
        }
    }

    @Test(.requiresEncryption) func backupsAreEncryptedWithTheSameKey() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("app.sqlite")
        try Self.makeDatabase(path, passphrase: "k", rows: 200)
        let db = try Database(path: path, configuration: Self.configuration("k"))
        defer { db.close() }
        try db.backup(toPath: dir.file("backup.sqlite"))
        #expect(
            plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
            "\(plaintextLeaks(in: dir.path, marker: Self.marker))")
        let copy = try Database(path: dir.file("backup.sqlite"), configuration: Self.configuration("k"))
        #expect(try Self.rows(copy) == Self.rows(db))
        copy.close()
        // After a key change the backup takes the new key.
        try db.changeKey(to: .passphrase("k2"))
        try db.backup(toPath: dir.file("backup2.sqlite"))
        let copy2 = try Database(path: dir.file("backup2.sqlite"), configuration: Self.configuration("k2"))
        #expect(try Self.rows(copy2).count == 200)
        copy2.close()
        // Into a plaintext database: refused by the cipher, never a plaintext copy.
        let plain = try Database(inMemory: Configuration())
        #expect(throws: SQLiteError.self) { try db.backup(to: plain) }
        #expect(try plain.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
        #expect(plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty)
    }

    @Test(.requiresEncryption) func everyConnectionOfAPoolGetsTheKey() async throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("pool.sqlite")
        let pool = try DatabasePool(path: path, configuration: Self.configuration("pool key"))
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for i in 0..<100 {
                try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["\(Self.marker) \(i)"])
            }
        }
        // Concurrent readers: each reader connection opened with the key.
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") ?? -1 }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 100, count: 8))
        // The WAL and shared-memory files are on disk now: none holds plaintext.
        #expect(
            plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
            "\(plaintextLeaks(in: dir.path, marker: Self.marker))")
        await pool.close()
        #expect(plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty)
    }

    @Test(
        .enabled(
            if: !Database.supportsEncryption, "this SQLite can encrypt; the test checks the refusal of one that cannot")
    )
    func withoutAnEncryptionCapableSQLiteAKeyIsRefusedAndNothingIsWritten() throws {
        let dir = TemporaryDirectory("strata-encryption")
        let path = dir.file("app.sqlite")
        #expect { try Database(path: path, configuration: Self.configuration("k")) } throws: { error in
            guard let error = error as? SQLiteError, case let message = error.message else { return false }
            return error.resultCode == .SQLITE_ERROR && message.contains("cannot encrypt databases")
                && message.contains("SQLCipher") && message.contains("SQLite3 Multiple Ciphers")
                && !message.contains("\n")
                && message.hasSuffix(path)
        }
        #expect(!FileManager.default.fileExists(atPath: path), "a file was created")
        let plain = try Database(path: dir.file("plain.sqlite"))
        try plain.execute(sql: "CREATE TABLE t(x)")
        #expect { try plain.changeKey(to: .passphrase("k")) } throws: {
            ($0 as? SQLiteError)?.message.contains("cannot encrypt") == true
        }
        #expect(!plain.isEncrypted)
    }
}

/// `Database.rekey(fileAt:from:to:configuration:)`: a new file renamed over the old one (issue 24).
@Suite("Rekeying a file")
struct FileRekeyTests {
    @Test(.requiresEncryption) func everyModeKeepsRowsJournalModeAndPermissions() throws {
        for mode in ["DELETE", "WAL"] {
            let dir = TemporaryDirectory("strata-file-rekey")
            let path = dir.file("a \"quoted\" name.sqlite")
            try EncryptionTests.makeDatabase(path, passphrase: "one", journalMode: mode, rows: 200)
            #expect(chmod(path, 0o604) == 0)
            let expected = try EncryptionTests.rows(
                try Database(path: path, configuration: EncryptionTests.configuration("one")))
            // key → key, key → plaintext, plaintext → key.
            for (from, to) in [("one", "two"), ("two", nil), (nil, "three")] as [(String?, String?)] {
                let label = "\(mode): \(from ?? "plaintext") → \(to ?? "plaintext")"
                try Database.rekey(fileAt: path, from: from.map { .passphrase($0) }, to: to.map { .passphrase($0) })
                var configuration = Configuration()
                if let to { configuration.encryptionKey = { .passphrase(to) } }
                let db = try Database(path: path, configuration: configuration)
                #expect(try EncryptionTests.rows(db) == expected, "\(label)")
                #expect(try db.fetchValue(String.self, sql: "PRAGMA journal_mode") == mode.lowercased(), "\(label)")
                db.close()
                var st = stat()
                #expect(stat(path, &st) == 0 && st.st_mode & 0o7777 == 0o604, "\(label)")
                #expect(
                    filesIn(dir.path).filter { $0.contains("strata-rekey") }.isEmpty, "\(label): \(filesIn(dir.path))")
                #expect(fileBytes(path).starts(with: Data("SQLite format 3\0".utf8)) == (to == nil), "\(label)")
            }
        }
    }

    @Test(.requiresEncryption) func anotherConnectionOfThisProcessInWALModeIsRefused() throws {
        let dir = TemporaryDirectory("strata-file-rekey")
        let path = dir.file("app.sqlite")
        try EncryptionTests.makeDatabase(path, passphrase: "one", journalMode: "WAL", rows: 50)
        let other = try Database(path: path, configuration: EncryptionTests.configuration("one"))
        defer { other.close() }
        let before = fileBytes(path)
        var configuration = Configuration()
        configuration.busyTimeout = 0.2
        let error = try #require(throws: SQLiteError.self) {
            try Database.rekey(
                fileAt: path, from: .passphrase("one"), to: .passphrase("two"), configuration: configuration)
        }
        #expect(error.resultCode == .SQLITE_BUSY, "\(error)")
        #expect(error.message.contains("another connection is using the database"), "\(error)")
        #expect(error.message.hasSuffix("the database is unchanged: \(path)"), "\(error)")
        #expect(fileBytes(path) == before)
        #expect(try other.fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 50)
    }

    @Test(.requiresEncryption) func refusalsNameTheFileAndChangeNothing() throws {
        let dir = TemporaryDirectory("strata-file-rekey")
        let path = dir.file("app.sqlite")
        try EncryptionTests.makeDatabase(path, passphrase: "one", rows: 20)
        let before = fileBytes(path)
        let cases: [(String, EncryptionKey?, EncryptionKey?, String)] = [
            (path, .passphrase("wrong"), .passphrase("two"), "wrong key or not a database: \(path)"),
            (path, nil, .passphrase("two"), "file is not a database: \(path)"),
            (path, nil, nil, "neither an old key nor a new one was given"),
            (path, .passphrase("one"), .passphrase(""), "the passphrase is empty"),
            (dir.file("missing.sqlite"), .passphrase("one"), .passphrase("two"), "no such database file"),
            (dir.path, .passphrase("one"), .passphrase("two"), "not a regular file (a directory)"),
        ]
        for (target, from, to, message) in cases {
            let error = try #require(throws: SQLiteError.self) {
                try Database.rekey(fileAt: target, from: from, to: to)
            }
            #expect(error.message.contains(message), "\(error)")
            #expect(error.culprit == target, "\(error)")
            #expect(fileBytes(path) == before)
        }
        #expect(filesIn(dir.path) == ["app.sqlite"])
    }
}

/// A counter the key closure (which is `@Sendable`) can increment.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
