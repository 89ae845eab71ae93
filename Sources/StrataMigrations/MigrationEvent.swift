/// Something that happened while a ``Migrator`` worked, delivered to its
/// ``Migrator/eventHandler``, synchronously on the thread running the migrations.
///
/// ```swift
/// migrator.eventHandler = { event in logger.info("\(event)") }
/// // migration 0002_add_email started
/// // migration 0002_add_email finished in 3 ms
/// ```
public enum MigrationEvent: Sendable, CustomStringConvertible {
    /// The migration is about to run (its transaction is open).
    case started(identifier: String)
    /// A closure migration reported progress through ``MigrationProgress``.
    case progress(identifier: String, completed: Int, total: Int)
    /// The migration ran and was recorded. In ``Migrator/TransactionMode/singleTransaction``
    /// mode the shared transaction commits after the last migration: a later failure (reported
    /// by ``failed(identifier:error:)``) still undoes it.
    case finished(identifier: String, duration: Duration)
    /// The migration failed and was rolled back.
    case failed(identifier: String, error: MigrationError)
    /// An applied migration's SQL text changed (checksums differ), reported as a warning
    /// because ``Migrator/checksumMismatchPolicy`` is ``Migrator/ChecksumMismatchPolicy/warn``.
    case checksumMismatch(identifier: String, recorded: String, current: String)
    /// A legacy version marker was adopted: these migrations were recorded as applied
    /// without running.
    case adopted(identifiers: [String], source: String)
    /// Development mode is erasing the database, for these reasons (one line each).
    case erasingDatabase(reasons: [String])

    public var description: String {
        switch self {
        case .started(let id):
            return "migration \(id) started"
        case .progress(let id, let completed, let total):
            return "migration \(id) progress \(completed)/\(total)"
        case .finished(let id, let duration):
            return "migration \(id) finished in \(duration.milliseconds) ms"
        case .failed(_, let error):
            return error.description
        case .checksumMismatch(let id, let recorded, let current):
            return
                "migration \(id) was edited after it was applied (checksum \(recorded.prefix(12)) recorded, \(current.prefix(12)) now)"
        case .adopted(let ids, let source):
            return
                "adopted \(source): recorded \(ids.isEmpty ? "no migrations" : ids.joined(separator: ", ")) as applied"
        case .erasingDatabase(let reasons):
            return "erasing the database (development mode): \(reasons.joined(separator: "; "))"
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
