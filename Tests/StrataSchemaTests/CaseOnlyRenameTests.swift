import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Stored names as the app wrote them (issue 28, part 5): a rename by letter case alone is applied
/// when a `-- @renamed` hint or a rename option asks for it, or for every name with
/// `SchemaChangeOptions.exactNames`; names are otherwise matched ignoring case, as before.
@Suite("Case-only renames and exact names")
struct CaseOnlyRenameTests {
    /// An Android app's table, with a child table referencing it by foreign key, an index, a view
    /// and a trigger that name its columns.
    static let live = """
        CREATE TABLE "Authentication_List"(id INTEGER PRIMARY KEY, "Username" TEXT NOT NULL UNIQUE, "Password" TEXT);
        CREATE TABLE session(id INTEGER PRIMARY KEY, user TEXT REFERENCES "Authentication_List"("Username"));
        CREATE INDEX auth_password ON "Authentication_List"("Password");
        CREATE VIEW login AS SELECT "Username", "Password" FROM "Authentication_List";
        CREATE TRIGGER auth_audit AFTER INSERT ON "Authentication_List"
        BEGIN INSERT INTO session(user) VALUES (new."Username"); END;
        """

    /// The same schema in lower case; `hints` adds the `-- @renamed` hints.
    static func desired(tableHint: Bool, columnHints: Bool) -> String {
        """
        CREATE TABLE authentication_list(\(tableHint ? " -- @renamed from=Authentication_List" : "")
          id INTEGER PRIMARY KEY,
          username TEXT NOT NULL UNIQUE,\(columnHints ? " -- @renamed from=Username" : "")
          password TEXT\(columnHints ? " -- @renamed from=Password" : "")
        );
        CREATE TABLE session(id INTEGER PRIMARY KEY, user TEXT REFERENCES authentication_list(username));
        CREATE INDEX auth_password ON authentication_list(password);
        CREATE VIEW login AS SELECT username, password FROM authentication_list;
        CREATE TRIGGER auth_audit AFTER INSERT ON authentication_list
        BEGIN INSERT INTO session(user) VALUES (new.username); END;
        """
    }

