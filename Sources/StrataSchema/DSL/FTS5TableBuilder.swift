/// Declares the columns and options of an FTS5 table in `db.create(virtualTable:options:using:body:)`,
/// ``SchemaDefinition/virtualTable(_:options:using:body:)`` or ``FTS5TableDefinition/init(_:options:body:)``.
///
/// ```swift
/// try db.create(virtualTable: "book_fts", using: FTS5()) { t in
///     t.synchronize(withTable: "book", rowID: "id")                // external content, kept in sync
///     t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove))
///     t.prefixes = [2, 3]
///     t.column("title")
///     t.column("body")
///     t.column("isbn").unindexed()
/// }
/// ```
///
/// The result is an ``FTS5TableDefinition`` value. See <https://www.sqlite.org/fts5.html>.
public final class FTS5TableBuilder {
    /// The name of the table being declared.
    public let name: String
    var columns: [FTS5ColumnBuilder] = []

    /// `tokenize=...`: the tokenizer, or nil for FTS5's default (`unicode61`).
    ///
    /// ```swift
    /// t.tokenizer = .trigram() // tokenize='trigram'
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#tokenizers>.
    public var tokenizer: FTS5.Tokenizer?

    /// `content=...`: an external content table (or view) whose rows the index reads, `""` for a
    /// contentless table, nil (the default) for a table that stores its own copy of the text.
    ///
    /// ```swift
    /// t.content = ""            // content='': contentless, the text is indexed but not stored
    /// t.content = "bookView"    // content='bookView': you keep the index in sync yourself
    /// ```
    ///
    /// Setting it directly creates no trigger: use ``synchronize(withTable:rowID:)`` to have
    /// the index follow a content table. See <https://www.sqlite.org/fts5.html#external_content_and_contentless_tables>.
    public var content: String?

    /// `content_rowid=...`: the column of the content table that holds the rowid of each row,
    /// or nil for the content table's `rowid`.
    ///
    /// ```swift
    /// t.content = "book"
    /// t.contentRowID = "id" // content_rowid='id'
    /// ```
    public var contentRowID: String?

    /// `prefix='2 3'`: the lengths of the prefix indexes, which make prefix queries such as
    /// `MATCH 'sql*'` fast.
    ///
    /// ```swift
    /// t.prefixes = [2, 3] // prefix='2 3'
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#prefix_indexes>.
    public var prefixes: Set<Int> = []

    /// Set to false for `columnsize=0`: a smaller index that does not store the size of each
    /// value.
    ///
    /// ```swift
    /// t.columnSize = false // columnsize=0
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#the_columnsize_option>.
    public var columnSize = true

    /// `detail=...`: how much the index records about token positions (default ``FTS5/Detail/full``).
    ///
    /// ```swift
    /// t.detail = .none // detail=none
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#the_detail_option>.
    public var detail: FTS5.Detail = .full

    var synchronizesContent = false

    init(name: String) {
        self.name = name
    }

    /// `"name"`: appends a column, full-text indexed unless you call
    /// ``FTS5ColumnBuilder/unindexed()`` on the result.
    ///
    /// ```swift
    /// t.column("body")               // "body"
    /// t.column("lang").unindexed()   // "lang" UNINDEXED
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#overview_of_fts5>.
    @discardableResult
    public func column(_ name: String) -> FTS5ColumnBuilder {
        let column = FTS5ColumnBuilder(FTS5ColumnDefinition(name))
        columns.append(column)
        return column
    }

    /// `content='table', content_rowid='rowID'` plus three triggers on `table` (after insert,
    /// after delete, after update) that keep the index in sync with it; creating the FTS table
    /// indexes the rows already there (`'rebuild'`).
    ///
    /// ```swift
    /// try db.create(virtualTable: "book_fts", using: FTS5()) { t in
    ///     t.synchronize(withTable: "book", rowID: "id")
    ///     t.column("title") // a column of "book"
    /// }
    /// try db.execute(sql: "INSERT INTO book(title) VALUES ('SQLite internals')") // indexed by "book_fts_ai"
    /// ```
    ///
    /// Every FTS column must be a column of `table`. `rowID` is the column that holds the
    /// rowid, usually the `INTEGER PRIMARY KEY`; nil uses the content table's `rowid`.
    /// See <https://www.sqlite.org/fts5.html#external_content_tables>.
    public func synchronize(withTable table: String, rowID: String? = nil) {
        content = table
        contentRowID = rowID
        synchronizesContent = true
    }

    func definition(options: VirtualTableOptions) -> FTS5TableDefinition {
        FTS5TableDefinition(
            name, options: options, columns: columns.map(\.definition), tokenizer: tokenizer, content: content,
            contentRowID: contentRowID, synchronizesContent: synchronizesContent,
            prefixes: prefixes, columnSize: columnSize, detail: detail)
    }
}

/// Refines a column declared in an FTS5 table: see ``FTS5TableBuilder/column(_:)``.
///
/// ```swift
/// t.column("isbn").unindexed() // "isbn" UNINDEXED
/// ```
public final class FTS5ColumnBuilder {
    /// The column as declared so far.
    public private(set) var definition: FTS5ColumnDefinition

    init(_ definition: FTS5ColumnDefinition) {
        self.definition = definition
    }

    /// `UNINDEXED`: the column's values are stored and returned, but not searched.
    ///
    /// ```swift
    /// t.column("lang").unindexed() // "lang" UNINDEXED
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#the_unindexed_column_option>.
    @discardableResult
    public func unindexed() -> Self {
        definition.isIndexed = false
        return self
    }
}
