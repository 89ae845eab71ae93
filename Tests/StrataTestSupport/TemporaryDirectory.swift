import Foundation
import Strata
import Testing

/// A fresh directory under the system temporary folder, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ label: String = "strata") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            // The test fails (its files cannot be written either), the run goes on.
            Issue.record("cannot create the temporary directory \(url.path): \(error)")
        }
    }

    /// The path of a file named `name` inside the directory.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
