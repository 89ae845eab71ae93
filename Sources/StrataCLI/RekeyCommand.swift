import ArgumentParser
import Foundation
import Strata

/// `strata rekey`: changes, adds or removes the encryption key of a database.
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Change, add or remove the encryption key of a database.",
        discussion: """
            The database is opened with its current key (--key-file or --key-env; none for a plaintext \
            database) and re-encrypted with the new key (--new-key-file or --new-key-env), or decrypted \
            (--remove-key). Atomic: on any error, or if interrupted, the database opens with the old key \
            and is unchanged. No other connection may use the database meanwhile. Needs an \
            encryption-capable SQLite (SQLCipher or SQLite3 Multiple Ciphers).
            """)

    @OptionGroup var databaseArguments: DatabaseArguments
    var database: String { databaseArguments.path }

    @OptionGroup var connection: ConnectionArguments

    @Option(
        name: .customLong("new-key-file"),
        help: ArgumentHelp("The new passphrase, in this file (one trailing newline is ignored).", valueName: "path"))
    var newKeyFile: String?

    @Option(
        name: .customLong("new-key-env"),
        help: ArgumentHelp("The new passphrase, in this environment variable.", valueName: "name"))
    var newKeyEnvironmentVariable: String?

    @Flag(name: .customLong("remove-key"), help: "Decrypt the database: it becomes a plaintext SQLite file.")
    var removeKey = false

    func validate() throws {
        let newKey = try KeySource(
            file: newKeyFile, environment: newKeyEnvironmentVariable, options: ("--new-key-file", "--new-key-env"))
        switch (newKey, removeKey) {
        case (nil, false): throw ValidationError("give the new key (--new-key-file or --new-key-env) or --remove-key")
        case (_?, true): throw ValidationError("give a new key or --remove-key, not both")
        case (nil, true):
            if connection.encryption.source == nil {
                throw ValidationError("--remove-key needs the current key (--key-file or --key-env)")
            }
        case (_?, false): break
        }
    }

    func run() throws {
        let newKey = try KeySource(
            file: newKeyFile, environment: newKeyEnvironmentVariable, options: ("--new-key-file", "--new-key-env"))
        let newKeyBytes = try newKey?.read()  // before the database is opened: errors name the file or variable
        var configuration = connection.configuration(for: database)
        configuration.openMode = .readWrite
        let db = try MigrationCommandSupport.openDatabase(database, mustExist: true, configuration: configuration)
        defer { db.close() }
        let wasEncrypted = db.isEncrypted
        try CLIError.reporting(database: database) {
            if let newKeyBytes {
                try db.changeKey(to: .passphrase(bytes: newKeyBytes))
            } else {
                try db.removeKey()
            }
        }
        if newKey == nil {
            CLIOutput.print("Removed the key of \(database): it is now a plaintext database.")
        } else {
            CLIOutput.print(wasEncrypted ? "Changed the key of \(database)." : "Encrypted \(database).")
        }
    }
}
