import Foundation
import StrataSQLite

/// How ``MigrationDirectory`` reads its entries: only regular files that are in the folder.
///
/// A `.sql` entry that is a symbolic link is followed only when its target, every link resolved,
/// is a regular file inside the folder (a subfolder included): `0002_x.sql -> shared/x.sql` is
/// accepted, `0002_x.sql -> ../secrets.env`, a link through a linked subfolder that leads out,
/// and links to `/dev/zero`, a FIFO or a directory are refused, naming the entry and never
/// reading the target. An entry that is itself a FIFO, a device, a socket or a directory is
/// refused too. (A hard link cannot be told from a file: it counts as in the folder.)
extension MigrationDirectory {
    /// The path of the entry `name` of `folder`, from the root (`folder` relative to the current
    /// directory): `FilePath`'s arithmetic, so a folder named `~` is not the home folder and
    /// `link/..` is left for the kernel to resolve.
    static func entryPath(_ name: String, in folder: String) -> String {
        FilePath.join(FilePath.absolute(folder, currentDirectory: FileManager.default.currentDirectoryPath), name)
    }

    /// The folder's path with every symbolic link resolved, or nil with the reason.
    static func resolvedPath(_ path: String) -> (path: String?, error: String) {
        do {
            return (try FileSystem.resolvedPath(path), "")
        } catch {
            return (nil, error.text)
        }
    }

    /// The bytes of the entry `name` of `folder` (whose resolved path is `resolvedFolder`), or a
    /// ``MigrationError/Code/invalidMigrationFile`` error naming the entry.
    static func readEntry(_ name: String, folder: String, resolvedFolder: String) throws -> Data {
        let entryPath = entryPath(name, in: folder)
        var info = try fileInfo(entryPath, name, followingLinks: false)
        var readPath = entryPath
        if info.kind == .symbolicLink {
            let (target, reason) = resolvedPath(entryPath)
            guard let target else {
                throw refusal(
                    name, "a symbolic link that cannot be resolved (\(reason)); migration files must be in the folder")
            }
            let inside = resolvedFolder.hasSuffix("/") ? resolvedFolder : resolvedFolder + "/"
            guard target.hasPrefix(inside) else {
                throw refusal(
                    name,
                    "outside the migrations folder (a symbolic link leading out of it); migration files must be in the folder"
                )
            }
            info = try fileInfo(target, name, followingLinks: true)
            readPath = target
        }
        guard info.kind == .regular else { throw notRegular(name, info.kind) }
        // The path was resolved above: a link swapped in since is not followed, and a FIFO
        // swapped in since does not block the open; the open file is checked again.
        let descriptor: Int32
        do {
            descriptor = try FileSystem.openForReadingWithoutFollowingLinks(readPath)
        } catch {
            throw refusal(name, "cannot read the file (\(error.text))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let opened: FileSystem.Info
        do {
            opened = try FileSystem.info(descriptor: descriptor)
        } catch {
            throw refusal(name, "cannot read the file (\(error.text))")
        }
        guard opened.kind == .regular else { throw notRegular(name, opened.kind) }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw refusal(name, "cannot read the file (\(error.localizedDescription))")
        }
    }

    /// What is at `path` (the entry `name`, or its link's target), or the refusal naming the entry.
    private static func fileInfo(_ path: String, _ name: String, followingLinks: Bool) throws -> FileSystem.Info {
        let info: FileSystem.Info?
        do {
            info = try FileSystem.info(path, followingLinks: followingLinks)
        } catch {
            throw refusal(name, "cannot read the file (\(error.text))")
        }
        guard let info else { throw refusal(name, "cannot read the file (\(FileSystem.Failure.noSuchFile.text))") }
        return info
    }

    private static func refusal(_ name: String, _ reason: String) -> MigrationError {
        MigrationError(.invalidMigrationFile, "\(name): \(reason)", migrations: [name])
    }

    private static func notRegular(_ name: String, _ kind: FileSystem.Kind) -> MigrationError {
        refusal(name, "not a regular file (\(kind.phrase)); migration files must be regular files")
    }
}
