import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// A schema declared with the DSL is the same desired schema as the one written in SQL, and the
/// declarative engine evolves databases to DSL-declared schemas.
@Suite("DSL through the engine")
struct DSLEngineTests {
    /// The runtime has generated columns (3.31) and STRICT tables (3.37): the fixtures use them
    /// where it does, and compare the rest on older SQLite.
    static let generated = SQLiteVersion.runtime >= SQLiteFeature.generatedColumns.version
    static let strict = SQLiteVersion.runtime >= SQLiteFeature.strictTables.version

    static let declared = SchemaDefinition { s in
        s.table("team") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text).notNull().unique(onConflict: .replace).collate(.nocase)
            t.column("founded", .date).defaults(sql: "CURRENT_DATE")
        }
        s.table("player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().check { $0.length > 0 }
            t.column("score", .integer).notNull().defaults(to: 0)
            t.column("teamId", .integer).references("team", onDelete: .setNull, deferred: true).indexed()
            if generated { t.column("bonus", .integer).generatedAs(sql: "score / 10", .stored) }
            t.column("motto", .text).defaults(to: "it's fine")
        }
        s.table("membership", options: strict ? [.withoutRowID, .strict] : [.withoutRowID]) { t in
            t.column("playerId", .integer).notNull()
            t.column("teamId", .integer).notNull()
            t.column("role", .text).notNull().defaults(to: "member")
            t.primaryKey(["playerId", "teamId"])
            t.foreignKey(["playerId"], references: "player", onDelete: .cascade)
            t.check(sql: "role IN ('member', 'captain')")
        }
        s.index(
            "player_on_score", on: "player", columns: [.column("score", order: .descending)],
            condition: SQLExpression.column("score") > 0)
        s.index(
            "team_on_lower_name", on: "team", expressions: [SQLExpression.column("name").lowercased], options: .unique)
        s.view(
            "roster",
            as: "SELECT team.name AS team, player.name AS player FROM player JOIN team ON team.id = player.teamId")
        s.trigger(
            sql:
                "CREATE TRIGGER player_cleanup AFTER DELETE ON player BEGIN DELETE FROM membership WHERE playerId = OLD.id; END"
        )
    }

    /// The same schema, written by hand: other quoting, keyword case, spacing and comments.
    static let written = """
        create table team (id integer primary key,
            name text not null unique on conflict replace collate nocase,  -- display name
            founded date default CURRENT_DATE);
        CREATE TABLE player (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL CHECK (length(name) > 0),
          score INTEGER NOT NULL DEFAULT 0,
          teamId INTEGER REFERENCES team ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED,
          \(generated ? "bonus INTEGER GENERATED ALWAYS AS (score / 10) STORED," : "")
          motto TEXT DEFAULT 'it''s fine'
        );
        CREATE INDEX player_on_teamId ON player(teamId);
        CREATE TABLE membership (
          playerId INTEGER NOT NULL, teamId INTEGER NOT NULL, role TEXT NOT NULL DEFAULT 'member',
          PRIMARY KEY (playerId, teamId),
          FOREIGN KEY (playerId) REFERENCES player ON DELETE CASCADE,
          CHECK (role IN ('member', 'captain'))
        ) WITHOUT ROWID\(strict ? ", STRICT" : "");
        CREATE INDEX player_on_score ON player(score DESC) WHERE score > 0;
        CREATE UNIQUE INDEX team_on_lower_name ON team(lower(name));
        CREATE VIEW roster AS SELECT team.name AS team, player.name AS player FROM player JOIN team ON team.id = player.teamId;
        CREATE TRIGGER player_cleanup AFTER DELETE ON player BEGIN DELETE FROM membership WHERE playerId = OLD.id; END;
        """

    @Test func declaredEqualsWritten() throws {
        let fromDSL = try DatabaseSchema(Self.declared)
        let fromSQL = try DatabaseSchema(sql: Self.written)
        #expect(fromDSL.differences(from: fromSQL) == [])
        #expect(fromDSL == fromSQL)
        #expect(fromDSL.tables.map(\.name) == ["team", "player", "membership"])
    }

    @Test func aDifferenceIsADifference() throws {
        var changed = Self.declared
        changed.table("extra") { t in t.column("x", .text) }
        let differences = try DatabaseSchema(changed).differences(from: DatabaseSchema(sql: Self.written))
        #expect(differences.count == 1)
        #expect(differences.first?.contains("extra") == true)

        let otherDefault = try DatabaseSchema(
            SchemaDefinition { s in s.table("t") { t in t.column("a").defaults(to: "x") } })
        let written = try DatabaseSchema(sql: "CREATE TABLE t(a DEFAULT 'y')")
        #expect(otherDefault != written)
    }

    @Test func planningAcrossStylesIsEmpty() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.written)
        #expect(try db.planSchemaChange(to: Self.declared).isEmpty)

        let other = try Database(inMemory: Configuration())
        try other.create(Self.declared)
        #expect(try other.planSchemaChange(to: Self.written).isEmpty)
        #expect(try other.planSchemaChange(to: Self.declared).isEmpty)
    }

    static func app(version: Int) -> SchemaDefinition {
        SchemaDefinition { s in
            s.table(version >= 3 ? "athlete" : "player", renamedFrom: version >= 3 ? "player" : nil) { t in
                t.autoIncrementedPrimaryKey("id")
                if version >= 3 {
                    t.column("fullName", .text).notNull().renamed(from: "name")
                } else {
                    t.column("name", .text).notNull()
                }
                if version >= 2 { t.column("email", .text).unique() }
            }
        }
    }

    @Test func evolveThroughVersions() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(to: Self.app(version: 1))
        try db.execute(sql: "INSERT INTO player(name) VALUES ('Ann'), ('Bob')")

        // A UNIQUE column cannot be added by ALTER TABLE: the engine rebuilds, keeping the rows.
        let plan2 = try db.migrateSchema(to: Self.app(version: 2))
        #expect(!plan2.isEmpty)
        #expect(
            try db.fetchAll(sql: "SELECT id, name, email FROM player ORDER BY id").map { [try $0[0] as Int] } == [
                [1], [2],
            ])
        #expect(try DSLIntrospection.indexes(db, "player").map(\.origin) == ["u"])

        // Renames declared in Swift keep the data.
        try db.migrateSchema(to: Self.app(version: 3))
        #expect(try db.fetchColumn(String.self, sql: "SELECT fullName FROM athlete ORDER BY id") == ["Ann", "Bob"])
        #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(Self.app(version: 3)))
        #expect(try db.planSchemaChange(to: Self.app(version: 3)).isEmpty)
    }

    @Test func renameWithLineBreakGoesThroughOptions() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(\"old\nname\" TEXT); INSERT INTO t VALUES ('kept')")
        let schema = SchemaDefinition { s in
            s.table("t") { t in t.column("new name", .text).renamed(from: "old\nname") }
        }
        #expect(!schema.sql.contains("@renamed"))
        try db.migrateSchema(to: schema)
        #expect(try db.fetchValue(String.self, sql: "SELECT \"new name\" FROM t") == "kept")
    }

    @Test func destructiveChangesAreRefusedByDefault() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(to: Self.app(version: 2))
        let error = #expect(throws: SchemaError.self) { try db.migrateSchema(to: Self.app(version: 1)) }
        #expect(error?.code == .destructiveChangesRefused)
        #expect(error?.destructiveChanges.contains { $0.contains("email") } == true)
        try db.migrateSchema(to: Self.app(version: 1), options: SchemaChangeOptions(allowDestructive: true))
        #expect(try DSLIntrospection.columns(db, "player").map(\.name) == ["id", "name"])
    }
}

