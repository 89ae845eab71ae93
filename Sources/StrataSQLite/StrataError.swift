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
    /// The type of ``code``: a ``StrataErrorCode`` (a struct with named constants, or a small
    /// enum), or ``ResultCode`` for ``SQLiteError``. Its `description` is the code's name.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible

    /// What kind of failure this is.
    var code: Code { get }
    /// What went wrong, in one sentence (`description` may add the culprit and the cause).
    var message: String { get }
    /// The thing at fault that the message names first (a path, a migration, a table, a column,
    /// a statement), or nil when there is none.
    var culprit: String? { get }
    /// The error that caused this one, if any (an ``SQLiteError`` behind an engine error, the
    /// error a closure migration threw, the system error behind a failed backup...): the one
    /// cause each error stores.
    var underlyingError: (any Error)? { get }
}

extension StrataError {
    /// The one description of every Strata error: `culprit: message (cause)`, each part left
    /// out when there is none.
    ///
    /// ```text
    /// app.sqlite: preparing the database failed, nothing is served (SQLITE_ERROR (1): no such table: nowhere ...)
    /// ```
    ///
    /// An error whose ``message`` already names its culprit or quotes its cause in its own words
    /// (`table user: column email becomes NOT NULL ...`, `migration 0002 failed: ...`) leaves
    /// that part out rather than say it twice. ``SQLiteError``,
    /// where causes end, opens with its result code instead.
    public var description: String { describe(culprit: culprit, cause: underlyingError) }

    /// The description with the given parts: `culprit: message (cause)`, where `culprit` is the
    /// words the line opens with (the culprit, or how the message names it) and `cause` is
    /// shown by its own description. Nil parts are left out.
    package func describe(culprit: String?, cause: (any Error)?) -> String {
        StrataErrorText.line(opening: culprit, message: message, cause: cause)
    }
}

/// The one rendering of an error line, shared by every ``StrataError``.
package enum StrataErrorText {
    /// `opening: message (cause)`, each part left out when nil or empty.
    package static func line(opening: String?, message: String, cause: (any Error)?) -> String {
        var text = ""
        if let opening, !opening.isEmpty { text = opening + ": " }
        text += message
        if let cause {
            let shown = "\(cause)"
            if !shown.isEmpty { text += " (" + shown + ")" }
        }
        return text
    }
}

/// A code of a ``StrataError`` given by name: a struct with named static constants (so that
/// codes can be added, and callers keep a default case), or an enum of strings. Its
/// `description` is its name, as it is printed and matched (`destinationExists`,
/// `destructive-changes-refused`).
///
/// ```swift
/// if error.code == .destinationExists { ... }
/// print(error.code)   // destinationExists
/// ```
public protocol StrataErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible
where RawValue == String {}

extension StrataErrorCode {
    /// The code's name (its raw value).
    public var description: String { rawValue }
}

// `kind`, the old name of every error's `code` (issue 14), in one place for every error type:
// the old spellings still compile, with a warning whose fix-it writes the new name.
extension StrataError {
    @available(*, deprecated, renamed: "Code")
    public typealias Kind = Code
    @available(*, deprecated, renamed: "code")
    public var kind: Code { code }
}
