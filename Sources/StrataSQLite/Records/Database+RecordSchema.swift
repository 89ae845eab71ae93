extension Database {
    /// The connection's schema cookie, which SQLite changes with every schema change.
    /// See <https://www.sqlite.org/pragma.html#pragma_schema_version>.
    func schemaVersion() throws -> Int64 {
        let statement = try cachedStatement(sql: "PRAGMA schema_version")
        defer { statement.reset() }
        guard try statement.step(), case .integer(let version) = statement.columnValue(at: 0) else { return 0 }
        return version
    }

    /// The record information of `table`. With `validate`, the schema version is checked first
    /// (one cheap PRAGMA), so that the information is current; without, a cached entry is
    /// trusted (the insert path checks its statement's recompilations instead).
    func recordTable(_ table: String, validate: Bool) throws -> RecordTable {
        if let cached = recordCache.tables[table] {
            if !validate { return cached }
            let version = try schemaVersion()
            if version == cached.schemaVersion { return cached }
            recordCache.tables.removeAll()
            return try loadRecordTable(table, schemaVersion: version)
        }
        let version = try schemaVersion()
        if let other = recordCache.tables.first?.value, other.schemaVersion != version {
            recordCache.tables.removeAll()
        }
        return try loadRecordTable(table, schemaVersion: version)
    }

    private func loadRecordTable(_ table: String, schemaVersion: Int64) throws -> RecordTable {
        let quoted = SQLLiteral.quote(identifier: table)
        // https://www.sqlite.org/pragma.html#pragma_table_info: cid, name, type, notnull,
        // dflt_value, pk (the 1-based position in the primary key, 0 for other columns).
        let columns = try fetchAll(sql: "PRAGMA table_info(\(quoted))")
        guard !columns.isEmpty else {
            throw SQLiteError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
        }
        let names: [String] = try columns.map { try $0["name"] }
        let keyColumns = try columns.filter { row in try row["pk"] as Int > 0 }
            .sorted { a, b in try (a["pk"] as Int) < (b["pk"] as Int) }
        let rowIDName = try hiddenRowIDName(quotedTable: quoted, columns: names)
        let primaryKey: PrimaryKeyInfo
        if keyColumns.isEmpty {
            guard let rowIDName else {
                throw SQLiteError(resultCode: .SQLITE_ERROR, message: "table \(table) has no primary key")
            }
            primaryKey = PrimaryKeyInfo(columns: [rowIDName], rowIDColumn: rowIDName, tableHasRowID: true)
        } else {
            let keyNames: [String] = try keyColumns.map { try $0["name"] }
            var rowIDColumn: String?
            // An INTEGER PRIMARY KEY is the rowid, except when declared DESC: such a key has an
            // index of origin "pk", as any other primary key of a rowid table.
            // https://www.sqlite.org/lang_createtable.html#rowids_and_the_integer_primary_key
            if rowIDName != nil, keyColumns.count == 1, (try keyColumns[0]["type"] as String).uppercased() == "INTEGER"
            {
                let indexes = try fetchAll(sql: "PRAGMA index_list(\(quoted))")
                if try !indexes.contains(where: { try $0["origin"] as String == "pk" }) { rowIDColumn = keyNames[0] }
            }
            primaryKey = PrimaryKeyInfo(columns: keyNames, rowIDColumn: rowIDColumn, tableHasRowID: rowIDName != nil)
        }
        let info = RecordTable(name: table, primaryKey: primaryKey, rowIDName: rowIDName, schemaVersion: schemaVersion)
        recordCache.tables[table] = info
        return info
    }

    /// The name that reaches the rowid of the table (`rowid`, or `_rowid_` or `oid` when a column
    /// takes the first), or nil for a WITHOUT ROWID table, which has none.
    func hiddenRowIDName(quotedTable: String, columns: [String]) throws -> String? {
        let taken = Set(columns.map { $0.lowercased() })
        for name in ["rowid", "_rowid_", "oid"] where !taken.contains(name) {
            do {
                _ = try makeStatement(sql: "SELECT \(name) FROM \(quotedTable)")
                return name
            } catch is SQLiteError {
                return nil  // "no such column": a WITHOUT ROWID table
            }
        }
        return nil
    }

    /// The unique column sets of a table: its primary key and unique indexes without a WHERE
    /// clause or expressions, each lowercased and sorted.
    func uniqueKeys(of table: RecordTable) throws -> [[String]] {
        if let keys = table.uniqueKeys { return keys }
        var keys = [table.primaryKey.columns.map { $0.lowercased() }.sorted()]
        // https://www.sqlite.org/pragma.html#pragma_index_list: seq, name, unique, origin, partial.
        for index in try fetchAll(sql: "PRAGMA index_list(\(table.quotedName))") {
            guard try index["unique"] as Bool, !(try index["partial"] as Bool) else { continue }
            let name: String = try index["name"]
            let columns = try fetchColumn(
                String?.self, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name])
            guard !columns.contains(nil) else { continue }  // an expression
            keys.append(columns.map { $0!.lowercased() }.sorted())
        }
        table.uniqueKeys = keys
        return keys
    }
}
