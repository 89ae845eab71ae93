import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `DurableFile`, the one way the package writes its own files (issue 28): the steps in order
/// (temporary file flushed before the rename, folder flushed after it), and a failure at each
/// step leaves the target's bytes as they were (or, after the rename, all of the new ones).
@Suite("Durable file writes")
struct DurableFileTests {
    /// Records every step; fails the `failAt`th (1-based) with EIO.
    final class Recorder: @unchecked Sendable {
        let lock = NSLock()
        var steps: [DurableFile.Step] = []
        let failAt: Int?
        init(failAt: Int? = nil) { self.failAt = failAt }

        var hook: @Sendable (DurableFile.Step) throws(FileSystem.Failure) -> Void {
            { step throws(FileSystem.Failure) in
                let number = self.lock.withLock {
                    self.steps.append(step)
                    return self.steps.count
                }
                if number == self.failAt { throw FileSystem.Failure(code: EIO) }
            }
        }
    }

    /// The names in `path` (hidden ones included).
    func names(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    @Test func writeFlushesTheFileBeforeTheRenameAndTheFolderAfter() throws {
        let dir = TemporaryDirectory("durable")
        let target = dir.file("it's a \"file\".sql")
        let recorder = Recorder()
        try DurableFile.$hook.withValue(recorder.hook) {
            try DurableFile.write(Array("new".utf8), to: target)
        }
        #expect(fileBytes(target) == Data("new".utf8))
        let steps = recorder.steps
        #expect(steps.count == 5, "\(steps)")
        guard steps.count == 5, case .create(let temporary) = steps[0] else { return }
        #expect(temporary.hasPrefix(dir.path + "/."), "a hidden file in the same folder: \(temporary)")
        #expect(
            steps == [
                .create(temporary), .write(temporary), .syncFile(temporary), .rename(temporary, target),
                .syncDirectory(dir.path),
            ])
        #expect(names(dir.path) == ["it's a \"file\".sql"], "no temporary file left")
    }

    @Test func aFailureAtEachStepLeavesTheOldBytes() throws {
        let dir = TemporaryDirectory("durable")
        let target = dir.file("schema.swift")
        let old = Data("old bytes\n".utf8)
        let new = Array(repeating: UInt8(ascii: "n"), count: 200_000)
        for failAt in 1...5 {
            try old.write(to: URL(fileURLWithPath: target))
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: target)
            let recorder = Recorder(failAt: failAt)
            var failure: DurableFile.Failure?
            do {
                try DurableFile.$hook.withValue(recorder.hook) {
                    try DurableFile.write(new, to: target)
                }
            } catch let error as DurableFile.Failure {
                failure = error
            }
            let step = recorder.steps.last.map { "\($0)" } ?? "?"
            let error = try #require(failure, "step \(failAt) (\(step)) failed but the write succeeded")
            #expect(error.code == EIO)
            #expect(error.description.contains(target), "\(error)")
            #expect(error.description.contains(String(cString: strerror(EIO))), "the OS's text: \(error)")
            if failAt == 5 {
                // The folder's flush, after the rename: all of the new bytes, and the folder named.
                #expect(error.call == "fsync" && error.description.contains(dir.path), "\(error)")
                #expect(fileBytes(target) == Data(new), "step \(failAt) (\(step))")
            } else {
                #expect(fileBytes(target) == old, "step \(failAt) (\(step)): the target changed")
            }
            #expect(names(dir.path) == ["schema.swift"], "step \(failAt) (\(step)): \(names(dir.path))")
            let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
            #expect(mode == 0o640, "step \(failAt): the permissions are kept")
        }
        #expect(
            [DurableFile.Step.create("a"), .write("a"), .syncFile("a"), .rename("a", "b"), .syncDirectory("d")].map(
                \.call) == ["open", "write", "fsync", "rename", "fsync"])
    }

    @Test func writeWithoutReplacingRefusesATakenNameAndLeavesIt() throws {
        let dir = TemporaryDirectory("durable")
        let target = dir.file("0002_add.sql")
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: target))
        let recorder = Recorder()
        #expect(throws: DurableFile.Failure.self) {
            try DurableFile.$hook.withValue(recorder.hook) {
                try DurableFile.write(Array("ours".utf8), to: target, replacing: false)
            }
        }
        #expect(fileBytes(target) == Data("theirs".utf8))
        #expect(names(dir.path) == ["0002_add.sql"])
        #expect(recorder.steps.contains { if case .link = $0 { true } else { false } }, "\(recorder.steps)")
        // A free name: linked, the temporary name removed, the folder flushed.
        let free = dir.file("0003_next.sql")
        let steps = Recorder()
        try DurableFile.$hook.withValue(steps.hook) {
            try DurableFile.write(Array("x".utf8), to: free, replacing: false)
        }
        #expect(fileBytes(free) == Data("x".utf8))
        #expect(steps.steps.map(\.call) == ["open", "write", "fsync", "link", "unlink", "fsync"], "\(steps.steps)")
        #expect(names(dir.path) == ["0002_add.sql", "0003_next.sql"])
    }

    @Test func moveAndFolderOperationsFlushTheFoldersTheyChange() throws {
        let dir = TemporaryDirectory("durable")
        let sub = dir.file("sub folder")
        let recorder = Recorder()
        try DurableFile.$hook.withValue(recorder.hook) {
            try DurableFile.makeDirectory(sub)
            try DurableFile.write(Array("a".utf8), to: dir.file("a.sql"))
            try DurableFile.move(dir.file("a.sql"), to: sub + "/a.sql")
            try DurableFile.remove(sub + "/a.sql")
            try DurableFile.removeDirectory(sub)
        }
        let lines = recorder.steps.map(\.description)
        let tail = Array(lines.drop { !$0.hasPrefix("link ") })
        #expect(lines.first == "mkdir \(sub)")
        #expect(lines.dropFirst().first == "sync-dir \(dir.path)")
        #expect(
            tail == [
                "link \(dir.file("a.sql")) -> \(sub)/a.sql", "remove \(dir.file("a.sql"))", "sync-dir \(sub)",
                "sync-dir \(dir.path)", "remove \(sub)/a.sql", "sync-dir \(sub)", "rmdir \(sub)",
                "sync-dir \(dir.path)",
            ], "\(lines)")
        #expect(names(dir.path).isEmpty)
        // A move onto a taken name fails, naming it, and leaves both files.
        try Data("1".utf8).write(to: URL(fileURLWithPath: dir.file("one")))
        try Data("2".utf8).write(to: URL(fileURLWithPath: dir.file("two")))
        do {
            try DurableFile.move(dir.file("one"), to: dir.file("two"))
            Issue.record("a move replaced a file")
        } catch {
            #expect(error.description.hasPrefix(dir.file("two") + ": cannot move"), "\(error)")
            #expect(error.code == EEXIST)
        }
        #expect(fileBytes(dir.file("one")) == Data("1".utf8) && fileBytes(dir.file("two")) == Data("2".utf8))
    }

    @Test func aMissingFolderIsNamedWithTheSystemsMessage() {
        let dir = TemporaryDirectory("durable")
        let target = dir.file("no such folder/out.swift")
        do {
            try DurableFile.write(Array("x".utf8), to: target)
            Issue.record("wrote into a missing folder")
        } catch {
            #expect(error.description.hasPrefix(target + ": cannot write the file (open: "), "\(error)")
            #expect(error.code == ENOENT)
        }
    }
}
