import ArgumentParser
import Foundation

enum CLIOutput {
    /// Writes `text` and a newline to stdout.
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `strata: message` to stderr.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("strata: " + message + "\n").utf8))
    }

    /// Writes a line to stderr without prefix.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// `n thing` / `n things`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}

/// The one place JSON output is made: every command's document goes through `render`, so all
/// of them share the key order (sorted), the indentation and the escaping.
enum CLIJSON {
    static func render<Document: Encodable>(_ document: Document) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(document), as: UTF8.self)
        } catch {
            // Only non-finite numbers fail to encode; the one Double (an estimate's expectedSeconds) is finite.
            preconditionFailure("strata: cannot encode the JSON document: \(error)")
        }
    }

    /// Prints `document` on stdout.
    static func print<Document: Encodable>(_ document: Document) {
        CLIOutput.print(render(document))
    }
}
