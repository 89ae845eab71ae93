import CSQLite
import Foundation

extension Database {
    /// Compiles one statement. Text after the first statement (other than whitespace, comments
    /// and semicolons) is an error: use ``execute(sql:arguments:)`` for scripts.
    ///
    /// ```swift
    /// let insert = try db.makeStatement(sql: "INSERT INTO player(name) VALUES (?)")
    /// try insert.execute("Arthur")
    /// try insert.execute("Barbara")
    /// ```
    /// See <https://www.sqlite.org/c3ref/prepare.html>.
    public func makeStatement(sql: String) throws -> Statement {
        try checkOpen(sql)
        var stmt: OpaquePointer?
        var tailOffset = 0
        let rc = sql.withCString { cSQL -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(handle, cSQL, -1, &stmt, &tail)
            if let tail { tailOffset = cSQL.distance(to: tail) }
            return rc
        }
        if rc != SQLITE_OK {
            sqlite3_finalize(stmt)
            throw connection.error(code: rc, sql: sql)
        }
        // "If the input text contains no SQL (if the input is an empty string or a comment) then
        // *ppStmt is set to NULL."
        guard let stmt else {
            throw SQLiteError(resultCode: .SQLITE_MISUSE, message: "no SQL statement in the text", sql: sql)
        }
        let rest = String(decoding: sql.utf8.dropFirst(tailOffset), as: UTF8.self)
        if !Database.isBlankSQL(rest) {
            sqlite3_finalize(stmt)
            throw SQLiteError(
                resultCode: .SQLITE_MISUSE,
                message: "more than one statement: use execute(sql:) to run several", sql: sql)
        }
        return Statement(handle: stmt, connection: connection, sql: sql)
    }

    /// A compiled statement reused across calls with the same SQL text (a cache keyed by the text).
    ///
    /// ```swift
    /// for name in names {
    ///     try db.cachedStatement(sql: "INSERT INTO player(name) VALUES (?)").execute(name)
    /// }
    /// ```
    ///
    /// The statement comes back reset, its bindings kept. If the cached statement is still
    /// running (the same SQL used inside its own ``Statement/forEachRow(arguments:_:)``), a fresh
    /// uncached statement is returned so the outer iteration is not disturbed.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            if sqlite3_stmt_busy(statement.handle) == 0 {
                statement.reset()
                return statement
            }
            return try makeStatement(sql: sql)
        }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Empties the statement cache (statements are finalized once no longer referenced),
    /// including the record methods' INSERT statements and primary keys.
    ///
    /// ```swift
    /// db.clearStatementCache()
    /// ```
    public func clearStatementCache() {
        statementCache.removeAll()
        recordCache = RecordSchemaCache()
    }

    /// Runs one or several statements separated by semicolons.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
    ///     INSERT INTO player(name, score) VALUES (?, ?);
    ///     INSERT INTO player(name, score) VALUES (?, ?);
    ///     """, arguments: ["Arthur", 100, "Barbara", 120])
    /// ```
    ///
    /// Positional arguments are consumed by the statements in order, each taking as many as it has
    /// positional parameters; named arguments are available to every statement. Too few or too
    /// many arguments is an SQLITE_RANGE error, raised before the statement that would miss
    /// values (or the last one, for leftovers) runs. Statements before a failing one have run:
    /// wrap the call in ``transaction(_:_:)`` to make a script all-or-nothing.
    /// See <https://www.sqlite.org/c3ref/prepare.html>.
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try checkOpen(sql)
        // Out of a transaction after it (a commit, a rollback, an autocommit write): the
        // connections of this process waiting for the file's lock retry now (see `executing`).
        try executing { try executeScript(sql: sql, arguments: arguments) }
    }

    private func executeScript(sql: String, arguments: StatementArguments) throws {
        var remaining = arguments.positional[...]
        let utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = base
            while cursor.pointee != 0 {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(handle, cursor, -1, &stmt, &tail)
                let consumed = tail.map { cursor.distance(to: $0) } ?? strlen(cursor)
                let text = Database.statementText(
                    String(decoding: UnsafeRawBufferPointer(start: cursor, count: consumed), as: UTF8.self))
                if rc != SQLITE_OK {
                    // On failure the tail says where parsing stopped, not where the statement ends.
                    sqlite3_finalize(stmt)
                    throw connection.error(code: rc, sql: Database.firstStatement(in: String(cString: cursor)))
                }
                cursor = cursor.advanced(by: consumed)
                guard let stmt else { continue }  // whitespace or comment only
                let statement = Statement(handle: stmt, connection: connection, sql: text)
                var args = StatementArguments()
                args.named = arguments.named
                let take = min(statement.positionalParameterCount, remaining.count)
                args.positional = Array(remaining.prefix(take))
                remaining = remaining.dropFirst(take)
                // Leftover values: fail before the last statement runs.
                if !remaining.isEmpty, Database.isBlankSQL(String(cString: cursor)) {
                    throw tooManyArguments(sql: sql, arguments: arguments, unused: remaining.count)
                }
                if statement.parameterCount > 0 { try statement.bind(args) }
                try statement.runToCompletion()
            }
        }
        if !remaining.isEmpty {
            throw tooManyArguments(sql: sql, arguments: arguments, unused: remaining.count)
        }
    }

    private func tooManyArguments(sql: String, arguments: StatementArguments, unused: Int) -> SQLiteError {
        let used = arguments.positional.count - unused
        return SQLiteError(
            resultCode: .SQLITE_RANGE,
            message: "wrong number of arguments: the SQL takes \(used) positional value(s), "
                + "\(arguments.positional.count) given",
            sql: sql, arguments: arguments, publicStatementArguments: configuration.publicStatementArguments)
    }

    /// The first statement of `script`, found with `sqlite3_complete` (which knows about string
    /// literals, comments and trigger bodies): the shortest prefix ending in a semicolon that is
    /// a complete statement. See <https://www.sqlite.org/c3ref/complete.html>.
    static func firstStatement(in script: String) -> String {
        var index = script.startIndex
        while let semicolon = script[index...].firstIndex(of: ";") {
            let candidate = String(script[...semicolon])
            if sqlite3_complete(candidate) != 0 { return statementText(candidate) }
            index = script.index(after: semicolon)
        }
        return statementText(script)
    }

    /// One statement of a script as shown in errors: no surrounding whitespace, no final semicolon.
    static func statementText(_ text: String) -> String {
        var text = text.trimmingWhitespace()
        if text.hasSuffix(";") { text = String(text.dropLast()).trimmingWhitespace() }
        return text
    }

    /// True when `sql` holds only whitespace, comments and semicolons.
    static func isBlankSQL(_ sql: String) -> Bool {
        var chars = Substring(sql)
        while let c = chars.first {
            if c.isWhitespace || c == ";" {
                chars.removeFirst()
            } else if chars.hasPrefix("--") {
                if let nl = chars.firstIndex(of: "\n") { chars = chars[chars.index(after: nl)...] } else { return true }
            } else if chars.hasPrefix("/*") {
                if let end = chars.range(of: "*/") { chars = chars[end.upperBound...] } else { return true }
            } else {
                return false
            }
        }
        return true
    }
}
