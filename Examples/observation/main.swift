import Strata

let pool = try DatabasePool(path: "notes.sqlite") { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
}

let observation = ValueObservation.tracking { db in
    try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
}.removeDuplicates()

func addNote(to pool: DatabasePool) async throws {
    var bodies = observation.values(in: pool).makeAsyncIterator()
    print(try await bodies.next() ?? [])  // [] : the current value, at once
    try await pool.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('milk')") }
    print(try await bodies.next() ?? [])  // ["milk"] : after the commit
}  // the sequence is released here: the observation stops and leaves the pool
try await addNote(to: pool)
