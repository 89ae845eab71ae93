import CSQLite
import Foundation

extension Database {
    /// The file of the main database, or nil for an in-memory or temporary database.
    /// See <https://www.sqlite.org/c3ref/db_filename.html>.
    ///
    /// ```swift
    /// try Database(path: "app.sqlite").fileName   // "/current/dir/app.sqlite"
    /// ```
    public var fileName: String? {
        guard !connection.isClosed, let name = sqlite3_db_filename(handle, "main") else { return nil }
        let path = String(cString: name)
        return path.isEmpty ? nil : path
    }

    /// True when a hot journal lies beside the database: a rollback journal whose header is still
    /// valid while this connection holds no transaction, that is, a write whose rollback could not
    /// finish (the process died, or the disk filled up and SQLite could not restore the file).
    ///
    /// The database file may then hold pages of the unfinished write, but no reader ever sees
    /// them: "the first connection that reads the database rolls the journal back"
    /// (<https://www.sqlite.org/fileformat2.html#hot_journals>). Deleting the journal instead
    /// would corrupt the database. Checked right after one of this connection's own failures,
    /// the answer is exact; another process's write in progress also has a valid journal.
    ///
    /// ```swift
    /// if db.hasHotJournal() { print("keep \(db.fileName!)-journal: the next opener finishes the rollback") }
    /// ```
    public func hasHotJournal() -> Bool {
        guard !isInTransaction, let file = fileName,
            let handle = FileHandle(forReadingAtPath: file + "-journal")
        else { return false }
        defer { try? handle.close() }
        // "The rollback journal header begins with the eight bytes 0xd9, 0xd5, 0x05, 0xf9, 0x20,
        // 0xa1, 0x63, 0xd7"; a finished transaction deletes, truncates or zeroes it.
        // https://www.sqlite.org/fileformat2.html#the_rollback_journal
        let magic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
        guard let head = try? handle.read(upToCount: 8) else { return false }
        return Array(head) == magic
    }

    /// Finishes a rollback that SQLite could not complete when a write failed.
    ///
    /// After an I/O error or a full disk in the middle of a write, SQLite's pager enters its error
    /// state and leaves the rollback journal on disk: the file may keep pages of the failed write
    /// (and its grown size) until a read transaction starts, which "performs hot-journal rollback
    /// if necessary" (<https://www.sqlite.org/src/doc/trunk/src/pager.c>, PAGER_ERROR). A small
    /// read on this connection starts one, so the file is restored now (rolling back needs no
    /// new disk space) rather than by the next process that opens it.
    func finishInterruptedRollback() {
        guard !isInTransaction, !connection.isClosed else { return }
        _ = try? fetchValue(Int.self, sql: "PRAGMA schema_version")
    }
}
