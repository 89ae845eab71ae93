/// A view.
public struct ViewInfo: Sendable, Hashable {
    public var name: String
    public var sql: String
    var normalizedSQL: String
    var key: String { name.asciiLowercased() }
}
