import StrataSQLite

/// Options of `CREATE VIRTUAL TABLE`.
///
/// ```swift
/// try db.create(virtualTable: "note_fts", options: .ifNotExists, using: FTS5()) { t in t.column("body") }
/// ```
///
/// See <https://www.sqlite.org/lang_createvtab.html>.
public struct VirtualTableOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing when a table with that name exists (nor do the
    /// synchronization triggers when triggers with their names exist).
    public static let ifNotExists = VirtualTableOptions(rawValue: 1 << 0)
}

/// `"name" [UNINDEXED]`: one column of an FTS5 table.
///
/// ```swift
/// FTS5ColumnDefinition("body").sql                      // "body"
/// FTS5ColumnDefinition("lang", isIndexed: false).sql    // "lang" UNINDEXED
/// ```
///
/// FTS5 columns have no type and no constraint. See <https://www.sqlite.org/fts5.html#the_unindexed_column_option>.
public struct FTS5ColumnDefinition: Sendable, Hashable {
    /// The column name.
    public var name: String
    /// False for `UNINDEXED`: the values are stored and returned, but not searched.
    public var isIndexed: Bool

    /// A column named `name`, full-text indexed unless `isIndexed` is false.
    ///
    /// ```swift
    /// let column = FTS5ColumnDefinition("title")
    /// ```
    public init(_ name: String, isIndexed: Bool = true) {
        self.name = name
        self.isIndexed = isIndexed
    }

    /// The column as SQL: `"name"` or `"name" UNINDEXED`.
    public var sql: String {
        SQL.quoteIdentifier(name) + (isIndexed ? "" : " UNINDEXED")
    }
}

/// `CREATE VIRTUAL TABLE name USING fts5(columns, options)`: an FTS5 full-text table, with the
/// triggers that keep it in sync with an external content table.
///
/// ```swift
/// let bookFTS = FTS5TableDefinition("book_fts") { t in
///     t.synchronize(withTable: "book", rowID: "id")
///     t.tokenizer = .porter()
///     t.column("title")
///     t.column("body")
/// }
/// bookFTS.sql
/// // CREATE VIRTUAL TABLE "book_fts" USING fts5("title", "body", content='book', content_rowid='id', tokenize='porter')
/// bookFTS.synchronizationTriggers[0]
/// // CREATE TRIGGER "book_fts_ai" AFTER INSERT ON "book" BEGIN
/// //   INSERT INTO "book_fts"(rowid, "title", "body") VALUES (new."id", new."title", new."body");
/// // END
/// try db.create(bookFTS)
/// ```
///
/// Options are written after the columns in this order: `content`, `content_rowid`, `tokenize`,
/// `prefix`, `columnsize`, `detail`. Names are quoted as identifiers and
/// option values written as SQL string literals, so any name works.
/// See <https://www.sqlite.org/fts5.html> and <https://www.sqlite.org/lang_createvtab.html>.
public struct FTS5TableDefinition: Sendable, Hashable {
    /// The table name.
    public var name: String
    /// The options (if not exists).
    public var options: VirtualTableOptions
    /// The columns, in order.
    public var columns: [FTS5ColumnDefinition]
    /// `tokenize=...`, or nil for FTS5's default (`unicode61`).
    public var tokenizer: FTS5.Tokenizer?
    /// `content=...`: nil for a table that stores its own copy of the text (the default), a
    /// table or view name for an external content table, `""` for a contentless table.
    /// See <https://www.sqlite.org/fts5.html#external_content_and_contentless_tables>.
    public var content: String?
    /// `content_rowid=...`: the column of the content table that holds the rowid of the FTS
    /// table, or nil for the content table's `rowid`.
    public var contentRowID: String?
    /// True when the ``synchronizationTriggers`` keep the index in sync with the ``content``
    /// table: see ``FTS5TableBuilder/synchronize(withTable:rowID:)``.
    public var synchronizesContent: Bool
    /// `prefix='2 3'`: the lengths of the prefix indexes, which make `MATCH 'ab*'` fast.
    /// See <https://www.sqlite.org/fts5.html#prefix_indexes>.
    public var prefixes: Set<Int>
    /// False for `columnsize=0`: the index does not store the size of each value (smaller, but
    /// `bm25()` and some auxiliary functions get slower). See <https://www.sqlite.org/fts5.html#the_columnsize_option>.
    public var columnSize: Bool
    /// `detail=...`, written when it is not FTS5's default, ``FTS5/Detail/full``.
    public var detail: FTS5.Detail

