import Foundation

/// The data and schemas every contender of a case uses, and the template files built once per run.
enum Fixtures {
    // MARK: Settings shared by all contenders

    /// Every connection (raw, Strata, GRDB) runs these first: WAL with synchronous=NORMAL, the usual
    /// settings of an app database, and foreign keys on (Strata's and GRDB's default).
    static let setupStatements = [
        "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON",
    ]
    static var connectionSetup: String { setupStatements.joined(separator: ";\n") }

    // MARK: Cases 1 and 2: ten integer columns

    /// Rows inserted by case 1 and read by case 2.
    static let insertRows = 50_000
    static let fetchRows = 200_000

    static let columnNames = (0..<10).map { "c\($0)" }
    static let createWideTable =
        "CREATE TABLE wide(" + columnNames.map { "\($0) INTEGER NOT NULL" }.joined(separator: ", ") + ")"
    static let insertSQL =
        "INSERT INTO wide(" + columnNames.joined(separator: ", ") + ") VALUES ("
        + Array(repeating: "?", count: 10)
        .joined(separator: ", ") + ")"
    static let selectSQL = "SELECT " + columnNames.joined(separator: ", ") + " FROM wide"

    /// Row i holds 10i, 10i+1, ..., 10i+9; the sum of all values of `rows` rows.
    static func wideSum(rows: Int) -> Int64 {
        let n = Int64(rows) * 10
        return n * (n - 1) / 2
    }

    // MARK: Cases 7 and 8: records over the same ten integer columns

    /// Records inserted by case 8 (case 7 reads the 200,000 rows of case 2's table).
    static let recordInsertRows = 50_000

    /// The sum of every field of `rows`-row fetch results, the check shared by case 7's contenders.
    static func checkWideSum(_ sum: Int64, _ key: String) throws {
        guard sum == wideSum(rows: fetchRows) else { throw BenchError("\(key): wrong sum \(sum)") }
    }

    // MARK: Cases 3 and 4: a table with two secondary indexes

    static let itemTable = """
        CREATE TABLE item(
            id INTEGER PRIMARY KEY,
            owner INTEGER NOT NULL,
            name TEXT NOT NULL,
            price REAL,
            qty INTEGER NOT NULL DEFAULT 0,
            note TEXT)
        """
    static let itemIndexes = """
        CREATE INDEX item_owner ON item(owner);
        CREATE INDEX item_name ON item(name);
        """
    static var itemSchema: String { itemTable + ";\n" + itemIndexes }

    /// Case 3's desired schema: `price` changes type (REAL to NUMERIC), which only a rebuild can do.
    static var itemSchemaTypeChange: String {
        itemSchema.replacingOccurrences(of: "price REAL", with: "price NUMERIC")
    }

    /// Case 4's desired schema: a new nullable column at the end.
    static var itemSchemaAddColumn: String {
        itemSchema.replacingOccurrences(of: "note TEXT)", with: "note TEXT,\n    tag TEXT)")
    }

    /// Case 10's desired schema: a table CHECK added (every row satisfies it).
    static var itemSchemaAddCheck: String {
        itemSchema.replacingOccurrences(of: "note TEXT)", with: "note TEXT,\n    CHECK (qty >= 0))")
    }

