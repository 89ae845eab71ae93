extension Database {
    /// The file a connection to `path` opens, or nil for an in-memory or temporary database: the
    /// path itself, or the path of a `file:` URI (its query and fragment cut, percent escapes
    /// decoded). See <https://www.sqlite.org/uri.html>.
    static func databaseFile(of path: String) -> String? {
        if path.isEmpty || path == ":memory:" { return nil }
        guard path.hasPrefix("file:") else { return path }
        var rest = Substring(path.dropFirst("file:".count))
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            let query = rest[end...]
            if query.contains("mode=memory") { return nil }
            rest = rest[..<end]
        }
        if rest.hasPrefix("//") {
            // The authority ("" or "localhost") up to the path.
            let afterSlashes = rest.dropFirst(2)
            rest = afterSlashes.firstIndex(of: "/").map { afterSlashes[$0...] } ?? ""
        }
        let decoded = percentDecoded(String(rest))
        return decoded.isEmpty || decoded == ":memory:" ? nil : decoded
    }

    private static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name handed to `sqlite3_open_v2` for `path`: a file path with its folder resolved
    /// (`realpath`: every symbolic link, `.` and `..` of the folder part, as the kernel reads
    /// them), so every SQLite version opens the file the kernel names. SQLite before 3.40 removes
    /// `..` from a path textually, also after a symbolic link: `link/../x.sqlite`, where `link`
    /// points to `deep/sub`, opened `./x.sqlite` instead of `deep/x.sqlite`. The last component
    /// is kept as written (SQLite follows a link there itself). In-memory and temporary names,
    /// `file:` URIs when URI filenames are on, and a folder that cannot be resolved (missing or
    /// unreadable: SQLite then reports why it cannot open the file) are passed unchanged.
    static func nameForOpening(_ path: String, uriFilenames: Bool) -> String {
        if path.isEmpty || path == ":memory:" || (uriFilenames && path.hasPrefix("file:")) { return path }
        let (directory, name) = FileSystem.split(path)
        guard !name.isEmpty, name != ".", name != "..",
            let folder = try? FileSystem.resolvedPath(directory)
        else { return path }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Throws SQLITE_CANTOPEN, naming `path`, when the database file of `path` (or its `-journal`,
    /// `-wal` or `-shm` file) exists and is not a regular file, symbolic links followed: a FIFO
    /// would block the open or the first read forever, a device would read as an empty database
    /// and swallow every write, a directory or a socket cannot hold one. Nothing is opened: the
    /// kind is read with `stat`. A path where nothing is, or that `stat` cannot reach, is left to
    /// SQLite (which creates the file, or reports why it cannot open it).
    static func checkRegularFiles(_ path: String) throws {
        var candidates = [path]
        if let file = databaseFile(of: path), file != path { candidates.append(file) }
        guard databaseFile(of: path) != nil else { return }
        for file in candidates {
            if let kind = nonRegularKind(file) {
                throw SQLiteError(
                    resultCode: .SQLITE_CANTOPEN,
                    message: "not a regular file (\(kind.phrase)); a database is a regular file: \(path)",
                    culprit: path)
            }
            for (suffix, what) in [
                ("-journal", "rollback journal"), ("-wal", "write-ahead log"), ("-shm", "shared-memory file"),
            ] {
                if let kind = nonRegularKind(file + suffix) {
                    throw SQLiteError(
                        resultCode: .SQLITE_CANTOPEN,
                        message: "not a regular file: its \(what) \(file + suffix) is \(kind.phrase), "
                            + "which SQLite would block or fail on: \(path)",
                        culprit: path)
                }
            }
        }
    }

    /// The kind of what is at `path` when it is not a regular file; nil for a regular file, for
    /// nothing, or when `stat` fails.
    private static func nonRegularKind(_ path: String) -> FileSystem.Kind? {
        guard let info = try? FileSystem.info(path, followingLinks: true), info.kind != .regular else { return nil }
        return info.kind
    }
}
