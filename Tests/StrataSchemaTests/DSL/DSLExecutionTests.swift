import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// DSL statements executed on SQLite, then read back through PRAGMAs and sqlite_schema.
@Suite("DSL: execution")
struct DSLExecutionTests {
    typealias Col = DSLIntrospection.ColumnInfo

    @Test func columnsIntrospectAsDeclared() throws {
        let db = try Database(inMemory: Configuration())
        // Generated columns need SQLite 3.31: older runtimes check the rest and the DSL's refusal.
        let generated = db.capabilities.supportsGeneratedColumns
        try db.create(table: "team") { t in
            t.column("id", .integer).primaryKey()
        }
        if !generated {
            let refusal = #expect(throws: SchemaDefinitionError.self) {
                try db.create(table: "player") { t in
                    t.column("score", .integer)
                    t.column("double", .integer).generatedAs(sql: "score * 2")
                }
            }
            #expect(
                refusal?.message == "table \"player\": generated columns need SQLite 3.31.0 or newer; "
                    + "this SQLite is \(db.capabilities.version)")
            #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["team"])
        }
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("untyped")
            t.column("name", .text).notNull().collate(.nocase).check { $0.length > 0 }
            t.column("score", .integer).notNull(onConflict: .ignore).defaults(to: 0)
            t.column("ratio", .double).defaults(to: -1.5)
            t.column("weight", .real)
            t.column("amount", .numeric)
            t.column("active", .boolean).defaults(to: true)
            t.column("photo", .blob).defaults(to: [UInt8]([0xCA, 0xFE]))
            t.column("born", .date)
            t.column("createdAt", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
            t.column("day", .text).defaults(sql: "date('now')")
            t.column("payload", .json).check(sql: "json_valid(payload)")
            t.column("email", .text).unique(onConflict: .replace)
            t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
            if generated {
                t.column("double", .integer).generatedAs(sql: "score * 2")
                t.column("triple", .integer).generatedAs(SQLExpression.column("score") * 3, .stored)
            }
        }
        #expect(
            try DSLIntrospection.columns(db, "player") == [
                Col("id", "INTEGER", pk: 1),
                Col("untyped", ""),
                Col("name", "TEXT", notNull: true),
                Col("score", "INTEGER", notNull: true, default: "0"),
                Col("ratio", "DOUBLE", default: "-1.5"),
                Col("weight", "REAL"),
                Col("amount", "NUMERIC"),
                Col("active", "BOOLEAN", default: "1"),
                Col("photo", "BLOB", default: "X'CAFE'"),
                Col("born", "DATE"),
                Col("createdAt", "DATETIME", default: "CURRENT_TIMESTAMP"),
                Col("day", "TEXT", default: "date('now')"),
                Col("payload", "JSON TEXT"),
                Col("email", "TEXT"),
                Col("teamId", "INTEGER"),
            ]
                + (generated
                    ? [
                        Col("double", "INTEGER", hidden: 2),
                        Col("triple", "INTEGER", hidden: 3),
                    ] : []))
        #expect(
            try DSLIntrospection.indexes(db, "player").map { [$0.name, $0.origin, "\($0.unique)"] } == [
                ["player_on_teamId", "c", "false"],
                ["sqlite_autoindex_player_1", "u", "true"],
            ])
        #expect(
            try DSLIntrospection.foreignKeys(db, "player") == [
                .init(id: 0, table: "team", from: "teamId", to: nil, onUpdate: "NO ACTION", onDelete: "CASCADE")
            ])

        // Behaviour: defaults, collation, CHECK, conflict clauses, generated columns, autoincrement.
        try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
        try db.execute(sql: "INSERT INTO player(name, email, teamId, payload) VALUES ('Ann', 'a@x', 1, '{}')")
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM player WHERE name = 'ANN'"))
        #expect(try row["score"] as Int == 0)
        if generated { #expect(try row["double"] as Int == 0) }
        #expect(try row["active"] as Bool == true)
        #expect(try row["photo"] as [UInt8] == [0xCA, 0xFE])
        #expect(try row["ratio"] as Double == -1.5)
        #expect(try db.fetchValue(Int.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'player'") == 1)
        let checkError = #expect(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO player(name) VALUES ('')")
        }
        #expect(checkError?.message.contains("CHECK constraint failed") == true)
        let jsonError = #expect(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO player(name, payload) VALUES ('Bob', '{')")
        }
        #expect(jsonError?.message.contains("CHECK constraint failed") == true)
        // NOT NULL ON CONFLICT IGNORE skips the row; UNIQUE ON CONFLICT REPLACE replaces it.
        try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Cid', NULL)")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player WHERE name = 'Cid'") == 0)
        try db.execute(sql: "INSERT INTO player(name, email, score, payload) VALUES ('Dee', 'a@x', 5, '[]')")
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM player") == ["Dee"])
        if generated { #expect(try db.fetchValue(Int.self, sql: "SELECT triple FROM player") == 15) }
        // ON DELETE CASCADE.
        try db.execute(sql: "UPDATE player SET teamId = 1")
        try db.execute(sql: "DELETE FROM team")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 0)
    }

    @Test func tableOptions() throws {
        let db = try Database(inMemory: Configuration())
        if db.capabilities.supportsStrictTables {
            try db.create(table: "s", options: [.strict, .withoutRowID]) { t in
                t.column("k", .text).primaryKey()
                t.column("v", .any)
            }
            let flags = try DSLIntrospection.tableFlags(db, "s")
            #expect(flags.strict && flags.withoutRowID)
            let strictError = #expect(throws: SQLiteError.self) {
                try db.execute(sql: "INSERT INTO s(k, v) VALUES (X'00', 2)")
            }
            #expect(strictError?.message.contains("cannot store BLOB value in TEXT column s.k") == true)
        } else {
            // STRICT needs SQLite 3.37: refused naming the table, nothing created.
            let refusal = #expect(throws: SchemaDefinitionError.self) {
                try db.create(table: "s", options: [.strict, .withoutRowID]) { t in t.column("k", .text).primaryKey() }
            }
            #expect(
                refusal?.message == "table \"s\": STRICT tables need SQLite 3.37.0 or newer; "
                    + "this SQLite is \(db.capabilities.version)")
            #expect(try DSLIntrospection.objects(db).isEmpty)
            try db.create(table: "s", options: .withoutRowID) { t in
                t.column("k", .text).primaryKey()
                t.column("v")
            }
            #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT rowid FROM s") }
        }

        try db.create(table: "tmp", options: .temporary) { t in t.column("a").indexed() }
        #expect(
            try DSLIntrospection.objects(db, schema: "temp")
                == [
                    ["table", "tmp", "tmp"], ["index", "tmp_on_a", "tmp"],
                ].sorted { $0[1] < $1[1] })
        #expect(try DSLIntrospection.objects(db).isEmpty == false)
        #expect(try DSLIntrospection.objects(db).contains { $0[1] == "tmp" } == false)

        // IF NOT EXISTS: a second creation is a no-op; without it, SQLite refuses.
        try db.create(table: "s", options: .ifNotExists) { t in t.column("other") }
        #expect(try DSLIntrospection.columns(db, "s").map(\.name) == ["k", "v"])
        let exists = #expect(throws: SQLiteError.self) {
            try db.create(table: "s") { t in t.column("other") }
        }
        #expect(exists?.message == "table \"s\" already exists")
    }

    @Test func tableConstraints() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "citizen") { t in
            t.column("country", .text).notNull()
            t.column("id", .integer).notNull()
            t.primaryKey(["country", "id"])
        }
        try db.create(table: "passport") { t in
            t.column("country", .text)
            t.column("citizenId", .integer)
            t.column("number", .text)
            t.column("issued", .date)
            t.column("expires", .date)
            t.primaryKey(["number"], onConflict: .abort)
            t.uniqueKey(["country", "citizenId"], onConflict: .replace)
            t.foreignKey(
                ["country", "citizenId"], references: "citizen", columns: ["country", "id"],
                onDelete: .cascade, onUpdate: .cascade, deferred: true)
            t.check(SQLExpression.column("issued") < .column("expires"))
            t.constraint(sql: "CONSTRAINT number_format CHECK (length(number) = 3)")
        }
        #expect(try DSLIntrospection.columns(db, "citizen").map(\.primaryKeyIndex) == [1, 2])
        #expect(try DSLIntrospection.columns(db, "passport").map(\.primaryKeyIndex) == [0, 0, 1, 0, 0])
        #expect(
            try DSLIntrospection.indexes(db, "passport").map { [$0.origin, "\($0.unique)"] } == [
                ["pk", "true"], ["u", "true"],
            ])
        #expect(
            try DSLIntrospection.foreignKeys(db, "passport") == [
                .init(
                    id: 0, table: "citizen", from: "country", to: "country", onUpdate: "CASCADE", onDelete: "CASCADE"),
                .init(id: 0, table: "citizen", from: "citizenId", to: "id", onUpdate: "CASCADE", onDelete: "CASCADE"),
            ])
        // Deferred: a missing parent is only reported at COMMIT.
        try db.transaction {
            try db.execute(sql: "INSERT INTO passport VALUES ('fr', 7, 'A01', '2020-01-01', '2030-01-01')")
            try db.execute(sql: "INSERT INTO citizen VALUES ('fr', 7)")
        }
        let check = #expect(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO passport VALUES ('fr', 7, 'A02', '2030-01-01', '2020-01-01')")
        }
        #expect(check?.message.contains("CHECK constraint failed") == true)
        let named = #expect(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO passport VALUES ('fr', 7, 'A0002', '2020-01-01', '2030-01-01')")
        }
        #expect(named?.message == "CHECK constraint failed: number_format")
    }

    @Test func indexes() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "t") { t in
            t.column("a", .text)
            t.column("b", .integer)
        }
        try db.create(
            index: "t_ab", on: "t", columns: [.column("a", collation: .nocase), .column("b", order: .descending)])
        try db.create(
            index: "t_b", on: "t", columns: ["b"], options: [.unique, .ifNotExists],
            condition: SQLExpression.column("b") > 0)
        try db.create(index: "t_b", on: "t", columns: ["a"], options: .ifNotExists)  // no-op
        try db.create(index: "t_lower_a", on: "t", expressions: [SQLExpression.column("a").lowercased])
        let names = ["a", "b"]
        try db.create(index: "t_names", on: "t", columns: names)
        try db.create(IndexDefinition("t_rtrim", on: "t", columns: [.column("a", collation: .rtrim)]))

        #expect(
            try DSLIntrospection.indexes(db, "t") == [
                .init(name: "t_ab", unique: false, origin: "c", partial: false),
                .init(name: "t_b", unique: true, origin: "c", partial: true),
                .init(name: "t_lower_a", unique: false, origin: "c", partial: false),
                .init(name: "t_names", unique: false, origin: "c", partial: false),
                .init(name: "t_rtrim", unique: false, origin: "c", partial: false),
            ])
        #expect(
            try DSLIntrospection.indexColumns(db, "t_ab") == [
                .init(name: "a", descending: false, collation: "NOCASE"),
                .init(name: "b", descending: true, collation: "BINARY"),
            ])
        #expect(
            try DSLIntrospection.indexColumns(db, "t_b") == [.init(name: "b", descending: false, collation: "BINARY")])
        #expect(
            try DSLIntrospection.indexColumns(db, "t_lower_a") == [
                .init(name: nil, descending: false, collation: "BINARY")
            ])
        #expect(
            try DSLIntrospection.indexColumns(db, "t_rtrim") == [
                .init(name: "a", descending: false, collation: "RTRIM")
            ])
        // The partial unique index only covers b > 0.
        try db.execute(sql: "INSERT INTO t(b) VALUES (0), (0), (1)")
        #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t(b) VALUES (1)") }

        try db.drop(index: "t_ab")
        try db.drop(index: "t_ab", ifExists: true)
        #expect(try DSLIntrospection.indexes(db, "t").map(\.name) == ["t_b", "t_lower_a", "t_names", "t_rtrim"])
        let missing = #expect(throws: SQLiteError.self) { try db.drop(index: "t_ab") }
        #expect(missing?.message == "no such index: t_ab")
    }

    @Test func viewsAndTriggers() throws {
        let db = try Database(inMemory: Configuration())
        let schema = SchemaDefinition { s in
            s.table("item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("price", .integer).notNull()
            }
            s.table("log") { t in t.column("message", .text) }
            s.view("expensive", columns: ["itemId", "cost"], as: "SELECT id, price FROM item WHERE price > 100")
            s.trigger(
                sql: """
                    CREATE TRIGGER item_logged AFTER INSERT ON item
                    BEGIN INSERT INTO log(message) VALUES ('added ' || NEW.id); END;
                    """)
        }
        try db.create(schema)
        try db.create(view: "cheap", options: .ifNotExists, as: "SELECT * FROM item WHERE price <= 100")
        try db.create(view: "cheap", options: .ifNotExists, as: "SELECT 1")  // no-op
        try db.create(view: "scratch", options: .temporary, as: "SELECT 1 AS one")
        try db.execute(sql: "INSERT INTO item(price) VALUES (50), (500)")
        #expect(try db.fetchColumn(Int.self, sql: "SELECT cost FROM expensive") == [500])
        #expect(try db.fetchColumn(Int.self, sql: "SELECT price FROM cheap") == [50])
        #expect(try db.fetchColumn(String.self, sql: "SELECT message FROM log") == ["added 1", "added 2"])
        #expect(
            try DSLIntrospection.objects(db) == [
                ["view", "cheap", "cheap"], ["view", "expensive", "expensive"], ["table", "item", "item"],
                ["trigger", "item_logged", "item"], ["table", "log", "log"],
            ])
        #expect(try DSLIntrospection.objects(db, schema: "temp") == [["view", "scratch", "scratch"]])
        try db.drop(view: "cheap")
        try db.drop(view: "cheap", ifExists: true)
        #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["expensive", "item", "item_logged", "log"])
    }

    @Test func alterRenameDrop() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "player") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text)
        }
        try db.execute(sql: "INSERT INTO player VALUES (1, 'Ann')")
        // Generated columns need SQLite 3.31: older runtimes check the rest and the DSL's refusal.
        let generated = db.capabilities.supportsGeneratedColumns
        if !generated {
            let before = try DatabaseContents(db)
            let refusal = #expect(throws: SchemaDefinitionError.self) {
                try db.alter(table: "player") { t in
                    t.add(column: "email", .text)
                    t.add(column: "label").generatedAs(sql: "name || '!'")
                }
            }
            #expect(
                refusal?.message == "table \"player\": column \"label\": generated columns need SQLite 3.31.0 "
                    + "or newer; this SQLite is \(db.capabilities.version)")
            #expect(try DatabaseContents(db) == before)
        }
        try db.alter(table: "player") { t in
            t.add(column: "email", .text).notNull().defaults(to: "none")
            t.add(column: "level", .integer).defaults(to: 1).check { $0 >= 1 }.indexed()
            if generated { t.add(column: "label").generatedAs(sql: "name || '!'") }
            t.rename(column: "name", to: "fullName")
        }
        #expect(
            try DSLIntrospection.columns(db, "player") == [
                Col("id", "INTEGER", pk: 1),
                Col("fullName", "TEXT"),
                Col("email", "TEXT", notNull: true, default: "'none'"),
                Col("level", "INTEGER", default: "1"),
            ] + (generated ? [Col("label", "", hidden: 2)] : []))
        #expect(try DSLIntrospection.indexes(db, "player").map(\.name) == ["player_on_level"])
        if generated { #expect(try db.fetchValue(String.self, sql: "SELECT label FROM player") == "Ann!") }
        #expect(throws: SQLiteError.self) { try db.execute(sql: "UPDATE player SET level = 0") }

        try db.rename(table: "player", to: "athlete")
        #expect(
            try DSLIntrospection.objects(db) == [
                ["table", "athlete", "athlete"], ["index", "player_on_level", "athlete"],
            ])
        try db.drop(table: "athlete")
        try db.drop(table: "athlete", ifExists: true)
        #expect(try DSLIntrospection.objects(db).isEmpty)
        let missing = #expect(throws: SQLiteError.self) { try db.drop(table: "athlete") }
        #expect(missing?.message == "no such table: athlete")
    }

    @Test func failureLeavesDatabaseUnchanged() throws {
        let db = try Database(inMemory: Configuration())
        // The table is created, then its index fails: the savepoint removes the table too.
        let broken = SchemaDefinition { s in
            s.table("a") { t in t.column("x") }
            s.index("b_x", on: "b", columns: ["x"])
        }
        let error = #expect(throws: SQLiteError.self) { try db.create(broken) }
        #expect(error?.message == "no such table: main.b")
        #expect(error?.sql == #"CREATE INDEX "b_x" ON "b"("x")"#)
        #expect(try DSLIntrospection.objects(db).isEmpty)

        try db.create(table: "keep") { t in t.column("x") }
        let alter = #expect(throws: SQLiteError.self) {
            try db.alter(table: "keep") { t in
                t.add(column: "y")
                t.rename(column: "nope", to: "z")
            }
        }
        // SQLite quotes the name differently between versions.
        #expect(alter?.message.hasPrefix("no such column: ") == true && alter?.message.contains("nope") == true)
        #expect(try DSLIntrospection.columns(db, "keep").map(\.name) == ["x"])
    }

    @Test func smuggledStatementsAreRefused() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "victim") { t in t.column("x") }
        // Raw SQL fragments are trusted text, but a fragment can never run a second statement.
        #expect(throws: SQLiteError.self) {
            try db.create(table: "t") { t in t.column("a").check(sql: "1); DROP TABLE victim; --") }
        }
        #expect(throws: SQLiteError.self) {
            try db.create(view: "v", as: "SELECT 1; DROP TABLE victim")
        }
        #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["victim"])
    }

    @Test func definitionErrorsNameTheCulprit() throws {
        let db = try Database(inMemory: Configuration())
        let empty = #expect(throws: SchemaDefinitionError.self) { try db.create(table: "empty") { _ in } }
        #expect(empty?.description == #"table "empty" has no columns"#)
        let fk = #expect(throws: SchemaDefinitionError.self) {
            try db.create(table: "child") { t in
                t.column("a")
                t.foreignKey(["a"], references: "parent", columns: ["x", "y"])
            }
        }
        #expect(fk?.description == #"table "child": FOREIGN KEY ("a") has 1 column(s) but references 2 in "parent""#)
        let pk = #expect(throws: SchemaDefinitionError.self) {
            try db.create(table: "k") { t in
                t.column("a")
                t.primaryKey([])
            }
        }
        #expect(pk?.description == #"table "k": PRIMARY KEY needs at least one column"#)
        let index = #expect(throws: SchemaDefinitionError.self) {
            try db.create(index: "i", on: "k", columns: [String]())
        }
        #expect(index?.description == #"index "i" on "k" has no columns"#)
        #expect(try DSLIntrospection.objects(db).isEmpty)
    }

    /// The expression builder's precedence, checked by SQLite itself: each built expression must
    /// evaluate like the Swift closure that states its meaning, on every row.
    @Test func expressionsEvaluateAsMeant() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE n(a INTEGER, b INTEGER)")
        for a in -2...2 { for b in -2...2 { try db.execute(sql: "INSERT INTO n VALUES (?, ?)", arguments: [a, b]) } }
        let a = SQLExpression.column("a")
        let b = SQLExpression.column("b")
        var cases: [(String, SQLExpression, (Int, Int) -> Bool)] = []
        cases.append(
            ("or inside and", (a > 0 || b > 0) && a < 2, { (x: Int, y: Int) -> Bool in (x > 0 || y > 0) && x < 2 }))
        cases.append(
            ("and inside or", a > 0 && b > 0 || a < -1, { (x: Int, y: Int) -> Bool in x > 0 && y > 0 || x < -1 }))
        cases.append(("not", !(a == 1 && b == 1), { (x: Int, y: Int) -> Bool in !(x == 1 && y == 1) }))
        cases.append(
            ("arithmetic", (a + b) * 2 - (a - b) == 3, { (x: Int, y: Int) -> Bool in (x + y) * 2 - (x - y) == 3 }))
        cases.append(("minus negative", a - -1 == 2, { (x: Int, _: Int) -> Bool in x + 1 == 2 }))
        cases.append(("unary minus", -(a + b) * 3 > 2, { (x: Int, y: Int) -> Bool in -(x + y) * 3 > 2 }))
        cases.append(
            ("comparisons of comparisons", (a < 1) == (b < 1), { (x: Int, y: Int) -> Bool in (x < 1) == (y < 1) }))
        cases.append(
            (
                "between", a.between(-1, and: 1) && !b.in([0, 1]),
                { (x: Int, y: Int) -> Bool in (-1...1).contains(x) && ![0, 1].contains(y) }
            ))
        for (name, expression, meaning) in cases {
            let rows = try db.fetchAll(sql: "SELECT a, b, \(expression.sql) AS r FROM n")
            for row in rows {
                let (x, y, r): (Int, Int, Bool) = (try row["a"], try row["b"], try row["r"])
                #expect(r == meaning(x, y), "\(name): \(expression.sql) with a=\(x), b=\(y)")
            }
        }
    }
}
