import CSQLite
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Database {
    /// Copies the whole database into `destination` with SQLite's online backup API: a
    /// consistent snapshot even while other connections write. `destination`'s previous content
    /// is replaced.
    ///
    /// ```swift
    /// let copy = try Database(inMemory: Configuration())
    /// try db.backup(to: copy)
    /// ```
    /// See <https://www.sqlite.org/backup.html>.
    public func backup(to destination: Database) throws {
        try checkOpen(nil)
        try destination.checkOpen(nil)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.connection.error(code: sqlite3_errcode(destination.handle), sql: nil)
        }
        // Step -1 copies every page at once; finish releases the backup object whatever happened.
        let rc = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        if rc != SQLITE_DONE { throw destination.connection.error(code: rc, sql: nil) }
        if finish != SQLITE_OK { throw destination.connection.error(code: finish, sql: nil) }
    }

    /// Writes a consistent copy of the database (SQLite's online backup API) to a new file at
    /// `path`, with the database file's permissions (narrowed by the umask, never widened).
    ///
    /// ```swift
    /// try db.backup(toPath: "backups/app-2025-01-31.sqlite")
    /// try db.backup(toPath: "backups/app-latest.sqlite", replacingExisting: true)
    /// ```
    ///
    /// The copy is written to a hidden temporary file in the same folder, flushed to disk
    /// (`fsync`), and only then renamed to `path`: a failure (disk full, I/O error) leaves no
    /// partial backup, and an older file at `path` intact. Throws ``BackupError``, naming `path`:
    /// - a regular file at `path` is replaced only when `replacingExisting` is true;
    /// - a directory, a symbolic link or a special file at `path` is never replaced;
    /// - `path` must not reach this database or its `-journal`, `-wal` or `-shm` file, by any
    ///   spelling, symbolic link or hard link (compared by device and inode, not by string);
    /// - a `-journal` or `-wal` file beside `path` is refused, since SQLite would apply it to the
    ///   new backup when opening it.
    ///
    /// The backup of an encrypted database (``isEncrypted``) is encrypted with the connection's
    /// key, and opens with the same ``Configuration/encryptionKey``.
    ///
    /// See <https://www.sqlite.org/backup.html>.
    public func backup(toPath path: String, replacingExisting: Bool = false) throws {
        try checkOpen(nil)
        let source = try BackupSource(self)
        try BackupDestination.check(path, source: source, replacingExisting: replacingExisting)
        let (directory, name) = FileSystem.split(path)
        let temporary =
            directory + "/." + String(name.prefix(100)) + ".strata-backup-"
            + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        func failure(_ error: any Error, _ what: String) -> BackupError {
            let reason: String
            switch error {
            case let error as SQLiteError: reason = error.message
            case let error as FileSystem.Failure: reason = error.text
            default: reason = "\(error)"
            }
            return BackupError(
                code: .writeFailed, path: path,
                message: "cannot write the backup\(what): \(reason) (no partial backup was left)",
                underlyingError: error)
        }
        do {
            try FileSystem.createNew(temporary, permissions: source.permissions)
        } catch {
            throw failure(error, directory == "." ? "" : " in \(directory)")
        }
        var placed = false
        defer {
            if !placed {
                for suffix in ["", "-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(temporary + suffix) }
            }
        }
        do {
            var configuration = Configuration()
            configuration.openMode = .readWrite
            configuration.busyTimeout = self.configuration.busyTimeout
            // An encrypted database's backup is encrypted with the same key: no plaintext copy.
            configuration.encryptionKey = currentKey
            let destination = try Database(path: temporary, configuration: configuration)
            defer { destination.close() }
            // The temporary file is discarded on any failure: it needs no journal of its own.
            try destination.execute(sql: "PRAGMA journal_mode = OFF")
            try backup(to: destination)
            destination.close()
            // The connection is closed with everything in the file; should SQLite have left a
            // -journal, -wal or -shm file beside it, it holds nothing and must not stay hidden.
            for suffix in ["-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(temporary + suffix) }
            try FileSystem.synchronize(temporary)
        } catch {
            throw failure(error, source.path.isEmpty ? "" : " of \(source.path)")
        }
        // Check again: the path may have changed while the copy was written.
        try BackupDestination.check(path, source: source, replacingExisting: replacingExisting)
        do {
            if replacingExisting {
                try FileSystem.rename(temporary, to: path)
            } else {
                // link() fails if the name is taken, where rename() would replace it.
                do {
                    try FileSystem.link(temporary, to: path)
                    FileSystem.removeIfPresent(temporary)
                } catch  where error.isLinkUnsupported {
                    // A file system without hard links: rename, after the check just made.
                    try FileSystem.rename(temporary, to: path)
                }
            }
        } catch  where error.isAlreadyExists {
            throw BackupError(
                code: .destinationExists, path: path,
                message: "already exists (it appeared while the backup was written); "
                    + "a backup replaces a file only when asked to (replacingExisting)")
        } catch {
            throw failure(error, "")
        }
        placed = true
        // Make the new name durable too; some file systems cannot sync a directory.
        try? DurableFile.synchronizeDirectory(directory)
    }
}

/// What a backup must never overwrite, and the permissions it copies.
private struct BackupSource {
    /// The database file's full path as SQLite resolved it (symbolic links followed); empty for
    /// an in-memory or temporary database.
    let path: String
    /// The database file and its journal files, with what each one is.
    let files: [(path: String, what: String)]
    /// Identities of those that exist now.
    let identities: [FileSystem.Identity: String]
    /// The folder that holds them, by identity, to recognize a name not created yet.
    let directory: FileSystem.Identity?
    /// The database file's permission bits, or 0o644 (before the umask) for an in-memory one.
    let permissions: Int

    init(_ db: Database) throws {
        // "If there is no attached database N on the database connection D, or if database N is
        // a temporary or in-memory database, then this function will return either a NULL
        // pointer or an empty string." https://www.sqlite.org/c3ref/db_filename.html
        path = sqlite3_db_filename(db.handle, "main").map { String(cString: $0) } ?? ""
        guard !path.isEmpty else {
            files = []
            identities = [:]
            directory = nil
            permissions = 0o644
            return
        }
        let what = "the database being backed up"
        files = [
            (path, what), (path + "-journal", "the rollback journal of \(what)"),
            (path + "-wal", "the write-ahead log of \(what)"), (path + "-shm", "the shared-memory file of \(what)"),
        ]
        var identities = [FileSystem.Identity: String]()
        for file in files {
            if let info = try? FileSystem.info(file.path, followingLinks: true) {
                identities[info.identity] = file.what
            }
        }
        self.identities = identities
        directory = (try? FileSystem.info(FileSystem.split(path).directory, followingLinks: true))?.identity
        permissions = ((try? FileSystem.info(path, followingLinks: true))?.permissions ?? 0o644) & 0o666
    }

    /// What `target` is among the protected files (by identity, or by name in their folder).
    func protectedFile(
        _ target: String, identity: FileSystem.Identity?, folder: FileSystem.Identity
    ) -> (path: String, what: String)? {
        if let identity, let what = identities[identity] {
            return files.first { $0.what == what }
        }
        guard folder == directory else { return nil }
        let name = FileSystem.split(target).name.lowercased()
        return files.first { FileSystem.split($0.path).name.lowercased() == name }
    }
}

private enum BackupDestination {
    /// Throws the ``BackupError`` that forbids writing a backup at `path`, if any.
    static func check(_ path: String, source: BackupSource, replacingExisting: Bool) throws {
        func refuse(_ code: BackupError.Code, _ message: String, _ underlying: (any Error)? = nil) -> BackupError {
            BackupError(code: code, path: path, message: message, underlyingError: underlying)
        }
        func cannotWrite(_ failure: FileSystem.Failure, _ what: String) -> BackupError {
            refuse(.writeFailed, "cannot write the backup: \(what)\(failure.text)", failure)
        }
        let (directory, name) = FileSystem.split(path)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw refuse(.destinationNotRegularFile, "names a directory; a backup is written to a file")
        }
        let target: FileSystem.Info?
        let folder: FileSystem.Info?
        do {
            target = try FileSystem.info(path, followingLinks: true)
        } catch  where !error.isSymbolicLinkLoop {
            throw cannotWrite(error, "")
        } catch {
            target = nil  // a loop of symbolic links: refused below as a link
        }
        do {
            folder = try FileSystem.info(directory, followingLinks: true)
        } catch {
            throw cannotWrite(error, "\(directory): ")
        }
        guard let folder else { throw cannotWrite(FileSystem.Failure.noSuchFile, "\(directory): ") }
        guard folder.kind == .directory else { throw cannotWrite(FileSystem.Failure.notADirectory, "\(directory): ") }
        if let file = source.protectedFile(path, identity: target?.identity, folder: folder.identity) {
            throw refuse(.destinationIsSource, "is \(file.what) (\(file.path)); a backup must go to another file")
        }
        let existing: FileSystem.Info?
        do { existing = try FileSystem.info(path, followingLinks: false) } catch { throw cannotWrite(error, "") }
        if let existing {
            switch existing.kind {
            case .directory:
                throw refuse(.destinationNotRegularFile, "is a directory; a backup never replaces a directory")
            case .symbolicLink:
                throw refuse(.destinationNotRegularFile, "is a symbolic link; give the path of a regular file")
            case .fifo, .characterDevice, .blockDevice, .socket, .other:
                throw refuse(.destinationNotRegularFile, "is not a regular file; a backup replaces only a regular file")
            case .regular:
                if !replacingExisting {
                    throw refuse(
                        .destinationExists,
                        "already exists; a backup replaces a file only when asked to (replacingExisting)")
                }
            }
        }
        for suffix in ["-journal", "-wal"] {
            if (try? FileSystem.info(path + suffix, followingLinks: false)) != nil {
                throw refuse(
                    .destinationInUse,
                    "\(path + suffix) exists (a database at this path is open or was not closed cleanly), "
                        + "and SQLite would apply it to the new backup; remove it first")
            }
        }
    }
}

