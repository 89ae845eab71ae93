import StrataSQLite

/// A schema declared with the DSL that cannot be turned into SQL, such as a table without columns
/// or a foreign key whose column counts differ. The message names the table or index first, and
/// ``culprit`` holds its name.
///
/// ```swift
/// do {
///     try db.create(table: "empty") { _ in }
/// } catch let error as SchemaDefinitionError {
///     print(error)           // table "empty" has no columns
///     print(error.culprit!)  // empty
/// }
/// ```
public struct SchemaDefinitionError: StrataError, Hashable {
    /// What kind of failure this is. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The definition cannot be turned into SQL (no columns, a key without columns, a
        /// foreign key whose column counts differ, an option out of range...).
        public static let invalidDefinition = Code(rawValue: "invalid-definition")
    }

    /// What kind of failure this is.
    public let code: Code
    /// What is wrong, naming the culprit first.
    public let message: String
    /// The table, virtual table or index the message names first (its name, unquoted).
    public let culprit: String?

    init(_ message: String, code: Code = .invalidDefinition, culprit: String? = nil) {
        self.code = code
        self.message = StrataErrorText.bounded(message)
        self.culprit = culprit ?? SchemaCulprit.named(atStartOf: message)
    }

    /// Always nil: the definition itself is at fault.
    public var underlyingError: (any Error)? { nil }

    /// The ``message``, which names its culprit first in its own words (`table "empty" has no columns`).
    public var description: String { describe(culprit: nil, cause: nil) }
}
