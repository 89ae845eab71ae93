import Foundation
import GRDB

/// Cases 12 and 13 with GRDB 7.10.0's query interface, as a GRDB user would write them.
enum QueryGRDBCases {
    struct Folder: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "folder"
        var id: Int64
        var name: String
        static let notes = hasMany(Note.self)
    }

    struct Note: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "note"
        var id: Int64
        var folderId: Int64
        var title: String
        var score: Int64
        static let tags = hasMany(Tag.self)
        enum Columns {
            static let folderId = Column("folderId")
            static let score = Column("score")
            static let title = Column("title")
        }
    }

    struct Tag: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "tag"
        var id: Int64
        var noteId: Int64
        var name: String
    }

    struct NoteInfo: FetchableRecord, Decodable {
        var note: Note
        var tags: [Tag]
    }

    struct FolderInfo: FetchableRecord, Decodable {
        var folder: Folder
        var notes: [NoteInfo]
    }

    static func requestJob(_ context: JobContext, useSQL: Bool) throws -> [Double] {
        let queue = try GRDBCases.openQueue(context.path("notes.sqlite"))
        return try context.collect {
            var count = 0
            let seconds = try timed {
                try queue.read { db in
                    for i in 0..<QueryFixtures.requests {
                        let folder = Int64(i % QueryFixtures.folders + 1)
                        let notes =
                            useSQL
                            ? try Note.fetchAll(db, sql: QueryFixtures.requestSQL, arguments: [folder, 50])
                            : try Note.filter(Note.Columns.folderId == folder && Note.Columns.score > 50)
                                .order(Note.Columns.title).limit(10).fetchAll(db)
                        count += notes.count
                    }
                }
            }
            guard count == QueryFixtures.requests * 10 else { throw BenchError("c12.grdb: \(count) notes") }
            return seconds
        }
    }

    static func includingRequest() -> QueryInterfaceRequest<Folder> {
        Folder.including(all: Folder.notes.including(all: Note.tags))
    }

    static func includingJob(_ context: JobContext) throws -> [Double] {
        let queue = try GRDBCases.openQueue(context.path("notes.sqlite"))
        return try context.collect {
            var infos: [FolderInfo] = []
            let seconds = try timed {
                infos = try queue.read { db in try includingRequest().asRequest(of: FolderInfo.self).fetchAll(db) }
            }
            let notes = infos.reduce(0) { $0 + $1.notes.count }
            let tags = infos.reduce(0) { $0 + $1.notes.reduce(0) { $0 + $1.tags.count } }
            try QueryFixtures.checkCounts(folders: infos.count, notes: notes, tags: tags, "c13.grdb")
            return seconds
        }
    }

    /// The statements case 13's request runs in GRDB, once the schema is known (trace).
    static func includingStatements(path: String) throws -> [String] {
        let queue = try GRDBCases.openQueue(path)
        return try queue.read { db in
            _ = try includingRequest().asRequest(of: FolderInfo.self).fetchAll(db)
            var statements: [String] = []
            db.trace { event in statements.append("\(event)") }
            _ = try includingRequest().asRequest(of: FolderInfo.self).fetchAll(db)
            db.trace(options: [])
            return statements
        }
    }

    static let jobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c12.grdb.sql": { context in try requestJob(context, useSQL: true) },
        "c12.grdb.request": { context in try requestJob(context, useSQL: false) },
        "c13.grdb": { context in try includingJob(context) },
    ]
}
