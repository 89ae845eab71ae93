import StrataSQLite
import StrataSchema
import Testing

/// Names and values that break naive SQL building: every DSL construct must quote and escape them.
@Suite("DSL: hostile input")
struct DSLHostileInputTests {
    static let names = [
        #"a"b"#, #"""#, "two words", "select", "order", "ünïcödé 名前 🚀", "[bracketed]", "`backticked`",
        "new\nline", "'; DROP TABLE victim; --", "semi;colon", "a.b", "--dash", "/*star*/", "'single'",
    ]

    static let values: [SQLValue] = [
        "'; DROP TABLE victim; --", "it's", #"say "hi""#, "nul\u{0}inside", "\u{0}", "line\nbreak\r\n", "",
        "🚀 ünï", "\\", .integer(.min), .real(-0.5), .real(1e300), .blob([0, 39, 34, 255]), .null,
    ]

    @Test(arguments: names) func hostileNamesEverywhere(_ name: String) throws {
        let db = try Database(inMemory: Configuration())
        // The generated column (SQLite 3.31+) is left out on older runtimes.
        let generated = db.capabilities.supportsGeneratedColumns
        let columns = [name, "ref"] + (generated ? [name + "2"] : [])
        try db.create(table: "victim") { t in t.column("x") }
        let parent = name + " parent"
        try db.create(table: parent) { t in
            t.column(name, .integer).primaryKey()
        }
        try db.create(table: name) { t in
            t.column(name, .text).notNull().defaults(to: name).collate(.nocase).check { $0 != "" }.indexed()
            t.column("ref", .integer).references(parent, column: name, onDelete: .cascade)
            if generated { t.column(name + "2", .integer).generatedAs(SQLExpression.column("ref") + 1) }
            t.uniqueKey([name, "ref"])
            t.foreignKey(["ref"], references: parent, columns: [name])
        }
        try db.create(
            index: name + " index", on: name, columns: [.column(name, collation: .rtrim, order: .descending)],
            options: .unique, condition: SQLExpression.column(name) != "x")
        try db.create(index: name + " expr", on: name, expressions: [SQLExpression.column(name).lowercased])
        try db.create(
            view: name + " view", columns: [name],
            as: "SELECT \(SQL.quoteIdentifier(name)) FROM \(SQL.quoteIdentifier(name))")

        #expect(try DSLIntrospection.columns(db, name).map(\.name) == columns)
        #expect(try DSLIntrospection.columns(db, name)[0].defaultSQL == SQL.literal(name))
        #expect(try DSLIntrospection.foreignKeys(db, name).map(\.table) == [parent, parent])
        #expect(try DSLIntrospection.foreignKeys(db, name).map(\.to) == [name, name])
        #expect(
            try DSLIntrospection.indexes(db, name).map(\.name).sorted()
                == [
                    name + " expr", name + " index", "\(name)_on_\(name)", "sqlite_autoindex_\(name)_1",
                ].sorted())
        #expect(
            try DSLIntrospection.indexColumns(db, name + " index") == [
                .init(name: name, descending: true, collation: "RTRIM")
            ])

        // The default is stored and read back exactly; the view shows it.
        try db.execute(sql: "INSERT INTO \(SQL.quoteIdentifier(parent)) VALUES (1)")
        try db.execute(sql: "INSERT INTO \(SQL.quoteIdentifier(name))(ref) VALUES (1)")
        #expect(try db.fetchValue(String.self, sql: "SELECT * FROM \(SQL.quoteIdentifier(name + " view"))") == name)

        try db.alter(table: name) { t in
            t.add(column: name + " added", .text).defaults(to: name)
            t.rename(column: name + " added", to: name + " renamed")
        }
        #expect(try DSLIntrospection.columns(db, name).map(\.name).last == name + " renamed")
        try db.alter(table: name) { t in t.drop(column: name + " renamed") }
        #expect(try DSLIntrospection.columns(db, name).map(\.name) == columns)
        try db.rename(table: name, to: name + " moved")
        try db.drop(view: name + " view")
        try db.drop(index: name + " expr")
        try db.drop(table: name + " moved")
        try db.drop(table: parent)
        #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["victim"])
    }

    @Test(arguments: values) func hostileValuesEverywhere(_ value: SQLValue) throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "victim") { t in t.column("x") }
        try db.create(table: "t") { t in
            t.column("id", .integer).primaryKey()
            t.column("v").defaults(to: value).check { $0 == value || $0 != value || $0.isNull }
            t.column("w").check { $0.in([value]) || $0.isNull }
        }
        try db.create(index: "i", on: "t", columns: ["v"], condition: SQLExpression.column("v") != value)
        try db.execute(sql: "INSERT INTO t(id) VALUES (1)")
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT v FROM t") == value)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t WHERE v IS ?", arguments: [value]) == 1)
        try db.execute(sql: "INSERT INTO t(id, w) VALUES (2, ?)", arguments: [value])

        // A text with NUL is written `('a' || char(0) || 'b')`, which ADD COLUMN refuses as
        // non-constant: that column goes through the engine's rebuild instead.
        try db.alter(table: "t") { t in t.add(column: "added").defaults(to: value) }
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT added FROM t WHERE id = 1") == value)
        try db.alter(table: "t") { t in t.drop(column: "added") }
        #expect(try DSLIntrospection.columns(db, "t").map(\.name) == ["id", "v", "w"])
        #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["i", "t", "victim"])
    }

    @Test func hostileCollationAndTypeNames() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "victim") { t in t.column("x") }
        // A type name that tries to add a column, or to comment out the rest, stays one quoted name.
        try db.create(table: "t") { t in
            t.column("a", "TEXT, b INTEGER")
            t.column("c", "INT) ; DROP TABLE victim; --")
            t.column("d", "VARCHAR(20)")
            t.column("e", "DOUBLE PRECISION")
        }
        #expect(
            try DSLIntrospection.columns(db, "t").map { [$0.name, $0.type] } == [
                ["a", "TEXT, b INTEGER"], ["c", "INT) ; DROP TABLE victim; --"], ["d", "VARCHAR(20)"],
                ["e", "DOUBLE PRECISION"],
            ])
        // An unknown collation is quoted and reported by SQLite, never executed as SQL.
        let error = #expect(throws: SQLiteError.self) {
            try db.create(table: "u") { t in t.column("a").collate("x\"; DROP TABLE victim; --") }
        }
        #expect(error?.message == #"no such collation sequence: x"; DROP TABLE victim; --"#)
        #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["t", "victim"])
    }
}
