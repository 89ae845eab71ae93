import StrataSQLite
import Testing

/// The SQL of every request builder, pinned: the text is part of the interface (stable, readable,
/// values bound).
@Suite("Query interface: generated SQL")
struct RequestSQLTests {
    typealias Note = QueryFixtures.Note
    typealias Translation = QueryFixtures.Translation
    typealias Odd = QueryFixtures.Odd

    struct Case: CustomTestStringConvertible {
        let name: String
        let request: QueryInterfaceRequest<Note>
        let sql: String
        var testDescription: String { name }
    }

    static let title = Column("title")
    static let score = Column("score")
    static let pinned = Column("pinned")

    static let cases: [Case] = [
        Case(name: "all", request: Note.all(), sql: #"SELECT * FROM "note" | []"#),
        Case(name: "none", request: Note.none(), sql: #"SELECT * FROM "note" WHERE 0 | []"#),
        Case(
            name: "equal", request: Note.filter(title == "Milk"),
            sql: #"SELECT * FROM "note" WHERE "title" = ? | ['Milk']"#),
        Case(
            name: "value on the left", request: Note.filter(10 < score),
            sql: #"SELECT * FROM "note" WHERE ? < "score" | [10]"#),
        Case(
            name: "== nil", request: Note.filter(score == nil), sql: #"SELECT * FROM "note" WHERE "score" IS NULL | []"#
        ),
        Case(
            name: "!= nil", request: Note.filter(score != nil),
            sql: #"SELECT * FROM "note" WHERE "score" IS NOT NULL | []"#),
        Case(
            name: "optional value nil", request: Note.filter(score == Int?.none),
            sql: #"SELECT * FROM "note" WHERE "score" IS NULL | []"#),
        Case(name: "IS", request: Note.filter(score === 5), sql: #"SELECT * FROM "note" WHERE "score" IS ? | [5]"#),
        Case(
            name: "IS NOT", request: Note.filter(score !== 5),
            sql: #"SELECT * FROM "note" WHERE "score" IS NOT ? | [5]"#
        ),
        Case(
            name: "comparisons", request: Note.filter(score > 1 && score >= 2 && score < 3 && score <= 4),
            sql:
                #"SELECT * FROM "note" WHERE "score" > ? AND "score" >= ? AND "score" < ? AND "score" <= ? | [1, 2, 3, 4]"#
        ),
        Case(
            name: "or inside and", request: Note.filter(pinned && (score > 1 || title == "x")),
            sql: #"SELECT * FROM "note" WHERE "pinned" AND ("score" > ? OR "title" = ?) | [1, 'x']"#),
        Case(name: "not", request: Note.filter(!pinned), sql: #"SELECT * FROM "note" WHERE NOT "pinned" | []"#),
        Case(
            name: "not of or", request: Note.filter(!(pinned || score > 1)),
            sql: #"SELECT * FROM "note" WHERE NOT ("pinned" OR "score" > ?) | [1]"#),
        Case(
            name: "arithmetic", request: Note.filter((score + 1) * 2 - score / 3 > -score),
            sql: #"SELECT * FROM "note" WHERE ("score" + ?) * ? - "score" / ? > - "score" | [1, 2, 3]"#),
        Case(
            name: "right operand parenthesized", request: Note.filter(score - (score - 1) == 1),
            sql: #"SELECT * FROM "note" WHERE "score" - ("score" - ?) = ? | [1, 1]"#),
        Case(
            name: "like", request: Note.filter(title.like("A%")),
            sql: #"SELECT * FROM "note" WHERE "title" LIKE ? | ['A%']"#),
        Case(
            name: "like escape", request: Note.filter(title.like("100\\%", escape: "\\")),
            sql: #"SELECT * FROM "note" WHERE "title" LIKE ? ESCAPE ? | ['100\%', '\']"#),
        Case(
            name: "glob", request: Note.filter(title.glob("A*")),
            sql: #"SELECT * FROM "note" WHERE "title" GLOB ? | ['A*']"#),
        Case(
            name: "collating", request: Note.filter(title.collating(.nocase) == "apples"),
            sql: #"SELECT * FROM "note" WHERE "title" COLLATE NOCASE = ? | ['apples']"#),
        Case(
            name: "IN", request: Note.filter([1, 3].contains(score)),
            sql: #"SELECT * FROM "note" WHERE "score" IN (?, ?) | [1, 3]"#),
        Case(
            name: "empty IN", request: Note.filter([Int]().contains(score)),
            sql: #"SELECT * FROM "note" WHERE "score" IN () | []"#),
        Case(
            name: "BETWEEN", request: Note.filter((5...10).contains(score)),
            sql: #"SELECT * FROM "note" WHERE "score" BETWEEN ? AND ? | [5, 10]"#),
        Case(
            name: "half-open range", request: Note.filter((5..<10).contains(score)),
            sql: #"SELECT * FROM "note" WHERE "score" >= ? AND "score" < ? | [5, 10]"#),
        Case(
            name: "IFNULL", request: Note.filter(score ?? 0 > 3),
            sql: #"SELECT * FROM "note" WHERE IFNULL("score", ?) > ? | [0, 3]"#),
        Case(
            name: "functions", request: Note.filter(title.length > 3 && title.lowercased == title.uppercased),
            sql: #"SELECT * FROM "note" WHERE length("title") > ? AND lower("title") = upper("title") | [3]"#),
        Case(
            name: "literal", request: Note.filter(literal: "instr(title, \("p")) > 0"),
            sql: #"SELECT * FROM "note" WHERE instr(title, ?) > 0 | ['p']"#),
        Case(
            name: "literal combined", request: Note.filter(literal: "pinned OR score > 1").filter(pinned),
            sql: #"SELECT * FROM "note" WHERE (pinned OR score > 1) AND "pinned" | []"#),
        Case(
            name: "filters chain with AND", request: Note.filter(pinned).filter(score > 1),
            sql: #"SELECT * FROM "note" WHERE "pinned" AND "score" > ? | [1]"#),
        Case(
            name: "filters chain: operands parenthesized as && does",
            request: Note.filter(pinned || score > 1).filter(title == "x").filter(pinned && score < 5),
            sql:
                #"SELECT * FROM "note" WHERE ("pinned" OR "score" > ?) AND "title" = ? AND ("pinned" AND "score" < ?) | [1, 'x', 5]"#
        ),
        Case(
            name: "havings chain with AND",
            request: Note.select(Column("folderId")).group(Column("folderId")).having(count(Column("id")) > 1)
                .having(count(Column("id")) < 9 || Column("folderId") == nil),
            sql:
                #"SELECT "folderId" FROM "note" GROUP BY "folderId" HAVING COUNT("id") > ? AND (COUNT("id") < ? OR "folderId" IS NULL) | [1, 9]"#
        ),
        Case(name: "key", request: Note.filter(key: 3), sql: #"SELECT * FROM "note" WHERE "id" = ? | [3]"#),
        Case(
            name: "keys", request: Note.filter(keys: [1, 2]),
            sql: #"SELECT * FROM "note" WHERE "id" IN (?, ?) | [1, 2]"#),
        Case(name: "id", request: Note.filter(id: 4), sql: #"SELECT * FROM "note" WHERE "id" = ? | [4]"#),
        Case(
            name: "ids", request: Note.filter(ids: [4, 5]), sql: #"SELECT * FROM "note" WHERE "id" IN (?, ?) | [4, 5]"#),
        Case(
            name: "NULL key", request: Note.filter(key: Int64?.none),
            sql: #"SELECT * FROM "note" WHERE "id" IN () | []"#),
        Case(name: "order", request: Note.order(title), sql: #"SELECT * FROM "note" ORDER BY "title" | []"#),
        Case(
            name: "order directions",
            request: Note.order(pinned.desc, title.asc, score.ascNullsLast, Column("id").descNullsFirst),
            sql:
                #"SELECT * FROM "note" ORDER BY "pinned" DESC, "title" ASC, "score" ASC NULLS LAST, "id" DESC NULLS FIRST | []"#
        ),
        Case(
            name: "order replaces", request: Note.order(title).order(score),
            sql: #"SELECT * FROM "note" ORDER BY "score" | []"#),
        Case(
            name: "thenOrder", request: Note.order(title).thenOrder(score.desc),
            sql: #"SELECT * FROM "note" ORDER BY "title", "score" DESC | []"#),
        Case(
            name: "reversed", request: Note.order(title, score.desc, score.ascNullsLast).reversed(),
            sql: #"SELECT * FROM "note" ORDER BY "title" DESC, "score" ASC, "score" DESC NULLS FIRST | []"#),
        Case(
            name: "reversed without order", request: Note.all().reversed(),
            sql: #"SELECT * FROM "note" ORDER BY "id" DESC | []"#),
        Case(
            name: "reversed twice", request: Note.order(title).reversed().reversed(),
            sql: #"SELECT * FROM "note" ORDER BY "title" | []"#),
        Case(name: "unordered", request: Note.order(title).unordered(), sql: #"SELECT * FROM "note" | []"#),
        Case(name: "limit", request: Note.limit(2), sql: #"SELECT * FROM "note" LIMIT 2 | []"#),
        Case(
            name: "limit offset", request: Note.limit(2, offset: 3), sql: #"SELECT * FROM "note" LIMIT 2 OFFSET 3 | []"#
        ),
        Case(
            name: "select", request: Note.select(Column("id"), title.uppercased.forKey("upper")),
            sql: #"SELECT "id", upper("title") AS "upper" FROM "note" | []"#),
        Case(
            name: "select all columns and rowid", request: Note.select(.allColumns, Column.rowID),
            sql: #"SELECT *, "rowid" FROM "note" | []"#),
        Case(
            name: "distinct", request: Note.select(Column("folderId")).distinct(),
            sql: #"SELECT DISTINCT "folderId" FROM "note" | []"#),
        Case(
            name: "group having",
            request: Note.select(Column("folderId"), count(Column("id"))).group(Column("folderId")).having(
                count(Column("id")) > 1),
            sql: #"SELECT "folderId", COUNT("id") FROM "note" GROUP BY "folderId" HAVING COUNT("id") > ? | [1]"#),
        Case(
            name: "aggregates",
            request: Note.select(
                count(distinct: score), sum(score), total(score), min(score), max(score), average(score)),
            sql:
                #"SELECT COUNT(DISTINCT "score"), SUM("score"), TOTAL("score"), MIN("score"), MAX("score"), AVG("score") FROM "note" | []"#
        ),
        Case(
            name: "JSON operators",
            request: Note.filter(
                Column("title").jsonValue(atPath: "$.a") == Column("title").jsonRepresentation(atPath: "$.b")),
            sql: #"SELECT * FROM "note" WHERE "title" ->> ? = "title" -> ? | ['$.a', '$.b']"#),
        Case(
            name: "closure over Columns", request: Note.filter { $0.pinned && $0.title.like("A%") },
            sql: #"SELECT * FROM "note" WHERE "pinned" AND "title" LIKE ? | ['A%']"#),
        Case(
            name: "closure order", request: Note.order { [$0.pinned.desc, $0.title] },
            sql: #"SELECT * FROM "note" ORDER BY "pinned" DESC, "title" | []"#),
        Case(
            name: "named alias",
            request: {
                let n = TableAlias(name: "n")
                return Note.aliased(n).filter(n[Column("score")] > 1).filter(pinned)
            }(),
            sql: #"SELECT "n".* FROM "note" "n" WHERE "n"."score" > ? AND "n"."pinned" | [1]"#),
        Case(
            name: "unnamed alias",
            request: {
                let n = TableAlias()
                return Note.aliased(n).filter(n["score"] > 1)
            }(),
            sql: #"SELECT * FROM "note" WHERE "note"."score" > ? | [1]"#),
        Case(
            name: "everything",
            request: Note.filter(pinned).order(title.desc).limit(10, offset: 20).select(Column("id")).distinct(),
            sql: #"SELECT DISTINCT "id" FROM "note" WHERE "pinned" ORDER BY "title" DESC LIMIT 10 OFFSET 20 | []"#),
    ]

    @Test(arguments: cases)
    func sqlIsPinned(_ c: Case) throws {
        let db = try QueryFixtures.database()
        // JSON operators need 3.38: the SQL is checked where the SQLite has them.
        if c.name == "JSON operators", db.capabilities.version < SQLiteVersion(3, 38) { return }
        // NULLS FIRST/LAST need 3.30 (older SQLites get an error naming the feature, tested elsewhere).
        if c.sql.contains("NULLS"), db.capabilities.version < SQLiteVersion(3, 30) { return }
        let actual = try c.request.sqlAndArguments(db)
        #expect(actual == c.sql, "\(c.name)")
    }

    @Test func countExistsDeleteAndUpdateSQL() throws {
        let db = try QueryFixtures.database()
        var statements: [String] = []
        db.trace { statements.append($0.sql) }
        _ = try Note.filter(Self.pinned).fetchCount(db)
        _ = try Note.filter(Self.pinned).order(Self.title).fetchCount(db)
        _ = try Note.select(Column("folderId")).distinct().fetchCount(db)
        _ = try Note.order(Self.title).limit(2).fetchCount(db)
        _ = try Note.filter(Self.title == "x").exists(db)
        _ = try Note.filter(Self.title == "x").deleteAll(db)
        _ = try Note.order(Self.title).limit(1).deleteAll(db)
        _ = try Translation.order(Column("lang")).limit(1).deleteAll(db)
        _ = try Note.filter(Self.title == "x").updateAll(db, Self.score.set(to: 0), Self.score += 1)
        _ = try Note.limit(1).updateAll(db, [Self.score.set(to: nil)])
        _ = try Note.filter(key: 1).fetchOne(db)
        _ = try Note.limit(5, offset: 1).fetchOne(db)
        _ = try Note.limit(0).fetchOne(db)
        db.trace(nil)
        #expect(
            [
                #"SELECT COUNT(*) FROM "note" WHERE "pinned""#,
                #"SELECT COUNT(*) FROM "note" WHERE "pinned""#,
                #"SELECT COUNT(*) FROM (SELECT DISTINCT "folderId" FROM "note")"#,
                #"SELECT COUNT(*) FROM (SELECT * FROM "note" ORDER BY "title" LIMIT 2)"#,
                #"SELECT EXISTS (SELECT * FROM "note" WHERE "title" = ?)"#,
                #"DELETE FROM "note" WHERE "title" = ?"#,
                #"DELETE FROM "note" WHERE "id" IN (SELECT "id" FROM "note" ORDER BY "title" LIMIT 1)"#,
                #"DELETE FROM "translation" WHERE ("noteId", "lang") IN (SELECT "noteId", "lang" FROM "translation" ORDER BY "lang" LIMIT 1)"#,
                #"UPDATE "note" SET "score" = ?, "score" = "score" + ? WHERE "title" = ?"#,
                #"UPDATE "note" SET "score" = NULL WHERE "id" IN (SELECT "id" FROM "note" LIMIT 1)"#,
                #"SELECT * FROM "note" WHERE "id" = ? LIMIT 1"#,
                #"SELECT * FROM "note" LIMIT 1 OFFSET 1"#,
                #"SELECT * FROM "note" LIMIT 0"#,
            ] == statements.filter { !$0.hasPrefix("PRAGMA") })
    }

    @Test func oddIdentifiersAreQuoted() throws {
        let db = try QueryFixtures.database()
        let request = Odd.filter(Column("group by") == "x" && Column("a \"quoted\" name") != nil)
            .order(Column("order").desc)
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT * FROM "select" WHERE "group by" = ? AND "a ""quoted"" name" IS NOT NULL ORDER BY "order" DESC | ['x']"#
        )
        #expect(try request.fetchAll(db) == [Odd(order: 1, groupBy: "x", quoted: "q")])
        #expect(try Odd.filter(key: 2).fetchOne(db)?.groupBy == "y")
        #expect(try Odd.all().reversed().fetchAll(db).map(\.order) == [2, 1])
        #expect(
            try Odd.filter(Column("group by") == "y").updateAll(db, Column("a \"quoted\" name").set(to: "set")) == 1)
        #expect(try Odd.filter(key: 2).fetchOne(db)?.quoted == "set")
        #expect(try Odd.order(Column("order")).limit(1).deleteAll(db) == 1)
        #expect(try Odd.fetchAll(db).map(\.order) == [2])
    }

    /// A table whose name holds a quote followed by a combining mark: one `Character` in Swift,
    /// but a quote to SQLite, which reads bytes.
    struct CombiningQuote: TableRecord {
        static var databaseTableName: String { "t\"\u{301}" }
    }

    @Test func quotesAreDoubledByteByByte() throws {
        let names = ["plain", "", "\"", "\"\"", "a\"b", "\"\u{301}x", "é\"\u{301}\"", "名前 \"order\"", "a\u{0}b"]
        for name in names {
            let doubled = name.utf8.flatMap { $0 == UInt8(ascii: "\"") ? [$0, $0] : [$0] }
            let expected = "\"" + String(decoding: doubled, as: UTF8.self) + "\""
            #expect(SQLLiteral.quote(identifier: name) == expected, "\(name.debugDescription)")
        }
        let db = try QueryFixtures.database()
        let table = CombiningQuote.databaseTableName
        let column = "c\"\u{301}\""
        let quotedTable = SQLLiteral.quote(identifier: table)
        let quotedColumn = SQLLiteral.quote(identifier: column)
        try db.execute(sql: "CREATE TABLE \(quotedTable) (\(quotedColumn) TEXT)")
        try db.execute(sql: "INSERT INTO \(quotedTable) VALUES ('a'), ('b')")
        let request = CombiningQuote.filter(Column(column) == "b").order(Column(column)).asRequest(of: Row.self)
        #expect(
            try request.sqlAndArguments(db)
                == "SELECT * FROM \(quotedTable) WHERE \(quotedColumn) = ? ORDER BY \(quotedColumn) | ['b']")
        let rows = try request.fetchAll(db)
        #expect(rows.map { $0.value(named: column) } == [.text("b")])
        let stored = try db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE name = ?", arguments: [table])
        #expect(stored.map { $0.value(named: "name") } == [.text(table)])
    }

    /// Requests write their SQL as bytes (SQLTextBuffer): the text is what String operations give.
    @Test func theTextBufferWritesWhatStringsWrite() throws {
        let integers = [0, 1, 9, 10, 11, 99, 100, 101, 1_000_000, 9_999_999, -1, -9, -10, -100, Int.max, Int.min]
        for value in integers {
            var buffer = SQLTextBuffer()
            buffer.appendInteger(value)
            #expect(buffer.string == String(value))
        }
        let names = ["plain", "", "\"", "\"\"", "a\"b", "\"\u{301}x", "é\"\u{301}\"", "名前 \"order\"", "a\u{0}b", "🧑‍💻\""]
        var all = SQLTextBuffer(capacity: 4)  // grows
        var expected = ""
        for name in names {
            var buffer = SQLTextBuffer()
            buffer.appendQuoted(identifier: name)
            #expect(buffer.string == SQLLiteral.quote(identifier: name), "\(name.debugDescription)")
            all.append(name)
            all += " = "
            all.append(buffer)
            expected += name + " = " + SQLLiteral.quote(identifier: name)
        }
        #expect(all.string == expected)
        #expect(Array(all.string.utf8) == all.bytes)
        // Extreme limits and offsets, written as Swift writes them.
        let db = try QueryFixtures.database()
        #expect(
            try Note.limit(Int.max, offset: Int.min).sqlAndArguments(db)
                == "SELECT * FROM \"note\" LIMIT 9223372036854775807 OFFSET -9223372036854775808 | []")
        #expect(try Note.limit(-1).sqlAndArguments(db) == #"SELECT * FROM "note" LIMIT -1 | []"#)
        let everything = try Note.order(Column("id")).fetchAll(db)
        #expect(!everything.isEmpty)
        #expect(try Note.order(Column("id")).limit(Int.max, offset: -5).fetchAll(db) == everything)
    }

    @Test func theSchemaDSLUsesTheSameExpressionWithLiterals() throws {
        // One type: the DSL writes values as literals (CHECK constraints take no parameters).
        let name = SQLExpression.column("name")
        #expect((name.length > 0 && name.length <= 40).sql == #"length("name") > 0 AND length("name") <= 40"#)
        #expect((Column("kind") == "it's").sql == #""kind" = 'it''s'"#)
        #expect((SQLExpression.column("a") <= .column("b")).sql == #""a" <= "b""#)
        #expect(SQLExpression.column("level").between(1, and: -2).sql == #""level" BETWEEN 1 AND -2"#)
        #expect(SQLExpression.column("status").in(["a", "b"]).sql == #""status" IN ('a', 'b')"#)
        #expect((-SQLExpression.value(-1)).sql == "- -1")
        #expect((Column("a") == nil).sql == #""a" IS NULL"#)
    }
}
