import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How ``MigrationDirectory`` reads its entries: only regular files that are in the folder.
///
/// A `.sql` entry that is a symbolic link is followed only when its target, every link resolved,
/// is a regular file inside the folder (a subfolder included): `0002_x.sql -> shared/x.sql` is
/// accepted, `0002_x.sql -> ../secrets.env`, a link through a linked subfolder that leads out,
/// and links to `/dev/zero`, a FIFO or a directory are refused, naming the entry and never
/// reading the target. An entry that is itself a FIFO, a device, a socket or a directory is
/// refused too. (A hard link cannot be told from a file: it counts as in the folder.)
extension MigrationDirectory {
    /// The folder's path with every symbolic link resolved, or nil with the reason.
    static func resolvedPath(_ path: String) -> (path: String?, error: String) {
        guard let resolved = realpath(path, nil) else { return (nil, String(cString: strerror(errno))) }
        defer { free(resolved) }
        return (String(cString: resolved), "")
    }

    /// The bytes of the entry `name` of `folder` (whose resolved path is `resolvedFolder`), or a
    /// ``MigrationError/Code/invalidMigrationFile`` error naming the entry.
    static func readEntry(_ name: String, folder: String, resolvedFolder: String) throws -> Data {
        let entryPath = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        var info = stat()
        guard lstat(entryPath, &info) == 0 else {
            throw refusal(name, "cannot read the file (\(String(cString: strerror(errno))))")
        }
        var readPath = entryPath
        if info.st_mode & S_IFMT == S_IFLNK {
            let (target, reason) = resolvedPath(entryPath)
            guard let target else {
                throw refusal(name, "a symbolic link that cannot be resolved (\(reason)); migration files must be in the folder")
            }
            let inside = resolvedFolder.hasSuffix("/") ? resolvedFolder : resolvedFolder + "/"
            guard target.hasPrefix(inside) else {
                throw refusal(name, "outside the migrations folder (a symbolic link leading out of it); migration files must be in the folder")
            }
            guard stat(target, &info) == 0 else {
                throw refusal(name, "cannot read the file (\(String(cString: strerror(errno))))")
            }
            readPath = target
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw refusal(name, "not a regular file (\(kind(of: info.st_mode))); migration files must be regular files")
        }
        // O_NOFOLLOW: the path was resolved above, a link swapped in since is not followed.
        // O_NONBLOCK: a FIFO swapped in since does not block the open; fstat then refuses it.
        let descriptor = open(readPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw refusal(name, "cannot read the file (\(String(cString: strerror(errno))))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw refusal(name, "not a regular file (\(kind(of: info.st_mode))); migration files must be regular files")
        }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw refusal(name, "cannot read the file (\(error.localizedDescription))")
        }
    }

    private static func refusal(_ name: String, _ reason: String) -> MigrationError {
        MigrationError(.invalidMigrationFile, "\(name): \(reason)", migrations: [name])
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }
}
