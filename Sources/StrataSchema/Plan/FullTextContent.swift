import StrataSQLite

/// An FTS4/FTS5 table over external content (`content=doc`): its index holds, for each row of the
/// content table (or view), that row's key and tokens. The key is the content's rowid for FTS4 and
/// for FTS5 by default, or the column FTS5's `content_rowid` names. Whatever changes the content
/// rows' keys or values behind the index's back (a rebuild whose copy gives rows new rowids, a
/// backfill) leaves the index answering for rows that are not there: `MATCH` returns the wrong
/// rows and FTS5's `integrity-check` reports the table malformed. So a plan indexes such a table
/// again (``PlanStep/rebuildFullTextIndex(_:)``) after changing its content, and checks it (``integrityCheckSQL``).
///
/// FTS3 has no external content (its `content=` argument declares a column named `content`) and
/// a contentless table (`content=''`) has no content table: neither is one of these. See
/// <https://www.sqlite.org/fts5.html#external_content_tables> and
/// <https://www.sqlite.org/fts3.html#_external_content_fts4_tables_>.
struct FullTextContent: Sendable, Hashable {
    /// The FTS table.
    var table: String
    /// `fts4` or `fts5` (lowercased).
    var module: String
    /// The content table or view, as the `content` option names it (dequoted).
    var content: String
    /// FTS5's `content_rowid`, when it names a column rather than the rowid.
    var contentRowID: String?

    /// Nil unless `t` is an FTS4/FTS5 virtual table whose `content` option names a table or view.
    init?(_ t: TableInfo) {
        guard t.isVirtual, let arguments = VirtualTableArguments(sql: t.sql) else { return nil }
        let module = arguments.module.asciiLowercased()
        guard module == "fts4" || module == "fts5", let content = arguments.option("content"), !content.isEmpty
        else { return nil }
        self.table = t.name
        self.module = module
        self.content = content
        if module == "fts5", let rowID = arguments.option("content_rowid"), !rowID.asciiCaseInsensitiveEquals("rowid") {
            contentRowID = rowID
        }
    }

    /// The lowercased content name, to match table and view keys.
    var contentKey: String { content.asciiLowercased() }

    /// The FTS module's own check of the index against the content's rows: for FTS5,
    /// `INSERT INTO t(t, rank) VALUES ('integrity-check', 1)` (a rank of 1 also compares the index
    /// with the content table; without it FTS5 checks only the index's own structure); for FTS4,
    /// `INSERT INTO t(t) VALUES ('integrity-check')`, which always compares. Fails with
    /// `SQLITE_CORRUPT_VTAB` ("database disk image is malformed") when they differ, and with an
    /// error when the content lacks a column or key the FTS table reads. See
    /// <https://www.sqlite.org/fts5.html#the_integrity_check_command> and
    /// <https://www.sqlite.org/fts3.html#*fts4ickcmd>.
    var integrityCheckSQL: String {
        let name = SQL.quoteIdentifier(table)
        if module == "fts5" { return "INSERT INTO \(name)(\(name), rank) VALUES ('integrity-check', 1)" }
        return "INSERT INTO \(name)(\(name)) VALUES ('integrity-check')"
    }

    /// The FTS tables over external content in `schema`.
    static func all(in schema: DatabaseSchema) -> [FullTextContent] {
        schema.tables.compactMap(FullTextContent.init)
    }

    /// `names` (lowercased table and view names) and the views of `schema` that read any of them,
    /// directly or through other views: what a content option naming one of them reads.
    static func reach(of names: Set<String>, views: [ViewInfo]) -> Set<String> {
        var reach = names
        var grew = true
        while grew {
            grew = false
            for v in views where !reach.contains(v.key) && !SQLMentions.names(in: v.sql).isDisjoint(with: reach) {
                reach.insert(v.key)
                grew = true
            }
        }
        return reach
    }
}
