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

/// The one rendering of an error line, shared by every ``StrataError``, and the bound on what an
/// error text may quote (issue 37).
///
/// Errors quote what was at fault: SQL, a file's text, a name, a path. Such input can be
/// megabytes, so no error text quotes it whole: ``line(opening:message:cause:)`` bounds each of
/// its parts, every error type bounds its ``StrataError/message`` when it is made, and a piece
/// cut short ends with `…` and the number of characters left out:
///
/// ```text
/// huge.sql: statement 1 `CREATE TABLE t(x TEXT DEFAULT 'aaaa… (749,913 more characters)`: unrecognized token: "'aaaa… (749,075 more characters)
/// ```
///
/// A description is at most ``descriptionLimit`` characters, a message at most ``messageLimit``.
/// The input itself stays whole where the error keeps it as data (``SQLiteError/sql``,
/// ``SQLiteError/arguments``, a schema error's ``StrataError/underlyingError``...).
package enum StrataErrorText {
    /// The most characters of any error's description (and of any line the CLI prints for one).
    package static let descriptionLimit = 2_000
    /// The most characters of an error's message.
    package static let messageLimit = 1_000
    /// The most characters of a description's opening (the culprit) and of a quoted statement.
    package static let quoteLimit = 250
    /// The most characters of the cause a description shows in parentheses.
    package static let causeLimit = 600

    /// `opening: message (cause)`, each part left out when nil or empty, and each bounded
    /// (``bounded(_:limit:)``): at most ``descriptionLimit`` characters in all.
    package static func line(opening: String?, message: String, cause: (any Error)?) -> String {
        var text = ""
        if let opening, !opening.isEmpty { text = bounded(opening, limit: quoteLimit) + ": " }
        text += bounded(message, limit: messageLimit)
        if let cause {
            let shown = "\(cause)"
            if !shown.isEmpty { text += " (" + bounded(shown, limit: causeLimit) + ")" }
        }
        return text
    }

    /// `text` when it has at most `limit` characters; else its start, `…`, and how many
    /// characters were left out, `limit` characters in all: `CREATE TABLE t(…` +
    /// ` (749,880 more characters)`.
    package static func bounded(_ text: String, limit: Int = messageLimit) -> String {
        // Most texts are short: their UTF-8 length already says so.
        if text.utf8.count <= limit { return text }
        guard text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex).map({ $0 < text.endIndex }) == true
        else { return text }
        // Room for the mark: `… (` and ` more characters)` and up to 15 digits with commas.
        let end = text.index(text.startIndex, offsetBy: Swift.max(limit - markLength, 0))
        let rest = text[end...].count
        return text[..<end] + "… (" + grouped(rest) + " more character" + (rest == 1 ? ")" : "s)")
    }

    /// The most characters the mark of a cut takes (`… (999,999,999,999,999 more characters)`).
    static let markLength = 40

    /// Each line of `text` bounded (``bounded(_:limit:)``): for a message of several lines, such
    /// as the CLI's list of refused changes.
    package static func boundedLines(_ text: String, limit: Int = descriptionLimit) -> String {
        if text.utf8.count <= limit { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { bounded(String($0), limit: limit) }.joined(separator: "\n")
    }

    /// `n` with a comma between groups of three digits: `749,880`.
    package static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return n < 0 ? "-" + out : out
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
