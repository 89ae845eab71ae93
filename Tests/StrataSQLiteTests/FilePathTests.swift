import Foundation
import Testing

@testable import StrataSQLite

/// `FilePath`, the path arithmetic Strata does on paths a user gives (issue 37): POSIX
/// `dirname`/`basename` meaning over odd spellings, never a trap (Foundation's
/// `deletingLastPathComponent` traps on `"a"` on Linux), no `~` expanded, no `..` resolved.
@Suite("FilePath: parent, last component and join over odd paths")
struct FilePathTests {
    static let long = String(repeating: "n", count: 5_000)

    /// (path, parent, last component), each as POSIX `dirname` and `basename` give them.
    static let cases: [(String, String, String)] = [
        ("a", ".", "a"),
        ("ab", ".", "ab"),
        (".", ".", "."),
        ("..", ".", ".."),
        ("/", "/", "/"),
        ("//", "/", "/"),
        ("///", "/", "/"),
        ("a/", ".", "a"),
        ("a//", ".", "a"),
        ("/a", "/", "a"),
        ("//a", "/", "a"),
        ("/a/", "/", "a"),
        ("./a", ".", "a"),
        ("../a", "..", "a"),
        ("a/b", "a", "b"),
        ("a//b", "a", "b"),
        ("a/b/", "a", "b"),
        ("/a/b/c", "/a/b", "c"),
        ("a/./b", "a/.", "b"),
        ("a/..", "a", ".."),
        ("~", ".", "~"),
        ("~/x", "~", "x"),
        ("", ".", ""),
        ("line\nbreak/na\nme", "line\nbreak", "na\nme"),
        ("\u{FFFD}/\u{FFFD}", "\u{FFFD}", "\u{FFFD}"),
        ("é/ü", "é", "ü"),
        ("e\u{301}/x", "e\u{301}", "x"),
        // A combining mark after a slash: one Character for Swift, two components for the kernel.
        ("a/\u{301}b", "a", "\u{301}b"),
        ("a/\u{301}", "a", "\u{301}"),
        ("\u{301}/", ".", "\u{301}"),
        (long, ".", long),
        (long + "/" + long + "/", long, long),
    ]

    @Test func parentAndLastComponentAreDirnameAndBasename() {
        for (path, parent, last) in Self.cases {
            #expect(FilePath.parent(of: path) == parent, "parent of \(path.debugDescription.prefix(40))")
            #expect(FilePath.lastComponent(of: path) == last, "last component of \(path.debugDescription.prefix(40))")
        }
    }

    /// The same answers as the C library's `dirname(3)` and `basename(3)` for every case but
    /// the empty path (whose basename C gives as ".") and a folder spelled with exactly two
    /// leading slashes, which glibc's `dirname` keeps as `//` (POSIX leaves its meaning to the
    /// system; on Linux it is the root, `/`).
    @Test func agreesWithTheCLibrary() {
        for (path, _, _) in Self.cases where !path.isEmpty && !["//", "//a"].contains(path) {
            func c(_ function: (UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>?) -> String {
                var bytes = Array(path.utf8CString)
                return bytes.withUnsafeMutableBufferPointer { String(cString: function($0.baseAddress)!) }
            }
            #expect(FilePath.parent(of: path) == c(dirname), "\(path.debugDescription.prefix(40))")
            #expect(FilePath.lastComponent(of: path) == c(__xpg_basename), "\(path.debugDescription.prefix(40))")
        }
    }

    /// The opening's own split (folder resolved, last component kept) cuts at the same byte.
    @Test func theOpeningSplitsAtTheSameSlash() {
        for (path, directory, name) in [
            ("a/\u{301}b", "a", "\u{301}b"), ("/x/y", "/x", "y"), ("y", ".", "y"), ("/y", "/", "y"), ("a/", "a", ""),
        ] {
            let split = FileSystem.split(path)
            #expect(split.directory == directory && split.name == name, "\(path.debugDescription)")
        }
    }

    @Test func joinAddsOneSlashAndChangesNothingElse() {
        #expect(FilePath.join("a", "x") == "a/x")
        #expect(FilePath.join("a/", "x") == "a/x")
        #expect(FilePath.join("a//", "x") == "a//x")
        #expect(FilePath.join("/", "x") == "/x")
        #expect(FilePath.join(".", "x") == "./x")
        #expect(FilePath.join("..", "x") == "../x")
        #expect(FilePath.join("", "x") == "x")
        #expect(FilePath.join("~", "x") == "~/x")
        #expect(FilePath.join("a/../b", "x") == "a/../b/x")
        #expect(FilePath.join("na\nme", "x\ny") == "na\nme/x\ny")
        #expect(FilePath.join(Self.long, Self.long) == Self.long + "/" + Self.long)
        // The inverse of parent and last component for a path without trailing slashes.
        for path in ["a/b", "/a", "../a", "a/./b", "~/x"] {
            #expect(FilePath.join(FilePath.parent(of: path), FilePath.lastComponent(of: path)).hasSuffix(path))
        }
    }

    @Test func absoluteAndLexicalComponentsExpandNoTilde() {
        #expect(FilePath.absolute("/a", currentDirectory: "/work") == "/a")
        #expect(FilePath.absolute("a", currentDirectory: "/work") == "/work/a")
        #expect(FilePath.absolute("~", currentDirectory: "/work") == "/work/~")
        #expect(FilePath.absolute("", currentDirectory: "/work") == "/work")
        #expect(FilePath.absolute(".", currentDirectory: "/") == "/.")
        #expect(FilePath.lexicalComponents("/work/~") == ["work", "~"])
        #expect(FilePath.lexicalComponents("/a/./b/../c/") == ["a", "c"])
        #expect(FilePath.lexicalComponents("/../..") == [])
        #expect(FilePath.lexicalComponents("//") == [])
        #expect(FilePath.lexicalComponents("/a//b") == ["a", "b"])
    }
}
