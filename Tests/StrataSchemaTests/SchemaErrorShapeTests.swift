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
