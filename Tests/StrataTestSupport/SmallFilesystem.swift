import Foundation

/// A tmpfs of a few hundred kilobytes or megabytes mounted on a fresh directory, for real
/// disk-full failures (ENOSPC from the kernel, not SQLite's `max_page_count`). Unmounted when
/// released. Mounting needs root (or CAP_SYS_ADMIN): check ``isAvailable`` first.
public final class SmallFilesystem: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public var path: String { directory.path }

    /// Mounts a tmpfs of `kibibytes` KiB; nil when mounting is not allowed here.
    public init?(kibibytes: Int) {
        directory = TemporaryDirectory("strata-small-fs")
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kibibytes)k,mode=0700", "tmpfs", directory.path]) else {
            return nil
        }
    }

    /// The path of a file named `name` on the filesystem.
    public func file(_ name: String) -> String { directory.file(name) }

    /// True when this process may mount a tmpfs (tried once).
    public static let isAvailable: Bool = SmallFilesystem(kibibytes: 64) != nil

    deinit { _ = Self.run("/bin/umount", ["-l", directory.path]) }

    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
