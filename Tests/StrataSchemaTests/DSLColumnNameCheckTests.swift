import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// The DSL checks the column names of indexes, keys, foreign keys and CHECK constraints against
/// the table, naming the column and the nearest existing name, before any SQL runs, with
/// double-quoted string literals accepted or not.
@Suite("DSL column-name checks")
struct DSLColumnNameCheckTests {
    func database(acceptsDQS: Bool) throws -> Database {
        var configuration = Configuration()
        configuration.acceptsDoubleQuotedStringLiterals = acceptsDQS
        let db = try Database(inMemory: configuration)
        try db.create(table: "note") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("title", .text).notNull()
            t.column("score", .integer)
        }
        return db
    }

    func refusal(_ db: Database, _ body: (Database) throws -> Void) throws -> SchemaDefinitionError? {
        let before = try DatabaseContents(db)
        let error = #expect(throws: SchemaDefinitionError.self) { try body(db) }
        #expect(try DatabaseContents(db) == before)
        return error
    }

    @Test(arguments: [false, true])
    func indexOnAMisspelledColumn(acceptsDQS: Bool) throws {
        let db = try database(acceptsDQS: acceptsDQS)
        let error = try refusal(db) { try $0.create(index: "note_on_titel", on: "note", columns: ["titel"]) }
        #expect(
            error?.message
                == "table \"note\": index \"note_on_titel\" names column \"titel\", which is not a column of the "
                + "table (nearest: \"title\"; columns: \"id\", \"title\", \"score\")")
        #expect(error?.culprit == "note")
        let partial = try refusal(db) {
            try $0.create(
                index: "note_on_title", on: "note", columns: ["title"], condition: SQLExpression.column("scroe") > 0)
        }
        #expect(partial?.message.contains("the WHERE clause of index \"note_on_title\" names column \"scroe\"") == true)
        #expect(partial?.message.contains("nearest: \"score\"") == true)
    }

    @Test(arguments: [false, true])
    func checkConstraintsNamingAMisspelledColumn(acceptsDQS: Bool) throws {
        let db = try database(acceptsDQS: acceptsDQS)
        let table = try refusal(db) {
            try $0.create(table: "event") { t in
                t.column("start", .integer)
                t.column("end", .integer)
                t.check(SQLExpression.column("strat") <= .column("end"))
            }
        }
        #expect(table?.message.contains("a CHECK constraint names column \"strat\"") == true)
        #expect(table?.message.contains("nearest: \"start\"") == true)
        let column = try refusal(db) {
            try $0.create(table: "event") { t in
                t.column("amount", .integer).check(sql: "\"amuont\" >= 0")
            }
        }
        #expect(column?.message.contains("the CHECK constraint of column \"amount\" names column \"amuont\"") == true)
        // A string in single quotes and a function or collation name are not columns.
        try db.create(table: "ok") { t in
            t.column("kind", .text).check(sql: "\"kind\" IN ('a', 'b') AND length(\"kind\") < 5")
            t.column("name", .text).check(sql: "\"name\" COLLATE \"NOCASE\" <> 'x'")
        }
    }

    @Test(arguments: [false, true])
    func keysAndForeignKeys(acceptsDQS: Bool) throws {
        let db = try database(acceptsDQS: acceptsDQS)
        let unique = try refusal(db) {
            try $0.create(table: "tag") { t in
                t.column("name", .text)
                t.uniqueKey(["nmae"])
            }
        }
        #expect(unique?.message.contains("UNIQUE names column \"nmae\"") == true)
        #expect(unique?.message.contains("nearest: \"name\"") == true)
        let local = try refusal(db) {
            try $0.create(table: "attachment") { t in
                t.column("noteId", .integer)
                t.foreignKey(["note_id"], references: "note")
            }
        }
        #expect(local?.message.contains("FOREIGN KEY names column \"note_id\"") == true)
        let parent = try refusal(db) {
            try $0.create(table: "attachment") { t in
                t.column("noteId", .integer).references("note", column: "ids")
            }
        }
        #expect(parent?.message.contains("table \"note\": a foreign key names column \"ids\"") == true)
        #expect(parent?.message.contains("nearest: \"id\"") == true)
        // No near name: the columns are listed.
        let far = try refusal(db) { try $0.create(index: "x", on: "note", columns: ["zzzzzz"]) }
        #expect(far?.message.hasSuffix("(columns: \"id\", \"title\", \"score\")") == true)
    }

    /// A bare misspelled name in raw SQL is found by SQLite; the error names the nearest column.
    @Test func bareNamesInRawSQLAreReportedWithTheNearestName() throws {
        let db = try database(acceptsDQS: false)
        let error = try refusal(db) {
            try $0.create(table: "event") { t in
                t.column("amount", .integer).check(sql: "amuont >= 0")
            }
        }
        #expect(
            error?.message
                == "table \"event\": SQL names column \"amuont\", which is not a column of the table "
                + "(nearest: \"amount\"; columns: \"amount\")")
        let index = try refusal(db) {
            try $0.create(index: "note_on_lower", on: "note", expressions: [SQLExpression(sql: "lower(titel)")])
        }
        #expect(index?.message.contains("names column \"titel\"") == true)
        #expect(index?.message.contains("nearest: \"title\"") == true)
    }

    @Test func aSchemaDefinitionIsCheckedAgainstItsOwnTables() throws {
        let db = try Database(inMemory: Configuration())
        var schema = SchemaDefinition()
        schema.table("folder") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text)
        }
        schema.index("folder_on_nmae", on: "folder", columns: ["nmae"])
        let error = try refusal(db) { try $0.create(schema) }
        #expect(error?.message.contains("names column \"nmae\"") == true)
    }

    /// The default is strict, as GRDB's: a mistyped double-quoted column in raw SQL is an error.
    @Test(.requiresSQLite(3, 29, "refusing double-quoted strings (SQLITE_DBCONFIG_DQS_DML)"))
    func doubleQuotedStringLiteralsAreRefusedByDefault() throws {
        #expect(Configuration().acceptsDoubleQuotedStringLiterals == false)
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a)")
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT \"missing\" FROM t") }
        // SQLite 3.46+ quotes the word and adds a hint ("no such column: \"missing\" - should this be a
        // string literal in single-quotes?"); earlier releases print the bare word.
        #expect(error?.message.contains("no such column") == true)
        #expect(error?.message.contains("missing") == true)
    }
}
