/// SQL text being written by a request (``SQLGenerator``, ``SQLRenderContext``), kept as UTF-8
/// bytes and turned into a `String` once, when complete.
///
/// A request writes its SQL on every fetch in some thirty small pieces (`"`, `folderId`, ` = `,
/// `?`...). Appending each to a `String` cost about 300 instructions (the string checks its
/// storage, its capacity and the grapheme boundary at each append); appending bytes to an
/// array costs a copy. The text is the same byte for byte.
package struct SQLTextBuffer {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    package var isEmpty: Bool { bytes.isEmpty }

    /// Appends `text` as is.
    package mutating func append(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in bytes.append(contentsOf: utf8) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }

    /// Appends the text of another buffer.
    package mutating func append(_ other: SQLTextBuffer) {
        bytes.append(contentsOf: other.bytes)
    }

    package static func += (sql: inout SQLTextBuffer, text: String) {
        sql.append(text)
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    package mutating func appendInteger(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude  // Int.min has one too: 2^63, below UInt.max / 10 * 10
        var divisor: UInt = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    /// Appends `name` as a double-quoted identifier, each quote doubled byte by byte (what
    /// ``SQLLiteral/quote(identifier:)`` returns).
    package mutating func appendQuoted(identifier name: String) {
        let quote = UInt8(ascii: "\"")
        bytes.append(quote)
        let copied: Void? = name.utf8.withContiguousStorageIfAvailable { appendDoublingQuotes($0) }
        if copied == nil { appendDoublingQuotes(Array(name.utf8)) }
        bytes.append(quote)
    }

    private mutating func appendDoublingQuotes(_ utf8: some Collection<UInt8>) {
        let quote = UInt8(ascii: "\"")
        guard utf8.contains(quote) else { return bytes.append(contentsOf: utf8) }
        for byte in utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(byte) }
        }
    }
}
