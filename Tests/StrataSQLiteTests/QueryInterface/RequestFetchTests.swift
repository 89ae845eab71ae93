import StrataSQLite
import Testing

/// Requests run: results compared with the same query written in SQL on the same data, values
/// that try to inject SQL, every error, and the reuse of prepared statements.
@Suite("Query interface: fetching")
struct RequestFetchTests {
    typealias Note = QueryFixtures.Note
    typealias Translation = QueryFixtures.Translation
    typealias Columns = QueryFixtures.Note.Columns

    struct Case: CustomTestStringConvertible {
        let name: String
        let request: QueryInterfaceRequest<Note>
        let sql: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "all", request: Note.order(Columns.id), sql: "SELECT * FROM note ORDER BY id"),
        Case(
            name: "pinned", request: Note.filter(Columns.pinned).order(Columns.id),
            sql: "SELECT * FROM note WHERE pinned ORDER BY id"),
        Case(
            name: "like and or",
            request: Note.filter(Columns.title.like("a%") || Columns.score == nil).order(Columns.title.desc),
            sql: "SELECT * FROM note WHERE title LIKE 'a%' OR score IS NULL ORDER BY title DESC"),
        Case(
            name: "nocase", request: Note.filter(Columns.title.collating(.nocase) == "APPLES"),
            sql: "SELECT * FROM note WHERE title = 'APPLES' COLLATE NOCASE"),
        Case(
            name: "in and between",
            request: Note.filter([1, 3, 5].contains(Columns.id) && (10...30).contains(Columns.score)).order(Columns.id),
            sql: "SELECT * FROM note WHERE id IN (1, 3, 5) AND score BETWEEN 10 AND 30 ORDER BY id"),
        Case(
            name: "ifnull", request: Note.filter(Columns.score ?? 0 < 10).order(Columns.id),
            sql: "SELECT * FROM note WHERE IFNULL(score, 0) < 10 ORDER BY id"),
        Case(
            name: "nulls last", request: Note.order(Columns.score.ascNullsLast, Columns.id),
            sql: "SELECT * FROM note ORDER BY score IS NULL, score, id"),
        Case(
            name: "nulls first desc", request: Note.order(Columns.score.descNullsFirst, Columns.id),
            sql: "SELECT * FROM note ORDER BY score IS NOT NULL, score DESC, id"),
        Case(
            name: "reversed", request: Note.all().reversed(), sql: "SELECT * FROM note ORDER BY id DESC"),
        Case(
            name: "limit offset", request: Note.order(Columns.title).limit(2, offset: 1),
            sql: "SELECT * FROM note ORDER BY title LIMIT 2 OFFSET 1"),
        Case(
            name: "keys", request: Note.filter(keys: [5, 1, 42]).order(Columns.id),
            sql: "SELECT * FROM note WHERE id IN (1, 5) ORDER BY id"),
        Case(name: "none", request: Note.none(), sql: "SELECT * FROM note WHERE 0"),
        Case(
            name: "arithmetic", request: Note.filter(Columns.score * 2 - 5 >= 15).order(Columns.id),
            sql: "SELECT * FROM note WHERE score * 2 - 5 >= 15 ORDER BY id"),
    ]

    @Test(arguments: cases)
    func resultsMatchTheHandWrittenSQL(_ c: Case) throws {
        let db = try QueryFixtures.database()
        // NULLS FIRST/LAST need 3.30 (older SQLites get an error naming the feature, tested elsewhere).
        if c.name.contains("nulls"), db.capabilities.version < SQLiteVersion(3, 30) { return }
        let expected = try Note.fetchAll(db, sql: c.sql)
        #expect(try c.request.fetchAll(db) == expected, "\(c.name)")
        #expect(try c.request.fetchCount(db) == expected.count, "\(c.name)")
        #expect(try c.request.exists(db) == !expected.isEmpty, "\(c.name)")
        #expect(try c.request.fetchOne(db) == expected.first, "\(c.name)")
        #expect(try c.request.fetchCursor(db).collect() == expected, "\(c.name)")
        #expect(try c.request.fetchSet(db) == Set(expected), "\(c.name)")
        #expect(try c.request.asRequest(of: Row.self).fetchAll(db) == db.fetchAll(sql: c.sql), "\(c.name)")
    }

    @Test func valuesRowsAndAggregates() throws {
        let db = try QueryFixtures.database()
        #expect(try Note.select(Columns.title, as: String.self).order(Columns.id).fetchAll(db).count == 5)
        #expect(try Note.select(Columns.score, as: Int?.self).order(Columns.id).fetchAll(db) == [10, nil, 30, 5, 30])
        #expect(try Note.select(max(Columns.score), as: Int.self).fetchOne(db) == 30)
        #expect(try Note.select(Columns.score, as: Int.self).filter(key: 2).fetchOne(db) == nil)  // NULL
        #expect(try Note.select(Columns.score, as: Int.self).filter(key: 99).fetchOne(db) == nil)  // no row
        #expect(
            try Note.select(Columns.folderId, as: Int64.self).filter(Columns.folderId != nil).fetchSet(db) == [1, 2])
        #expect(try Note.select(Columns.folderId).distinct().fetchCount(db) == 3)
        #expect(try Note.select(count(distinct: Columns.score), as: Int.self).fetchOne(db) == 3)
        #expect(try Note.select(sum(Columns.score), as: Int.self).fetchOne(db) == 75)
        #expect(try Note.select(total(Columns.score), as: Double.self).filter(Columns.id > 99).fetchOne(db) == 0)
        #expect(try Note.select(average(Columns.score), as: Double.self).fetchOne(db) == 18.75)
        #expect(try Note.select(min(Columns.title), as: String.self).fetchOne(db) == "Apples")
        let groups = try Note.select(Columns.folderId, count(Columns.id).forKey("n"))
            .group(Columns.folderId).having(count(Columns.id) > 1).order(Columns.folderId)
            .asRequest(of: Row.self).fetchAll(db)
        #expect(groups == [["folderId": 1, "n": 2], ["folderId": 2, "n": 2]])
        #expect(try Note.order(Columns.id).asRequest(of: Row.self).fetchOne(db)?["title"] == "Apples")
        #expect(try Note.filter { $0.pinned && $0.title.like("A%") }.fetchAll(db).map(\.id) == [1])
        #expect(try Note.all().filter { $0.score > 20 }.order { [$0.id.desc] }.fetchAll(db).map(\.id) == [5, 3])
        if db.capabilities.version >= SQLiteVersion(3, 38) {
            let json = try Note.select(
                SQLExpression(sql: "json_object('a', score)").jsonValue(atPath: "$.a"), as: Int.self
            )
            .filter(key: 3).fetchOne(db)
            #expect(json == 30)
        }
    }

    @Test func keysAndFind() throws {
        let db = try QueryFixtures.database()
        #expect(try Note.filter(id: 3).fetchOne(db)?.title == "Bananas")
        #expect(try Note.filter(ids: [1, 3]).fetchCount(db) == 2)
        #expect(try Note.find(db, id: 4).title == "Cherries")
        #expect(try Note.find(db, key: 5).score == 30)
        #expect(try Translation.filter(key: ["noteId": 1, "lang": "fr"]).fetchOne(db)?.text == "Pommes")
        #expect(
            try Translation.filter(keys: [["noteId": 1, "lang": "fr"], ["noteId": 3, "lang": "fr"]]).fetchCount(db) == 2
        )
        #expect(try Translation.filter(key: ["noteId": 1, "lang": nil]).fetchCount(db) == 0)
        #expect(try Translation.find(db, key: ["noteId": 3, "lang": "fr"]).text == "Bananes")

        let missing = #expect(throws: RecordError.self) { try Note.find(db, id: 42) }
        #expect(missing?.code == .recordNotFound)
        #expect(missing?.description == #"Note: no row in table "note" with id = 42"#)
        let missingKey = #expect(throws: RecordError.self) {
            try Translation.find(db, key: ["noteId": 3, "lang": "en"])
        }
        #expect(
            missingKey?.description == #"Translation: no row in table "translation" with lang = 'en' AND noteId = 3"#)

        // A single value for a composite key, columns that are no unique key: errors that name the table.
        let composite = #expect(throws: RecordError.self) { try Translation.filter(key: 1).fetchAll(db) }
        #expect(composite?.code == .invalidKey)
        #expect(
            composite?.message
                == #"table "translation" has a primary key of 2 columns (noteId, lang): give a key such as ["noteId": ..., "lang": ...]"#
        )
        let notUnique = #expect(throws: RecordError.self) { try Translation.filter(key: ["text": "x"]).fetchAll(db) }
        #expect(
            notUnique?.message
                == #"columns (text) are neither the primary key nor a unique index of table "translation" (primary key: noteId, lang)"#
        )
        let noTable = #expect(throws: SQLiteError.self) { try Note.filter(key: 1).aliasedTable("nope").fetchAll(db) }
        #expect(noTable?.message.contains("no such table: nope") == true)
    }

    @Test func deleteAndUpdateChangeWhatTheRequestSelects() throws {
        let db = try QueryFixtures.database()
        #expect(try Note.filter(Columns.pinned).updateAll(db, Columns.score += 1, Columns.title.set(to: "P")) == 2)
        #expect(try Note.fetchAll(db, sql: "SELECT * FROM note WHERE title = 'P'").map(\.score) == [11, 31])
        #expect(try Note.all().updateAll(db, []) == 0)
        #expect(try Note.order(Columns.id.desc).limit(2).updateAll(db, Columns.score.set(to: nil)) == 2)
        #expect(
            try db.fetchColumn(Int64.self, sql: "SELECT id FROM note WHERE score IS NULL ORDER BY id") == [2, 4, 5])
        #expect(try Note.order(Columns.id).limit(2).deleteAll(db) == 2)
        #expect(try db.fetchColumn(Int64.self, sql: "SELECT id FROM note ORDER BY id") == [3, 4, 5])
        #expect(try Note.filter(Columns.id == 4).deleteAll(db) == 1)
        #expect(try Translation.filter(Column("lang") == "fr").order(Column("noteId")).limit(1).deleteAll(db) == 1)
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT text FROM translation ORDER BY text") == ["Apples", "Bananes"])
    }

    @Test func valuesThatTryToInjectSQLAreBound() throws {
        let db = try QueryFixtures.database()
        let hostile = [
            "'; DROP TABLE note; --", "\" OR 1=1 --", "x') OR ('1'='1", "?", "?1", ":name", "$x", "@y", "\0",
            "Robert'); DELETE FROM note; --", "%' OR '1'='1", "*/ DROP TABLE note /*",
        ]
        for value in hostile {
            #expect(try Note.filter(Columns.title == value).fetchAll(db).isEmpty, "\(value)")
            #expect(try Note.filter(Columns.title.like(value)).fetchCount(db) == 0, "\(value)")
            #expect(try Note.filter([value, "Apples"].contains(Columns.title)).fetchCount(db) == 1, "\(value)")
            #expect(try Note.filter(literal: "title = \(value)").fetchCount(db) == 0, "\(value)")
            #expect(try Note.filter(Columns.title == value).updateAll(db, Columns.title.set(to: value)) == 0)
            #expect(try Note.filter(Columns.title == value).deleteAll(db) == 0)
        }
        // Stored and read back as is.
        #expect(try Note.filter(key: 1).updateAll(db, Columns.title.set(to: hostile[0])) == 1)
        #expect(try Note.find(db, id: 1).title == hostile[0])
        #expect(try Note.fetchCount(db) == 5)
        #expect(try Note.filter(Columns.title == "it's \"odd\"").fetchOne(db)?.id == 5)
    }

    @Test func repeatedRequestsReuseThePreparedStatement() throws {
        let db = try QueryFixtures.database()
        let request = Note.filter(Columns.score > 1).order(Columns.title)
        let first = try request.makePreparedRequest(db)
        _ = try request.fetchAll(db)
        let second = try Note.filter(Columns.score > 2).order(Columns.title).makePreparedRequest(db)
        #expect(first.statement === second.statement)  // same SQL text, other argument
        #expect(second.arguments == [2])
    }

    @Test func unsupportedFeaturesAndUnknownAliasesAreClearErrors() throws {
        var configuration = Configuration()
        configuration.capabilityLimit = SQLiteVersion(3, 29)
        let db = try QueryFixtures.database(configuration)
        let nulls = #expect(throws: SQLiteError.self) { try Note.order(Columns.score.ascNullsLast).fetchAll(db) }
        #expect(nulls?.message.contains("NULLS FIRST/LAST in ORDER BY needs SQLite 3.30.0 or newer") == true)
        let json = #expect(throws: SQLiteError.self) {
            try Note.filter(Column("title").jsonValue(atPath: "$.a") == 1).fetchAll(db)
        }
        #expect(json?.message.contains("the JSON operator ->> needs SQLite 3.38.0 or newer") == true)

        let stray = TableAlias(name: "stray")
        let alias = #expect(throws: SQLiteError.self) { try Note.filter(stray[Columns.id] == 1).fetchAll(db) }
        #expect(
            alias?.message.contains(#"the table alias "stray" is used in a request that has no table of that alias"#)
                == true)
    }
}

extension QueryInterfaceRequest {
    /// The same request on another table, for the error tests.
    fileprivate func aliasedTable(_ name: String) -> Self {
        var request = self
        request.relation.tableName = name
        return request
    }
}
