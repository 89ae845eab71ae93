/// The SQL behind the record methods: each builds its statement from the table's primary key
/// (read once per schema version) and the record's ``PersistenceContainer``.
extension Database {
    // MARK: Insert

    /// `INSERT INTO t (a, b) VALUES (?, ?)`: one prepared statement per column list, reused.
    @usableFromInline
    func insertRecord<Record: MutablePersistableRecord>(
        _ record: Record, container encoded: PersistenceContainer? = nil
    ) throws -> InsertionSuccess {
        let tableName = Record.databaseTableName
        let known = recordCache.table(named: tableName)
        var container: PersistenceContainer
        if let encoded {
            container = encoded
        } else {
            container = PersistenceContainer()
            // An `Encodable` record reuses the encoder of the table's last insert and shares its
            // columns when it encodes the same keys in the same order (see `RecordEncodingSlot`).
            container.encodingSlot = known?.encodingSlot
            try record.encode(to: &container)
            if container.encodingSlot != nil { container.encodingSlot = nil }  // the container leaves the insert
        }
        var table = try known ?? recordTable(tableName, validate: false)
        let insert: InsertStatement
        if let cached = table.insert(columns: container.columns) {
            insert = cached
        } else {
            // A new column list: make sure the cached key is current, and the columns unique.
            table = try recordTable(tableName, validate: true)
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
        if table.lastInsert !== insert { table.lastInsert = insert }
        try insert.statement.execute(values: container.values)
        let rowID = lastInsertRowID
        // SQLite recompiles a statement whose schema changed: then the cached key may be stale.
        let reprepares = insert.statement.reprepareCount
        if reprepares != insert.reprepareCount {
            insert.reprepareCount = reprepares
            table = try recordTable(tableName, validate: true)
        }
        return success(rowID: rowID, table: table, container: container)
    }

    /// `INSERT INTO t (a, b) VALUES (?1, ?2) RETURNING <selection>, rowid` (SQLite 3.35): the
    /// insert and the row as SQLite stored it (defaults, BEFORE triggers and affinity applied).
    /// See <https://www.sqlite.org/lang_returning.html>.
    @usableFromInline
    func insertRecordReturning<Record: MutablePersistableRecord>(
        _ record: Record, container known: PersistenceContainer? = nil, selection: [SQLLiteral], operation: String
    ) throws -> (InsertionSuccess, Row) {
        let table = try recordTable(Record.databaseTableName, validate: true)
        try requireReturning(Record.self, table: table, operation: operation)
        let container = try known ?? record.databaseContainer()
        var sql = "INSERT INTO \(table.quotedName) "
        if container.columns.isEmpty {
            sql += "DEFAULT VALUES"
        } else {
            sql +=
                "(\(Database.columnList(container.columns))) VALUES ("
                + (1...container.columns.count).map { "?\($0)" }.joined(separator: ", ") + ")"
        }
        let rowIDName = table.primaryKey.tableHasRowID ? table.rowIDName : nil
        var returning = selection
        if let rowIDName { returning.append(SQLLiteral(sql: SQLLiteral.quote(identifier: rowIDName))) }
        let clause = Database.returningClause(returning)
        let rows = try cachedStatement(sql: sql + clause.sql).fetchAll(
            arguments: StatementArguments(container.values + clause.arguments))
        guard let row = rows.first else {
            throw RecordError(
                code: .recordNotFound, recordType: "\(Record.self)", tableName: table.name,
                message: "the insert into table \"\(table.name)\" returned no row")
        }
        var rowID = lastInsertRowID
        var returned = row
        if rowIDName != nil {
            if case .integer(let id)? = row.values.last { rowID = id }
            returned = Row(
                columns: ColumnNames(Array(row.columns.names.dropLast())), values: Array(row.values.dropLast()))
        }
        return (success(rowID: rowID, table: table, container: container), returned)
    }

    /// Throws ``RecordError/Code/unsupportedBySQLite`` naming `operation` before SQLite 3.35.
    func requireReturning(_ recordType: Any.Type, table: RecordTable, operation: String) throws {
        guard !capabilities.supportsReturning else { return }
        throw RecordError(
            code: .unsupportedBySQLite, recordType: "\(recordType)", tableName: table.name,
            message: "\(operation) needs SQLite 3.35 or later (RETURNING); this connection has \(capabilities.version)")
    }

    private func success(rowID: Int64, table: RecordTable, container: PersistenceContainer) -> InsertionSuccess {
        var container = container
        let rowIDColumn = table.primaryKey.rowIDColumn
        // A record that gave its id already holds it: writing it again would copy the values,
        // which the statement's arguments share.
        if let rowIDColumn, container[value: rowIDColumn] != .integer(rowID) {
            container[value: rowIDColumn] = .integer(rowID)
        }
        return InsertionSuccess(rowID: rowID, rowIDColumn: rowIDColumn, persistenceContainer: container)
    }

    // MARK: Update

    /// `UPDATE t SET a = ?, b = ? WHERE id = ?`; no row changed is ``RecordError/Code/recordNotFound``.
    /// With `columns`, only those (as the record spells them); without, every encoded column but
    /// the key, where a TEXT or BLOB value whose bytes equal the stored value's keeps the stored
    /// value and its type (see ``preservingAssignment(_:parameter:)``). With `returning`, the
    /// statement ends in `RETURNING` and the row it returns is given back.
    @discardableResult
    func updateRecord<Record: MutablePersistableRecord>(
        _ record: Record, container: PersistenceContainer? = nil, columns: [String]? = nil,
        table known: RecordTable? = nil, returning: [SQLLiteral]? = nil
    ) throws -> Row? {
        let table = try known ?? recordTable(Record.databaseTableName, validate: true)
        let container = try container ?? record.databaseContainer()
        let key = try keyOfRecord(Record.self, table: table, container: container)
        guard !key.values.contains(.null) else {
            throw recordNotFound(Record.self, table: table, key: key.columns, key.values)
        }
        let (assigned, values) = try updatedColumns(Record.self, table: table, container: container, columns: columns)
        var sql = "UPDATE \(table.quotedName) SET "
        var arguments = [SQLValue]()
        arguments.reserveCapacity(values.count + key.values.count)
        if assigned.isEmpty {
            // Nothing else to write: `SET id = id` still tells whether the row exists.
            let column = SQLLiteral.quote(identifier: key.columns[0])
            sql += "\(column) = \(column)"
        } else {
            for (index, column) in assigned.enumerated() {
                if index > 0 { sql += ", " }
                let value = values[index]
                arguments.append(value)
                if columns == nil, value.isTextOrBlob {
                    sql += preservingAssignment(column, parameter: arguments.count)
                } else {
                    sql += "\(SQLLiteral.quote(identifier: column)) = ?\(arguments.count)"
                }
            }
        }
        sql += " WHERE "
        for (index, column) in key.columns.enumerated() {
            if index > 0 { sql += " AND " }
            arguments.append(key.values[index])
            sql += "\(SQLLiteral.quote(identifier: column)) = ?\(arguments.count)"
        }
        if let returning {
            let clause = Database.returningClause(returning)
            sql += clause.sql
            arguments += clause.arguments
            let rows = try cachedStatement(sql: sql).fetchAll(arguments: StatementArguments(arguments))
            guard let row = rows.first else {
                throw recordNotFound(Record.self, table: table, key: key.columns, key.values)
            }
            return row
        }
        try cachedStatement(sql: sql).execute(values: arguments)
        if changes == 0 { throw recordNotFound(Record.self, table: table, key: key.columns, key.values) }
        return nil
    }

    /// `"c" = CASE WHEN <stored bytes equal the new bytes> THEN "c" ELSE ?N END`: a full update
    /// leaves a TEXT or BLOB column whose bytes it would not change as it is, so a value the
    /// code read and wrote back unchanged keeps its storage class (a non-UTF-8 TEXT read as
    /// `Data` is not turned into a BLOB). `CAST(x AS BLOB)` gives the bytes of a TEXT value in
    /// the database's encoding, and a BLOB's bytes as they are.
    /// See <https://www.sqlite.org/lang_expr.html#castexpr>.
    func preservingAssignment(_ column: String, parameter: Int) -> String {
        let quoted = SQLLiteral.quote(identifier: column)
        return "\(quoted) = CASE WHEN typeof(\(quoted)) IN ('text', 'blob') "
            + "AND CAST(\(quoted) AS BLOB) = CAST(?\(parameter) AS BLOB) THEN \(quoted) ELSE ?\(parameter) END"
    }

    /// The columns an update writes and their values: `columns` (each must be encoded), or every
    /// encoded column; never a key column.
    func updatedColumns<Record>(
        _ recordType: Record.Type, table: RecordTable, container: PersistenceContainer, columns: [String]?
    ) throws -> (columns: [String], values: [SQLValue]) {
        var assigned = [String]()
        var values = [SQLValue]()
        let keyColumns = table.primaryKey.columns
        func isKey(_ column: String) -> Bool {
            keyColumns.contains { PersistenceContainer.equalIgnoringASCIICase($0, column) }
        }
        if let columns {
            for column in columns {
                guard let index = container.index(ofColumn: column) else {
                    throw RecordError(
                        code: .unknownColumn, recordType: "\(Record.self)", tableName: table.name,
                        message: "update(columns:) names column \"\(column)\", which the record does not encode "
                            + "(it encodes \(container.columns.map { "\"\($0)\"" }.joined(separator: ", ")))")
                }
                let name = container.columns[index]
                if !isKey(name), !assigned.contains(name) {
                    assigned.append(name)
                    values.append(container.values[index])
                }
            }
        } else {
            for (column, value) in container where !isKey(column) {
                assigned.append(column)
                values.append(value)
            }
        }
        return (assigned, values)
    }

    /// `RETURNING a, b`: the selection and its positional arguments. The statement's own
    /// parameters are numbered (`?1`, `?2`...); SQLite numbers each anonymous `?` after them one
    /// more than the largest so far, so the arguments follow in order.
    /// See <https://www.sqlite.org/lang_expr.html#parameters>.
    static func returningClause(_ selection: [SQLLiteral]) -> (sql: String, arguments: [SQLValue]) {
        var sql = " RETURNING "
        var arguments = [SQLValue]()
        for (index, item) in selection.enumerated() {
            if index > 0 { sql += ", " }
            // Anonymous `?` parameters after numbered ones take the next numbers, in order.
            sql += item.sql
            arguments += item.arguments.positional
        }
        return (sql, arguments)
    }

    // MARK: Save

    /// Whether an update is tried first: the record encodes its whole key, and no key value is NULL.
    func recordHasKey<Record: MutablePersistableRecord>(
        _ recordType: Record.Type, table: RecordTable, container: PersistenceContainer
    ) -> Bool {
        guard let key = try? keyOfRecord(Record.self, table: table, container: container) else { return false }
        return !key.values.contains(.null)
    }

    // MARK: Upsert

    /// `INSERT ... ON CONFLICT [target] DO UPDATE SET ...`, with `RETURNING` where SQLite has it
    /// (3.35). Without `target`, the conflict target is omitted, which SQLite allows for DO
    /// UPDATE from 3.35 on: any uniqueness constraint then fires it. Before 3.35, a table whose
    /// only uniqueness constraint is its primary key gets that as target (the same behaviour);
    /// any other table throws ``RecordError/Code/unsupportedBySQLite``.
    /// See <https://www.sqlite.org/lang_upsert.html>.
    func upsertRecord<Record: MutablePersistableRecord>(
        _ record: Record, container known: PersistenceContainer? = nil, target: [String],
        strategy: UpsertUpdateStrategy, assignments: [ColumnAssignment], returning: [SQLLiteral]?
    ) throws -> (InsertionSuccess, Row?) {
        let table = try recordTable(Record.databaseTableName, validate: true)
        let container = try known ?? record.databaseContainer()
        guard capabilities.version >= SQLiteVersion(3, 24) else {
            throw RecordError(
                code: .unsupportedBySQLite, recordType: "\(Record.self)", tableName: table.name,
                message: "upsert needs SQLite 3.24 or later (INSERT ... ON CONFLICT DO UPDATE); "
                    + "this connection has \(capabilities.version)")
        }
        let modern = capabilities.supportsReturning  // 3.35: RETURNING, and ON CONFLICT without target
        if returning != nil { try requireReturning(Record.self, table: table, operation: "upsertAndFetch") }
        var conflictTarget = target
        if target.isEmpty {
            if !modern {
                let others = try otherUniqueIndexes(of: table)
                guard others.isEmpty else {
                    throw RecordError(
                        code: .unsupportedBySQLite, recordType: "\(Record.self)", tableName: table.name,
                        message: "upsert on every unique key of table \"\(table.name)\" needs SQLite 3.35 or later "
                            + "(ON CONFLICT DO UPDATE without a conflict target); this connection has "
                            + "\(capabilities.version), and the table has unique indexes besides its primary key ("
                            + others.map { "\"\($0)\"" }.joined(separator: ", ")
                            + "): name one with upsert(db, onConflict: [...])")
                }
                conflictTarget = table.primaryKey.columns
            }
        } else {
            let folded = target.map { $0.lowercased() }.sorted()
            guard try uniqueKeys(of: table).contains(folded) else {
                throw RecordError(
                    code: .invalidConflictTarget, recordType: "\(Record.self)", tableName: table.name,
                    message: "conflict target (\(target.joined(separator: ", "))) is neither the primary key nor a "
                        + "unique index without WHERE clause of table \"\(table.name)\" (unique keys: "
                        + (try uniqueKeys(of: table)).map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", ")
                        + ")")
            }
        }
        var sql = "INSERT INTO \(table.quotedName) "
        var arguments = container.values
        if container.columns.isEmpty {
            sql += "DEFAULT VALUES"
        } else {
            sql +=
                "(\(Database.columnList(container.columns))) VALUES ("
                + (1...container.columns.count).map { "?\($0)" }.joined(separator: ", ") + ")"
        }
        sql += " ON CONFLICT"
        if !conflictTarget.isEmpty { sql += " (\(Database.columnList(conflictTarget)))" }
        sql += " DO UPDATE SET "
        // Explicit assignments first, then (with .allColumns) every other encoded column but the
        // primary key and the conflict target, from the values the insert would have written.
        var set = [String]()
        var assignedColumns = [String]()
        for assignment in assignments {
            assignedColumns.append(assignment.column.name)
            guard let value = assignment.value else { continue }  // noOverwrite
            var context = SQLRenderContext()
            context.db = self
            let text = context.render(value)
            if let error = context.errors.first { throw error }
            set.append("\(SQLLiteral.quote(identifier: assignment.column.name)) = \(text)")
            arguments += context.arguments.positional
        }
        if strategy.contains(.allColumns) {
            let excluded = table.primaryKey.columns + conflictTarget + assignedColumns
            for column in container.columns
            where !excluded.contains(where: { PersistenceContainer.equalIgnoringASCIICase($0, column) }) {
                let quoted = SQLLiteral.quote(identifier: column)
                set.append("\(quoted) = excluded.\(quoted)")
            }
        }
        if set.isEmpty {
            // Nothing to overwrite: a no-op update still reports the row (RETURNING) and keeps
            // its rowid, where DO NOTHING would return nothing.
            let column = SQLLiteral.quote(identifier: table.primaryKey.columns[0])
            set.append("\(column) = \(column)")
        }
        sql += set.joined(separator: ", ")
        let rowIDName = table.primaryKey.tableHasRowID ? table.rowIDName : nil
        if modern {
            var selection = returning ?? []
            if let rowIDName { selection.append(SQLLiteral(sql: SQLLiteral.quote(identifier: rowIDName))) }
            if !selection.isEmpty {
                let clause = Database.returningClause(selection)
                sql += clause.sql
                arguments += clause.arguments
                let rows = try cachedStatement(sql: sql).fetchAll(arguments: StatementArguments(arguments))
                guard let row = rows.first else {
                    throw RecordError(
                        code: .recordNotFound, recordType: "\(Record.self)", tableName: table.name,
                        message: "the upsert into table \"\(table.name)\" returned no row")
                }
                var rowID = lastInsertRowID
                var returned: Row? = row
                if rowIDName != nil, let last = row.values.last {
                    if case .integer(let id) = last { rowID = id }
                    returned = Row(
                        columns: ColumnNames(Array(row.columns.names.dropLast())), values: Array(row.values.dropLast()))
                }
                return (success(rowID: rowID, table: table, container: container), returning == nil ? nil : returned)
            }
        }
        try cachedStatement(sql: sql).execute(values: arguments)
        // Before 3.35 (no RETURNING): the row is the one with the conflict target's values.
        var rowID: Int64?
        if rowIDName != nil {
            var values = [SQLValue]()
            for column in conflictTarget {
                guard let value = container[value: column] else { break }
                values.append(value)
            }
            if values.count == conflictTarget.count, !values.contains(.null) {
                rowID = try fetchValue(
                    Int64.self,
                    sql: "SELECT \(SQLLiteral.quote(identifier: rowIDName ?? "rowid")) FROM \(table.quotedName) WHERE "
                        + Database.condition(conflictTarget), arguments: StatementArguments(values))
            }
        }
        return (success(rowID: rowID ?? lastInsertRowID, table: table, container: container), nil)
    }

    /// The names of the table's unique indexes other than its primary key's, partial and
    /// expression indexes included (each is a uniqueness constraint an upsert may hit).
    func otherUniqueIndexes(of table: RecordTable) throws -> [String] {
        // https://www.sqlite.org/pragma.html#pragma_index_list: seq, name, unique, origin, partial.
        try fetchAll(sql: "PRAGMA index_list(\(table.quotedName))").compactMap { index in
            guard try index["unique"] as Bool, try index["origin"] as String != "pk" else { return nil }
            return try index["name"] as String
        }
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

extension SQLValue {
    /// True for TEXT and BLOB values.
    var isTextOrBlob: Bool {
        switch self {
        case .text, .blob: true
        default: false
        }
    }
}
