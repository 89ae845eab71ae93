import StrataSQLite

/// The names of the temporary tables a rebuild creates, and how error messages are kept free of
/// them.
///
/// A rebuild creates the new definition as `strata_tmp_` followed by 16 hexadecimal digits, copies
/// the rows, drops the old table and renames the new one (`ALTER TABLE "strata_tmp_…" RENAME TO
/// "task"`). SQLite's messages name the table a statement touched, so a failed copy reads
/// `UNIQUE constraint failed: strata_tmp_9f…​.email`; users must see their own table's name.
///
/// ```swift
/// TemporaryNames.userFacing("UNIQUE constraint failed: strata_tmp_00000000000000ab.email", statements: plan.statements)
/// // "UNIQUE constraint failed: task.email"
/// ```
package enum TemporaryNames {
    /// The prefix of a rebuild's temporary table name (``ReservedNames/rebuildTablePrefix``).
    package static var rebuildPrefix: String { ReservedNames.rebuildTablePrefix }

    /// True when `name` has the shape of a rebuild's temporary table name
    /// (``ReservedNames/isRebuildTable(_:)``).
    package static func isRebuildTable(_ name: String) -> Bool { ReservedNames.isRebuildTable(name) }

    /// Temporary table name -> the table it becomes, from the `ALTER TABLE tmp RENAME TO name`
    /// statements in `statements` (each may be a whole script): for SQL text read from a file (a
    /// migration written by `strata new`). A plan's steps know theirs
    /// (``PlanStep/temporaryTables``).
    package static func renames(in statements: [String]) -> [String: String] {
        var result = [String: String]()
        for sql in statements where sql.contains(rebuildPrefix) {
            for (from, to) in StatementShape.tableRenames(in: sql) where isRebuildTable(from) { result[from] = to }
        }
        return result
    }

    /// `text` with every temporary table name of `statements` replaced by the table it becomes
    /// (quoted names by the quoted name, bare ones by the bare name).
    package static func userFacing(_ text: String, statements: [String]) -> String {
        guard text.contains(rebuildPrefix) else { return text }
        return userFacing(text, renames: renames(in: statements))
    }

    /// `text` with every temporary table name of `renames` (temporary name -> the table it
    /// becomes) replaced by the table it becomes (quoted names by the quoted name, bare ones by
    /// the bare name).
    package static func userFacing(_ text: String, renames: [String: String]) -> String {
        guard text.contains(rebuildPrefix) else { return text }
        var result = text
        for (temp, final) in renames {
            result = result.replacingAll(SQL.quoteIdentifier(temp), with: SQL.quoteIdentifier(final))
                .replacingAll(temp, with: final)
        }
        return result
    }
}
