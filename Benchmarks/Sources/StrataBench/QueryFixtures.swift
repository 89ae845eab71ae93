import Foundation

/// Cases 12 and 13: the notes app's data, 1,000 folders × 100 notes × 3 tags.
///
/// Tags are child rows of their note (`tag.noteId`), so the nested to-many request
/// `Folder.including(all: Folder.notes.including(all: Note.tags))` needs no through-association.
enum QueryFixtures {
    static let folders = 1_000
    static let notesPerFolder = 100
    static let tagsPerNote = 3

    static let schema = """
        CREATE TABLE folder (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE note (
            id INTEGER PRIMARY KEY,
            folderId INTEGER NOT NULL REFERENCES folder(id),
            title TEXT NOT NULL,
            score INTEGER NOT NULL
        );
        CREATE INDEX note_folderId ON note(folderId);
        CREATE TABLE tag (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES note(id), name TEXT NOT NULL);
        CREATE INDEX tag_noteId ON tag(noteId);
        """

    /// Case 12's request, as SQL: the notes of one folder above a score, by title, ten of them.
    static let requestSQL =
        "SELECT * FROM \"note\" WHERE (\"folderId\" = ?) AND (\"score\" > ?) ORDER BY \"title\" LIMIT 10"
    /// Case 12: how many requests one repetition runs (each on a different folder).
    static let requests = 2_000

    /// Builds the template database with the C API's speed through Strata's prepared statements.
    static func makeTemplate(path: String) throws {
        removeDatabase(path)
        let db = try StrataCases.open(path)
        try db.execute(sql: schema)
        try db.transaction(.immediate) {
            let folder = try db.makeStatement(sql: "INSERT INTO folder(id, name) VALUES (?, ?)")
            let note = try db.makeStatement(sql: "INSERT INTO note(id, folderId, title, score) VALUES (?, ?, ?, ?)")
            let tag = try db.makeStatement(sql: "INSERT INTO tag(noteId, name) VALUES (?, ?)")
            var noteID: Int64 = 0
            for f in 1...folders {
                try folder.execute(arguments: [f, "Folder \(f)"])
                for n in 0..<notesPerFolder {
                    noteID += 1
                    try note.execute(arguments: [noteID, f, "Note \((n * 37) % notesPerFolder)", n])
                    for t in 0..<tagsPerNote { try tag.execute(arguments: [noteID, "tag\((n + t) % 10)"]) }
                }
            }
        }
        try db.execute(sql: "ANALYZE")
        db.close()
    }

    /// What case 13 must load: every folder, note and tag.
    static func checkCounts(folders: Int, notes: Int, tags: Int, _ label: String) throws {
        guard folders == Self.folders, notes == Self.folders * notesPerFolder,
            tags == Self.folders * notesPerFolder * tagsPerNote
        else {
            throw BenchError("\(label): loaded \(folders) folders, \(notes) notes, \(tags) tags")
        }
    }
}