/// `db.alter(table:)` steps that ALTER TABLE cannot do, through the engine's safe rebuild.
@Suite("DSL: altering tables through the engine")
struct DSLAlterThroughEngineTests {
    func makeDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "team") { t in
            t.column("id", .integer).primaryKey()
        }
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().collate(.nocase)
            t.column("legacy", .text).unique()
            t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
            t.check(sql: "length(name) < 50")
        }
        try db.create(view: "names", as: "SELECT name FROM player")
        try db.execute(
            sql: """
                INSERT INTO team VALUES (1);
                INSERT INTO player(name, legacy, teamId) VALUES ('Ann', 'a', 1), ('Bob', 'b', 1);
                """)
        return db
    }

    @Test func dropColumnKeepsRowsIndexesAndViews() throws {
        let db = try makeDatabase()
        // "legacy" is UNIQUE: SQLite's own DROP COLUMN refuses it.
        #expect(throws: SQLiteError.self) { try db.execute(sql: "ALTER TABLE player DROP COLUMN legacy") }
        try db.alter(table: "player") { t in t.drop(column: "legacy") }
        #expect(try DSLIntrospection.columns(db, "player").map(\.name) == ["id", "name", "teamId"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM names ORDER BY 1") == ["Ann", "Bob"])
        #expect(try DSLIntrospection.indexes(db, "player").map(\.name) == ["player_on_teamId"])
        #expect(try DSLIntrospection.foreignKeys(db, "player").map(\.onDelete) == ["CASCADE"])
        #expect(try db.foreignKeysEnabled())
        // The rebuild kept what was written: collation, CHECK, AUTOINCREMENT.
        let sql = try #require(
            try db.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'player'"))
        #expect(
            sql.contains("COLLATE NOCASE") && sql.contains("CHECK (length(name) < 50)") && sql.contains("AUTOINCREMENT")
        )
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player WHERE name = 'ANN'") == 1)
    }

    @Test func addColumnsThatAlterTableCannotAdd() throws {
        let db = try makeDatabase()
        let generated = db.capabilities.supportsGeneratedColumns  // STORED needs SQLite 3.31
        try db.alter(table: "player") { t in
            t.add(column: "code", .text).unique()  // UNIQUE
            t.add(column: "joined", .datetime).defaults(sql: "CURRENT_TIMESTAMP")  // non-constant default
            if generated { t.add(column: "double", .integer).generatedAs(sql: "id * 2", .stored) }  // STORED
            t.add(column: "plain", .text).defaults(to: "x")  // native
            t.rename(column: "plain", to: "renamed")  // native
        }
        #expect(
            try DSLIntrospection.columns(db, "player").map(\.name) == [
                "id", "name", "legacy", "teamId", "code", "joined",
            ] + (generated ? ["double"] : []) + ["renamed"])
        if generated { #expect(try db.fetchColumn(Int.self, sql: "SELECT double FROM player ORDER BY id") == [2, 4]) }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player WHERE joined IS NOT NULL") == 2)
        #expect(try db.fetchColumn(String.self, sql: "SELECT renamed FROM player") == ["x", "x"])
    }

    @Test func notNullWithoutDefaultNeedsAnEmptyTable() throws {
        let db = try makeDatabase()
        try db.create(table: "empty") { t in t.column("a") }
        try db.alter(table: "empty") { t in t.add(column: "b", .text).notNull() }
        #expect(try DSLIntrospection.columns(db, "empty").map(\.notNull) == [false, true])
        // With rows, the engine's preflight refuses: no value for the existing rows.
        let error = #expect(throws: SchemaError.self) {
            try db.alter(table: "player") { t in t.add(column: "b", .text).notNull() }
        }
        #expect(error?.description.contains("player") == true)
        #expect(try DSLIntrospection.columns(db, "player").count == 4)
    }

    @Test func dropRefusalsNameTheCulprit() throws {
        let db = try makeDatabase()
        let indexed = #expect(throws: SchemaDefinitionError.self) {
            try db.alter(table: "player") { t in t.drop(column: "teamId") }
        }
        #expect(
            indexed?.description
                == #"table "player": cannot drop column "teamId", index "player_on_teamId" uses it (drop the index first)"#
        )
        let missing = #expect(throws: SchemaDefinitionError.self) {
            try db.alter(table: "player") { t in t.drop(column: "nope") }
        }
        #expect(missing?.description == #"table "player": no column "nope" to drop"#)
        let last = #expect(throws: SchemaDefinitionError.self) {
            try db.alter(table: "team") { t in t.drop(column: "id") }
        }
        #expect(last?.description == #"table "team": cannot drop its last column (drop the table instead)"#)
        let table = #expect(throws: SchemaDefinitionError.self) {
            try db.alter(table: "ghost") { t in t.drop(column: "x") }
        }
        #expect(table?.description == #"table "ghost": no such table in the main schema"#)
    }

    @Test func aFailedStepUndoesTheWholeAlteration() throws {
        let db = try makeDatabase()
        let before = try DatabaseSchema.read(from: db)
        #expect(throws: SchemaDefinitionError.self) {
            try db.alter(table: "player") { t in
                t.rename(column: "name", to: "fullName")  // native, done first
                t.drop(column: "legacy")  // rebuild, done
                t.drop(column: "nope")  // fails: everything is rolled back
            }
        }
        #expect(try DatabaseSchema.read(from: db) == before)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 2)
        #expect(try db.foreignKeysEnabled())
    }

    @Test func noForeignKeyActionFiresDuringARebuild() throws {
        let db = try makeDatabase()
        // Rebuilding the parent must not cascade-delete the players.
        try db.alter(table: "team") { t in t.add(column: "code", .text).unique() }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 2)
    }
}

