import StrataSQLite
import Testing

@testable import StrataMigrations

@Suite("SHA-256")
struct SHA256Tests {
    /// Vectors from FIPS 180-4 examples and NIST's SHA-256 test vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
        (
            "The quick brown fox jumps over the lazy dog",
            "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
        ),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(SHA256.hexDigest(of: input) == expected, "SHA-256 of \(input.debugDescription)")
    }

    @Test func millionAs() {
        let input = String(repeating: "a", count: 1_000_000)
        #expect(SHA256.hexDigest(of: input) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func blockBoundaries() {
        // 55, 56 and 64 bytes exercise the padding edge cases; compare against precomputed digests.
        #expect(
            SHA256.hexDigest(of: String(repeating: "a", count: 55))
                == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(
            SHA256.hexDigest(of: String(repeating: "a", count: 56))
                == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(
            SHA256.hexDigest(of: String(repeating: "a", count: 64))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test func checksumIgnoresLineEndingsAndBOM() {
        let unix = Migration("1", sql: "CREATE TABLE t(a);\nCREATE TABLE u(b);\n")
        let windows = Migration("1", sql: "\u{FEFF}CREATE TABLE t(a);\r\nCREATE TABLE u(b);\r\n")
        let edited = Migration("1", sql: "CREATE TABLE t(a);\nCREATE TABLE u(c);\n")
        #expect(unix.checksum == windows.checksum)
        #expect(unix.checksum != edited.checksum)
        #expect(unix.checksum?.count == 64)
        #expect(Migration("2") { _ in }.checksum == nil)
    }

    /// What editors and checkouts change without anyone meaning to is not an edit; everything
    /// else is (issue 16). Checksums of the earlier rule are still accepted.
    @Test func checksumIgnoresWhatEditorsChange() throws {
        let original = "CREATE TABLE t(a);\n\nCREATE TABLE u(b); -- note\n"
        let harmless = [
            "CREATE TABLE t(a);\n\nCREATE TABLE u(b); -- note",  // final newline removed
            "CREATE TABLE t(a);\n\nCREATE TABLE u(b); -- note\n\n\n",  // blank lines added at the end
            "CREATE TABLE t(a);  \n\t\nCREATE TABLE u(b); -- note \t\n",  // blanks at line ends
            "\u{FEFF}CREATE TABLE t(a);\r\n\r\nCREATE TABLE u(b); -- note\r\n",  // BOM and CRLF
            "CREATE TABLE t(a);\r\rCREATE TABLE u(b); -- note\r",  // old Mac line ends
        ]
        let edits = [
            "CREATE TABLE t(a);\nCREATE TABLE u(b); -- note\n",  // a blank line inside removed
            "CREATE TABLE t(a);\n\n  CREATE TABLE u(b); -- note\n",  // indentation added
            "CREATE TABLE t(a);\n\nCREATE TABLE u(b); --  note\n",  // inside a line
            "CREATE TABLE t(a);\n\nCREATE TABLE u(c); -- note\n",
        ]
        let checksum = try #require(Migration("1", sql: original).checksum)
        for text in harmless { #expect(Migration("1", sql: text).checksum == checksum, "\(text.debugDescription)") }
        for text in edits { #expect(Migration("1", sql: text).checksum != checksum, "\(text.debugDescription)") }

        // A ledger written by the earlier rule (line endings and BOM only) holds another checksum
        // for a text with blanks at line ends; it is still this migration's.
        let withBlanks = Migration("1", sql: "CREATE TABLE t(a);  \n")
        let earlier = Migration.lineEndingChecksum(of: "CREATE TABLE t(a);  \n")
        #expect(earlier != withBlanks.checksum)
        #expect(withBlanks.acceptsRecordedChecksum(earlier))
        #expect(withBlanks.acceptsRecordedChecksum(try #require(withBlanks.checksum)))
        #expect(!withBlanks.acceptsRecordedChecksum(Migration.lineEndingChecksum(of: "CREATE TABLE t(b);")))
    }
}
