import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// A note with a secondary unique key (`uuid`) and a visit counter.
private struct Card: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var uuid: String
    var title: String
    var visits: Int = 0
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row keyed by a composite unique key (folder, slug) besides its id.
private struct Page: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var folder: String
    var slug: String
    var body: String
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

@Suite("Record upsert on any unique key")
struct RecordUpsertTests {
    func database(_ configuration: Configuration = Configuration()) throws -> Database {
        let db = try Database(inMemory: configuration)
        try db.execute(
            sql: """
                CREATE TABLE card(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
                                  visits INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE page(id INTEGER PRIMARY KEY, folder TEXT NOT NULL, slug TEXT NOT NULL, body TEXT,
                                  UNIQUE (folder, slug));
                """)
        return db
    }

    @Test(.requiresSQLite(3, 35, "ON CONFLICT DO UPDATE without target"))
    func upsertOnASecondaryUniqueKeyUpdatesThatRow() throws {
        let db = try database()
        var first = Card(id: nil, uuid: "A-1", title: "Groceries")
        try first.insert(db)
        // Same uuid, no id: today's PK-only upsert threw "UNIQUE constraint failed: card.uuid".
        var again = Card(id: nil, uuid: "A-1", title: "Shopping")
        try again.upsert(db)
        #expect(again.id == first.id)
        #expect(try Card.fetchAll(db) == [Card(id: first.id, uuid: "A-1", title: "Shopping")])
        // A new uuid inserts.
        var other = Card(id: nil, uuid: "B-2", title: "Books")
        try other.upsert(db)
        #expect(other.id == 2)
        #expect(try Card.fetchCount(db) == 2)
    }

    @Test(.requiresSQLite(3, 35, "ON CONFLICT DO UPDATE without target"))
    func upsertOnACompositeUniqueKey() throws {
        let db = try database()
        var page = Page(id: nil, folder: "docs", slug: "intro", body: "v1")
        try page.insert(db)
        var edit = Page(id: nil, folder: "docs", slug: "intro", body: "v2")
        try edit.upsert(db)
        #expect(edit.id == page.id)
        var targeted = Page(id: nil, folder: "docs", slug: "intro", body: "v3")
        try targeted.upsert(db, onConflict: ["folder", "slug"])
        #expect(targeted.id == page.id)
        #expect(try Page.fetchAll(db) == [Page(id: page.id, folder: "docs", slug: "intro", body: "v3")])
        var elsewhere = Page(id: nil, folder: "blog", slug: "intro", body: "other")
        try elsewhere.upsert(db)
        #expect(try Page.fetchCount(db) == 2)
    }

    /// The conflict target form runs on every supported SQLite (3.26+): ON CONFLICT (target).
    @Test func upsertWithATargetAndAssignments() throws {
        let db = try database()
        var card = Card(id: nil, uuid: "A-1", title: "Groceries")
        try card.insert(db)
        for title in ["Shopping", "Errands"] {
            var visit = Card(id: nil, uuid: "A-1", title: title)
            try visit.upsert(db, onConflict: ["uuid"]) { excluded in
                [.set("visits", to: "visits + 1"), .set("title", to: "\(literal: excluded["title"]) || \("!")")]
            }
            #expect(visit.id == card.id)
        }
        #expect(try Card.fetchAll(db) == [Card(id: card.id, uuid: "A-1", title: "Errands!", visits: 2)])
        // Only what is specified.
        var quiet = Card(id: nil, uuid: "A-1", title: "ignored")
        try quiet.upsert(db, onConflict: ["uuid"], updating: .noColumnUnlessSpecified) { _ in
            [.set("visits", to: "visits + \(10)")]
        }
        #expect(try Card.fetchOne(db, key: card.id)?.title == "Errands!")
        #expect(try Card.fetchOne(db, key: card.id)?.visits == 12)
        // noOverwrite keeps a column with .allColumns.
        var keep = Card(id: nil, uuid: "A-1", title: "kept?")
        try keep.upsert(db, onConflict: ["uuid"]) { _ in [.noOverwrite("title")] }
        #expect(try Card.fetchOne(db, key: card.id)?.title == "Errands!")
        #expect(try Card.fetchOne(db, key: card.id)?.visits == 0)  // overwritten with the record's value
    }

    @Test func aTargetThatIsNotAUniqueKeyIsRefusedNamingIt() throws {
        let db = try database()
        let before = try DatabaseContents(db)
        var card = Card(id: nil, uuid: "A-1", title: "Groceries")
        let error = #expect(throws: RecordError.self) { try card.upsert(db, onConflict: ["title"]) }
        #expect(error?.code == .invalidConflictTarget)
        #expect(error?.message.contains("conflict target (title)") == true)
        #expect(error?.message.contains("(uuid)") == true)
        #expect(try DatabaseContents(db) == before)
    }

