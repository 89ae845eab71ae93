/// A trigger.
public struct TriggerInfo: Sendable, Hashable {
    public var name: String
    /// The table (or view) the trigger is on.
    public var table: String
    public var sql: String
    var normalizedSQL: String
    var key: String { name.asciiLowercased() }
}
