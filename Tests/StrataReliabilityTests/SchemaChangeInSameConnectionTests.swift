import Strata
import Testing

/// Found by the crash tests: a cached `SELECT *` statement kept the column list it was compiled
/// with, so after a schema change on the same connection it returned the old columns (a column
/// added by a migration was invisible, a dropped one read as NULL).
@Suite("Schema change on the same connection")
struct SchemaChangeInSameConnectionTests {
    @Test func aCachedSelectStarSeesAnAddedColumn() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        #expect(try db.fetchAll(sql: "SELECT * FROM t").map(\.values) == [[1]])
        try db.migrateSchema(to: "CREATE TABLE t(a, b NOT NULL DEFAULT 'x');")
        let rows = try db.fetchAll(sql: "SELECT * FROM t")
        #expect(rows.map(\.values) == [[1, "x"]])
        #expect(rows.first?.columnNames == ["a", "b"])
    }

    @Test func aCachedSelectStarForgetsADroppedColumn() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b, c); INSERT INTO t VALUES (1, 2, 3);")
        #expect(try db.fetchAll(sql: "SELECT * FROM t").map(\.values) == [[1, 2, 3]])
        if db.capabilities.supportsDropColumn {
            try db.execute(sql: "ALTER TABLE t DROP COLUMN b")
        } else {  // before SQLite 3.35: the engine's rebuild
            try db.migrateSchema(to: "CREATE TABLE t(a, c);", options: SchemaChangeOptions(allowDestructive: true))
        }
        let rows = try db.fetchAll(sql: "SELECT * FROM t")
        #expect(rows.map(\.values) == [[1, 3]])
        #expect(rows.first?.columnNames == ["a", "c"])
        var names = [[String]]()
        try db.makeStatement(sql: "SELECT * FROM t").forEachRow { names.append($0.columnNames) }
        try db.cachedStatement(sql: "SELECT * FROM t").forEachRow { names.append($0.columnNames) }
        #expect(names == [["a", "c"], ["a", "c"]])
    }
}