    /// An FTS5 table from its parts.
    ///
    /// ```swift
    /// let notes = FTS5TableDefinition("note_fts", columns: [FTS5ColumnDefinition("body")])
    /// ```
    public init(
        _ name: String, options: VirtualTableOptions = [], columns: [FTS5ColumnDefinition],
        tokenizer: FTS5.Tokenizer? = nil, content: String? = nil, contentRowID: String? = nil,
        synchronizesContent: Bool = false, prefixes: Set<Int> = [], columnSize: Bool = true, detail: FTS5.Detail = .full
    ) {
        self.name = name
        self.options = options
        self.columns = columns
        self.tokenizer = tokenizer
        self.content = content
        self.contentRowID = contentRowID
        self.synchronizesContent = synchronizesContent
        self.prefixes = prefixes
        self.columnSize = columnSize
        self.detail = detail
    }

    /// An FTS5 table declared with the same builder as `db.create(virtualTable:options:using:body:)`.
    ///
    /// ```swift
    /// let notes = FTS5TableDefinition("note_fts") { t in
    ///     t.column("body")
    ///     t.column("noteId").unindexed()
    /// }
    /// ```
    public init(_ name: String, options: VirtualTableOptions = [], body: (FTS5TableBuilder) throws -> Void) rethrows {
        let builder = FTS5TableBuilder(name: name)
        try body(builder)
        self = builder.definition(options: options)
    }

    /// The `CREATE VIRTUAL TABLE` statement (without the triggers, see ``statements``).
    public var sql: String {
        var arguments = columns.map(\.sql)
        if let content { arguments.append("content=\(SQLValue.text(content).sqlLiteral)") }
        if let contentRowID { arguments.append("content_rowid=\(SQLValue.text(contentRowID).sqlLiteral)") }
        if let tokenizer { arguments.append("tokenize=\(tokenizer.sql)") }
        if !prefixes.isEmpty {
            arguments.append(
                "prefix=" + SQLValue.text(prefixes.sorted().map(String.init).joined(separator: " ")).sqlLiteral)
        }
        if !columnSize { arguments.append("columnsize=0") }
        if detail != .full { arguments.append("detail=\(detail.rawValue)") }
        return CreateVirtualTableDDL(
            name, using: "fts5", arguments: arguments, ifNotExists: options.contains(.ifNotExists)
        )
        .sql
    }

    /// The names of the ``synchronizationTriggers``: `"<name>_ai"`, `"<name>_ad"` and `"<name>_au"`.
    ///
    /// ```swift
    /// FTS5TableDefinition.synchronizationTriggerNames(for: "book_fts") // ["book_fts_ai", "book_fts_ad", "book_fts_au"]
    /// ```
    public static func synchronizationTriggerNames(for table: String) -> [String] {
        ["\(table)_ai", "\(table)_ad", "\(table)_au"]
    }

