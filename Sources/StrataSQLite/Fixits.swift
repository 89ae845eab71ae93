// Capability flags renamed to read as assertions (issue 12): each old spelling is a compile error
// that names the new one.

extension SQLiteCapabilities {
    @available(*, unavailable, renamed: "supportsRenameColumn")
    public var renameColumn: Bool { supportsRenameColumn }
    @available(*, unavailable, renamed: "supportsModernRenameTable")
    public var modernRenameTable: Bool { supportsModernRenameTable }
    @available(*, unavailable, renamed: "supportsDropColumn")
    public var dropColumn: Bool { supportsDropColumn }
    @available(*, unavailable, renamed: "supportsReturning")
    public var returning: Bool { supportsReturning }
    @available(*, unavailable, renamed: "supportsGeneratedColumns")
    public var generatedColumns: Bool { supportsGeneratedColumns }
    @available(*, unavailable, renamed: "supportsTableListPragma")
    public var tableListPragma: Bool { supportsTableListPragma }
    @available(*, unavailable, renamed: "supportsStrictTables")
    public var strictTables: Bool { supportsStrictTables }
    @available(*, unavailable, renamed: "supportsAlterConstraints")
    public var alterConstraints: Bool { supportsAlterConstraints }
}

// Error `kind`s renamed `code` when every error took one shape (``StrataError``, issue 14): the
// old spellings still compile, with a warning whose fix-it writes the new name. `Kind` and
// `kind` are deprecated once for every error type, beside the protocol (`StrataError.swift`);
// the initializers that took `kind:` are here.

extension BackupError {
    @available(*, deprecated, renamed: "init(code:path:message:underlyingError:)")
    public init(kind: Code, path: String, message: String, underlyingError: (any Error)? = nil) {
        self.init(code: kind, path: path, message: message, underlyingError: underlyingError)
    }
}

extension DatabaseAccessError {
    @available(*, deprecated, renamed: "init(code:path:message:underlyingError:)")
    public init(kind: Code, path: String, message: String, underlyingError: (any Error)? = nil) {
        self.init(code: kind, path: path, message: message, underlyingError: underlyingError)
    }
}

extension RecordError {
    @available(*, deprecated, renamed: "init(code:recordType:tableName:key:message:)")
    public init(kind: Code, recordType: String, tableName: String, key: [String: SQLValue] = [:], message: String) {
        self.init(code: kind, recordType: recordType, tableName: tableName, key: key, message: message)
    }
}

extension RowDecodingError {
    @available(*, deprecated, renamed: "init(code:column:requestedType:value:availableColumns:sql:recordType:detail:)")
    public init(
        kind: Code, column: String, requestedType: String, value: SQLValue?, availableColumns: [String], sql: String?,
        recordType: String? = nil, detail: String? = nil
    ) {
        self.init(
            code: kind, column: column, requestedType: requestedType, value: value, availableColumns: availableColumns,
            sql: sql, recordType: recordType, detail: detail)
    }
}

// One region type and one assignment type (issue 25): a request reports the ``DatabaseRegion``
// that observation tracks, and an upsert takes the ``ColumnAssignment``s of `updateAll`.

@available(*, unavailable, renamed: "DatabaseRegion")
public typealias RequestRegion = DatabaseRegion

@available(*, unavailable, renamed: "ColumnAssignment")
public typealias UpsertAssignment = ColumnAssignment

// `SQL`, StrataSchema's identifier and literal quoting helpers, is package-level since issue 27.
// This unavailable stand-in is declared here, in the module StrataSchema imports, so that
// StrataSchema's package-level `SQL` shadows it inside the package while apps get the fix-it.
/// Strata's identifier and literal quoting helpers are package-level since issue 27 (in GRDB,
/// `SQL` is the literal type, and users would expect that meaning).
@available(
    *, unavailable,
    message:
        "Strata's SQL quoting helpers are no longer public: use SQLLiteral.quote(identifier:) or SQLValue.sqlLiteral"
)
public enum SQL {
    @available(*, unavailable, renamed: "SQLLiteral.quote(identifier:)")
    public static func quoteIdentifier(_ name: String) -> String { SQLLiteral.quote(identifier: name) }

    @available(*, unavailable, message: "use value.sqlValue.sqlLiteral")
    public static func literal(_ value: some SQLValueConvertible) -> String { value.sqlValue.sqlLiteral }
}
