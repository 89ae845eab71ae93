/// The SQL behind the record methods: each builds its statement from the table's primary key
/// (read once per schema version) and the record's ``PersistenceContainer``.
extension Database {
    // MARK: Insert

    /// `INSERT INTO t (a, b) VALUES (?, ?)`: one prepared statement per column list, reused.
    func insertRecord<Record: MutablePersistableRecord>(
        _ record: Record, container encoded: PersistenceContainer? = nil
    ) throws -> InsertionSuccess {
        var container: PersistenceContainer
        if let encoded {
            container = encoded
        } else {
            container = PersistenceContainer()
            try record.encode(to: &container)
        }
        var table = try recordTable(Record.databaseTableName, validate: false)
        let insert: InsertStatement
        if let cached = table.insert(columns: container.columns) {
            insert = cached
        } else {
            // A new column list: make sure the cached key is current, and the columns unique.
            table = try recordTable(Record.databaseTableName, validate: true)
            container.removeDuplicateColumns()
            if let cached = table.insert(columns: container.columns) {
                insert = cached
            } else {
                let sql: String
                if container.columns.isEmpty {
                    sql = "INSERT INTO \(table.quotedName) DEFAULT VALUES"
                } else {
                    sql =
                        "INSERT INTO \(table.quotedName) (\(Database.columnList(container.columns))) VALUES ("
                        + Array(repeating: "?", count: container.columns.count).joined(separator: ", ") + ")"
                }
                insert = InsertStatement(columns: container.columns, statement: try makeStatement(sql: sql))
                table.inserts.append(insert)
            }
        }
        try insert.statement.execute(values: container.values)
        let rowID = lastInsertRowID
        // SQLite recompiles a statement whose schema changed: then the cached key may be stale.
        let reprepares = insert.statement.reprepareCount
        if reprepares != insert.reprepareCount {
            insert.reprepareCount = reprepares
            table = try recordTable(Record.databaseTableName, validate: true)
        }
        return success(rowID: rowID, table: table, container: container)
    }

    private func success(rowID: Int64, table: RecordTable, container: PersistenceContainer) -> InsertionSuccess {
        var container = container
        let rowIDColumn = table.primaryKey.rowIDColumn
        if let rowIDColumn { container[value: rowIDColumn] = .integer(rowID) }
        return InsertionSuccess(rowID: rowID, rowIDColumn: rowIDColumn, persistenceContainer: container)
    }

    // MARK: Update

