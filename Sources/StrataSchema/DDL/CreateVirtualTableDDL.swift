import StrataSQLite

/// `CREATE VIRTUAL TABLE [IF NOT EXISTS] name USING module(arguments)`.
///
/// ```sql
/// CREATE VIRTUAL TABLE "book_fts" USING fts5("title", "body", content='book', tokenize='porter')
/// ```
///
/// The module name is written as given (a plain name such as `fts5`), the arguments as SQL.
/// See <https://www.sqlite.org/lang_createvtab.html>.
package struct CreateVirtualTableDDL: DDLStatement {
    package var name: String
    package var module: String
    package var arguments: [String]
    package var ifNotExists: Bool

    package init(_ name: String, using module: String, arguments: [String], ifNotExists: Bool = false) {
        self.name = name
        self.module = module
        self.arguments = arguments
        self.ifNotExists = ifNotExists
    }

    package var sql: String {
        "CREATE VIRTUAL TABLE " + (ifNotExists ? "IF NOT EXISTS " : "") + SQL.quoteIdentifier(name)
            + " USING " + module + "(" + arguments.joined(separator: ", ") + ")"
    }
}
