/// A trigger.
public struct TriggerInfo: Sendable, Hashable {
    public var name: String
    /// The table (or view) the trigger is on.
    public var table: String
    public var sql: String
    /// The statement as compared: without comments, whitespace differences, identifier quoting and keyword case.
    public internal(set) var normalizedSQL: String
    var key: String { name.asciiLowercased() }
}