    /// `UPDATE t SET a = ?, b = ? WHERE id = ?`; no row changed is ``RecordError/Code/recordNotFound``.
    func updateRecord<Record: MutablePersistableRecord>(
        _ record: Record, container: PersistenceContainer? = nil, columns: [String]? = nil,
        table known: RecordTable? = nil
    ) throws {
        let table = try known ?? recordTable(Record.databaseTableName, validate: true)
        let container = try container ?? record.databaseContainer()
        let key = try keyOfRecord(Record.self, table: table, container: container)
        guard !key.values.contains(.null) else {
            throw recordNotFound(Record.self, table: table, key: key.columns, key.values)
        }
        var assigned = [String]()
        var values = [SQLValue]()
        let keyColumns = Set(key.columns.map { $0.lowercased() })
        if let columns {
            for column in columns {
                guard let index = container.index(ofColumn: column) else {
                    throw RecordError(
                        code: .unknownColumn, recordType: "\(Record.self)", tableName: table.name,
                        message: "update(columns:) names column \"\(column)\", which the record does not encode "
                            + "(it encodes \(container.columns.map { "\"\($0)\"" }.joined(separator: ", ")))")
                }
                if !keyColumns.contains(container.columns[index].lowercased()) {
                    assigned.append(container.columns[index])
                    values.append(container.values[index])
                }
            }
        } else {
            for (column, value) in container where !keyColumns.contains(column.lowercased()) {
                assigned.append(column)
                values.append(value)
            }
        }
        if assigned.isEmpty {
            // Nothing else to write: `SET id = id` still tells whether the row exists.
            assigned = [key.columns[0]]
            values = [key.values[0]]
        }
        let sql =
            "UPDATE \(table.quotedName) SET "
            + assigned.map { "\(SQLLiteral.quote(identifier: $0)) = ?" }.joined(separator: ", ")
            + " WHERE " + Database.condition(key.columns)
        try cachedStatement(sql: sql).execute(values: values + key.values)
        if changes == 0 { throw recordNotFound(Record.self, table: table, key: key.columns, key.values) }
    }

    // MARK: Save

    /// An update when the record has a non-NULL key and its row exists, else an insert.
    func saveRecord<Record: MutablePersistableRecord>(_ record: Record) throws -> InsertionSuccess? {
        let table = try recordTable(Record.databaseTableName, validate: true)
        let container = try record.databaseContainer()
        if let key = try? keyOfRecord(Record.self, table: table, container: container), !key.values.contains(.null) {
            do {
                try updateRecord(record, container: container, table: table)
                return nil
            } catch let error as RecordError where error.code == .recordNotFound {
                // Not there: insert below.
            }
        }
        return try insertRecord(record, container: container)
    }

    // MARK: Upsert

    /// `INSERT ... ON CONFLICT (primary key) DO UPDATE SET a = excluded.a ...`, with
    /// `RETURNING rowid` where SQLite has it (3.35). See <https://www.sqlite.org/lang_upsert.html>.
    func upsertRecord<Record: MutablePersistableRecord>(_ record: Record) throws -> InsertionSuccess {
        let table = try recordTable(Record.databaseTableName, validate: true)
        guard capabilities.version >= SQLiteVersion(3, 24) else {
            throw RecordError(
                code: .unsupportedBySQLite, recordType: "\(Record.self)", tableName: table.name,
                message: "upsert needs SQLite 3.24 or later (INSERT ... ON CONFLICT DO UPDATE); "
                    + "this connection has \(capabilities.version)")
        }
        let container = try record.databaseContainer()
        let keyColumns = table.primaryKey.columns
        let folded = Set(keyColumns.map { $0.lowercased() })
        let updated = container.columns.filter { !folded.contains($0.lowercased()) }
        var sql = "INSERT INTO \(table.quotedName) "
        if container.columns.isEmpty {
            sql += "DEFAULT VALUES"
        } else {
            sql +=
                "(\(Database.columnList(container.columns))) VALUES ("
                + Array(repeating: "?", count: container.columns.count).joined(separator: ", ") + ")"
        }
        sql += " ON CONFLICT (\(Database.columnList(keyColumns))) DO "
        if updated.isEmpty {
            sql += "NOTHING"
        } else {
            sql +=
                "UPDATE SET "
                + updated.map {
                    let column = SQLLiteral.quote(identifier: $0)
                    return "\(column) = excluded.\(column)"
                }.joined(separator: ", ")
        }
        let returning = capabilities.supportsReturning && table.primaryKey.tableHasRowID
        if returning { sql += " RETURNING rowid" }
        let statement = try cachedStatement(sql: sql)
        var rowID: Int64?
        if returning {
            try statement.bind(StatementArguments(container.values))
            defer { statement.reset() }
            while try statement.step() {
                if case .integer(let id) = statement.columnValue(at: 0) { rowID = id }
            }
        } else {
            try statement.execute(values: container.values)
        }
        if rowID == nil {
            // Old SQLite, or DO NOTHING on a conflict: a NULL key means a new row was inserted;
            // otherwise the row has the record's key.
            let key = try? keyOfRecord(Record.self, table: table, container: container)
            if table.primaryKey.tableHasRowID, let key, !key.values.contains(.null) {
                rowID = try fetchValue(
                    Int64.self, sql: "SELECT rowid FROM \(table.quotedName) WHERE \(Database.condition(key.columns))",
                    arguments: StatementArguments(key.values))
            }
        }
        return success(rowID: rowID ?? lastInsertRowID, table: table, container: container)
    }

    // MARK: Delete and exists

    /// `DELETE FROM t WHERE id = ?`: true when a row was deleted.
    func deleteRecord<Record: MutablePersistableRecord>(_ record: Record) throws -> Bool {
        let table = try recordTable(Record.databaseTableName, validate: true)
        let key = try keyOfRecord(Record.self, table: table, container: record.databaseContainer())
        if key.values.contains(.null) { return false }
        return try deleteRows(table: table, condition: Database.condition(key.columns), key.values)
    }

    func deleteRows(table: RecordTable, condition: String, _ values: [SQLValue]) throws -> Bool {
        try cachedStatement(sql: "DELETE FROM \(table.quotedName) WHERE \(condition)").execute(values: values)
        return changes > 0
    }

    /// `SELECT EXISTS (SELECT 1 FROM t WHERE id = ?)`.
    func recordExists<Record: MutablePersistableRecord>(_ record: Record) throws -> Bool {
        let table = try recordTable(Record.databaseTableName, validate: true)
        let key = try keyOfRecord(Record.self, table: table, container: record.databaseContainer())
        if key.values.contains(.null) { return false }
        return try rowExists(table: table, condition: Database.condition(key.columns), key.values)
    }

    func rowExists(table: RecordTable, condition: String, _ values: [SQLValue]) throws -> Bool {
        try fetchValue(
            Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM \(table.quotedName) WHERE \(condition))",
            arguments: StatementArguments(values)) ?? false
    }

    // MARK: Keys

    /// The primary key columns of the table and the record's values for them.
    func keyOfRecord(
        _ recordType: Any.Type, table: RecordTable, container: PersistenceContainer
    ) throws -> (columns: [String], values: [SQLValue]) {
        let columns = table.primaryKey.columns
        var values = [SQLValue]()
        values.reserveCapacity(columns.count)
        for column in columns {
            guard let value = container[value: column] else {
                throw RecordError(
                    code: .primaryKeyNotEncoded, recordType: "\(recordType)", tableName: table.name,
                    message: "the record does not encode column \"\(column)\" of the primary key of table "
                        + "\"\(table.name)\" (it encodes \(container.columns.map { "\"\($0)\"" }.joined(separator: ", ")))"
                )
            }
            values.append(value)
        }
        return (columns, values)
    }

    /// The condition selecting the row of a single-value key: the primary key must be one column.
    func keyCondition(
        _ recordType: Any.Type, table: RecordTable, key: SQLValue
    ) throws -> (condition: String, values: [SQLValue]) {
        let columns = table.primaryKey.columns
        guard columns.count == 1 else {
            throw RecordError(
                code: .invalidKey, recordType: "\(recordType)", tableName: table.name,
                key: ["?": key],
                message: "table \"\(table.name)\" has a primary key of \(columns.count) columns "
                    + "(\(columns.joined(separator: ", "))): give a key such as "
                    + "[\(columns.map { "\"\($0)\": ..." }.joined(separator: ", "))]")
        }
        return (Database.condition(columns), [key])
    }

    /// The condition selecting the row of a key dictionary, whose columns must be the primary
    /// key or a unique index.
    func keyCondition(
        _ recordType: Any.Type, table: RecordTable, key: [String: SQLValue]
    ) throws -> (condition: String, values: [SQLValue]) {
        let columns = key.keys.sorted()
        let folded = columns.map { $0.lowercased() }.sorted()
        guard try uniqueKeys(of: table).contains(folded) else {
            throw RecordError(
                code: .invalidKey, recordType: "\(recordType)", tableName: table.name, key: key,
                message: "columns (\(columns.joined(separator: ", "))) are neither the primary key nor a unique "
                    + "index of table \"\(table.name)\" (primary key: \(table.primaryKey.columns.joined(separator: ", ")))"
            )
        }
        return (Database.condition(columns), columns.map { key[$0]! })
    }

    func recordNotFound(
        _ recordType: Any.Type, table: RecordTable, key columns: [String], _ values: [SQLValue]
    )
        -> RecordError
    {
        RecordError(
            code: .recordNotFound, recordType: "\(recordType)", tableName: table.name,
            key: Dictionary(zip(columns, values), uniquingKeysWith: { a, _ in a }),
            message: "no row in table \"\(table.name)\" with \(RecordError.describe(key: columns, values))")
    }

    /// `"a", "b"`.
    static func columnList(_ columns: [String]) -> String {
        columns.map(SQLLiteral.quote(identifier:)).joined(separator: ", ")
    }

    /// `"a" = ? AND "b" = ?`.
    static func condition(_ columns: [String]) -> String {
        columns.map { "\(SQLLiteral.quote(identifier: $0)) = ?" }.joined(separator: " AND ")
    }
}
