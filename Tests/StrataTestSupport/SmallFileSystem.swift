import Foundation
import Testing

/// A tiny tmpfs mounted on a fresh directory, for "disk full" tests; unmounted (and the directory
/// removed) when the value is released. Mounting needs root (or CAP_SYS_ADMIN) and Linux: check
/// ``isAvailable`` first, and skip the test, saying why, when it is false.
///
/// ```swift
/// @Test(.enabled(if: SmallFileSystem.isAvailable, "mounting a small tmpfs failed: needs root on Linux"))
/// func diskFull() throws {
///     let full = try SmallFileSystem(kilobytes: 200)
///     ... write more than 200 KiB to full.file("backup.sqlite") ...
/// }
/// ```
public final class SmallFileSystem: @unchecked Sendable {
    private let directory: TemporaryDirectory
    public var path: String { directory.path }

    public struct MountFailed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Mounts a tmpfs of `kilobytes` on a new temporary directory.
    public init(kilobytes: Int) throws {
        directory = TemporaryDirectory("strata-small-fs")
        let status = Self.run(
            Self.tool("mount"), ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", directory.path])
        if status != 0 { throw MountFailed(description: "mount -t tmpfs on \(directory.path) exited \(status)") }
    }

    /// The path of a file named `name` on the small file system.
    public func file(_ name: String) -> String { directory.file(name) }

    deinit { _ = Self.run(Self.tool("umount"), [directory.path]) }

    /// Whether a tmpfs can be mounted here (probed once by mounting one).
    public static let isAvailable: Bool = (try? SmallFileSystem(kilobytes: 64)) != nil

    private static func tool(_ name: String) -> String {
        ["/usr/bin/\(name)", "/bin/\(name)", "/usr/sbin/\(name)", "/sbin/\(name)"]
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/bin/\(name)"
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return -1 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        guard BoundedWait.exit(of: process, seconds: BoundedWait.seconds, "\(tool) \(arguments.joined(separator: " "))")
        else { return -1 }
        return process.terminationStatus
    }
}
