import CSQLite

extension Database {
    /// Changes, adds or removes the encryption key of the database file at `path`, crash-safe
    /// by construction: the old file is never written. Whatever stops the process (an error, a
    /// full disk, SIGKILL, a power cut), the file opens with the old key (or none) and holds every
    /// row, or opens with the new key (or none) and holds every row.
    ///
    /// ```swift
    /// try Database.rekey(fileAt: "app.sqlite", from: .passphrase(old), to: .passphrase(new))
    /// try Database.rekey(fileAt: "plain.sqlite", from: nil, to: .passphrase(secret))   // encrypt
    /// try Database.rekey(fileAt: "app.sqlite", from: .passphrase(secret), to: nil)     // decrypt
    /// ```
    ///
    /// `from` is the current key (nil for a plaintext database), `to` the new one (nil to
    /// decrypt). How:
    /// 1. The database is opened with `from` (a hot journal is rolled back, a WAL recovered) and
    ///    locked exclusively for the whole operation (`locking_mode = EXCLUSIVE`); in WAL mode the
    ///    WAL is checkpointed into the file and truncated.
    /// 2. A copy is written beside it (a hidden `.NAME.<hash>.strata-rekey-<random>` file with the
    ///    database's owner, group and permissions): SQLite's backup API with the old key, then
    ///    the copy's key changed in place (`sqlite3_rekey_v2`), and its journal mode set to the
    ///    database's (WAL stays WAL, rollback journal stays rollback journal).
    /// 3. The copy is closed, reopened with `to` and checked: `integrity_check`, the row count
    ///    of every table against the database's, the journal mode, the file's header (encrypted
    ///    or plaintext as asked). Then it is flushed (`fsync`).
    /// 4. It is renamed over the database (`rename`, atomic), and the folder is flushed.
    ///
    /// On any failure the copy is removed and the database is unchanged; copies that a killed
    /// process left are removed by the next rekey of the same file.
    ///
    /// Refused, with the database unchanged: a path that is not a regular file; a file with other
    /// hard links (they would keep the old content and key); a database another connection
    /// holds (a transaction in rollback-journal mode, any open connection in WAL mode: the lock
    /// is not granted within `configuration.busyTimeout`). **Close every other connection first**:
    /// an idle connection in rollback-journal mode holds no lock and cannot be seen; it would go on
    /// using the old file, and its writes would be lost. A symbolic link is kept: its target is
    /// rekeyed. `configuration` gives the busy timeout, functions and collations (an index may
    /// need them for the check); its key and `setupSQL` are not used.
    ///
    /// Needs an encryption-capable SQLite (see ``supportsEncryption``). The copy needs as much
    /// free space as the database.
    public static func rekey(
        fileAt path: String, from oldKey: EncryptionKey?, to newKey: EncryptionKey?,
        configuration: Configuration = Configuration()
    ) throws {
        try FileRekey(path: path, oldKey: oldKey, newKey: newKey, configuration: configuration).run()
    }
}

/// The steps of ``Database/rekey(fileAt:from:to:configuration:)``.
private struct FileRekey {
    let path: String
    let oldKey: EncryptionKey?
    let newKey: EncryptionKey?
    let configuration: Configuration

    /// "change", "add" or "remove", for messages.
    var verb: String { newKey == nil ? "remove" : oldKey == nil ? "add" : "change" }

    func failure(_ code: ResultCode, _ reason: String) -> SQLiteError {
        SQLiteError(
            resultCode: code,
            message: "cannot \(verb) the encryption key: \(reason); the database is unchanged: \(path)",
            culprit: path)
    }

    func failure(_ error: any Error, _ what: String) -> SQLiteError {
        switch error {
        case let error as SQLiteError: failure(error.extendedResultCode, "\(what): \(error.message)")
        case let error as FileSystem.Failure: failure(.SQLITE_IOERR, "\(what): \(error.text)")
        default: failure(.SQLITE_ERROR, "\(what): \(error)")
        }
    }

