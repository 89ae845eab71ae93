// Requests started from a record type: `Note.filter(...)`, `Note.order(...)`, `Note.find(db, id:)`.

extension TableRecord where DatabaseComponents == Columns.Type {
    /// `Columns.self`.
    public static var databaseComponents: Columns.Type { Columns.self }
}

extension TableRecord {
    /// Every row of the table: `SELECT * FROM "note"`.
    ///
    /// ```swift
    /// let notes = try Note.all().order(Column("title")).fetchAll(db)
    /// ```
    public static func all() -> QueryInterfaceRequest<Self> {
        QueryInterfaceRequest(relation: relation)
    }

    /// No row: `SELECT * FROM "note" WHERE 0`.
    public static func none() -> QueryInterfaceRequest<Self> { all().none() }

    /// The rows where `predicate` is true.
    ///
    /// ```swift
    /// Note.filter(Column("pinned") && Column("title").like("A%"))
    /// ```
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> {
        all().filter(predicate)
    }

    /// The rows where the predicate built from the type's ``Columns`` is true.
    ///
    /// ```swift
    /// Note.filter { $0.pinned && $0.title.like("A%") }
    /// ```
    public static func filter(
        _ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible
    ) rethrows -> QueryInterfaceRequest<Self> {
        all().filter(try predicate(databaseComponents).sqlExpression)
    }

    /// The rows where the SQL condition is true; interpolated values are bound.
    ///
    /// ```swift
    /// Note.filter(literal: "instr(title, \(word)) > 0")
    /// ```
    public static func filter(literal: SQLLiteral) -> QueryInterfaceRequest<Self> { all().filter(literal: literal) }

    /// The rows where the SQL condition is true, with its arguments.
    public static func filter(
        sql: String, arguments: StatementArguments = StatementArguments()
    ) -> QueryInterfaceRequest<Self> {
        all().filter(sql: sql, arguments: arguments)
    }

    /// The row whose primary key is `key`: `Note.filter(key: 42)`.
    public static func filter(key: some SQLValueConvertible) -> QueryInterfaceRequest<Self> { all().filter(key: key) }

    /// The rows whose primary key is one of `keys`: `Note.filter(keys: [1, 2, 3])`.
    public static func filter<Key: SQLValueConvertible>(keys: some Sequence<Key>) -> QueryInterfaceRequest<Self> {
        all().filter(keys: keys)
    }

    /// The row with the values of `key` (the primary key or a unique index).
    ///
    /// ```swift
    /// Translation.filter(key: ["noteId": 1, "lang": "fr"])
    /// ```
    public static func filter(key: [String: (any SQLValueConvertible)?]) -> QueryInterfaceRequest<Self> {
        all().filter(key: key)
    }

    /// The rows with the values of any of `keys`.
    public static func filter(keys: [[String: (any SQLValueConvertible)?]]) -> QueryInterfaceRequest<Self> {
        all().filter(keys: keys)
    }

    /// Every row, sorted: `Note.order(Column("title"))`.
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> {
        all().order(orderings)
    }

