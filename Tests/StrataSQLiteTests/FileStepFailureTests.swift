import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// The backup's and the rekey's own file steps (create, flush, rename or link, the folder's
/// flush) go through the same seam as `DurableFile`'s: each step is made to fail in turn, and
/// every time the target is either as it was (the database, or the file a backup would replace)
/// or wholly the new one, with no temporary file left beside it.
@Suite("File steps of backups and rekeys, each made to fail")
struct FileStepFailureTests {
    typealias Recorder = DurableFileTests.Recorder

    /// The rows of `note` in a backup or a rekeyed file, in order.
    static func notes(_ path: String, passphrase: String? = nil) throws -> [String] {
        var configuration = Configuration()
        configuration.openMode = .readOnly
        if let passphrase { configuration.encryptionKey = { .passphrase(passphrase) } }
        let db = try Database(path: path, configuration: configuration)
        defer { db.close() }
        return try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
    }

    static func makeSource(_ path: String) throws -> [String] {
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        for i in 0..<300 { try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["note \(i)"]) }
        return try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
    }

    @Test func aBackupFailingAtEachStepLeavesNoPartialFileAndNeverHarmsTheOneItWouldReplace() throws {
        let dir = TemporaryDirectory("strata-backup-steps")
        let source = dir.file("source.sqlite")
        let expected = try Self.makeSource(source)
        let db = try Database(path: source)
        defer { db.close() }

        // The steps of a backup that succeeds, to a new name and over an existing file.
        for replacing in [false, true] {
            let target = dir.file(replacing ? "existing backup.sqlite" : "new backup.sqlite")
            let oldBytes = Data("an older file, not a database\n".utf8)
            let reset = {
                try? FileManager.default.removeItem(atPath: target)
                if replacing { try oldBytes.write(to: URL(fileURLWithPath: target)) }
            }
            try reset()
            let clean = Recorder()
            try DurableFile.$hook.withValue(clean.hook) {
                try db.backup(toPath: target, replacingExisting: replacing)
            }
            let steps = clean.steps
            #expect(try Self.notes(target) == expected)
            // The copy is flushed before it gets the name, the folder after.
            let flush = steps.firstIndex { if case .syncFile = $0 { true } else { false } }
            let place = steps.firstIndex {
                switch $0 {
                case .rename(_, let to), .link(_, let to): to == target
                default: false
                }
            }
            let folder = steps.lastIndex(of: .syncDirectory(dir.path))
            #expect(flush != nil && place != nil && folder != nil, "\(steps)")
            if let flush, let place, let folder { #expect(flush < place && place < folder, "\(steps)") }

            for failAt in 1...steps.count {
                try reset()
                let before = filesIn(dir.path)
                let recorder = Recorder(failAt: failAt)
                let label = "replacing: \(replacing), step \(failAt) of \(steps): \(steps[failAt - 1])"
                var failure: BackupError?
                do {
                    try DurableFile.$hook.withValue(recorder.hook) {
                        try db.backup(toPath: target, replacingExisting: replacing)
                    }
                } catch let error as BackupError {
                    failure = error
                }
                let placed = place.map { failAt > $0 + 1 } ?? false  // `place` counts from 0, `failAt` from 1
                if let failure {
                    #expect(!placed, "only steps before the name is given fail the backup: \(label)")
                    #expect(failure.path == target, "\(label): \(failure)")
                    #expect("\(failure)".contains("Input/output error"), "\(label): \(failure)")
                    #expect(filesIn(dir.path) == before, "\(label)")
                    if replacing {
                        #expect(fileBytes(target) == oldBytes, "\(label)")
                    } else {
                        #expect(!FileManager.default.fileExists(atPath: target), "\(label)")
                    }
                } else {
                    // After the name is given only the folder's flush (or the temporary name's
                    // removal after a link) remains; the backup is whole.
                    #expect(placed, "\(label)")
                    #expect(try Self.notes(target) == expected, "\(label)")
                    #expect(!filesIn(dir.path).contains { $0.contains("strata-backup") }, "\(label)")
                }
            }
        }
        #expect(try Self.notes(source) == expected)
    }

    @Test(.requiresEncryption) func aRekeyFailingAtEachStepLeavesTheOldKeyOrTheNewOne() throws {
        let dir = TemporaryDirectory("strata-rekey-steps")
        let path = dir.file("app.sqlite")
        for mode in ["DELETE", "WAL"] {
            try? FileManager.default.removeItem(atPath: path)
            try EncryptionTests.makeDatabase(path, passphrase: "one", journalMode: mode, rows: 120)
            let expected = try EncryptionTests.rows(
                try Database(path: path, configuration: EncryptionTests.configuration("one")))
            let clean = Recorder()
            try DurableFile.$hook.withValue(clean.hook) {
                try Database.rekey(fileAt: path, from: .passphrase("one"), to: .passphrase("two"))
            }
            let steps = clean.steps
            #expect(steps.contains(.rename(steps.first.map(Self.createdPath) ?? "", path)), "\(mode): \(steps)")
            // The copy is flushed under its temporary name before it takes the database's, the
            // folder after (a copy renamed first and flushed after could be an empty or torn
            // file under the database's name after a power loss).
            let copy = steps.first.map(Self.createdPath) ?? ""
            let flush = steps.firstIndex { if case .syncFile = $0 { true } else { false } }
            let place = steps.firstIndex(of: .rename(copy, path))
            let folder = steps.lastIndex(of: .syncDirectory(dir.path))
            #expect(flush.map { steps[$0] } == .syncFile(copy), "\(mode): the first flush is the copy's: \(steps)")
            #expect(flush != nil && place != nil && folder != nil, "\(mode): \(steps)")
            if let flush, let place, let folder { #expect(flush < place && place < folder, "\(mode): \(steps)") }
            var key = "two"
            for failAt in 1...steps.count {
                let next = key == "one" ? "two" : "one"
                let before = fileBytes(path)
                let recorder = Recorder(failAt: failAt)
                let label = "\(mode), step \(failAt): \(steps[failAt - 1])"
                var failed = false
                do {
                    try DurableFile.$hook.withValue(recorder.hook) {
                        try Database.rekey(fileAt: path, from: .passphrase(key), to: .passphrase(next))
                    }
                } catch let error as SQLiteError {
                    failed = true
                    #expect(error.culprit == path, "\(label): \(error)")
                    #expect(error.message.contains("Input/output error"), "\(label): \(error)")
                }
                if failed {
                    #expect(fileBytes(path) == before, "the file is untouched: \(label)")
                } else {
                    key = next
                }
                #expect(
                    try EncryptionTests.rows(
                        try Database(path: path, configuration: EncryptionTests.configuration(key))) == expected,
                    "\(label)")
                #expect(!filesIn(dir.path).contains { $0.contains("strata-rekey") }, "\(label): \(filesIn(dir.path))")
            }
        }
    }

    static func createdPath(_ step: DurableFile.Step) -> String {
        if case .create(let path) = step { path } else { "" }
    }
}