    func run() throws {
        try Database.checkRegularFiles(path)
        guard SQLiteEncryption.isAvailable else { throw SQLiteEncryption.unavailableError(path) }
        guard oldKey != nil || newKey != nil else {
            throw failure(.SQLITE_MISUSE, "neither an old key nor a new one was given")
        }
        try oldKey?.validate(path)
        try newKey?.validate(path)
        // The file itself: a symbolic link is kept, its target replaced.
        let target: String
        do { target = try FileSystem.resolvedPath(path) } catch {
            throw error.code == FileSystem.Failure.noSuchFile.code
                ? failure(.SQLITE_CANTOPEN, "no such database file") : failure(error, "cannot resolve the path")
        }
        let info: FileSystem.Info
        do {
            guard let found = try FileSystem.info(target, followingLinks: false) else {
                throw FileSystem.Failure.noSuchFile
            }
            info = found
        } catch {
            throw failure(error, "cannot read the file")
        }
        guard info.kind == .regular else { throw failure(.SQLITE_CANTOPEN, "not a regular file (\(info.kind.phrase))") }
        guard info.linkCount == 1 else {
            throw failure(
                .SQLITE_MISUSE,
                "the file has \(info.linkCount) hard links; the new file replaces this name only, and the other "
                    + "names would keep the old content and key (remove them first)")
        }
        let (directory, name) = FileSystem.split(target)

        // 1. The database, with the old key, locked for the whole operation.
        var sourceConfiguration = configuration
        sourceConfiguration.openMode = .readWrite
        sourceConfiguration.uriFilenames = false
        sourceConfiguration.setupSQL = []
        sourceConfiguration.encryptionKey = oldKey.map { key in { @Sendable in key } }
        let source = try Database(path: target, configuration: sourceConfiguration)
        defer { source.close() }
        let journalMode = (try source.fetchValue(String.self, sql: "PRAGMA journal_mode") ?? "").lowercased()
        let wal = journalMode == "wal"
        try lockExclusively(source, wal: wal)
        let counts = try rowCounts(source)

        // Copies left by a rekey of this file that was killed: no rekey runs now (the lock).
        let prefix = FileRekey.temporaryPrefix(name)
        for stale in (try? FileSystem.names(in: directory)) ?? [] where stale.hasPrefix(prefix) {
            FileSystem.removeIfPresent(directory + "/" + stale)
        }

        // 2. The copy, with the database's owner and permissions.
        let temporary = directory + "/" + prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        var placed = false
        defer {
            if !placed {
                for suffix in ["", "-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(temporary + suffix) }
            }
        }
        do {
            try FileSystem.createNew(temporary, permissions: 0o600)
            try FileSystem.setOwnership(
                temporary, owner: info.owner, group: info.group, permissions: info.permissions & 0o7777)
        } catch {
            throw failure(error, "cannot create the new file in \(directory) with the database's owner and permissions")
        }
        do {
            try writeCopy(of: source, to: temporary, wal: wal)
        } catch {
            throw failure(error, "cannot write the new file")
        }

        // 3. The copy, checked with the new key, then flushed.
        do {
            try verify(temporary, counts: counts, wal: wal)
            try FileSystem.synchronize(temporary)
        } catch let error as SQLiteError where error.message.hasPrefix("cannot \(verb)") {
            throw error
        } catch {
            throw failure(error, "the new file does not check out")
        }

        // 4. The swap. The database's own journal files must not be applied to the new file.
        if let journal = FileSystem.readPrefix(target + "-journal", count: 1), journal.first.map({ $0 != 0 }) == true {
            throw failure(.SQLITE_BUSY, "a hot journal \(target)-journal appeared (another connection is writing)")
        }
        if wal, let info = try? FileSystem.info(target + "-wal", followingLinks: false), info.size > 0 {
            throw failure(.SQLITE_BUSY, "the write-ahead log \(target)-wal is not empty (another connection wrote)")
        }
        if wal {
            // Closed after the swap, the old connection must neither checkpoint into nor remove
            // the -wal and -shm files: by name they now belong to the new file.
            _ = strata_db_config_no_checkpoint_on_close(source.handle)
        }
        do {
            try FileSystem.rename(temporary, to: target)
        } catch {
            throw failure(error, "cannot rename the new file over the database")
        }
        placed = true
        try? DurableFile.synchronizeDirectory(directory)
    }

    /// `.NAME.<hash of NAME>.strata-rekey-`: the names of this file's copies, and of no other
    /// file's (the name is cut to 100 bytes, the hash tells long names apart).
    static func temporaryPrefix(_ name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "." + String(decoding: name.utf8.prefix(100), as: UTF8.self) + "." + String(hash, radix: 36)
            + ".strata-rekey-"
    }

    /// Takes the database's lock until the connection closes: EXCLUSIVE in rollback-journal mode
    /// (no reader or writer in), and in WAL mode the file's EXCLUSIVE lock, which no other open
    /// connection allows; then checkpoints the WAL into the file and truncates it.
    func lockExclusively(_ source: Database, wal: Bool) throws {
        do {
            _ = try source.fetchValue(String.self, sql: "PRAGMA locking_mode = EXCLUSIVE")
            try source.execute(sql: "BEGIN EXCLUSIVE")
            try source.execute(sql: "COMMIT")
        } catch let error as SQLiteError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            source.rollbackQuietly()
            throw failure(
                error.extendedResultCode,
                "another connection is using the database (close it first; \(error.message))")
        }
        guard wal else { return }
        let row = try source.fetchOne(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        let busy: Int = try row?.decode(at: 0) ?? 1
        guard busy == 0 else {
            throw failure(.SQLITE_BUSY, "the write-ahead log cannot be checkpointed (another connection is using it)")
        }
    }

    /// The number of rows of every table (virtual tables excepted: their module may be missing).
    func rowCounts(_ db: Database) throws -> [String: Int] {
        let tables = try db.fetchColumn(
            String.self,
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] =
                try db.fetchValue(Int.self, sql: "SELECT count(*) FROM \(SQLLiteral.quote(identifier: table))") ?? 0
        }
        return counts
    }

