import StrataSQLite
import StrataSchema

/// Introspection helpers for the DSL tests: what SQLite reports about declared objects.
enum DSLIntrospection {
    /// One row of `PRAGMA table_xinfo`.
    struct ColumnInfo: Equatable, CustomStringConvertible {
        var name: String
        var type: String
        var notNull: Bool
        var defaultSQL: String?
        var primaryKeyIndex: Int
        /// 0 normal, 2 virtual generated, 3 stored generated.
        var hidden: Int

        init(
            _ name: String, _ type: String, notNull: Bool = false, default defaultSQL: String? = nil, pk: Int = 0,
            hidden: Int = 0
        ) {
            self.name = name
            self.type = type
            self.notNull = notNull
            self.defaultSQL = defaultSQL
            self.primaryKeyIndex = pk
            self.hidden = hidden
        }

        var description: String {
            "\(name) \(type) nn=\(notNull) dflt=\(defaultSQL ?? "nil") pk=\(primaryKeyIndex) hidden=\(hidden)"
        }
    }

    static func columns(_ db: Database, _ table: String, schema: String = "main") throws -> [ColumnInfo] {
        try db.fetchAll(sql: "SELECT * FROM pragma_table_xinfo(?, ?)", arguments: [table, schema]).map { row in
            ColumnInfo(
                try row["name"], try row["type"], notNull: try row["notnull"] as Int != 0,
                default: try row["dflt_value"], pk: try row["pk"], hidden: try row["hidden"])
        }
    }

    /// One row of `PRAGMA index_list`.
    struct IndexInfo: Equatable {
        var name: String
        var unique: Bool
        /// "c" (CREATE INDEX), "u" (UNIQUE constraint) or "pk".
        var origin: String
        var partial: Bool
    }

    static func indexes(_ db: Database, _ table: String) throws -> [IndexInfo] {
        try db.fetchAll(sql: "SELECT * FROM pragma_index_list(?) ORDER BY name", arguments: [table]).map { row in
            IndexInfo(
                name: try row["name"], unique: try row["unique"] as Int != 0, origin: try row["origin"],
                partial: try row["partial"] as Int != 0)
        }
    }

    /// The key columns of `PRAGMA index_xinfo`: column name (nil for an expression), DESC, collation.
    struct IndexColumnInfo: Equatable {
        var name: String?
        var descending: Bool
        var collation: String
    }

    static func indexColumns(_ db: Database, _ index: String) throws -> [IndexColumnInfo] {
        try db.fetchAll(sql: "SELECT * FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno", arguments: [index]).map {
            row in
            IndexColumnInfo(name: try row["name"], descending: try row["desc"] as Int != 0, collation: try row["coll"])
        }
    }

    /// One row of `PRAGMA foreign_key_list`.
    struct ForeignKeyInfo: Equatable {
        var id: Int
        var table: String
        var from: String
        var to: String?
        var onUpdate: String
        var onDelete: String
    }

    static func foreignKeys(_ db: Database, _ table: String) throws -> [ForeignKeyInfo] {
        try db.fetchAll(sql: "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", arguments: [table]).map {
            row in
            ForeignKeyInfo(
                id: try row["id"], table: try row["table"], from: try row["from"], to: try row["to"],
                onUpdate: try row["on_update"], onDelete: try row["on_delete"])
        }
    }

    /// `(type, name, tbl_name)` of every user object in `sqlite_master`, sorted by name.
    static func objects(_ db: Database, schema: String = "main") throws -> [[String]] {
        try db.fetchAll(
            // Without Strata's launch fingerprint table, which `migrateSchema(to:)` keeps.
            sql: """
                SELECT type, name, tbl_name FROM \(schema).sqlite_master
                WHERE name NOT LIKE 'sqlite_%' AND name <> 'strata_schema_fingerprint' ORDER BY name
                """
        ).map { [try $0["type"], try $0["name"], try $0["tbl_name"]] }
    }

    /// `strict` and `wr` (without rowid) of `PRAGMA table_list`.
    static func tableFlags(
        _ db: Database, _ table: String, schema: String = "main"
    ) throws -> (strict: Bool, withoutRowID: Bool) {
        let row = try db.fetchOne(
            sql: "SELECT strict, wr FROM pragma_table_list WHERE name = ? AND schema = ?", arguments: [table, schema])
        return (try row?["strict"] as Int? == 1, try row?["wr"] as Int? == 1)
    }
}
