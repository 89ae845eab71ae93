import Foundation
import Strata
import StrataTestSupport
import Testing

/// Failures injected into every statement of a multi-table rebuild plan and of every migration,
/// and disk-full (`PRAGMA max_page_count`) at a range of limits: each failure leaves the file
/// byte-identical, with no temporary table and foreign keys restored; a later run completes.
@Suite("Failure injection")
struct FailureInjectionTests {
    static let books = 400

    @Test func aFailingStatementAnywhereInARebuildPlanLeavesTheFileByteIdentical() throws {
        let dir = TemporaryDirectory("strata-inject")
        let path = dir.file("db.sqlite")
        try CrashFixture.makeOldDatabase(at: path, books: Self.books)
        let db = try Database(path: path)
        defer { db.close() }
        let bytes = fileBytes(path)
        let state = try DatabaseState(db)
        let plan = try db.planSchemaChange(to: CrashFixture.newSchema)
        #expect(plan.steps.filter { $0.kind == .rebuildTable }.count == 3, "\(plan.summary)")
        var positions = 0
        for (s, step) in plan.steps.enumerated() {
            for position in 0...step.statements.count {
                var broken = plan
                broken.steps[s].statements.insert("INSERT INTO no_such_table VALUES (1)", at: position)
                do {
                    try db.applySchemaChange(broken)
                    Issue.record("step \(s) position \(position): the broken plan applied")
                } catch let error as SchemaError {
                    #expect(error.code == .applyFailed)
                    #expect(error.message.contains("no_such_table") && error.message.contains(step.object), "\(error)")
                }
                positions += 1
                #expect(
                    fileBytes(path) == bytes, "step \(s) (\(step.kind.rawValue)) position \(position): file changed")
                #expect(try DatabaseState(db) == state)
                #expect(try db.foreignKeysEnabled())
                #expect(!db.isInTransaction)
            }
        }
        print("failure injection: a failing statement at \(positions) positions of a \(plan.steps.count)-step plan")
        #expect(positions > 20)
        try db.applySchemaChange(plan)
        #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: CrashFixture.newSchema))
    }

    @Test func diskFullAtAnyPointOfARebuildLeavesTheFileByteIdentical() throws {
        let dir = TemporaryDirectory("strata-full")
        let template = dir.file("template.sqlite")
        try CrashFixture.makeOldDatabase(at: template, books: Self.books)
        let bytes = fileBytes(template)
        let pages = try pageCount(template)
        var failures = 0
        for extra in stride(from: 0, through: pages * 2, by: max(1, pages / 12)) {
            let path = dir.file("db-\(extra).sqlite")
            try CrashFixture.copy(template, to: path)
            let db = try Database(path: path)
            try db.execute(sql: "PRAGMA max_page_count = \(pages + extra)")
            do {
                try db.migrateSchema(to: CrashFixture.newSchema)
                #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: CrashFixture.newSchema))
                db.close()
                break
            } catch let error as SchemaError {
                failures += 1
                #expect(error.underlying?.resultCode == .SQLITE_FULL, "limit +\(extra): \(error)")
                #expect(fileBytes(path) == bytes, "limit +\(extra): the file changed after disk full")
                #expect(try db.foreignKeysEnabled())
                db.close()
            }
        }
        print(
            "failure injection: disk full stopped the rebuild plan at \(failures) page limits, every time byte-identical"
        )
        #expect(failures >= 3, "disk full hit only \(failures) times")
    }

    @Test func aFailingStatementInAnyMigrationRollsBackThatMigrationOnly() throws {
        let dir = TemporaryDirectory("strata-inject-migrations")
        let list = CrashFixture.migrations(books: Self.books)
        // Files after 2, 3 and 4 migrations.
        var starts = [String]()
        for k in 2..<list.count {
            let path = dir.file("after-\(k).sqlite")
            let db = try Database(path: path)
            try CrashFixture.migrator(list).migrate(db, upTo: list[k - 1].identifier)
            db.close()
            starts.append(path)
        }
        var injected = 0
        for k in 2..<list.count {
            for position in 0...list[k].statements.count {
                var broken = list
                broken[k].statements.insert("INSERT INTO no_such_table VALUES (1)", at: position)
                let path = dir.file("trial.sqlite")
                try CrashFixture.copy(starts[k - 2], to: path)
                let bytes = fileBytes(path)
                let db = try Database(path: path)
                do {
                    try CrashFixture.migrator(broken).migrate(db)
                    Issue.record("\(list[k].identifier) position \(position): the broken migration applied")
                } catch let error as MigrationError {
                    #expect(error.code == .migrationFailed)
                    #expect(
                        error.description.contains(list[k].identifier) && error.description.contains("no_such_table"),
                        "\(error)")
                }
                injected += 1
                #expect(try db.foreignKeysEnabled())
                db.close()
                #expect(fileBytes(path) == bytes, "\(list[k].identifier) position \(position): the file changed")
                try FileManager.default.removeItem(atPath: path)
            }
        }
        print("failure injection: a failing statement at \(injected) positions of 3 migrations")
        #expect(injected == list.dropFirst(2).map { $0.statements.count + 1 }.reduce(0, +))
    }

    @Test func aFailureInASingleTransactionRunRollsBackEveryPendingMigration() throws {
        let dir = TemporaryDirectory("strata-inject-single")
        let list = CrashFixture.migrations(books: Self.books)
        let path = dir.file("db.sqlite")
        do {
            let db = try Database(path: path)
            try CrashFixture.migrator(list).migrate(db, upTo: "0002_seed")
            db.close()
        }
        let bytes = fileBytes(path)
        var broken = list
        try #require(broken.count > 4)
        broken[4].statements.append("UPDATE author SET name = NULL")  // NOT NULL constraint, last statement
        let db = try Database(path: path)
        defer { db.close() }
        #expect {
            try CrashFixture.migrator(broken, mode: .singleTransaction).migrate(db)
        } throws: { error in
            "\(error)".contains("0005_index_and_column") && "\(error)".contains("NOT NULL")
        }
        #expect(fileBytes(path) == bytes)
        // The unbroken list then applies.
        #expect(
            try CrashFixture.migrator(list, mode: .singleTransaction).migrate(db) == list.dropFirst(2).map(\.identifier)
        )
    }

    @Test func diskFullDuringMigrationsLeavesAWholeNumberOfMigrations() throws {
        let dir = TemporaryDirectory("strata-full-migrations")
        let list = CrashFixture.migrations(books: Self.books)
        let migrator = CrashFixture.migrator(list)
        let template = dir.file("template.sqlite")
        var states = [DatabaseState]()
        do {
            let db = try Database(path: template)
            try migrator.migrate(db, upTo: "0002_seed")
            states.append(try DatabaseState(db))
            db.close()
        }
        for k in 2..<list.count {
            let path = dir.file("state-\(k).sqlite")
            try CrashFixture.copy(template, to: path)
            let db = try Database(path: path)
            try migrator.migrate(db, upTo: list[k].identifier)
            states.append(try DatabaseState(db))
            db.close()
        }
        let pages = try pageCount(template)
        var outcomes = Set<Int>()
        for extra in stride(from: 0, through: pages, by: max(1, pages / 16)) {
            let path = dir.file("db-\(extra).sqlite")
            try CrashFixture.copy(template, to: path)
            let db = try Database(path: path)
            try db.execute(sql: "PRAGMA max_page_count = \(pages + extra)")
            var failed: String? = nil
            do {
                try migrator.migrate(db)
            } catch let error as MigrationError {
                failed = error.description
                #expect(error.description.contains("full"), "limit +\(extra): \(error)")
            }
            let now = try DatabaseState(db)
            let index = states.firstIndex(of: now)
            #expect(
                index != nil,
                "limit +\(extra): not the state after a whole number of migrations (\(failed ?? "no error"))")
            if let index {
                outcomes.insert(index)
                if let failed {
                    #expect(
                        failed.contains(list[index + 2].identifier), "the error names the failing migration: \(failed)")
                }
            }
            try db.execute(sql: "PRAGMA max_page_count = 1073741823")
            try migrator.migrate(db)
            #expect(try DatabaseState(db) == states.last)
            db.close()
        }
        print(
            "failure injection: disk full during migrations stopped after migrations \(outcomes.sorted().map { list[$0 + 1].identifier })"
        )
        #expect(outcomes.count >= 2, "disk full stopped the run at only \(outcomes.sorted())")
    }

    private func pageCount(_ path: String) throws -> Int {
        let db = try Database(path: path)
        defer { db.close() }
        return try db.fetchValue(Int.self, sql: "PRAGMA page_count") ?? 0
    }
}