extension Database {
    /// Writes a consistent copy of the database to the new file `path` (SQLite's backup API),
    /// encrypted with this connection's key, in rollback-journal mode (so that it opens
    /// read-only with no `-wal` or `-shm` file beside it), flushed to disk. The file is removed
    /// on any failure. The caller gives it its final name (a restore point, `DurableFile.move`).
    package func writeSnapshot(toNewFile path: String) throws {
        try checkOpen(nil)
        let source = try BackupSource(self)
        try FileSystem.createNew(path, permissions: source.permissions)
        var done = false
        defer {
            if !done { for suffix in ["", "-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(path + suffix) } }
        }
        var configuration = Configuration()
        configuration.openMode = .readWrite
        configuration.busyTimeout = self.configuration.busyTimeout
        configuration.encryptionKey = currentKey
        let destination = try Database(path: path, configuration: configuration)
        defer { destination.close() }
        try destination.execute(sql: "PRAGMA journal_mode = OFF")
        try backup(to: destination)
        // The copied header says WAL when the source is in WAL mode: rollback mode instead.
        try destination.execute(sql: "PRAGMA journal_mode = DELETE")
        destination.close()
        for suffix in ["-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(path + suffix) }
        try FileSystem.synchronize(path)
        done = true
    }
}

extension Database {
    /// Copies the main database file byte for byte into a new file at `path`, in one pass that
    /// hands each block to `eachBlock` (1 MiB, the last one shorter) as it is written, then
    /// flushes the copy. Returns false, with nothing left at `path`, when a copy cannot be made
    /// this way; the caller then uses ``writeSnapshot(toNewFile:)``.
    ///
    /// The copy is consistent because the file cannot change while it runs: it reads inside a
    /// read transaction. In rollback-journal mode that transaction's shared lock keeps every
    /// writer from committing. In WAL mode it holds only when the log is empty as the
    /// transaction reads: then it reads the file alone (read mark 0), and no checkpoint may
    /// write into the file until it ends (a checkpoint needs read lock 0 exclusively), while
    /// other connections still commit to the log. A log that is not empty after a
    /// `wal_checkpoint(TRUNCATE)` (a reader in the way) falls back.
    ///
    /// The file is read through SQLite's own file handle (`SQLITE_FCNTL_FILE_POINTER`), never a
    /// descriptor of this process's own: closing a second descriptor of the file would release
    /// every POSIX lock the process holds on it, SQLite's included
    /// (<https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_>).
    /// A WAL-mode header is written as rollback mode (bytes 18 and 19, as `journal_mode =
    /// DELETE` writes them), so the copy is a whole database in one file.
    ///
    /// Not for an encrypted or in-memory database, nor inside a transaction (false).
    package func copyDatabaseFile(
        toNewFile path: String, eachBlock: (UnsafeRawBufferPointer) -> Void
    ) throws -> Bool {
        try checkOpen(nil)
        guard !hasKey, sqlite3_get_autocommit(handle) != 0,
            let name = sqlite3_db_filename(handle, "main").map({ String(cString: $0) }), !name.isEmpty
        else { return false }
        // The mode this connection last saw: only to empty the log first. Another connection may
        // have changed it since (this connection learns it when it next reads).
        if try fetchValue(String.self, sql: "PRAGMA main.journal_mode")?.lowercased() == "wal" {
            _ = try? fetchAll(sql: "PRAGMA main.wal_checkpoint(TRUNCATE)")
        }
        try execute(sql: "BEGIN DEFERRED")
        defer { if sqlite3_get_autocommit(handle) == 0 { _ = try? execute(sql: "ROLLBACK") } }
        // The read transaction starts here (and with it the lock, or the WAL read mark), and
        // with it the mode, which cannot change until it ends: what protects the copy is decided
        // from this one (a database turned to WAL meanwhile has commits in its log).
        _ = try fetchValue(Int.self, sql: "SELECT count(*) FROM main.sqlite_master")
        let isWAL = try fetchValue(String.self, sql: "PRAGMA main.journal_mode")?.lowercased() == "wal"
        if isWAL {
            // Only a log that is empty while the transaction holds its snapshot proves read
            // mark 0: a log cannot be emptied under a reader with another mark.
            // A log that cannot be looked at (not merely absent) is not known to be empty.
            let log: FileSystem.Info?
            do { log = try FileSystem.info(name + "-wal", followingLinks: true) } catch { return false }
            if let log, log.size > 0 { return false }
        }
        var pointer: UnsafeMutableRawPointer?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
            let file = pointer?.assumingMemoryBound(to: sqlite3_file.self), let methods = file.pointee.pMethods,
            let xRead = methods.pointee.xRead, let xFileSize = methods.pointee.xFileSize
        else { return false }
        var size: sqlite3_int64 = 0
        let sizeCode = xFileSize(file, &size)
        guard sizeCode == SQLITE_OK else { throw connection.error(code: sizeCode, sql: nil) }
        let permissions = try BackupSource(self).permissions
        try FileSystem.createNew(path, permissions: permissions)
        var done = false
        defer { if !done { FileSystem.removeIfPresent(path) } }
        try DurableFile.announce(.write(path))
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw FileSystem.Failure(code: errno) }
        defer { FileSystem.closeDescriptor(fd) }
        // Two buffers: `eachBlock` runs on one, on another thread, in order, while the next
        // block is read and written from the other (the checksum costs no time of its own).
        let blockSize = 1 << 20
        let buffers = [
            UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16),
            UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16),
        ]
        defer { for buffer in buffers { buffer.deallocate() } }
        let free = [DispatchSemaphore(value: 1), DispatchSemaphore(value: 1)]
        let consumer = DispatchQueue(label: "strata.copy-database-file")
        return try withoutActuallyEscaping(eachBlock) { eachBlock in
            let handOver = UncheckedSendable(eachBlock)
            // Every block handed over is consumed before the buffers go, whatever happens.
            defer { consumer.sync {} }
            var offset: sqlite3_int64 = 0
            var slot = 0
            while offset < size {
                free[slot].wait()
                let buffer = buffers[slot]
                let count = Int(min(sqlite3_int64(blockSize), size - offset))
                let readCode = xRead(file, buffer, Int32(count), offset)
                guard readCode == SQLITE_OK else {
                    free[slot].signal()
                    throw connection.error(code: readCode, sql: nil)
                }
                if offset == 0 {
                    // Not SQLite's header (an encryption this connection does not know), or a WAL
                    // header read as rollback mode (not the mode the copy was protected for): fall back.
                    let bytes = buffer.assumingMemoryBound(to: UInt8.self)
                    guard count >= 100, memcmp(buffer, "SQLite format 3", 16) == 0,
                        isWAL || (bytes[18] != 2 && bytes[19] != 2)
                    else {
                        free[slot].signal()  // a semaphore must be back at its value when it goes
                        return false
                    }
                    if bytes[18] == 2, bytes[19] == 2 {
                        bytes[18] = 1
                        bytes[19] = 1
                    }
                }
                var written = 0
                while written < count {
                    let n = write(fd, buffer + written, count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        free[slot].signal()
                        throw FileSystem.Failure(code: errno)
                    }
                    written += n
                }
                let block = UncheckedSendable(UnsafeRawBufferPointer(start: buffer, count: count))
                let done = free[slot]
                consumer.async {
                    handOver.value(block.value)
                    done.signal()
                }
                offset += sqlite3_int64(count)
                slot = 1 - slot
            }
            consumer.sync {}
            try DurableFile.announce(.syncFile(path))
            if fsync(fd) != 0 { throw FileSystem.Failure(code: errno) }
            done = true
            return true
        }
    }
}

/// A value handed to another thread that the sender keeps from being used meanwhile (here: a
/// buffer and a closure, used by one consumer while the producer waits on a semaphore).
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
