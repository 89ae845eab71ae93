import Foundation
import StrataSQLite
import StrataSchema
import Testing

@Suite("Schema error shape: code, culprit, cause")
struct SchemaErrorShapeTests {
    @Test func invalidDesiredSQLNamesTheStatement() throws {
        let error = try #require(throws: SchemaError.self) {
            try DatabaseSchema(sql: "CREATE TABLE a(x);\nCREATE TABLE b(id INTEGER PRIMARY KEY,, x);")
        }
        #expect(error.code == .invalidSQL)
        #expect(error.culprit == "statement 2")
        #expect((error.underlyingError as? SQLiteError)?.code == .SQLITE_ERROR)
    }

    @Test func preflightFailureNamesTheTable() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO user(name) VALUES ('a')")
        let error = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(to: "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT, age INTEGER NOT NULL);")
        }
        #expect(error.code == .preflightFailed)
        #expect(error.culprit == "user")
        #expect(error.underlyingError == nil)
    }

    @Test func unresolvedColumnRenameNamesTheColumn() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT)")
        let error = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(to: "CREATE TABLE user(id INTEGER PRIMARY KEY, a TEXT -- @renamed from=zzz\n);")
        }
        #expect(error.code == .unresolvedRename)
        #expect(error.culprit == "user.a")
    }

    /// Names with a space or a colon are the culprit whole: the engine passes each culprit as it
    /// knows it instead of reading a name back from its message.
    @Test func namesWithSpacesAndColonsAreTheCulpritWhole() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE "my table"(id INTEGER PRIMARY KEY, "a b" TEXT);
                INSERT INTO "my table"("a b") VALUES ('x'), ('x');
                """)
        let before = try db.fetchAll(sql: #"SELECT * FROM "my table""#).map(\.description)

        let preflight = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(
                to: #"CREATE TABLE "my table"(id INTEGER PRIMARY KEY, "a b" TEXT, "c: d" INTEGER NOT NULL);"#)
        }
        #expect(preflight.code == .preflightFailed)
        #expect(preflight.culprit == "my table")

        let rename = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(
                to: #"CREATE TABLE "my table"(id INTEGER PRIMARY KEY, "e f" TEXT -- @renamed from=zzz"# + "\n);")
        }
        #expect(rename.code == .unresolvedRename)
        #expect(rename.culprit == "my table.e f")

        // The rows do not fit a UNIQUE column: the rebuild's copy fails inside the transaction.
        let plan = try db.planSchemaChange(to: #"CREATE TABLE "my table"(id INTEGER PRIMARY KEY, "a b" TEXT UNIQUE);"#)
        let apply = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(apply.code == .applyFailed)
        #expect(apply.culprit == "my table")
        #expect(try db.fetchAll(sql: #"SELECT * FROM "my table""#).map(\.description) == before)

        let reference = try #require(throws: SchemaError.self) {
            try DatabaseSchema(
                sql: #"CREATE TABLE "o: d"(id INTEGER PRIMARY KEY, p INTEGER REFERENCES "no such"(id));"#)
        }
        #expect(reference.code == .invalidSQL)
        #expect(reference.culprit == "o: d")
    }

    @Test func explicitCulpritWins() {
        let error = SchemaError(code: .unsupported, message: "table t: something", culprit: "elsewhere")
        #expect(error.culprit == "elsewhere")
        #expect(SchemaError(code: .schemaChanged, message: "the database schema changed").culprit == nil)
    }

    @Test func definitionErrorNamesTheTableUnquoted() throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SchemaDefinitionError.self) {
            try db.create(table: "my \"odd\" table") { _ in }
        }
        #expect(error.code == .invalidDefinition)
        #expect(error.culprit == "my \"odd\" table")
        #expect(error.underlyingError == nil)
    }
}
