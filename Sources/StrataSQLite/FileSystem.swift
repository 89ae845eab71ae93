#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file calls Strata makes itself (the backup's checks, temporary file, fsync and
/// rename; the migration folder's checked reads; the CLI's file identities), behind one thin
/// layer shared by the package's modules. SQLite does its own file I/O. The calls that write
/// (create, flush, rename, link) announce their step to ``DurableFile``'s hook first, the seam
/// the tests use to fail any one of them.
package enum FileSystem {
    /// What identifies a file whatever path reaches it: device and inode numbers (`stat`).
    package struct Identity: Hashable, Sendable, CustomStringConvertible {
        package var device: UInt64
        package var inode: UInt64

        /// `device:inode`.
        package var description: String { "\(device):\(inode)" }
    }

    /// What kind of file is at a path (`st_mode & S_IFMT`).
    package enum Kind: Equatable, Sendable {
        case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, other

        /// The kind as a message says it: `a directory`, `a FIFO`...
        package var phrase: String {
            switch self {
            case .regular: "a regular file"
            case .directory: "a directory"
            case .symbolicLink: "a symbolic link"
            case .fifo: "a FIFO"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .socket: "a socket"
            case .other: "not a file"
            }
        }
    }

    package struct Info: Sendable {
        package var identity: Identity
        package var kind: Kind
        /// The permission bits (`st_mode & 0o7777`).
        package var permissions: Int
        /// The owner's user and group ids.
        package var owner: UInt32
        package var group: UInt32
        /// How many names (hard links) the file has.
        package var linkCount: UInt64
        /// The size in bytes.
        package var size: Int64

        init(_ st: stat) {
            let kind: Kind
            switch Int(st.st_mode) & 0o170000 {
            case 0o100000: kind = .regular
            case 0o040000: kind = .directory
            case 0o120000: kind = .symbolicLink
            case 0o010000: kind = .fifo
            case 0o020000: kind = .characterDevice
            case 0o060000: kind = .blockDevice
            case 0o140000: kind = .socket
            default: kind = .other
            }
            self.identity = Identity(
                device: UInt64(truncatingIfNeeded: st.st_dev), inode: UInt64(truncatingIfNeeded: st.st_ino))
            self.kind = kind
            self.permissions = Int(st.st_mode) & 0o7777
            self.owner = UInt32(truncatingIfNeeded: st.st_uid)
            self.group = UInt32(truncatingIfNeeded: st.st_gid)
            self.linkCount = UInt64(truncatingIfNeeded: st.st_nlink)
            self.size = Int64(truncatingIfNeeded: st.st_size)
        }
    }

    /// A failed call: its `errno`, and the system's text for it (`strerror`).
    package struct Failure: Error, CustomStringConvertible {
        package var code: Int32

        package init(code: Int32) { self.code = code }
        package var text: String { String(cString: strerror(code)) }
        /// The system's text and the number: what an error message shows when this escapes.
        package var description: String { "\(text) (errno \(code))" }

        package static let noSuchFile = Failure(code: ENOENT)
        static let notADirectory = Failure(code: ENOTDIR)
        /// The name is taken (EEXIST).
        var isAlreadyExists: Bool { code == EEXIST }
        /// A loop of symbolic links (ELOOP).
        var isSymbolicLinkLoop: Bool { code == ELOOP }
        /// The file system has no hard links (`link` fails with EPERM, ENOTSUP, EOPNOTSUPP or EMLINK).
        var isLinkUnsupported: Bool { [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK].contains(code) }
    }

    /// What is at `path` (`stat`, or `lstat` when not following links); nil when nothing is.
    package static func info(_ path: String, followingLinks: Bool) throws(Failure) -> Info? {
        var st = stat()
        let rc = followingLinks ? stat(path, &st) : lstat(path, &st)
        if rc != 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw Failure(code: code)
        }
        return Info(st)
    }

    /// What the open file `descriptor` is (`fstat`).
    package static func info(descriptor: Int32) throws(Failure) -> Info {
        var st = stat()
        if fstat(descriptor, &st) != 0 { throw Failure(code: errno) }
        return Info(st)
    }

    /// `path` with every symbolic link, `.` and `..` resolved (`realpath`); the file must exist.
    package static func resolvedPath(_ path: String) throws(Failure) -> String {
        guard let resolved = realpath(path, nil) else { throw Failure(code: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens the file at `path` for reading and returns its descriptor (the caller closes it).
    /// A symbolic link is not followed (`O_NOFOLLOW`: one swapped in after a check fails here),
    /// and a FIFO does not block the open (`O_NONBLOCK`): check the result with
    /// ``info(descriptor:)`` before reading.
    package static func openForReadingWithoutFollowingLinks(_ path: String) throws(Failure) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 { throw Failure(code: errno) }
        return descriptor
    }

    /// Creates an empty file at `path` with `permissions` (narrowed by the umask); fails if
    /// anything exists there, a dangling symbolic link included (`O_CREAT | O_EXCL`).
    static func createNew(_ path: String, permissions: Int) throws(Failure) {
        try DurableFile.announce(.create(path))
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
        if fd < 0 { throw Failure(code: errno) }
        close(fd)
    }

    /// Gives the file at `path` this owner and group (`chown`; EPERM when not allowed) and these
    /// permission bits (`chmod`, not narrowed by the umask).
    static func setOwnership(_ path: String, owner: UInt32, group: UInt32, permissions: Int) throws(Failure) {
        if chown(path, uid_t(owner), gid_t(group)) != 0 { throw Failure(code: errno) }
        if chmod(path, mode_t(permissions)) != 0 { throw Failure(code: errno) }
    }

    /// The names in the directory at `path` (without `.` and `..`).
    static func names(in path: String) throws(Failure) -> [String] {
        guard let directory = opendir(path) else { throw Failure(code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Closes a descriptor this package opened (for callers where `close` names a method).
    static func closeDescriptor(_ descriptor: Int32) { close(descriptor) }

    /// Flushes the file (or directory) at `path` to stable storage (`fsync`).
    static func synchronize(_ path: String) throws(Failure) {
        try DurableFile.announce(.syncFile(path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw Failure(code: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw Failure(code: errno) }
    }

    /// Moves `source` to `destination`, atomically replacing a file there (`rename`).
    static func rename(_ source: String, to destination: String) throws(Failure) {
        try DurableFile.announce(.rename(source, destination))
        if renameFile(source, destination) != 0 { throw Failure(code: errno) }
    }

    /// Gives `source`'s file the name `destination` too, failing with EEXIST if that name is
    /// taken (`link`): a move that never replaces, once `source` is removed.
    static func link(_ source: String, to destination: String) throws(Failure) {
        try DurableFile.announce(.link(source, destination))
        if linkFile(source, destination) != 0 { throw Failure(code: errno) }
    }

    /// The first `count` bytes of the file at `path` (fewer when it is shorter); nil when it
    /// cannot be read.
    static func readPrefix(_ path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        return n < 0 ? nil : Array(bytes.prefix(n))
    }

    /// Removes the file at `path` if there is one (`unlink`), ignoring failures.
    static func removeIfPresent(_ path: String) {
        _ = unlink(path)
    }

    /// `path` split at its last slash: the folder ("." when none) and the last component (empty
    /// when `path` ends with a slash).
    /// Split at the last 0x2F byte, as the kernel reads the path (a combining mark after a slash
    /// makes one Swift `Character` of the two, see `FilePath`).
    static func split(_ path: String) -> (directory: String, name: String) {
        let bytes = Array(path.utf8)
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        let directory = String(decoding: bytes[..<slash], as: UTF8.self)
        return (directory.isEmpty ? "/" : directory, String(decoding: bytes[(slash + 1)...], as: UTF8.self))
    }
}

// The C functions, under names that do not clash with FileSystem's own.
private func renameFile(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func linkFile(_ source: String, _ destination: String) -> Int32 { link(source, destination) }