    static func makeItemTemplate(path: String, rows: Int) throws {
        try? FileManager.default.removeItem(atPath: path)
        let db = try RawConnection(path: path)
        try db.exec(connectionSetup)
        try db.exec(itemTable)
        try db.exec("BEGIN IMMEDIATE")
        try db.exec(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO item(id, owner, name, price, qty, note)
            SELECT i, i % 1000, 'item-' || i, i * 0.01, i % 50, CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || (i % 97) END
            FROM n
            """)
        try db.exec(itemIndexes)
        try db.exec("COMMIT")
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    static func makeWideTemplate(path: String, rows: Int) throws {
        try? FileManager.default.removeItem(atPath: path)
        let db = try RawConnection(path: path)
        try db.exec(connectionSetup)
        try db.exec(createWideTable)
        try db.exec(
            """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows - 1))
            INSERT INTO wide SELECT \((0..<10).map { "i * 10 + \($0)" }.joined(separator: ", ")) FROM n
            """)
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: Case 5: 500 migrations

    static let migrationCount = 500

    /// Migration i creates table m_i and an index: `(identifier, sql)`.
    static let migrations: [(String, String)] = (1...migrationCount).map { i in
        let id = String(format: "%04d_create_m%d", i, i)
        let sql = """
            CREATE TABLE m\(i)(id INTEGER PRIMARY KEY, name TEXT NOT NULL, value INTEGER, created_at TEXT);
            CREATE INDEX m\(i)_name ON m\(i)(name);
            """
        return (id, sql)
    }

    // MARK: Case 6: a 300-table schema

    static let planTableCount = 300
    /// The tables that change in the desired schema (10 of them).
    static let changedTables = Array(stride(from: 0, to: 300, by: 30))

    /// 300 tables (each with a foreign key to the previous one and one or two indexes), a view
    /// on every 6th table and a trigger on every 5th. With `changed`, tables 0, 60, 120, ... gain
    /// a column and tables 30, 90, 150, ... change a column's type.
    static func bigSchema(changed: Bool) -> String {
        var sql = [String]()
        for i in 0..<planTableCount {
            let t = "t\(i)"
            let isChanged = changed && changedTables.contains(i)
            let addsColumn = isChanged && (i / 30) % 2 == 0
            let changesType = isChanged && !addsColumn
            var columns = [
                "id INTEGER PRIMARY KEY",
                i > 0 ? "parent_id INTEGER REFERENCES t\(i - 1)(id) ON DELETE CASCADE" : "parent_id INTEGER",
                "name TEXT NOT NULL COLLATE NOCASE",
                "amount \(changesType ? "NUMERIC" : "REAL") DEFAULT 0",
                "status TEXT CHECK (status IN ('new', 'open', 'closed'))",
                "created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP",
            ]
            if addsColumn { columns.append("note TEXT") }
            sql.append("CREATE TABLE \(t)(\n    " + columns.joined(separator: ",\n    ") + "\n)")
            sql.append("CREATE INDEX \(t)_name ON \(t)(name)")
            if i > 0 { sql.append("CREATE INDEX \(t)_parent ON \(t)(parent_id, created_at)") }
            if i % 6 == 0 {
                sql.append("CREATE VIEW v\(i) AS SELECT id, name, amount FROM \(t) WHERE status = 'open'")
            }
            if i % 5 == 0 {
                sql.append(
                    """
                    CREATE TRIGGER \(t)_touch AFTER UPDATE OF status ON \(t) BEGIN
                        UPDATE \(t) SET amount = amount + 1 WHERE id = NEW.id;
                    END
                    """)
            }
        }
        return sql.joined(separator: ";\n") + ";\n"
    }
}

extension Fixtures {
    // MARK: Case 9: app launch with a declarative schema

    /// The schema sizes of case 9.
    static let launchSizes = [5, 25, 100]

    /// `tables` tables, each with two indexes (a foreign key to the previous table), a view on
    /// every 5th table and a trigger on every 6th (25 tables: 50 indexes, 5 views, 4 triggers),
    /// one statement per element of the result. With `changed`, table 0 gains a column and
    /// table 1 an index.
    static func launchStatements(tables: Int, changed: Bool = false) -> [String] {
        var sql = [String]()
        for i in 0..<tables {
            let t = "l\(i)"
            var columns = [
                "id INTEGER PRIMARY KEY",
                i > 0 ? "parent_id INTEGER REFERENCES l\(i - 1)(id) ON DELETE CASCADE" : "parent_id INTEGER",
                "name TEXT NOT NULL COLLATE NOCASE",
                "amount REAL NOT NULL DEFAULT 0",
                "status TEXT CHECK (status IN ('new', 'open', 'closed'))",
                "created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP",
            ]
            if changed && i == 0 { columns.append("note TEXT") }
            sql.append("CREATE TABLE \(t)(\n    " + columns.joined(separator: ",\n    ") + "\n)")
            sql.append("CREATE INDEX \(t)_name ON \(t)(name)")
            sql.append("CREATE INDEX \(t)_parent ON \(t)(parent_id, created_at)")
            if changed && i == 1 { sql.append("CREATE INDEX \(t)_status ON \(t)(status)") }
            if i % 5 == 0 {
                sql.append("CREATE VIEW lv\(i) AS SELECT id, name, amount FROM \(t) WHERE status = 'open'")
            }
            if i % 6 == 5 {
                sql.append(
                    """
                    CREATE TRIGGER \(t)_touch AFTER UPDATE OF status ON \(t) BEGIN
                        UPDATE \(t) SET amount = amount + 1 WHERE id = NEW.id;
                    END
                    """)
            }
        }
        return sql
    }

    static func launchSchema(tables: Int, changed: Bool = false) -> String {
        launchStatements(tables: tables, changed: changed).joined(separator: ";\n") + ";\n"
    }

    /// The same schema as GRDB migrations: one per table, with its indexes, view and trigger.
    static func launchMigrations(tables: Int) -> [(String, String)] {
        var result = [(String, String)]()
        for statement in launchStatements(tables: tables) {
            if statement.hasPrefix("CREATE TABLE") {
                result.append((String(format: "%04d_table", result.count + 1), statement + ";"))
            } else {
                result[result.count - 1].1 += "\n" + statement + ";"
            }
        }
        return result
    }
}

/// Case 7's raw C struct: one row of `wide`, the same fields as the Strata and GRDB records.
struct WideRow {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