    /// The `CREATE TRIGGER` statements that keep the index in sync with the content table (after
    /// insert, after delete, after update, with FTS5's `'delete'` command), or `[]` unless
    /// ``synchronizesContent``.
    ///
    /// ```swift
    /// // CREATE TRIGGER "book_fts_ad" AFTER DELETE ON "book" BEGIN
    /// //   INSERT INTO "book_fts"("book_fts", rowid, "title") VALUES ('delete', old."id", old."title");
    /// // END
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#external_content_tables>.
    public var synchronizationTriggers: [String] {
        guard synchronizesContent, let content, !content.isEmpty else { return [] }
        let fts = SQL.quoteIdentifier(name)
        let rowID = contentRowID.map(SQL.quoteIdentifier) ?? "rowid"
        let ftsColumns = (["rowid"] + columns.map { SQL.quoteIdentifier($0.name) }).joined(separator: ", ")
        func values(_ row: String) -> String {
            ([rowID] + columns.map { SQL.quoteIdentifier($0.name) }).map { "\(row).\($0)" }.joined(separator: ", ")
        }
        let insert = "INSERT INTO \(fts)(\(ftsColumns)) VALUES (\(values("new")))"
        let delete = "INSERT INTO \(fts)(\(fts), \(ftsColumns)) VALUES ('delete', \(values("old")))"
        let names = Self.synchronizationTriggerNames(for: name)
        let events: [(CreateTriggerDDL.Event, [String])] = [
            (.insert, [insert]), (.delete, [delete]), (.update(of: []), [delete, insert]),
        ]
        return zip(names, events).map { name, event in
            CreateTriggerDDL(
                name, .after, event.0, on: content, body: event.1, ifNotExists: options.contains(.ifNotExists)
            ).sql
        }
    }

    /// The `CREATE VIRTUAL TABLE` statement followed by the ``synchronizationTriggers``: what
    /// the table contributes to a ``SchemaDefinition``'s SQL.
    public var statements: [String] {
        [sql] + synchronizationTriggers
    }

    /// `INSERT INTO "name"("name") VALUES ('rebuild')`, which indexes the rows already in the
    /// content table, when the table is synchronized with one.
    /// See <https://www.sqlite.org/fts5.html#the_rebuild_command>.
    var populateStatements: [String] {
        guard synchronizesContent, let content, !content.isEmpty else { return [] }
        return [RebuildFullTextIndexDDL(name).sql]
    }

    /// What `db.create(_:)` runs: ``statements``, then the rebuild of a synchronized table.
    var creationStatements: [String] {
        statements + populateStatements
    }

    /// Problems SQLite would report less clearly, or not at all: no columns, two columns with
    /// the same name, a prefix length out of 1...999, synchronization without a content table,
    /// a NUL character in an option value, an empty tokenizer.
    func validate() throws {
        let table = "virtual table \(SQL.quoteIdentifier(name))"
        guard !columns.isEmpty else { throw SchemaDefinitionError("\(table) has no columns") }
        var seen = Set<String>()
        for column in columns where !seen.insert(column.name.asciiLowercased()).inserted {
            throw SchemaDefinitionError("\(table) has two columns named \(SQL.quoteIdentifier(column.name))")
        }
        if let bad = prefixes.sorted().first(where: { !(1...999).contains($0) }) {
            throw SchemaDefinitionError("\(table): prefix length \(bad) is out of 1...999")
        }
        if synchronizesContent, content?.isEmpty ?? true {
            throw SchemaDefinitionError("\(table): synchronize(withTable:) needs the name of a content table")
        }
        if let tokenizer, tokenizer.components.isEmpty {
            throw SchemaDefinitionError("\(table): the tokenizer has no name")
        }
        let values = [content, contentRowID].compactMap { $0 } + (tokenizer?.components ?? [])
        if values.contains(where: { $0.utf8.contains(0) }) {
            throw SchemaDefinitionError("\(table): an option value holds a NUL character")
        }
    }

    /// For a synchronized table, checks that its columns and ``contentRowID`` are among
    /// `contentColumns`, the columns of its content table: SQLite only compiles the triggers,
    /// and reports a missing column, at the first change of the content table.
    func validateSynchronization(contentColumns: [String]) throws {
        guard synchronizesContent, let content else { return }
        let known = Set(contentColumns.map { $0.asciiLowercased() } + ["rowid", "oid", "_rowid_"])
        let needed = columns.map(\.name) + (contentRowID.map { [$0] } ?? [])
        if let missing = needed.first(where: { !known.contains($0.asciiLowercased()) }) {
            throw SchemaDefinitionError(
                "virtual table \(SQL.quoteIdentifier(name)): \(SQL.quoteIdentifier(missing)) is not a column of "
                    + "its content table \(SQL.quoteIdentifier(content))")
        }
    }
}
