/// A value that can be selected: a column, an expression, ``AllColumns``.
///
/// ```swift
/// Note.select(Column("id"), Column("title").uppercased.forKey("upperTitle"))
/// ```
public protocol SQLSelectable {
    /// The selected column.
    var sqlSelection: SQLSelection { get }
}

/// One result column of a SELECT: `*`, `"note".*`, an expression, or `expression AS "name"`.
/// See <https://www.sqlite.org/syntax/result-column.html>.
public struct SQLSelection: SQLSelectable, Sendable {
    package enum Kind: Sendable {
        /// `*` (or `alias.*`).
        case allColumns(TableAlias?)
        case expression(SQLExpression, name: String?)
    }

    package var kind: Kind

    package init(kind: Kind) { self.kind = kind }

    /// Itself.
    public var sqlSelection: SQLSelection { self }

    /// The same selection qualified with `alias` (its unqualified columns and `*`).
    package func qualified(with alias: TableAlias) -> SQLSelection {
        switch kind {
        case .allColumns(nil): SQLSelection(kind: .allColumns(alias))
        case .allColumns: self
        case .expression(let expression, let name):
            SQLSelection(kind: .expression(expression.qualified(with: alias), name: name))
        }
    }
}

/// `*`: every column of the table (hidden and generated columns aside).
///
/// ```swift
/// Note.select(AllColumns(), Column.rowID)   // SELECT *, "rowid" FROM "note"
/// ```
public struct AllColumns: SQLSelectable, Sendable {
    /// `*`.
    public init() {}
    /// `*`.
    public var sqlSelection: SQLSelection { SQLSelection(kind: .allColumns(nil)) }
}

extension SQLSelectable where Self == AllColumns {
    /// `*`: `Note.select(.allColumns, Column.rowID)`.
    public static var allColumns: AllColumns { AllColumns() }
}

extension SQLSpecificExpressible {
    /// The expression selected under the name `name`: `expression AS "name"`.
    ///
    /// ```swift
    /// Note.select(Column("title").length.forKey("titleLength"))
    /// // SELECT length("title") AS "titleLength" FROM "note"
    /// ```
    public func forKey(_ name: String) -> SQLSelection {
        SQLSelection(kind: .expression(sqlExpression, name: name))
    }

    /// The expression selected under the name of a coding key.
    public func forKey(_ key: some CodingKey) -> SQLSelection { forKey(key.stringValue) }
}
