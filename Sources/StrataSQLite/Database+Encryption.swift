import CSQLite

extension Database {
    /// True when the loaded SQLite library can encrypt databases: it is SQLCipher or SQLite3
    /// Multiple Ciphers (it exports `sqlite3_key_v2` and `sqlite3_rekey_v2`), not the system SQLite.
    ///
    /// ```swift
    /// if Database.supportsEncryption { config.encryptionKey = { .passphrase(secret) } }
    /// ```
    public static var supportsEncryption: Bool { SQLiteEncryption.isAvailable }

    /// True when the connection opened with a key (``Configuration/encryptionKey``) or was given
    /// one since (``changeKey(to:)``), and ``removeKey()`` was not called since.
    public var isEncrypted: Bool { hasKey }

    /// The key this connection opens the file with, for another connection to the same file or
    /// a copy of it (a restore point): nil when it has none.
    package var currentKeyProvider: (@Sendable () throws -> EncryptionKey)? { currentKey }

    /// Applies the configuration's key right after `sqlite3_open_v2`, before anything reads the file.
    func applyKey(_ key: EncryptionKey, provider: (@Sendable () throws -> EncryptionKey)?) throws {
        guard let keyFunction = SQLiteEncryption.key else { throw SQLiteEncryption.unavailableError(path) }
        let rc = key.material.withUnsafeBytes { keyFunction(handle, "main", $0.baseAddress, Int32($0.count)) }
        if rc != SQLITE_OK {
            let error = connection.error(code: rc, sql: nil)
            throw SQLiteError(
                resultCode: error.extendedResultCode, message: "cannot set the encryption key: \(error.message)")
        }
        hasKey = true
        currentKey = provider
    }

    /// Sorts, temporary tables and statement journals of an encrypted database stay in memory:
    /// neither SQLCipher nor SQLite3 Multiple Ciphers encrypt temporary files by default.
    /// See <https://www.sqlite.org/pragma.html#pragma_temp_store>.
    func keepTemporaryDataInMemory() throws {
        try execute(sql: "PRAGMA temp_store = MEMORY")
    }

    /// The error for a key that does not open the file: "wrong key or not a database: PATH".
    static func wrongKeyError(_ path: String) -> SQLiteError {
        SQLiteError(resultCode: .SQLITE_NOTADB, message: "wrong key or not a database: \(path)", culprit: path)
    }

    // MARK: Changing the key

    /// Encrypts the database in place with `newKey`: re-encrypts an encrypted database, or
    /// encrypts a plaintext one, through the connection (`sqlite3_rekey_v2`). Once it returns,
    /// only `newKey` opens the file.
    ///
    /// ```swift
    /// try db.changeKey(to: .passphrase(newPassphrase))
    /// ```
    ///
    /// **Not crash-safe: prefer ``rekey(fileAt:from:to:configuration:)``**, which writes a new
    /// file and renames it over the old one. What this in-place path promises is what the
    /// cipher library does: the pages are rewritten in one transaction, so an *error* rolls it
    /// back (the file opens with the old key), but a process killed midway can leave a file that
    /// opens with neither key (SQLite3 Multiple Ciphers 3.54.0, rollback journal: 5 of 160 kills
    /// of a 60,000-row rekey). Use it only on a database that can be lost, or that a backup holds.
    ///
    /// Close every other connection to the file first (a ``DatabasePool``'s readers keep the old
    /// key and fail to read once it changed). The connection keeps `newKey` for its backups.
    /// SQLite3 Multiple Ciphers cannot encrypt a *plaintext* database in WAL mode: that case
    /// switches the file to the rollback journal for the rekey and back to WAL after it (which
    /// needs no other connection open). The file's header is checked afterwards: a library that
    /// left it in plaintext (SQLCipher does not encrypt a plaintext database in place) is
    /// reported as an error, never ignored.
    /// See <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>.
    public func changeKey(to newKey: EncryptionKey) throws {
        try rekeyInPlace(to: newKey)
    }