    /// Every row, sorted by terms built from the type's ``Columns``.
    ///
    /// ```swift
    /// Note.order { [$0.pinned.desc, $0.title] }
    /// ```
    public static func order(
        _ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]
    ) rethrows -> QueryInterfaceRequest<Self> {
        all().order(try orderings(databaseComponents))
    }

    /// Every row, sorted by the given SQL.
    public static func order(literal: SQLLiteral) -> QueryInterfaceRequest<Self> { all().order(literal: literal) }

    /// At most `limit` rows: `Note.limit(10)`.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> {
        all().limit(limit, offset: offset)
    }

    /// The given columns of every row: `Note.select(Column("id"), Column("title"))`.
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> {
        all().select(selection)
    }

    /// The given columns, built from the type's ``Columns``: `Note.select { [$0.id, $0.title] }`.
    public static func select(
        _ selection: (DatabaseComponents) throws -> [any SQLSelectable]
    ) rethrows -> QueryInterfaceRequest<Self> {
        all().select(try selection(databaseComponents))
    }

    /// One column or expression of every row, fetched as `type`.
    ///
    /// ```swift
    /// let titles = try Note.select(Column("title"), as: String.self).fetchAll(db)
    /// ```
    public static func select<Value>(
        _ selection: any SQLSelectable, as type: Value.Type
    ) -> QueryInterfaceRequest<Value> {
        all().select(selection, as: type)
    }

    /// The given SQL as the selection.
    public static func select(literal: SQLLiteral) -> QueryInterfaceRequest<Self> { all().select(literal: literal) }

    /// Every row, the table named by `alias`: `Note.aliased(TableAlias(name: "n"))`.
    public static func aliased(_ alias: TableAlias) -> QueryInterfaceRequest<Self> { all().aliased(alias) }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// The rows where the predicate built from the type's ``TableRecord/Columns`` is true.
    ///
    /// ```swift
    /// Note.all().filter { $0.pinned }
    /// ```
    public func filter(
        _ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLSpecificExpressible
    ) rethrows -> Self {
        filter(try predicate(RowDecoder.databaseComponents).sqlExpression)
    }

    /// Sorted by terms built from the type's columns: `.order { [$0.title.desc] }`.
    public func order(_ orderings: (RowDecoder.DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> Self {
        order(try orderings(RowDecoder.databaseComponents))
    }
}

extension QueryInterfaceRequest where RowDecoder: Identifiable, RowDecoder.ID: SQLValueConvertible {
    /// The row whose primary key is `id`: `Note.all().filter(id: 42)`.
    public func filter(id: RowDecoder.ID) -> Self { filter(key: id) }

    /// The rows whose primary key is one of `ids`.
    public func filter(ids: some Collection<RowDecoder.ID>) -> Self { filter(keys: ids) }
}

extension TableRecord where Self: Identifiable, ID: SQLValueConvertible {
    /// The row whose primary key is `id`: `Note.filter(id: 42)`.
    public static func filter(id: ID) -> QueryInterfaceRequest<Self> { all().filter(key: id) }

    /// The rows whose primary key is one of `ids`: `Note.filter(ids: [1, 2])`.
    public static func filter(ids: some Collection<ID>) -> QueryInterfaceRequest<Self> { all().filter(keys: ids) }
}

extension TableRecord where Self: FetchableRecord {
    /// The record with primary key `key`; throws ``RecordError/Code/recordNotFound``, naming
    /// the table and the key, when there is none.
    ///
    /// ```swift
    /// let note = try Note.find(db, key: 42)
    /// // RecordError: Note: no row in table "note" with id = 42
    /// ```
    public static func find(_ db: Database, key: some SQLValueConvertible) throws -> Self {
        let request = all().filter(key: key)
        if let record = try request.fetchOne(db) { return record }
        let column = try SQLGenerator(db).singleKeyColumn(request.relation)
        let table = try db.recordTable(databaseTableName, validate: false)
        throw db.recordNotFound(Self.self, table: table, key: [column], [key.sqlValue])
    }

    /// The record with the values of `key` (the primary key or a unique index); throws
    /// ``RecordError/Code/recordNotFound`` when there is none.
    ///
    /// ```swift
    /// let translation = try Translation.find(db, key: ["noteId": 1, "lang": "fr"])
    /// ```
    public static func find(_ db: Database, key: [String: (any SQLValueConvertible)?]) throws -> Self {
        if let record = try all().filter(key: key).fetchOne(db) { return record }
        let columns = key.keys.sorted()
        let table = try db.recordTable(databaseTableName, validate: false)
        throw db.recordNotFound(Self.self, table: table, key: columns, columns.map { key[$0]??.sqlValue ?? .null })
    }
}

extension TableRecord where Self: FetchableRecord & Identifiable, ID: SQLValueConvertible {
    /// The record with primary key `id`; throws ``RecordError/Code/recordNotFound`` naming the
    /// table and the key when there is none.
    ///
    /// ```swift
    /// let note = try Note.find(db, id: 42)
    /// ```
    public static func find(_ db: Database, id: ID) throws -> Self {
        try find(db, key: id)
    }
}
