import Foundation
import StrataSQLite
import Testing

@Suite("Record coding")
struct RecordCodingTests {
    struct Profile: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
        struct Address: Codable, Equatable {
            var city: String
            var zip: String?
        }
        enum Mood: String, Codable { case calm, busy }  // Codable only, not SQLValueConvertible
        struct Nickname: Codable, Equatable {  // a single-value wrapper
            var value: String
            init(_ value: String) { self.value = value }
            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(value)
            }
        }
        var userID: Int64?
        var firstName: String
        var birthDate: Date?
        var homeAddress: Address
        var scores: [String: Int]
        var mood: Mood
        var nickname: Nickname?
        var avatarData: Data?
        var ratio: Float
        var isAdmin: Bool

        static let databaseTableName = "profile"
        static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
        static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
        mutating func didInsert(_ inserted: InsertionSuccess) { userID = inserted.rowID }
    }

    static func profileDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE profile(
                    user_id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, birth_date TEXT, home_address TEXT NOT NULL,
                    scores TEXT NOT NULL, mood TEXT NOT NULL, nickname TEXT, avatar_data BLOB, ratio REAL NOT NULL,
                    is_admin INTEGER NOT NULL)
                """)
        return db
    }

    static let sample = Profile(
        userID: nil, firstName: "Ada", birthDate: utc(1815, 12, 10), homeAddress: .init(city: "London", zip: nil),
        scores: ["math": 10, "poetry": 7], mood: .busy, nickname: .init("Enchantress"), avatarData: Data([1, 2]),
        ratio: 0.5, isAdmin: true)

    @Test func snakeCaseStrategiesNestedJSONAndSingleValues() throws {
        let db = try RecordCodingTests.profileDatabase()
        var profile = RecordCodingTests.sample
        try profile.insert(db)
        #expect(profile.userID == 1)
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM profile"))
        #expect(
            row == [
                "user_id": 1, "first_name": "Ada", "birth_date": "1815-12-10 00:00:00.000",
                "home_address": #"{"city":"London"}"#, "scores": #"{"math":10,"poetry":7}"#, "mood": "busy",
                "nickname": "Enchantress", "avatar_data": .blob([1, 2]), "ratio": 0.5, "is_admin": 1,
            ])
        #expect(try Profile.fetchOne(db, key: 1) == profile)

        var empty = profile
        (empty.userID, empty.birthDate, empty.nickname, empty.avatarData) = (nil, nil, nil, nil)
        try empty.insert(db)
        #expect(try Profile.fetchOne(db, key: empty.userID) == empty)
        #expect(
            try db.fetchValue(
                Bool.self, sql: "SELECT nickname IS NULL AND birth_date IS NULL FROM profile WHERE user_id = 2") == true
        )
    }

    @Test func snakeCaseKeyWithAcronymFindsItsColumn() throws {
        struct Account: Decodable, FetchableRecord {
            var userID: Int
            var htmlURL: String
            static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
        }
        let db = try Database(inMemory: Configuration())
        let account = try #require(try Account.fetchOne(db, sql: "SELECT 1 AS user_id, 'x' AS html_url"))
        #expect(account.userID == 1 && account.htmlURL == "x")
        let error = #expect(throws: RowDecodingError.self) { _ = try Account.fetchOne(db, sql: "SELECT 1 AS user_id") }
        #expect(error?.description.hasPrefix(#"Account: no column "html_url" in row"#) == true)
    }

    @Test func codingKeysAreRespected() throws {
        struct Renamed: Codable, Equatable, FetchableRecord, PersistableRecord {
            var identifier: Int
            var label: String
            enum CodingKeys: String, CodingKey {
                case identifier = "id"
                case label = "name"
            }
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE renamed(id INTEGER PRIMARY KEY, name TEXT)")
        try Renamed(identifier: 3, label: "three").insert(db)
        #expect(try Renamed.fetchOne(db, key: 3) == Renamed(identifier: 3, label: "three"))
        // Column names compare without regard to case, as in SQL.
        #expect(try Renamed.fetchOne(db, sql: "SELECT id AS ID, name AS Name FROM renamed")?.label == "three")
    }

    @Test func optionalPropertyWithMissingColumnIsNil() throws {
        struct Loose: Decodable, FetchableRecord {
            var id: Int
            var note: String?
        }
        let db = try Database(inMemory: Configuration())
        let loose = try #require(try Loose.fetchOne(db, sql: "SELECT 1 AS id"))
        #expect(loose.id == 1 && loose.note == nil)
    }

    @Test func dateStrategies() throws {
        struct Event: Codable, Equatable, FetchableRecord, PersistableRecord {
            var unix: Date
            var millis: Date
            var iso: Date
            var reference: Date
            static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
                switch column {
                case "unix": .secondsSince1970
                case "millis": .millisecondsSince1970
                case "iso": .iso8601
                default: .timeIntervalSinceReferenceDate
                }
            }
            static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
                switch column {
                case "unix": .timeIntervalSince1970
                case "millis": .millisecondsSince1970
                case "iso": .iso8601
                default: .timeIntervalSinceReferenceDate
                }
            }
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE event(unix, millis, iso, reference)")
        let date = utc(2024, 5, 1, 9, 30, 5, ms: 250)
        try Event(unix: utc(2024, 5, 1), millis: date, iso: date, reference: date).insert(db)
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM event"))
        #expect(
            row.values == [
                1_714_521_600, 1_714_555_805_250, "2024-05-01T09:30:05.250Z",
                .real(date.timeIntervalSinceReferenceDate),
            ])
        #expect(try Event.fetchAll(db) == [Event(unix: utc(2024, 5, 1), millis: date, iso: date, reference: date)])
    }

    @Test func uuidStrategiesAndTextUUIDs() throws {
        struct Device: Codable, Equatable, FetchableRecord, PersistableRecord {
            var upper: UUID
            var lower: UUID
            var blob: UUID
            static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
                switch column {
                case "upper": .uppercaseString
                case "lower": .lowercaseString
                default: .deferredToUUID
                }
            }
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE device(upper, lower, blob)")
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        try Device(upper: uuid, lower: uuid, blob: uuid).insert(db)
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM device"))
        #expect(row.values[0] == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(row.values[1] == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(row.values[2] == uuid.sqlValue)
        #expect(try Device.fetchAll(db) == [Device(upper: uuid, lower: uuid, blob: uuid)])
    }

    @Test func plansSurviveKeysDecodedInDifferentOrders() throws {
        // init(from:) reads different keys depending on the data: the column plan of the first
        // row must not misread the next ones.
        struct Shape: Decodable, FetchableRecord, Equatable {
            var kind: String
            var size: Double
            init(from decoder: any Decoder) throws {
                enum Keys: String, CodingKey { case kind, radius, side }
                let container = try decoder.container(keyedBy: Keys.self)
                kind = try container.decode(String.self, forKey: .kind)
                size = try container.decode(Double.self, forKey: kind == "circle" ? .radius : .side)
            }
        }
        let db = try Database(inMemory: Configuration())
        let shapes = try Shape.fetchAll(
            db,
            sql: """
                SELECT 'circle' AS kind, 1.0 AS radius, 10.0 AS side
                UNION ALL SELECT 'square', 2.0, 20.0
                UNION ALL SELECT 'circle', 3.0, 30.0
                """)
        #expect(shapes.map(\.size) == [1, 20, 3])
    }

    @Test func thousandsOfRowsDecodeWithThePlan() throws {
        let db = try recordDatabase()
        try db.transaction {
            for i in 0..<2000 { _ = try Note.make("n\(i)", tags: ["t\(i)"]).inserted(db) }
        }
        let notes = try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY id")
        #expect(notes.count == 2000)
        #expect(notes[1999].title == "n1999" && notes[1999].tags == ["t1999"])
        // Another column order for the same record type.
        let reordered = try Note.fetchAll(
            db, sql: "SELECT uuid, kind, tags, createdAt, title, id FROM note ORDER BY id")
        #expect(reordered == notes)
    }

    @Test func recordCanBeDecodedFromAHandMadeRow() throws {
        let row: Row = ["name": "urgent", "color": nil]
        #expect(try Tag(row: row) == Tag(name: "urgent", color: nil))
    }
}
