import Strata
import StrataTestSupport
import Testing

/// Minimal cases the property run found (shrunk by `PairShrinker`), kept so they stay fixed.
/// Each runs through the same checks as a random pair, on the modern and the old-SQLite path.
struct PropertyRegression: Sendable, CustomTestStringConvertible {
    var name: String
    var change: SchemaChangeCase
    /// The expected outcome: applied, or refused for a reason in the data (with that code).
    var refusedWith: SchemaError.Code? = nil
    /// The features newer than Strata's floor that `after` uses: where the connection lacks one,
    /// the change must be refused by name (`.featureUnavailable`), the database unchanged.
    var features: [SQLiteFeature] = []
    var testDescription: String { name }
}

let propertyRegressions: [PropertyRegression] = [
    PropertyRegression(
        // SQLite refuses ALTER TABLE ADD COLUMN of a STORED generated column on a table with
        // rows, but accepts it on the empty schema copy where the native path was tried.
        name: "a STORED generated column added to a table with rows",
        change: SchemaChangeCase(
            before: #"CREATE TABLE "group by8"("c9" BLOB);"#,
            data: [#"INSERT INTO "group by8"("c9") VALUES (NULL)"#],
            after: #"CREATE TABLE "group by8"("c9" BLOB, "c17" TEXT GENERATED ALWAYS AS (lower("c9")) STORED);"#),
        features: [.generatedColumns]),
    PropertyRegression(
        // A NULL copied into a new INTEGER PRIMARY KEY silently becomes a fresh rowid.
        name: "a column holding NULL becomes the INTEGER PRIMARY KEY",
        change: SchemaChangeCase(
            before: #"CREATE TABLE "x'y1"("order3" INTEGER);"#,
            data: [#"INSERT INTO "x'y1"("order3") VALUES (NULL)"#, #"INSERT INTO "x'y1"("order3") VALUES (5)"#],
            after: #"CREATE TABLE "x'y1"("order3" INTEGER PRIMARY KEY);"#),
        refusedWith: .preflightFailed),
    PropertyRegression(
        // SQLite 3.40 accepts this violating row (a BEFORE INSERT trigger runs an UPDATE on a
        // table with ON UPDATE actions); the change must not add violations, nor trip on it.
        name: "a foreign key violation that exists before the change",
        change: SchemaChangeCase(
            before: #"""
                CREATE TABLE "t7"("id13" INTEGER PRIMARY KEY, "c11" NUMERIC, "c12" TEXT,
                  FOREIGN KEY ("c12") REFERENCES "t7"("id13") ON DELETE SET DEFAULT ON UPDATE SET NULL);
                CREATE TRIGGER "x'y24" BEFORE INSERT ON "t7" BEGIN UPDATE "t7" SET "id13" = "id13" WHERE NEW."c11" IS NULL AND 0; END;
                """#,
            data: [#"INSERT INTO "t7"("c11", "c12") VALUES ('14', -47)"#],
            after: #"""
                CREATE TABLE "t7"("id13" INTEGER PRIMARY KEY, "c11" NUMERIC, "c12" TEXT, "c13" INTEGER,
                  FOREIGN KEY ("c12") REFERENCES "t7"("id13") ON DELETE SET DEFAULT ON UPDATE SET NULL);
                CREATE TRIGGER "x'y24" BEFORE INSERT ON "t7" BEGIN UPDATE "t7" SET "id13" = "id13" WHERE NEW."c11" IS NULL AND 0; END;
                """#)),
]

@Suite("Property regressions")
struct PropertyRegressionTests {
    @Test(arguments: propertyRegressions)
    func regression(_ r: PropertyRegression) throws {
        for limit in [nil, SQLiteVersion.minimumSupported] {
            let path = limit.map { "limit \($0)" } ?? "runtime \(SQLiteVersion.runtime)"
            var config = Configuration()
            config.capabilityLimit = limit
            let db = try Database(inMemory: config)
            if let missing = r.features.first(where: { !db.capabilities.supports($0) }) {
                try db.execute(sql: r.change.before)
                for insert in r.change.data { try db.execute(sql: insert) }
                let snapshot = try DatabaseContents(db)
                let error = #expect(throws: SchemaError.self, "\(r.name) (\(path))") {
                    try db.migrateSchema(to: r.change.after, options: SchemaChangeOptions(allowDestructive: true))
                }
                #expect(error?.code == .featureUnavailable, "\(r.name) (\(path))")
                #expect(
                    error?.message.contains("\(missing.name) need SQLite \(missing.version) or newer") == true,
                    "\(r.name) (\(path)): \(String(describing: error))")
                #expect(try DatabaseContents(db) == snapshot, "\(r.name) (\(path)): changed on refusal")
                continue
            }
            let outcome = SchemaChangeCheck.run(r.change, capabilityLimit: limit)
            if let code = r.refusedWith {
                #expect(outcome == .rejected(code), "\(r.name) (\(path)): \(outcome)")
            } else if case .applied = outcome {
            } else {
                Issue.record("\(r.name) (\(path)): \(outcome)")
            }
        }
    }
}
