extension FetchableRecord {
    /// All records of a query.
    ///
    /// ```swift
    /// let notes = try Note.fetchAll(db, sql: "SELECT * FROM note WHERE title LIKE ?", arguments: ["%milk%"])
    /// ```
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// All records of an interpolated query (values bound, never spliced into the SQL).
    ///
    /// ```swift
    /// let notes = try Note.fetchAll(db, literal: "SELECT * FROM note WHERE title LIKE \(pattern)")
    /// ```
    public static func fetchAll(_ db: Database, literal: SQLLiteral) throws -> [Self] {
        try fetchAll(db, sql: literal.sql, arguments: literal.arguments)
    }

    /// All records of a prepared statement.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "SELECT * FROM note WHERE id > ?")
    /// let notes = try Note.fetchAll(statement, arguments: [10])
    /// ```
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try statement.bind(arguments)
        defer { statement.reset() }
        var records = [Self]()
        guard try statement.step() else { return records }
        records.append(try Self(row: statement.currentRow()))
        if let fast = StatementRecordDecoder<Self>(statement: statement) {
            while try statement.step() { records.append(try fast.decode()) }
        } else {
            var copier = ReusedRowCopier(statement: statement)
            while try statement.step() { records.append(try Self(row: copier.currentRow())) }
        }
        return records
    }

    /// The first record of a query, or nil.
    ///
    /// ```swift
    /// let note = try Note.fetchOne(db, sql: "SELECT * FROM note WHERE id = ?", arguments: [1])
    /// ```
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// The first record of an interpolated query, or nil.
    ///
    /// ```swift
    /// let note = try Note.fetchOne(db, literal: "SELECT * FROM note WHERE title = \(title)")
    /// ```
    public static func fetchOne(_ db: Database, literal: SQLLiteral) throws -> Self? {
        try fetchOne(db, sql: literal.sql, arguments: literal.arguments)
    }

    /// The first record of a prepared statement, or nil.
    ///
    /// ```swift
    /// let note = try Note.fetchOne(statement, arguments: [1])
    /// ```
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? Self(row: statement.currentRow()) : nil
    }

    /// A lazy cursor over the records of a query, on a fresh (uncached) statement.
    ///
    /// ```swift
    /// let cursor = try Note.fetchCursor(db, sql: "SELECT * FROM note")
    /// while let note = try cursor.next() { ... }
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> RecordCursor<Self> {
        let statement = try db.makeStatement(sql: sql)
        try statement.bind(arguments)
        return RecordCursor(statement: statement)
    }

    /// A lazy cursor over the records of an interpolated query.
    ///
    /// ```swift
    /// let cursor = try Note.fetchCursor(db, literal: "SELECT * FROM note WHERE createdAt > \(date)")
    /// ```
    public static func fetchCursor(_ db: Database, literal: SQLLiteral) throws -> RecordCursor<Self> {
        try fetchCursor(db, sql: literal.sql, arguments: literal.arguments)
    }
}

extension Database {
    /// All records of a query: `db.fetchAll(Note.self, sql: ...)` is `Note.fetchAll(db, sql: ...)`.
    ///
    /// ```swift
    /// let notes = try db.fetchAll(Note.self, sql: "SELECT * FROM note ORDER BY title")
    /// ```
    public func fetchAll<Record: FetchableRecord>(
        _ type: Record.Type, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Record] {
        try Record.fetchAll(self, sql: sql, arguments: arguments)
    }

    /// All records of an interpolated query.
    ///
    /// ```swift
    /// let notes = try db.fetchAll(Note.self, literal: "SELECT * FROM note WHERE title LIKE \(pattern)")
    /// ```
    public func fetchAll<Record: FetchableRecord>(_ type: Record.Type, literal: SQLLiteral) throws -> [Record] {
        try Record.fetchAll(self, literal: literal)
    }

    /// The first record of a query, or nil.
    ///
    /// ```swift
    /// let note = try db.fetchOne(Note.self, sql: "SELECT * FROM note WHERE id = ?", arguments: [1])
    /// ```
    public func fetchOne<Record: FetchableRecord>(
        _ type: Record.Type, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Record? {
        try Record.fetchOne(self, sql: sql, arguments: arguments)
    }

    /// The first record of an interpolated query, or nil.
    ///
    /// ```swift
    /// let note = try db.fetchOne(Note.self, literal: "SELECT * FROM note WHERE id = \(id)")
    /// ```
    public func fetchOne<Record: FetchableRecord>(_ type: Record.Type, literal: SQLLiteral) throws -> Record? {
        try Record.fetchOne(self, literal: literal)
    }

    /// A lazy cursor over the records of a query.
    ///
    /// ```swift
    /// let cursor = try db.fetchCursor(Note.self, sql: "SELECT * FROM note")
    /// ```
    public func fetchCursor<Record: FetchableRecord>(
        _ type: Record.Type, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> RecordCursor<Record> {
        try Record.fetchCursor(self, sql: sql, arguments: arguments)
    }

    /// A lazy cursor over the records of an interpolated query.
    ///
    /// ```swift
    /// let cursor = try db.fetchCursor(Note.self, literal: "SELECT * FROM note WHERE id > \(id)")
    /// ```
    public func fetchCursor<Record: FetchableRecord>(
        _ type: Record.Type, literal: SQLLiteral
    ) throws -> RecordCursor<Record> {
        try Record.fetchCursor(self, literal: literal)
    }
}