    /// A row that clashes with two rows (the id of one, the uuid of another) is refused by SQLite
    /// and nothing changes.
    @Test(.requiresSQLite(3, 35, "ON CONFLICT DO UPDATE without target"))
    func aRowClashingWithTwoRowsChangesNothing() throws {
        let db = try database()
        var a = Card(id: nil, uuid: "A", title: "a")
        var b = Card(id: nil, uuid: "B", title: "b")
        try a.insert(db)
        try b.insert(db)
        let before = try DatabaseContents(db)
        var clash = Card(id: b.id, uuid: "A", title: "clash")
        let error = #expect(throws: SQLiteError.self) { try clash.upsert(db) }
        #expect(error?.message.contains("UNIQUE constraint failed: card.uuid") == true)
        #expect(try DatabaseContents(db) == before)
    }

    /// A conflict target names one unique key: a row that collides on another unique key (or
    /// on the primary key) is not that target's conflict, so the statement fails as SQLite's own
    /// upsert on that target does, and no row is overwritten (issue 37 item 8: with the target
    /// left out of the SQL, any unique key fired the update and overwrote the row it matched).
    /// Both the plain and the RETURNING forms, on both unique keys.
    @Test func aRowCollidingOnAnotherUniqueKeyThanTheTargetIsNeverOverwritten() throws {
        struct Member: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
            var id: Int64?
            var uuid: String
            var email: String
            var name: String
            mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE member(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE,
                                    name TEXT NOT NULL)
                """)
        var alice = Member(id: nil, uuid: "u-1", email: "alice@example.com", name: "Alice")
        try alice.insert(db)
        let before = try DatabaseContents(db)
        let collisions: [(target: String, member: Member, failing: String)] = [
            ("uuid", Member(id: nil, uuid: "u-2", email: "alice@example.com", name: "Mallory"), "member.email"),
            ("email", Member(id: nil, uuid: "u-1", email: "mallory@example.com", name: "Mallory"), "member.uuid"),
            ("uuid", Member(id: alice.id, uuid: "u-3", email: "eve@example.com", name: "Eve"), "member.id"),
        ]
        for (target, member, failing) in collisions {
            // SQLite's own upsert on that target fails on the other key.
            let raw = #expect(throws: SQLiteError.self, "SQLite's upsert on \(target)") {
                try db.execute(
                    sql: """
                        INSERT INTO member(id, uuid, email, name) VALUES (?, ?, ?, ?)
                        ON CONFLICT (\(target)) DO UPDATE SET uuid = excluded.uuid, email = excluded.email, name = excluded.name
                        """, arguments: [member.id, member.uuid, member.email, member.name])
            }
            #expect(raw?.message.contains(failing) == true, "\(String(describing: raw))")
            var plain = member
            let error = #expect(throws: SQLiteError.self, "upsert on \(target) of \(member)") {
                try plain.upsert(db, onConflict: [target])
            }
            #expect(
                error?.message.contains("UNIQUE constraint failed: \(failing)") == true, "\(String(describing: error))")
            #expect(try DatabaseContents(db) == before, "upsert on \(target) of \(member)")
            if db.capabilities.supportsReturning {
                var fetched = member
                #expect(throws: SQLiteError.self, "upsertAndFetch on \(target) of \(member)") {
                    _ = try fetched.upsertAndFetch(db, onConflict: [target])
                }
                #expect(try DatabaseContents(db) == before, "upsertAndFetch on \(target) of \(member)")
            }
        }
        // A collision on the target itself updates that row (and only it).
        var renamed = Member(id: nil, uuid: "u-1", email: "alice@example.com", name: "Alicia")
        try renamed.upsert(db, onConflict: ["uuid"])
        #expect(
            try Member.fetchAll(db) == [Member(id: alice.id, uuid: "u-1", email: "alice@example.com", name: "Alicia")])
    }

    /// Before 3.35 (simulated with `capabilityLimit`, and real on the 3.28 build of
    /// scripts/sqlite-versions.sh): a table whose only unique key is its primary key is upserted
    /// on it; another unique index is named in a clear error, and the targeted form works.
    @Test func beforeSQLite335() throws {
        var configuration = Configuration()
        configuration.capabilityLimit = SQLiteVersion(3, 34, 0)
        let db = try database(configuration)
        try db.execute(sql: "CREATE TABLE plain(id INTEGER PRIMARY KEY, title TEXT)")
        struct Plain: Codable, Equatable, FetchableRecord, PersistableRecord {
            var id: Int64
            var title: String
        }
        try Plain(id: 1, title: "a").upsert(db)
        try Plain(id: 1, title: "b").upsert(db)
        #expect(try Plain.fetchAll(db) == [Plain(id: 1, title: "b")])

        let before = try DatabaseContents(db)
        var card = Card(id: nil, uuid: "A-1", title: "Groceries")
        let error = #expect(throws: RecordError.self) { try card.upsert(db) }
        #expect(error?.code == .unsupportedBySQLite)
        #expect(error?.message.contains("needs SQLite 3.35") == true)
        #expect(error?.message.contains("sqlite_autoindex_card_1") == true)
        #expect(error?.message.contains("upsert(db, onConflict:") == true)
        #expect(try DatabaseContents(db) == before)

        try card.upsert(db, onConflict: ["uuid"])
        var again = Card(id: nil, uuid: "A-1", title: "Shopping")
        try again.upsert(db, onConflict: ["uuid"])
        #expect(again.id == card.id)  // found by the target's values, without RETURNING
        #expect(try Card.fetchAll(db) == [Card(id: card.id, uuid: "A-1", title: "Shopping")])

        let fetchError = #expect(throws: RecordError.self) { _ = try again.upsertAndFetch(db) }
        #expect(fetchError?.code == .unsupportedBySQLite)
        #expect(
            fetchError?.message
                == "upsertAndFetch needs SQLite 3.35 or later (RETURNING); this connection has \(db.capabilities.version)"
        )
    }

    @Test(.requiresSQLite(3, 35, "RETURNING"))
    func upsertAndFetchReturnsTheStoredRow() throws {
        let db = try database()
        var card = Card(id: nil, uuid: "A-1", title: "Groceries", visits: 3)
        let inserted = try card.upsertAndFetch(db)
        #expect(inserted == Card(id: 1, uuid: "A-1", title: "Groceries", visits: 3))
        var again = Card(id: nil, uuid: "A-1", title: "Shopping")
        let updated = try again.upsertAndFetch(db, onConflict: ["uuid"], updating: .noColumnUnlessSpecified) { _ in
            [.set("visits", to: "visits + 1")]
        }
        #expect(updated == Card(id: 1, uuid: "A-1", title: "Groceries", visits: 4))
        #expect(again.id == 1)
    }

    /// The 3.28 build of scripts/sqlite-versions.sh (LD_LIBRARY_PATH): the real old parser.
    @Test(.enabled(if: SQLiteVersion.runtime < SQLiteVersion(3, 35), "runs on SQLite before 3.35 only"))
    func realOldSQLiteRefusesTheTargetlessForm() throws {
        let db = try database()
        var card = Card(id: nil, uuid: "A-1", title: "Groceries")
        #expect(throws: RecordError.self) { try card.upsert(db) }
        try card.upsert(db, onConflict: ["uuid"])
        #expect(try Card.fetchCount(db) == 1)
    }

    /// The query interface's assignments in an upsert: `Column += value`, `set(to:)` with the
    /// `excluded` row as an expression, `noOverwrite`; values bound, the SQL traced.
    @Test func upsertTakesColumnAssignments() throws {
        let db = try database()
        var card = Card(id: nil, uuid: "A-1", title: "Groceries", visits: 3)
        try card.insert(db)
        var statements: [String] = []
        db.trace { statements.append($0.sql) }
        var again = Card(id: nil, uuid: "A-1", title: "Shopping", visits: 10)
        try again.upsert(db, onConflict: ["uuid"], updating: .noColumnUnlessSpecified) { excluded in
            [
                Column("visits").set(to: Column("visits") + excluded[Column("visits")]),
                Column("title").set(to: excluded[Column("title")] ?? "untitled"),
                Column("uuid").noOverwrite,
            ]
        }
        db.trace(nil)
        #expect(
            statements.contains {
                $0.contains(
                    #"DO UPDATE SET "visits" = "visits" + excluded."visits", "title" = IFNULL(excluded."title", ?)"#)
            })
        #expect(try Card.fetchAll(db) == [Card(id: card.id, uuid: "A-1", title: "Shopping", visits: 13)])
        // With .allColumns, noOverwrite keeps a column the record encodes.
        var third = Card(id: nil, uuid: "A-1", title: "Books", visits: 0)
        try third.upsert(db, onConflict: ["uuid"]) { _ in [Column("visits") += 1, Column("title").noOverwrite] }
        #expect(try Card.fetchAll(db) == [Card(id: card.id, uuid: "A-1", title: "Shopping", visits: 14)])
        // The old spelling still compiles: ColumnAssignment.set(_:to:) with SQL.
        try third.upsert(db, onConflict: ["uuid"], updating: .noColumnUnlessSpecified) { _ in
            [.set("visits", to: "visits * \(2)")]
        }
        #expect(try Card.fetchOne(db)?.visits == 28)
        // updateAll skips noOverwrite.
        struct CardTable: TableRecord { static let databaseTableName = "card" }
        #expect(try CardTable.all().updateAll(db, Column("title").noOverwrite) == 0)
        #expect(try CardTable.all().updateAll(db, Column("title").noOverwrite, Column("visits").set(to: 1)) == 1)
        #expect(try Card.fetchOne(db) == Card(id: card.id, uuid: "A-1", title: "Shopping", visits: 1))
    }
}
