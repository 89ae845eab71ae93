/// The path arithmetic Strata does on paths a user gives (`--db a`, `--out H`, a migration
/// folder), in plain Swift over the path's characters, with POSIX `dirname`/`basename` meaning.
///
/// Foundation's helpers are not used on such paths: on Linux `NSString.deletingLastPathComponent`
/// traps (SIGILL) on a one-character result (`"a"`, `"."`, `"a/"`), and `URL(fileURLWithPath:)`
/// expands a leading `~` to a home folder (a folder named `~` is then read as `$HOME`) and
/// resolves `..` by spelling, which is not what the kernel does after a symbolic link.
/// Nothing here touches the file system, expands `~`, or resolves `.` and `..`, except
/// ``absolute(_:currentDirectory:)`` and ``lexicalComponents(_:)``, which say so.
package enum FilePath {
    /// The folder holding the last component of `path`, as POSIX `dirname` says it: `"a"` → `"."`,
    /// `"a/"` → `"."`, `"a/b"` → `"a"`, `"a//b/"` → `"a"`, `"/a"` → `"/"`, `"/"` → `"/"`,
    /// `"//"` → `"/"`, `"."` → `"."`, `".."` → `"."`, `""` → `"."`.
    package static func parent(of path: String) -> String {
        var bytes = Array(path.utf8)[...]
        // Trailing slashes belong to the last component.
        while bytes.count > 1, bytes.last == slash { bytes.removeLast() }
        if bytes.count == 1, bytes.first == slash { return "/" }
        guard let last = bytes.lastIndex(of: slash) else { return "." }
        var folder = bytes[..<last]
        while folder.last == slash { folder.removeLast() }
        return folder.isEmpty ? "/" : String(decoding: folder, as: UTF8.self)
    }

    /// `/`, compared byte by byte: the kernel splits a path at every 0x2F byte, even one a
    /// combining mark follows (`"a/\u{301}b"` is `a` then `\u{301}b`, where Swift sees no `/`
    /// character).
    private static let slash = UInt8(ascii: "/")

    /// The last component of `path`, as POSIX `basename` says it: `"a"` → `"a"`, `"a/"` → `"a"`,
    /// `"a/b//"` → `"b"`, `"/"` → `"/"`, `"//"` → `"/"`, `"."` → `"."`, `""` → `""`.
    package static func lastComponent(of path: String) -> String {
        var bytes = Array(path.utf8)[...]
        while bytes.count > 1, bytes.last == slash { bytes.removeLast() }
        if bytes.count == 1, bytes.first == slash { return "/" }
        guard let last = bytes.lastIndex(of: slash) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes[(last + 1)...], as: UTF8.self)
    }

    /// `name` inside `folder`: `folder/name`, with one slash between them (none added after a
    /// folder that ends with one); `name` alone when `folder` is empty. Nothing else is changed
    /// (`"~"` stays `"~/name"`, `".."` stays `"../name"`).
    package static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.utf8.last == slash ? folder + name : folder + "/" + name
    }

    /// `path` from the root: itself when it starts with `/`, else `currentDirectory/path` (`currentDirectory` for an empty path). No
    /// `~` is expanded and no `.` or `..` resolved.
    package static func absolute(_ path: String, currentDirectory: String) -> String {
        if path.isEmpty { return currentDirectory }
        return path.utf8.first == slash ? path : join(currentDirectory, path)
    }

    /// The components of the absolute path `path` with `.` and empty components left out and
    /// each `..` taking away the component before it (by spelling, not through the file system,
    /// as `URL.standardized` does, but without expanding `~`): `"/a/./b/../c/"` → `["a", "c"]`.
    package static func lexicalComponents(_ path: String) -> [String] {
        var components: [String] = []
        for bytes in Array(path.utf8).split(separator: slash, omittingEmptySubsequences: true) {
            let component = String(decoding: bytes, as: UTF8.self)
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return components
    }
}
