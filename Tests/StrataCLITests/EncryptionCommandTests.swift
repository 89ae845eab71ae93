import Foundation
import Strata
import StrataTestSupport
import Testing

/// `--key-file`, `--key-env` and `strata rekey` on encrypted databases, against a real
/// encryption-capable SQLite (the child processes inherit the test's LD_LIBRARY_PATH); skipped,
/// with the reason, on the system SQLite.
@Suite("Encryption on the command line")
struct EncryptionCommandTests {
    static let marker = "STRATA-CLI-MARKER-0b7e"
    static let v1 = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n"
    /// A CHECK constraint added to note: a rebuild on SQLite before 3.53, native after it.
    static let v2 = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL COLLATE NOCASE, tag TEXT);\n"

    struct Fixture {
        let dir = TemporaryDirectory("strata-encrypted-cli")
        var db: String { dir.file("app.sqlite") }
        var keyFile: String { dir.file("key.txt") }

        init() throws {
            // The key file ends with a newline, as `echo` writes it: the key is "file secret".
            try Data("file secret\n".utf8).write(to: URL(fileURLWithPath: keyFile))
            try Data(EncryptionCommandTests.v1.utf8).write(to: URL(fileURLWithPath: dir.file("v1.sql")))
            try Data(EncryptionCommandTests.v2.utf8).write(to: URL(fileURLWithPath: dir.file("v2.sql")))
        }

        func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
            try ChildProcess.run("strata", arguments, environment: environment)
        }

        func open(_ passphrase: String?) throws -> Database {
            var configuration = Configuration()
            if let passphrase { configuration.encryptionKey = { .passphrase(passphrase) } }
            return try Database(path: db, configuration: configuration)
        }

        func fill() throws {
            let database = try open("file secret")
            defer { database.close() }
            for i in 0..<200 {
                try database.execute(
                    sql: "INSERT INTO note(body) VALUES (?)", arguments: ["\(EncryptionCommandTests.marker) \(i)"])
            }
        }

        var leaks: [String] { plaintextLeaks(in: dir.path, marker: EncryptionCommandTests.marker) }
    }

    @Test(.requiresEncryption) func everyCommandOpensAnEncryptedDatabaseWithItsKey() throws {
        let f = try Fixture()
        let apply = try f.strata(["apply", "--db", f.db, "--schema", f.dir.file("v1.sql"), "--key-file", f.keyFile])
        #expect(apply.status == 0, "\(apply)")
        #expect(!fileBytes(f.db).starts(with: Data("SQLite format 3\0".utf8)), "apply created a plaintext database")
        try f.fill()  // opens with "file secret": the file's trailing newline was not part of the key

        let env = ["STRATA_DB_KEY": "file secret"]
        let plan = try f.strata(
            ["plan", "--db", f.db, "--schema", f.dir.file("v2.sql"), "--key-env", "STRATA_DB_KEY"], environment: env)
        #expect(plan.status == 0 && plan.stdout.contains("note"), "\(plan)")
        let dump = try f.strata(["dump", "--db", f.db, "--key-env", "STRATA_DB_KEY"], environment: env)
        #expect(dump.status == 0 && dump.stdout.contains("CREATE TABLE note"), "\(dump)")

        // A rebuild with --backup: the backup is encrypted with the same key.
        let backup = f.dir.file("backup.sqlite")
        let apply2 = try f.strata([
            "apply", "--db", f.db, "--schema", f.dir.file("v2.sql"), "--key-file", f.keyFile, "--backup", backup,
        ])
        #expect(apply2.status == 0, "\(apply2)")
        #expect(f.leaks.isEmpty, "\(f.leaks)")
        var configuration = Configuration()
        configuration.encryptionKey = { .passphrase("file secret") }
        let copy = try Database(path: backup, configuration: configuration)
        #expect(try copy.fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 200)
        copy.close()

        let migrations = try migrationFolder(["0001_tag_index.sql": "CREATE INDEX note_tag ON note(tag);\n"])
        let before = fileBytes(f.db)
        let dry = try f.strata([
            "migrate", "--db", f.db, "--migrations", migrations.path, "--dry-run", "--key-file", f.keyFile,
        ])
        #expect(dry.status == 0 && dry.stdout.contains("Would apply 0001_tag_index"), "\(dry)")
        #expect(fileBytes(f.db) == before, "the dry run changed the database")
        let migrate = try f.strata(["migrate", "--db", f.db, "--migrations", migrations.path, "--key-file", f.keyFile])
        #expect(migrate.status == 0, "\(migrate)")
        let status = try f.strata(
            ["status", "--db", f.db, "--migrations", migrations.path, "--key-env", "STRATA_DB_KEY"], environment: env)
        #expect(status.status == 0 && status.stdout.contains("Pending (0)"), "\(status)")
        #expect(f.leaks.isEmpty, "\(f.leaks)")
        let db = try f.open("file secret")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 200)
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        db.close()
    }

    @Test(.requiresEncryption) func keyErrorsNameTheFileOrTheVariableAndChangeNothing() throws {
        let f = try Fixture()
        #expect(
            try f.strata(["apply", "--db", f.db, "--schema", f.dir.file("v1.sql"), "--key-file", f.keyFile]).status == 0
        )
        try f.fill()
        let before = fileBytes(f.db)
        let wrong = f.dir.file("wrong.txt")
        try Data("not it".utf8).write(to: URL(fileURLWithPath: wrong))
        let empty = f.dir.file("empty.txt")
        try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
        let migrations = try migrationFolder([:])
        let cases: [(String, [String], [String: String], String)] = [
            (
                "wrong key", ["dump", "--db", f.db, "--key-file", wrong], [:],
                "strata: \(f.db): wrong key or not a database\n"
            ),
            ("no key", ["dump", "--db", f.db], [:], "if it is encrypted, give its key with --key-file or --key-env\n"),
            (
                "missing key file", ["dump", "--db", f.db, "--key-file", f.dir.file("nope.txt")], [:],
                "strata: \(f.dir.file("nope.txt")): no such key file\n"
            ),
            (
                "empty key file", ["dump", "--db", f.db, "--key-file", empty], [:],
                "strata: \(empty): the key file is empty\n"
            ),
            (
                "unset variable",
                ["status", "--db", f.db, "--migrations", migrations.path, "--key-env", "STRATA_NO_SUCH_VARIABLE"], [:],
                "strata: STRATA_NO_SUCH_VARIABLE: no such environment variable (it should hold the key)\n"
            ),
            (
                "empty variable",
                ["plan", "--db", f.db, "--schema", f.dir.file("v2.sql"), "--key-env", "STRATA_EMPTY"],
                ["STRATA_EMPTY": ""],
                "strata: STRATA_EMPTY: the environment variable is empty\n"
            ),
            (
                "both", ["dump", "--db", f.db, "--key-file", f.keyFile, "--key-env", "X"], ["X": "k"],
                "See 'strata dump --help' for more information.\n"
            ),
            (
                "wrong key on apply", ["apply", "--db", f.db, "--schema", f.dir.file("v2.sql"), "--key-file", wrong],
                [:],
                "strata: \(f.db): wrong key or not a database\n"
            ),
        ]
        for (label, arguments, environment, suffix) in cases {
            let r = try f.strata(arguments, environment: environment)
            #expect(r.status == 1, "\(label): \(r)")
            #expect(r.stderr.hasSuffix(suffix) && r.stderr.hasPrefix("strata: "), "\(label): \(r)")
            // One line, except for the usage error, which ArgumentParser follows with the usage.
            #expect(
                label == "both"
                    ? r.stderr.contains("give --key-file or --key-env, not both")
                    : r.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(r)")
            #expect(!r.stderr.contains("file secret") && !r.stderr.contains("not it"), "\(label): the key was printed")
            #expect(fileBytes(f.db) == before, "\(label): the database changed")
        }
    }

    @Test(.requiresEncryption) func rekeyChangesAddsAndRemovesTheKey() throws {
        let f = try Fixture()
        #expect(
            try f.strata(["apply", "--db", f.db, "--schema", f.dir.file("v1.sql"), "--key-file", f.keyFile]).status == 0
        )
        try f.fill()
        let env = ["NEW_KEY": "env secret"]

        let change = try f.strata(
            ["rekey", "--db", f.db, "--key-file", f.keyFile, "--new-key-env", "NEW_KEY"], environment: env)
        #expect(change.status == 0 && change.stdout == "Changed the key of \(f.db).\n", "\(change)")
        #expect(throws: SQLiteError.self) { try f.open("file secret") }
        #expect(try f.open("env secret").fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 200)

        let remove = try f.strata(["rekey", "--db", f.db, "--key-env", "NEW_KEY", "--remove-key"], environment: env)
        #expect(remove.status == 0, "\(remove)")
        #expect(fileBytes(f.db).starts(with: Data("SQLite format 3\0".utf8)))
        #expect(try f.open(nil).fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 200)

        let add = try f.strata(["rekey", "--db", f.db, "--new-key-file", f.keyFile])
        #expect(add.status == 0 && add.stdout == "Encrypted \(f.db).\n", "\(add)")
        #expect(f.leaks.isEmpty, "\(f.leaks)")
        #expect(try f.open("file secret").fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 200)

        let before = fileBytes(f.db)
        let refusals: [([String], String)] = [
            (
                ["rekey", "--db", f.db, "--key-file", f.keyFile],
                "give the new key (--new-key-file or --new-key-env) or --remove-key"
            ),
            (["rekey", "--db", f.db, "--remove-key"], "--remove-key needs the current key (--key-file or --key-env)"),
            (
                ["rekey", "--db", f.db, "--key-file", f.keyFile, "--remove-key", "--new-key-file", f.keyFile],
                "give a new key or --remove-key, not both"
            ),
            (
                ["rekey", "--db", f.db, "--key-env", "NEW_KEY", "--new-key-file", f.keyFile],
                "wrong key or not a database"
            ),
            (["rekey", "--db", f.dir.file("none.sqlite"), "--new-key-file", f.keyFile], "no such database file"),
            (
                ["rekey", "--db", f.db, "--key-file", f.keyFile, "--new-key-env", "STRATA_UNSET_KEY"],
                "STRATA_UNSET_KEY: no such environment variable"
            ),
        ]
        for (arguments, message) in refusals {
            let r = try f.strata(arguments, environment: env)
            #expect(r.status == 1 && r.stderr.contains(message), "\(arguments): \(r)")
            #expect(fileBytes(f.db) == before)
        }
        #expect(!FileManager.default.fileExists(atPath: f.dir.file("none.sqlite")))
    }
}