    static func seeded() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: live)
        try db.execute(sql: #"INSERT INTO "Authentication_List" VALUES (1, 'ann', 's3cret'), (2, 'bob', NULL)"#)
        try db.execute(sql: "INSERT INTO session(id, user) VALUES (10, 'ann')")
        return db
    }

    /// Every row of every table, tables keyed by lowercased name (their case is what changes).
    static func rows(_ db: Database) throws -> [String: [[SQLValue]]] {
        var out = [String: [[SQLValue]]]()
        for (table, rows) in try DatabaseContents(db).rows where !table.hasPrefix("strata_") {
            out[table.lowercased()] = rows
        }
        return out
    }

    static func storedTables(_ db: Database) throws -> [String] {
        try db.fetchColumn(
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'strata%' ORDER BY name")
    }

    static func columns(_ db: Database, _ table: String) throws -> [String] {
        try db.fetchColumn(sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table])
    }

    /// The child's foreign key, the view and the trigger still work after the change.
    static func dependentsWork(_ db: Database, table: String, username: String) throws {
        let t = SQL.quoteIdentifier(table)
        try db.execute(sql: "INSERT INTO \(t)(id, \(SQL.quoteIdentifier(username))) VALUES (3, 'cy')")
        #expect(try db.fetchValue(String.self, sql: "SELECT user FROM session ORDER BY id DESC LIMIT 1") == "cy")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM login") == 3)
        #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty)
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO session(user) VALUES ('nobody')") }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func withoutHintNothingChangesByDefault() throws {
        let db = try Self.seeded()
        let before = try DatabaseContents(db)
        let plan = try db.planSchemaChange(to: Self.desired(tableHint: false, columnHints: false))
        #expect(plan.isEmpty, "\(plan.steps)")
        #expect(try DatabaseContents(db) == before)
    }

    @Test func hintedCaseOnlyColumnRename() throws {
        let db = try Self.seeded()
        let rowsBefore = try Self.rows(db)
        let desired = Self.desired(tableHint: false, columnHints: true)
        let plan = try db.planSchemaChange(to: desired)
        #expect(plan.steps.map(\.kind) == [.renameColumn, .renameColumn], "\(plan.steps)")
        #expect(
            plan.statements == [
                #"ALTER TABLE "Authentication_List" RENAME COLUMN "Username" TO "username""#,
                #"ALTER TABLE "Authentication_List" RENAME COLUMN "Password" TO "password""#,
            ])
        try db.applySchemaChange(plan)
        // The table's name is matched ignoring case (no hint for it): left as stored.
        #expect(try Self.storedTables(db) == ["Authentication_List", "session"])
        #expect(try Self.columns(db, "Authentication_List") == ["id", "username", "password"])
        #expect(try Self.rows(db) == rowsBefore)
        // SQLite rewrote the references of the child, the index, the view and the trigger.
        let sql: [String] = try db.fetchColumn(sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
        #expect(!sql.contains { $0.contains("\"Username\"") || $0.contains("\"Password\"") }, "\(sql)")
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        try Self.dependentsWork(db, table: "Authentication_List", username: "username")
    }

    @Test(arguments: [true, false])
    func hintedCaseOnlyTableAndColumnRename(useNativeAlter: Bool) throws {
        let db = try Self.seeded()
        let rowsBefore = try Self.rows(db)
        let desired = Self.desired(tableHint: true, columnHints: true)
        let options = SchemaChangeOptions(useNativeAlter: useNativeAlter)
        let plan = try db.planSchemaChange(to: desired, options: options)
        if useNativeAlter {
            #expect(plan.steps.map(\.kind) == [.renameTable, .renameColumn, .renameColumn], "\(plan.steps)")
            // SQLite refuses RENAME TO the same name in another case: through a temporary name.
            let rename = plan.steps.first?.statements ?? []
            #expect(rename.count == 2)
            #expect(rename.first?.hasPrefix(#"ALTER TABLE "Authentication_List" RENAME TO "strata_tmp_"#) == true)
            #expect(rename.last?.hasSuffix(#" RENAME TO "authentication_list""#) == true)
        } else {
            #expect(plan.steps.map(\.kind).contains(.rebuildTable), "\(plan.steps)")
        }
        try db.applySchemaChange(plan)
        #expect(try Self.storedTables(db) == ["authentication_list", "session"])
        #expect(try Self.columns(db, "authentication_list") == ["id", "username", "password"])
        let indexTable = try db.fetchValue(
            String.self, sql: "SELECT tbl_name FROM sqlite_master WHERE name = 'auth_password'")
        #expect(indexTable == "authentication_list")
        #expect(try Self.rows(db) == rowsBefore)
        #expect(try db.planSchemaChange(to: desired, options: options).isEmpty)
        try Self.dependentsWork(db, table: "authentication_list", username: "username")
    }

    @Test func renameOptionsRenameByCase() throws {
        let db = try Self.seeded()
        let rowsBefore = try Self.rows(db)
        let desired = Self.desired(tableHint: false, columnHints: false)
        let options = SchemaChangeOptions(renames: [
            .table("Authentication_List", to: "authentication_list"),
            .column("Username", to: "username", inTable: "authentication_list"),
        ])
        try db.migrateSchema(to: desired, options: options)
        #expect(try Self.storedTables(db) == ["authentication_list", "session"])
        // Password has no option: matched ignoring case, kept as stored.
        #expect(try Self.columns(db, "authentication_list") == ["id", "username", "Password"])
        #expect(try Self.rows(db) == rowsBefore)
        #expect(try db.planSchemaChange(to: desired, options: options).isEmpty)
    }

    @Test func exactNamesMakesEveryStoredNameAChange() throws {
        let db = try Self.seeded()
        try db.execute(sql: #"CREATE INDEX "Auth_Username_Length" ON "Authentication_List"(length("Username"))"#)
        let rowsBefore = try Self.rows(db)
        let desired =
            Self.desired(tableHint: false, columnHints: false)
            + "\nCREATE INDEX auth_username_length ON authentication_list(length(username));"
            + "\nCREATE VIEW Login_Count AS SELECT count(*) AS n FROM login;"
        try db.execute(sql: #"CREATE VIEW "LOGIN_COUNT" AS SELECT count(*) AS n FROM login"#)
        // Off (the default): the names match ignoring case, nothing to do.
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        let options = SchemaChangeOptions(exactNames: true)
        let plan = try db.planSchemaChange(to: desired, options: options)
        #expect(plan.steps.contains { $0.kind == .renameTable })
        #expect(plan.steps.filter { $0.kind == .renameColumn }.count == 2, "\(plan.steps)")
        try db.applySchemaChange(plan)
        #expect(try Self.storedTables(db) == ["authentication_list", "session"])
        #expect(try Self.columns(db, "authentication_list") == ["id", "username", "password"])
        let names: [String] = try db.fetchColumn(
            sql:
                "SELECT name FROM sqlite_master WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY name"
        )
        #expect(names == ["Login_Count", "auth_audit", "auth_password", "auth_username_length", "login"])
        #expect(try Self.rows(db) == rowsBefore)
        #expect(try db.planSchemaChange(to: desired, options: options).isEmpty)
        #expect(
            SchemaDiff(from: try DatabaseSchema.read(from: db), to: try DatabaseSchema(sql: desired), exactNames: true)
                .isEmpty)
        try Self.dependentsWork(db, table: "authentication_list", username: "username")
    }

    @Test func exactNamesDiffDescribesTheCaseOfNames() throws {
        let live = try DatabaseSchema(
            sql: #"CREATE TABLE "User"(id INTEGER PRIMARY KEY, "Login" TEXT); CREATE INDEX "I" ON "User"("Login");"#)
        let desired = try DatabaseSchema(
            sql: "CREATE TABLE user(id INTEGER PRIMARY KEY, login TEXT); CREATE INDEX i ON user(login);")
        #expect(SchemaDiff(from: live, to: desired).isEmpty)
        let exact = SchemaDiff(from: live, to: desired, exactNames: true)
        #expect(
            exact.descriptions == [
                "table user: name stored as User", "table user: column login stored as Login",
                #"index i: expected `CREATE INDEX i ON user(login)`, found `CREATE INDEX "I" ON "User"("Login")`"#,
            ])
        #expect(exact.changedTables.first?.isRenamed == true)
        #expect(exact.changedTables.first?.columnRenames == [.init(from: "Login", to: "login")])
        #expect(live == desired)
    }

    @Test func launchFastPathNeverSkipsACaseChange() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        defer { db.close() }
        try db.execute(sql: Self.live)
        try db.execute(sql: #"INSERT INTO "Authentication_List" VALUES (1, 'ann', 's3cret')"#)
        let rowsBefore = try Self.rows(db)
        let plain = Self.desired(tableHint: false, columnHints: false)
        // Recorded without exact names: the next launch with the same options is verified.
        #expect(try db.migrateSchema(to: plain).isEmpty)
        #expect(try db.migrateSchema(to: plain).isVerifiedByFingerprint)
        // With exact names, the record of the case-insensitive comparison must not serve.
        let exact = SchemaChangeOptions(exactNames: true)
        let applied = try db.migrateSchema(to: plain, options: exact)
        #expect(!applied.isVerifiedByFingerprint)
        #expect(!applied.isEmpty)
        #expect(try Self.storedTables(db) == ["authentication_list", "session"])
        #expect(try db.migrateSchema(to: plain, options: exact).isVerifiedByFingerprint)
        #expect(try Self.rows(db) == rowsBefore)

        // A record written by planner version 1 (which planned nothing for case-only hints) for
        // the hinted text, on a database still in the old case: the hints are applied.
        let other = try Database(path: dir.file("old.sqlite"))
        defer { other.close() }
        try other.execute(sql: Self.live)
        let hinted = Self.desired(tableHint: true, columnHints: true)
        try other.transaction {
            try SchemaFingerprint(sql: hinted, options: SchemaChangeOptions(), db: other, plannerVersion: 1).record(
                in: other)
        }
        let plan = try other.migrateSchema(to: hinted)
        #expect(!plan.isVerifiedByFingerprint)
        #expect(try Self.storedTables(other) == ["authentication_list", "session"])
        #expect(try Self.columns(other, "authentication_list") == ["id", "username", "password"])
        #expect(try other.migrateSchema(to: hinted).isVerifiedByFingerprint)
    }

    @Test func caseOnlyHintThatNamesNothingIsRefused() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)")
        let before = try DatabaseContents(db)
        let error = #expect(throws: SchemaError.self) {
            try db.planSchemaChange(to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT -- @renamed from=B\n)")
        }
        #expect(error?.code == .unresolvedRename)
        #expect(error?.message.contains("t.b") == true, "\(String(describing: error))")
        // A column renamed by case and also renamed away to another column contradicts itself.
        let both = #expect(throws: SchemaError.self) {
            try db.planSchemaChange(
                to: """
                    CREATE TABLE t(id INTEGER PRIMARY KEY, A TEXT, -- @renamed from=a
                      b TEXT -- @renamed from=a
                    );
                    """)
        }
        #expect(both?.code == .unresolvedRename, "\(String(describing: both))")
        #expect(try DatabaseContents(db) == before)
    }

    @Test func hostileNamesRenameByCase() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: #"CREATE TABLE "Order ""Items"""(id INTEGER PRIMARY KEY, "Select" TEXT, "My Col" INT)"#)
        try db.execute(sql: #"INSERT INTO "Order ""Items"""(id, "Select", "My Col") VALUES (1, 'x', 2)"#)
        let rowsBefore = try Self.rows(db)
        let desired = #"""
            CREATE TABLE "order ""items"""( -- @renamed from="Order ""Items"""
              id INTEGER PRIMARY KEY,
              "select" TEXT, -- @renamed from="Select"
              "my col" INT -- @renamed from="My Col"
            );
            """#
        try db.migrateSchema(to: desired)
        #expect(try Self.storedTables(db) == [#"order "items""#])
        #expect(try Self.columns(db, #"order "items""#) == ["id", "select", "my col"])
        #expect(try Self.rows(db) == rowsBefore)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
    }
}