/// The README's `## Schema DSL` examples, run as written.
@Suite("README DSL example")
struct DSLReadmeExampleTests {
    @Test(.requiresSQLite(3, 31, "the README example's generated column"))
    func createAlterAndViews() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "team") { t in
            t.column("id", .integer).primaryKey()
        }
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().collate(.nocase).check { $0.length > 0 }
            t.column("score", .integer).notNull().defaults(to: 0)
            t.column("teamId", .integer).references("team", onDelete: .setNull).indexed()
            t.column("bonus", .integer).generatedAs(sql: "score / 10", .stored)
        }
        try db.create(
            index: "player_on_score", on: "player", columns: [.column("score", order: .descending)],
            condition: SQLExpression.column("score") > 0)
        try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Ann', 30)")
        try db.alter(table: "player") { t in
            t.add(column: "email", .text).defaults(to: "")
            t.rename(column: "name", to: "fullName")
            t.drop(column: "bonus")
        }
        try db.create(view: "leader", as: "SELECT * FROM player ORDER BY score DESC LIMIT 1")
        #expect(
            try DSLIntrospection.columns(db, "player").map(\.name) == ["id", "fullName", "score", "teamId", "email"])
        #expect(try db.fetchValue(String.self, sql: "SELECT fullName FROM leader") == "Ann")
        #expect(try DSLIntrospection.indexes(db, "player").map(\.name) == ["player_on_score", "player_on_teamId"])
    }

    func appSchema(version: Int) -> SchemaDefinition {
        SchemaDefinition { s in
            s.table("team") { t in
                t.column("id", .integer).primaryKey()
                t.column("name", .text).notNull().unique()
            }
            s.table("player") { t in
                t.autoIncrementedPrimaryKey("id")
                if version >= 3 {
                    t.column("fullName", .text).notNull().renamed(from: "name")
                } else {
                    t.column("name", .text).notNull()
                }
                t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
                if version >= 2 { t.column("email", .text).unique() }
            }
        }
    }

    @Test func evolveThroughTheEngine() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(to: appSchema(version: 1))
        try db.execute(sql: "INSERT INTO team VALUES (1, 'Reds'); INSERT INTO player(name, teamId) VALUES ('Ann', 1)")
        try db.migrateSchema(to: appSchema(version: 2))
        let plan = try db.planSchemaChange(to: appSchema(version: 3))
        #expect(plan.statements == [#"ALTER TABLE "player" RENAME COLUMN "name" TO "fullName""#])
        try db.applySchemaChange(plan)
        #expect(try db.fetchValue(String.self, sql: "SELECT fullName FROM player") == "Ann")
        let schemaSQLWrittenByHand = """
            CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE player (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              fullName TEXT NOT NULL, -- @renamed from=name
              teamId INTEGER REFERENCES team ON DELETE CASCADE,
              email TEXT UNIQUE);
            CREATE INDEX player_on_teamId ON player(teamId);
            """
        #expect(try DatabaseSchema(appSchema(version: 3)) == DatabaseSchema(sql: schemaSQLWrittenByHand))
        #expect(appSchema(version: 3).sql.contains(#""fullName" TEXT NOT NULL, -- @renamed from="name""#))
    }
}
