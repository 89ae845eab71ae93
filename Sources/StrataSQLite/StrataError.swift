/// The one shape of every error Strata throws: a ``code`` that says what kind of failure it
/// is, a one-line ``message``, the ``culprit`` the message names first, and the
/// ``underlyingError`` that caused it.
///
/// Each library error is a struct conforming to it: ``SQLiteError`` (its code is a
/// ``ResultCode``), ``DatabaseAccessError``, ``BackupError``, ``RecordError``,
/// ``RowDecodingError``, and in the other modules `SchemaError`, `SchemaDefinitionError` and
/// `MigrationError`. Codes are structs with named static members (or small enums), so new codes
/// can be added: match the ones you handle and keep a default case.
///
/// Handle one error type by its code, or any of them by their shared properties:
///
/// ```swift
/// do {
///     try migrator.migrate(db)
/// } catch let error as MigrationError where error.code == .checksumMismatch {
///     print("edited after being applied:", error.culprit ?? "?")
/// } catch let error as any StrataError {
///     print(error.culprit ?? "strata", error.message, separator: ": ")
///     if let cause = error.underlyingError { print("caused by:", cause) }
/// }
/// ```
///
/// The ``culprit`` is what the message names first: the database or backup path, the migration
/// file, the table or column, the SQL statement. It is nil when the message names nothing in
/// particular. Messages never change meaning with the SQLite version, but SQLite's own texts
/// do: compare codes and culprits, not message texts.
public protocol StrataError: Error, Sendable, CustomStringConvertible {
    /// The type of ``code``: a `RawRepresentable` struct with named constants, or an enum.
    associatedtype Code: Hashable, Sendable

    /// What kind of failure this is.
    var code: Code { get }
    /// What went wrong, in one sentence (`description` may add the culprit and the cause).
    var message: String { get }
    /// The thing at fault that the message names first (a path, a migration, a table, a column,
    /// a statement), or nil when there is none.
    var culprit: String? { get }
    /// The error that caused this one, if any (an ``SQLiteError`` behind an engine error, the
    /// error a closure migration threw, the system error behind a failed backup...).
    var underlyingError: (any Error)? { get }
}
