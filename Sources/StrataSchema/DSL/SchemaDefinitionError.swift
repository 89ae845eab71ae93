/// A schema declared with the DSL that cannot be turned into SQL, such as a table without columns
/// or a foreign key whose column counts differ. The message names the table or index first.
///
/// ```swift
/// do {
///     try db.create(table: "empty") { _ in }
/// } catch let error as SchemaDefinitionError {
///     print(error) // table "empty" has no columns
/// }
/// ```
public struct SchemaDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the culprit first.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
