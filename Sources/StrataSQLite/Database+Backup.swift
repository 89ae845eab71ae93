import CSQLite
import Foundation

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

    /// Writes a consistent copy of the database to a new file at `path`, replacing any file there.
    ///
    /// ```swift
    /// try db.backup(toPath: "/tmp/app-backup.sqlite")
    /// ```
    public func backup(toPath path: String) throws {
        try checkOpen(nil)
        try? FileManager.default.removeItem(atPath: path)
        let destination = try Database(path: path)
        defer { destination.close() }
        try backup(to: destination)
    }
}
