import StrataSQLite
import StrataTestSupport
import Testing

/// The README's "The connection layer" example, verbatim except for the file location and
/// `print`, which collects lines here.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func connectionLayerExample() throws {
        let dir = TemporaryDirectory()
        var output: [String] = []
        func print(_ items: Any...) { output.append(items.map { "\($0)" }.joined(separator: " ")) }

        let db = try Database(path: dir.file("players.sqlite"))  // or Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER);
                INSERT INTO player(name, score) VALUES (?, ?), (:name, :score);
                """, arguments: StatementArguments(["Arthur", 100], named: ["name": "Barbara", "score": nil]))

        let insert = try db.makeStatement(sql: "INSERT INTO player(name, score) VALUES (?, ?)")
        try db.transaction(.immediate) {  // commits on return, rolls back on throw;
            for i in 1...3 { try insert.execute("Bot \(i)", i) }  // nested calls become savepoints
        }

        for row in try db.fetchAll(sql: "SELECT name, score FROM player ORDER BY id") {
            let name: String = try row["name"]
            let score: Int? = try row["score"]  // NULL -> nil; a text would throw RowDecodingError
            print(name, score ?? 0)
        }

        do {
            try db.execute(sql: "INSERT INTO player(name) VALUES ('Arthur')")
        } catch let error as SQLiteError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: player.name - while executing `...`
            print(error)
        }

        #expect(
            output == [
                "Arthur 100", "Barbara 0", "Bot 1 1", "Bot 2 2", "Bot 3 3",
                "SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: player.name - while executing "
                    + "`INSERT INTO player(name) VALUES ('Arthur')`",
            ])
    }
}
