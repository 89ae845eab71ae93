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
            (--remove-key). Crash-safe: the new file is written beside the database, checked (integrity, \
            the rows of every table, the journal mode), flushed and renamed over it. On any error the \
            database is unchanged; if interrupted, it opens either with the old key, unchanged, or with \
            the new key, complete. The journal mode (WAL or rollback journal), owner and permissions are \
            kept; the new file needs as much free space as the database. No other connection may use \
            the database meanwhile (one holding a lock is refused). Needs an encryption-capable SQLite \
            (SQLCipher or SQLite3 Multiple Ciphers).
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
        let oldKeyBytes = try connection.encryption.source?.read()
        try DatabaseOpener.requireExisting(database)
        let configuration = connection.configuration(for: database)
        try CLIError.reporting(database: database) {
            try Database.rekey(
                fileAt: database, from: oldKeyBytes.map { .passphrase(bytes: $0) },
                to: newKeyBytes.map { .passphrase(bytes: $0) }, configuration: configuration)
        }
        let wasEncrypted = oldKeyBytes != nil
        if newKey == nil {
            CLIOutput.print("Removed the key of \(database): it is now a plaintext database.")
        } else {
            CLIOutput.print(wasEncrypted ? "Changed the key of \(database)." : "Encrypted \(database).")
        }
    }
}