    /// Decrypts the database in place: it becomes a plaintext SQLite file, opened without a key
    /// (`sqlite3_rekey_v2` with an empty key). Does nothing on a database without a key. As
    /// ``changeKey(to:)``, an error rolls it back but a crash midway can leave the file
    /// unreadable: prefer ``rekey(fileAt:from:to:configuration:)``.
    ///
    /// ```swift
    /// try db.removeKey()
    /// ```
    public func removeKey() throws {
        guard hasKey else { return }
        try rekeyInPlace(to: nil)
    }

    /// The in-place rekey of ``changeKey(to:)`` and ``removeKey()``; also what changes the key of
    /// the copy that ``rekey(fileAt:from:to:configuration:)`` writes.
    func rekeyInPlace(to newKey: EncryptionKey?) throws {
        try checkOpen(nil)
        let file = sqlite3_db_filename(handle, "main").map { String(cString: $0) } ?? ""
        func failure(_ code: ResultCode, _ reason: String) -> SQLiteError {
            SQLiteError(
                resultCode: code,
                message: "cannot \(newKey == nil ? "remove" : "change") the encryption key: \(reason): \(path)",
                culprit: path)
        }
        guard let rekeyFunction = SQLiteEncryption.rekey else { throw SQLiteEncryption.unavailableError(path) }
        guard !file.isEmpty else {
            throw failure(.SQLITE_MISUSE, "an in-memory or temporary database cannot be encrypted")
        }
        guard !isInTransaction else { throw failure(.SQLITE_MISUSE, "a transaction is open") }
        guard !isReadOnly else { throw failure(.SQLITE_READONLY, "the connection is read-only") }
        if let newKey { try newKey.validate(path) }
        let mode = (try fetchValue(String.self, sql: "PRAGMA journal_mode") ?? "").lowercased()
        var leftWAL = false
        if newKey != nil, !hasKey, mode == "wal" {
            let newMode = try fetchValue(String.self, sql: "PRAGMA journal_mode = DELETE") ?? ""
            guard newMode.lowercased() == "delete" else {
                throw failure(
                    .SQLITE_BUSY,
                    "a plaintext database in WAL mode is encrypted through the rollback journal, "
                        + "and it stayed in \(newMode) mode (close the other connections to it)")
            }
            leftWAL = true
        }
        defer { if leftWAL { _ = try? fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") } }
        let material = newKey?.material ?? []
        let rc = material.withUnsafeBytes { rekeyFunction(handle, "main", $0.baseAddress, Int32($0.count)) }
        if rc != SQLITE_OK {
            let error = connection.error(code: rc, sql: nil)
            throw failure(error.extendedResultCode, error.message)
        }
        // Check the file: a library that does not support the case must not leave a plaintext
        // file believed encrypted. In WAL mode the new first page is in the WAL until a checkpoint.
        var checkpointed = true
        if mode == "wal", !leftWAL {
            let row = try fetchOne(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            checkpointed =
                try row.map { row -> Bool in
                    let busy: Int = try row.decode(at: 0)
                    return busy == 0
                } ?? false
        }
        if checkpointed, let header = FileSystem.readPrefix(file, count: 16), header.count == 16 {
            let isPlaintext = header == Array("SQLite format 3\0".utf8)
            if newKey != nil, isPlaintext {
                throw failure(
                    .SQLITE_ERROR,
                    "this SQLite library left the file in plaintext (SQLCipher cannot encrypt a "
                        + "plaintext database in place: export it into a new encrypted file with sqlcipher_export)")
            }
            if newKey == nil, !isPlaintext {
                throw failure(.SQLITE_ERROR, "this SQLite library left the file encrypted")
            }
        }
        hasKey = newKey != nil
        if let newKey { currentKey = { @Sendable in newKey } } else { currentKey = nil }
        if hasKey { try keepTemporaryDataInMemory() }
    }
}
