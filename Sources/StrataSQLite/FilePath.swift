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
        var trimmed = Substring(path)
        // Trailing slashes belong to the last component.
        while trimmed.count > 1, trimmed.last == "/" { trimmed.removeLast() }
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        var folder = trimmed[..<slash]
        while let last = folder.last, last == "/" { folder.removeLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// The last component of `path`, as POSIX `basename` says it: `"a"` → `"a"`, `"a/"` → `"a"`,
    /// `"a/b//"` → `"b"`, `"/"` → `"/"`, `"//"` → `"/"`, `"."` → `"."`, `""` → `""`.
    package static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.last == "/" { trimmed.removeLast() }
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `name` inside `folder`: `folder/name`, with one slash between them (none added after a
    /// folder that ends with one); `name` alone when `folder` is empty. Nothing else is changed
    /// (`"~"` stays `"~/name"`, `".."` stays `"../name"`).
    package static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// `path` from the root: itself when it starts with `/`, else `currentDirectory/path` (`currentDirectory` for an empty path). No
    /// `~` is expanded and no `.` or `..` resolved.
    package static func absolute(_ path: String, currentDirectory: String) -> String {
        if path.isEmpty { return currentDirectory }
        return path.hasPrefix("/") ? path : join(currentDirectory, path)
    }

    /// The components of the absolute path `path` with `.` and empty components left out and
    /// each `..` taking away the component before it (by spelling, not through the file system,
    /// as `URL.standardized` does, but without expanding `~`): `"/a/./b/../c/"` → `["a", "c"]`.
    package static func lexicalComponents(_ path: String) -> [String] {
        var components: [String] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(String(component))
            }
        }
        return components
    }
}
