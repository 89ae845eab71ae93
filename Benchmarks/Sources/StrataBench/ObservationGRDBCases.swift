import Foundation
import GRDB

/// Case 9 with GRDB 7.10.0: the same writes, with no observation or with one
/// `ValueObservation` started on a background dispatch queue (no main run loop here).
enum ObservationGRDBCases {
    static let writes = 1_000

    static func run(_ context: JobContext, observing: Bool, file: String) throws -> [Double] {
        try context.collect {
            let path = context.path(file)
            removeDatabase(path)
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            }
            let done = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            var cancellable: AnyDatabaseCancellable?
            if observing {
                let observation = ValueObservation.tracking { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? 0
                }
                cancellable = observation.start(
                    in: pool, scheduling: .async(onQueue: DispatchQueue(label: "c11.grdb")),
                    onError: { error in fatalError("c11.grdb: \(error)") },
                    onChange: { count in
                        if count == 0 { started.signal() }
                        if count == writes { done.signal() }
                    })
                started.wait()
            }
            let seconds = try timed {
                for i in 0..<writes {
                    try pool.write { db in
                        try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["note \(i)"])
                    }
                }
                if observing { done.wait() }
            }
            cancellable?.cancel()
            guard try pool.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") }) == writes else {
                throw BenchError("c11.grdb: count")
            }
            return seconds
        }
    }

    static let jobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c11.grdb.none": { context in try run(context, observing: false, file: "c11-grdb.sqlite") },
        "c11.grdb.observed": { context in try run(context, observing: true, file: "c11-grdb.sqlite") },
    ]
}
