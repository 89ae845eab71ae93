import StrataSQLite

/// `CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (elements) [WITHOUT ROWID][, STRICT]`, from its
/// parts, or a stored `CREATE TABLE` text under another name.
///
/// ```sql
/// CREATE TABLE "player" ( -- @renamed from="athlete"
///   "id" INTEGER PRIMARY KEY,
///   "fullName" TEXT NOT NULL, -- @renamed from="name"
///   CHECK ("fullName" <> '')
/// ) WITHOUT ROWID, STRICT
/// ```
///
/// Each column and table constraint goes on its own line, so the stored SQL stays readable and a
/// rename hint (`-- @renamed from="old"`) can end a line. The copy form
/// (``copy(of:named:)``, a rebuild's temporary table) keeps the stored text byte for byte and
/// replaces only the table name:
///
/// ```swift
/// let stored = try CreateTableStatement(sql: "CREATE TABLE t (a INTEGER) -- kept")
/// CreateTableDDL.copy(of: stored, named: "strata_tmp_1").sql
/// // CREATE TABLE "strata_tmp_1" (a INTEGER) -- kept
/// ```
///
/// See <https://www.sqlite.org/lang_createtable.html>.
package struct CreateTableDDL: DDLStatement {
    /// One line of the table body: a column definition or a table constraint, as SQL.
    package struct Element: Sendable, Hashable {
        /// The definition (`"id" INTEGER PRIMARY KEY`) or constraint (`UNIQUE ("a", "b")`).
        package var sql: String
        /// The old name of a renamed column, written as a `-- @renamed from=` hint.
        package var renamedFrom: String?

        package init(_ sql: String, renamedFrom: String? = nil) {
            self.sql = sql
            self.renamedFrom = renamedFrom
        }
    }

    private enum Body: Sendable, Hashable {
        case parts([Element])
        case copy(CreateTableStatement)
    }

    /// The name of the created table.
    package var name: String
    package var isTemporary = false
    package var ifNotExists = false
    package var isWithoutRowID = false
    package var isStrict = false
    /// The table's old name, written as a `-- @renamed from=` hint after `(`.
    package var renamedFrom: String?
    private var body: Body

    /// A table from its lines (columns first, then table constraints).
    package init(
        _ name: String, elements: [Element], isTemporary: Bool = false, ifNotExists: Bool = false,
        isWithoutRowID: Bool = false, isStrict: Bool = false, renamedFrom: String? = nil
    ) {
        self.name = name
        self.body = .parts(elements)
        self.isTemporary = isTemporary
        self.ifNotExists = ifNotExists
        self.isWithoutRowID = isWithoutRowID
        self.isStrict = isStrict
        self.renamedFrom = renamedFrom
    }

    /// `stored` exactly as written, with only the table name replaced by `name` (quoted): the
    /// temporary table of a rebuild, which must be the desired table to the byte.
    package static func copy(of stored: CreateTableStatement, named name: String) -> CreateTableDDL {
        var ddl = CreateTableDDL(
            name, elements: [], isWithoutRowID: stored.isWithoutRowID, isStrict: stored.isStrict,
            renamedFrom: stored.renamedFrom)
        ddl.body = .copy(stored)
        return ddl
    }

    package var sql: String {
        switch body {
        case .copy(let stored):
            let bytes = Array(stored.sql.utf8)
            return String(decoding: bytes[..<stored.nameRange.lowerBound], as: UTF8.self)
                + SQL.quoteIdentifier(name)
                + String(decoding: bytes[stored.nameRange.upperBound...], as: UTF8.self)
        case .parts(let elements):
            var sql = "CREATE " + (isTemporary ? "TEMPORARY " : "") + "TABLE " + (ifNotExists ? "IF NOT EXISTS " : "")
            sql += SQL.quoteIdentifier(name) + " (" + Self.renameHint(renamedFrom) + "\n"
            sql += elements.enumerated().map { i, element in
                // The comma goes before the hint, which runs to the end of the line.
                "  " + element.sql + (i < elements.count - 1 ? "," : "") + Self.renameHint(element.renamedFrom)
            }.joined(separator: "\n")
            sql += "\n)"
            let options: [String] = (isWithoutRowID ? ["WITHOUT ROWID"] : []) + (isStrict ? ["STRICT"] : [])
            if !options.isEmpty { sql += " " + options.joined(separator: ", ") }
            return sql
        }
    }

    /// ` -- @renamed from="old"`, the engine's rename hint, or "" when there is no rename or the
    /// old name holds a line break (which would end the comment; the typed
    /// `migrateSchema(to:options:)` passes such renames as options instead).
    static func renameHint(_ oldName: String?) -> String {
        guard let oldName, canWriteHint(for: oldName) else { return "" }
        return " -- @renamed from=\(SQL.quoteIdentifier(oldName))"
    }

    /// False for an old name that a `--` hint cannot carry (it holds a line break).
    static func canWriteHint(for oldName: String) -> Bool {
        !oldName.contains { $0.isNewline }
    }
}
