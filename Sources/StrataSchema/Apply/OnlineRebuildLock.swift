import StrataSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock that makes one online rebuild run at a time on a database file, and tells an
/// interrupted one (killed, its process gone) from one that is running in another connection or
/// process: a `flock` on `<database>-strata-online`, beside the database. The kernel releases it
/// when the process ends however it ends, so a progress record whose lock nobody holds belongs
/// to an interrupted run; and two `open`s of the file, even in one process, exclude each other.
///
/// The file is removed while the lock is held, on release; a run that opened it just before
/// then takes a lock on a file no longer there, sees so (its inode is not the path's), and opens
/// it again.
final class OnlineRebuildLock {
    /// The lock file of the database file `database`, beside the file it names after every
    /// symbolic link (two connections that open the file through different links share it).
    static func path(of database: String) -> String {
        ((try? FileSystem.resolvedPath(database)) ?? database) + "-strata-online"
    }

    let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// The lock of `database`'s file, taken without waiting; nil when another run holds it.
    /// Throws when the lock file cannot be created or locked (a read-only folder, say), naming it.
    static func take(database: String) throws -> OnlineRebuildLock? {
        let path = path(of: database)
        for _ in 0..<16 {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw failure("cannot open the online rebuild's lock file", path) }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK || code == EAGAIN { return nil }
                throw failure("cannot lock the online rebuild's lock file", path, errno: code)
            }
            var held = stat()
            var named = stat()
            if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino
            {
                return OnlineRebuildLock(path: path, descriptor: fd)
            }
            close(fd)  // removed by the run that released it: open it again
        }
        throw failure("cannot lock the online rebuild's lock file (it keeps being replaced)", path, errno: EAGAIN)
    }

    /// True when a run holds the lock of `database`'s file now (false when it cannot be told).
    static func isHeld(database: String) -> Bool {
        let path = path(of: database)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) != 0 { return errno == EWOULDBLOCK || errno == EAGAIN }
        _ = flock(fd, LOCK_UN)
        return false
    }

    /// Removes the file and releases the lock.
    func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    private static func failure(_ what: String, _ path: String, errno code: Int32 = errno) -> SchemaError {
        SchemaError(
            code: .unsupported,
            message: "\(path): \(what): \(String(cString: strerror(code))) (nothing was changed)", culprit: path)
    }
}
