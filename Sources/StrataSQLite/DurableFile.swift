#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the package writes, moves and removes files of its own (the CLI's migration
/// files, baselines, archives, generated Swift, history files): durably. A power loss can keep a
/// rename and lose the bytes it names unless the bytes were flushed first, and can lose a rename
/// unless the folder was flushed after it. So a file is written to a temporary file in the same
/// folder, flushed (`fsync`), renamed over the target, and the folder is flushed; on a failure
/// before the rename the temporary file is removed and the target is untouched.
///
/// Every system call goes through ``perform(_:_:)``, which first calls the task's
/// ``hook`` (none by default; ``FileSystem``'s writing calls announce their steps too): the seam the tests use to record the order of the steps and to
/// make any one of them fail.
package enum DurableFile {
    /// One step of a durable operation, as the hook sees it.
    package enum Step: Equatable, Sendable, CustomStringConvertible {
        /// A new file created (`open` with `O_CREAT | O_EXCL`).
        case create(String)
        /// The bytes written to the new file.
        case write(String)
        /// A file's bytes flushed (`fsync`).
        case syncFile(String)
        /// `rename(from, to)`, which replaces a file at `to`.
        case rename(String, String)
        /// `link(from, to)`, which fails when `to` exists (a rename that never replaces).
        case link(String, String)
        /// A file removed (`unlink`).
        case remove(String)
        /// A folder created (`mkdir`).
        case makeDirectory(String)
        /// An empty folder removed (`rmdir`).
        case removeDirectory(String)
        /// A folder flushed (`fsync` of the folder: makes the names in it durable).
        case syncDirectory(String)

        /// The system call, as an error message names it.
        package var call: String {
            switch self {
            case .create: "open"
            case .write: "write"
            case .syncFile, .syncDirectory: "fsync"
            case .rename: "rename"
            case .link: "link"
            case .remove: "unlink"
            case .makeDirectory: "mkdir"
            case .removeDirectory: "rmdir"
            }
        }

        /// `sync-file PATH`, `rename FROM -> TO`...: one line of a recorded trace.
        package var description: String {
            switch self {
            case .create(let path): "create \(path)"
            case .write(let path): "write \(path)"
            case .syncFile(let path): "sync-file \(path)"
            case .rename(let from, let to): "rename \(from) -> \(to)"
            case .link(let from, let to): "link \(from) -> \(to)"
            case .remove(let path): "remove \(path)"
            case .makeDirectory(let path): "mkdir \(path)"
            case .removeDirectory(let path): "rmdir \(path)"
            case .syncDirectory(let path): "sync-dir \(path)"
            }
        }
    }

    /// A failed operation: the file it was for, what was being done, the system call that failed
    /// and the operating system's error (`errno` and its text).
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The file (or folder) the operation was for.
        package var path: String
        /// What was being done: `cannot write the file`, `cannot move ... there`...
        package var activity: String
        /// The system call that failed (`open`, `write`, `fsync`, `rename`...).
        package var call: String
        /// The `errno` it failed with.
        package var code: Int32

        /// The operating system's text for ``code`` (`strerror`).
        package var reason: String { String(cString: strerror(code)) }

        /// `PATH: cannot write the file (fsync: Input/output error)`.
        package var description: String { "\(path): \(activity) (\(call): \(reason))" }
    }

    /// The seam's shape: called before every system call with the step it makes; throwing makes
    /// that step fail with the thrown error's `errno`.
    package typealias Hook = @Sendable (Step) throws(FileSystem.Failure) -> Void

    /// The seam for one task (the tests' form), bound with `$hook.withValue`.
    @TaskLocal package static var hook: Hook?

    /// The seam for the whole process (the command-line tool's form: its `main` runs outside
    /// any task, where binding a task-local crashed the optimised build), used when no
    /// task-local hook is bound. Set it once, before any file is written.
    package static func installProcessHook(_ hook: Hook?) {
        processHook.withLock { $0 = hook }
    }

    private static let processHook = LockedValue<Hook?>(nil)

    /// Calls the hook bound for this task, or else the process's, with `step`: every file step
    /// the package makes passes here first (``FileSystem``'s create, flush, rename and link
    /// included, so the backup's and the rekey's steps are in the same trace).
    package static func announce(_ step: Step) throws(FileSystem.Failure) {
        if let hook = hook ?? processHook.withLock({ $0 }) { try hook(step) }
    }

    /// Runs the hook, then `call` (which returns 0 or sets `errno`); throws the failure.
    private static func perform(_ step: Step, _ call: () -> Int32) throws(FileSystem.Failure) {
        try announce(step)
        if call() != 0 { throw FileSystem.Failure(code: errno) }
    }

    /// Writes `bytes` to `path` durably: a temporary file beside it, flushed, renamed over `path`
    /// (or, with `replacing` false, given the name only if it is free), then the folder flushed.
    /// A failure before the rename removes the temporary file and leaves `path` as it was; after
    /// it only the folder's flush can fail, and `path` then holds all of `bytes`. A file replaced
    /// keeps its permission bits; a new one gets `permissions` narrowed by the umask.
    package static func write(
        _ bytes: [UInt8], to path: String, replacing: Bool = true, permissions: Int = 0o666,
        activity: String = "cannot write the file"
    ) throws(Failure) {
        let (directory, name) = FileSystem.split(path)
        let temporary = temporaryPath(in: directory, for: name)
        var mode = permissions
        var applyMode = false
        if replacing, let existing = try? FileSystem.info(path, followingLinks: true), existing.kind == .regular {
            mode = existing.permissions
            applyMode = true
        }
        var step: Step = .create(temporary)
        var placed = false
        defer { if !placed { FileSystem.removeIfPresent(temporary) } }
        do throws(FileSystem.Failure) {
            var descriptor: Int32 = -1
            try perform(.create(temporary)) {
                descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
                return descriptor < 0 ? -1 : 0
            }
            defer { close(descriptor) }
            if applyMode { _ = fchmod(descriptor, mode_t(mode)) }
            step = .write(temporary)
            try perform(step) { writeAll(bytes, to: descriptor) }
            step = .syncFile(temporary)
            try perform(step) { fsync(descriptor) }
            if replacing {
                step = .rename(temporary, path)
                try perform(step) { rename(temporary, path) }
            } else {
                let linked = try linkOrRename(temporary, path, step: &step)
                // The new name is in place: the temporary one goes (a leftover is only a hidden file).
                placed = true
                if linked { try? perform(.remove(temporary)) { unlink(temporary) } }
            }
            placed = true
        } catch {
            throw Failure(path: path, activity: activity, call: step.call, code: error.code)
        }
        try synchronizeDirectory(directory, for: path, activity: activity)
    }

    /// Moves the file `source` to `destination` (`rename`; with `replacing` false, `link` then
    /// `unlink`, failing when the name is taken), then flushes both folders.
    package static func move(_ source: String, to destination: String, replacing: Bool = false) throws(Failure) {
        let activity = "cannot move \(source) there"
        var step: Step = .rename(source, destination)
        do throws(FileSystem.Failure) {
            if replacing {
                try perform(step) { rename(source, destination) }
            } else {
                if try linkOrRename(source, destination, step: &step) {
                    step = .remove(source)
                    try perform(step) { unlink(source) }
                }
            }
        } catch {
            throw Failure(path: destination, activity: activity, call: step.call, code: error.code)
        }
        let from = FileSystem.split(source).directory
        let to = FileSystem.split(destination).directory
        try synchronizeDirectory(to, for: destination, activity: activity)
        if from != to { try synchronizeDirectory(from, for: source, activity: activity) }
    }

    /// Gives `source` the name `destination` if it is free (`link`; true), or, on a file system
    /// without hard links, renames it after checking the name is free (false).
    private static func linkOrRename(
        _ source: String, _ destination: String, step: inout Step
    ) throws(FileSystem.Failure)
        -> Bool
    {
        step = .link(source, destination)
        var failure: FileSystem.Failure?
        do {
            try perform(step) { link(source, destination) }
        } catch {
            failure = error
        }
        guard let failure else { return true }
        guard failure.isLinkUnsupported else { throw failure }
        step = .rename(source, destination)
        if (try? FileSystem.info(destination, followingLinks: false)) != nil { throw FileSystem.Failure(code: EEXIST) }
        try perform(step) { rename(source, destination) }
        return false
    }

    /// Renames without flushing (`rename`): for a batch of moves followed by one
    /// ``synchronizeDirectory(_:)`` of each folder.
    package static func renameWithoutSync(_ source: String, to destination: String) throws(Failure) {
        let step = Step.rename(source, destination)
        do {
            try perform(step) { rename(source, destination) }
        } catch {
            throw Failure(path: destination, activity: "cannot move \(source) there", call: step.call, code: error.code)
        }
    }

    /// Creates the folder `path` (its parent must exist) and flushes the parent.
    package static func makeDirectory(_ path: String, activity: String = "cannot create the folder") throws(Failure) {
        let step = Step.makeDirectory(path)
        do {
            try perform(step) { mkdir(path, 0o777) }
        } catch {
            throw Failure(path: path, activity: activity, call: step.call, code: error.code)
        }
        try synchronizeDirectory(FileSystem.split(path).directory, for: path, activity: activity)
    }

    /// Removes the file `path` and flushes its folder; a file already gone is not an error.
    package static func remove(_ path: String, activity: String = "cannot remove the file") throws(Failure) {
        guard try removeWithoutSync(path, activity: activity) else { return }
        try synchronizeDirectory(FileSystem.split(path).directory, for: path, activity: activity)
    }

    /// Removes the file `path` without flushing its folder (for a batch, flushed once after);
    /// a file already gone is not an error. Returns whether a file was removed.
    @discardableResult
    package static func removeWithoutSync(
        _ path: String, activity: String = "cannot remove the file"
    ) throws(Failure) -> Bool {
        let step = Step.remove(path)
        do {
            try perform(step) { unlink(path) }
        } catch  where error.code == ENOENT {
            return false
        } catch {
            throw Failure(path: path, activity: activity, call: step.call, code: error.code)
        }
        return true
    }

    /// Removes the empty folder `path` and flushes its parent; a folder already gone is not an error.
    package static func removeDirectory(_ path: String, activity: String = "cannot remove the folder") throws(Failure) {
        let step = Step.removeDirectory(path)
        do {
            try perform(step) { rmdir(path) }
        } catch  where error.code == ENOENT {
            return
        } catch {
            throw Failure(path: path, activity: activity, call: step.call, code: error.code)
        }
        try synchronizeDirectory(FileSystem.split(path).directory, for: path, activity: activity)
    }

    /// Flushes the folder `path`, making the names created, renamed or removed in it durable.
    package static func synchronizeDirectory(_ path: String) throws(Failure) {
        try synchronizeDirectory(path, for: path, activity: "cannot flush the folder")
    }

    private static func synchronizeDirectory(_ directory: String, for path: String, activity: String) throws(Failure) {
        let step = Step.syncDirectory(directory)
        do {
            var descriptor: Int32 = -1
            try perform(step) {
                descriptor = open(directory, O_RDONLY | O_CLOEXEC)
                if descriptor < 0 { return -1 }
                let rc = fsync(descriptor)
                let saved = errno
                close(descriptor)
                errno = saved
                return rc
            }
        } catch  where [EINVAL, ENOTSUP, EOPNOTSUPP].contains(error.code) {
            // Some file systems cannot flush a folder; the names are as durable as they allow.
            return
        } catch {
            throw Failure(
                path: path, activity: activity + " (folder \(directory) not flushed)", call: step.call,
                code: error.code)
        }
    }

    /// `.NAME.strata-tmp-XXXXXXXX` in `directory`: hidden (loaders skip names that start with a
    /// dot), unique to this call.
    package static func temporaryPath(in directory: String, for name: String) -> String {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let file = ".\(name).strata-tmp-\(suffix)"
        return directory == "." ? file : (directory.hasSuffix("/") ? directory + file : directory + "/" + file)
    }

    /// Whether `name` is one of ``temporaryPath(in:for:)``'s names (left by a process killed
    /// mid-write).
    package static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".strata-tmp-")
    }

    /// `write(2)` until every byte is written, retrying on EINTR; 0 or -1 with `errno`.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer -> Int32 in
            var offset = 0
            while offset < buffer.count {
                let n = writeBytes(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                offset += n
            }
            return 0
        }
    }
}

// The C function, under a name that does not clash with DurableFile's own.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