    /// The copy: every page with the old key, the key changed in place (a failure or a crash here
    /// only ever harms the copy), the journal mode set, the connection closed.
    func writeCopy(of source: Database, to temporary: String, wal: Bool) throws {
        var copyConfiguration = Configuration()
        copyConfiguration.openMode = .readWrite
        copyConfiguration.busyTimeout = configuration.busyTimeout
        copyConfiguration.encryptionKey = oldKey.map { key in { @Sendable in key } }
        let copy = try Database(path: temporary, configuration: copyConfiguration)
        defer { copy.close() }
        // Flushed once, by FileSystem.synchronize, before the swap.
        try copy.execute(sql: "PRAGMA synchronous = OFF")
        try source.backup(to: copy)
        // The copied first page carries the database's journal mode; the key changes in
        // rollback-journal mode (SQLite3 Multiple Ciphers cannot change the page layout in WAL).
        _ = try copy.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL")
        try setJournalMode(copy, "delete")
        try copy.rekeyInPlace(to: newKey)
        if wal { try setJournalMode(copy, "wal") }
        copy.close()
        for suffix in ["-journal", "-wal"] {
            if let info = try? FileSystem.info(temporary + suffix, followingLinks: false), info.size > 0 {
                throw SQLiteError(
                    resultCode: .SQLITE_IOERR, message: "\(temporary + suffix) was left behind when the copy closed")
            }
        }
    }

    func setJournalMode(_ db: Database, _ mode: String) throws {
        let now = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(mode.uppercased())") ?? ""
        guard now.lowercased() == mode else {
            throw SQLiteError(resultCode: .SQLITE_ERROR, message: "the journal mode stayed \(now), not \(mode)")
        }
    }

    /// The copy opens with the new key, passes integrity_check, holds as many rows in each table
    /// as the database, is in the database's journal mode, and is encrypted (or not) as asked.
    func verify(_ temporary: String, counts: [String: Int], wal: Bool) throws {
        let header = FileSystem.readPrefix(temporary, count: 16) ?? []
        let isPlaintext = header == Array("SQLite format 3\0".utf8)
        if newKey != nil, isPlaintext {
            throw failure(
                .SQLITE_ERROR,
                "this SQLite library left the new file in plaintext (SQLCipher cannot encrypt a plaintext "
                    + "database in place: export it into a new encrypted file with sqlcipher_export)")
        }
        if newKey == nil, !isPlaintext {
            throw failure(.SQLITE_ERROR, "this SQLite library left the new file encrypted")
        }
        var checkConfiguration = configuration
        checkConfiguration.openMode = .readWrite
        checkConfiguration.uriFilenames = false
        checkConfiguration.setupSQL = []
        checkConfiguration.encryptionKey = newKey.map { key in { @Sendable in key } }
        let check = try Database(path: temporary, configuration: checkConfiguration)
        defer { check.close() }
        let problems = try check.fetchColumn(String.self, sql: "PRAGMA integrity_check")
        guard problems == ["ok"] else {
            throw SQLiteError(
                resultCode: .SQLITE_CORRUPT,
                message: "integrity_check: \(problems.prefix(3).joined(separator: "; "))")
        }
        let copied = try rowCounts(check)
        guard copied == counts else {
            let differing = counts.keys.sorted().filter { copied[$0] != counts[$0] }
            throw SQLiteError(
                resultCode: .SQLITE_CORRUPT,
                message: "the row counts differ (\(differing.prefix(3).joined(separator: ", ")))")
        }
        let mode = (try check.fetchValue(String.self, sql: "PRAGMA journal_mode") ?? "").lowercased()
        guard (mode == "wal") == wal else {
            throw SQLiteError(resultCode: .SQLITE_ERROR, message: "the journal mode is \(mode), not the database's")
        }
        check.close()
        for suffix in ["-journal", "-wal"] {
            if let info = try? FileSystem.info(temporary + suffix, followingLinks: false), info.size > 0 {
                throw SQLiteError(
                    resultCode: .SQLITE_IOERR, message: "\(temporary + suffix) was left behind by the check")
            }
        }
        for suffix in ["-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(temporary + suffix) }
    }
}
