/// A view.
public struct ViewInfo: Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var sql: String
    /// The statement as compared: without comments, whitespace differences, identifier quoting and keyword case.
    public internal(set) var normalizedSQL: String
    var key: String { name.asciiLowercased() }
}
