import StrataSQLite
import StrataTestSupport

/// The `item` table the apply suites fill (`SchemaChangeProgressTests`, `SchemaChangeBudgetTests`):
/// `live` run on a new file database, then `rows` rows (id i, name 'item i', price i * 0.5).
enum ItemTableFixture {
    static func makeDatabase(_ dir: TemporaryDirectory, live: String, rows: Int) throws -> Database {
        try makeDatabase(path: dir.file("app.sqlite"), live: live, rows: rows)
    }

    static func makeDatabase(path: String, live: String, rows: Int) throws -> Database {
        let db = try Database(path: path)
        try db.execute(sql: live)
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO item(id, name, price) SELECT i, 'item ' || i, i * 0.5 FROM n
                """)
        return db
    }
}
