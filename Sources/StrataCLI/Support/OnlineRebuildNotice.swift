import Strata

/// The online rebuilds a database holds the objects of (`Database.onlineRebuilds()`), as `strata
/// status` lists them and `strata plan` notes them: an interrupted one hides in the file
/// (no plan shows it) until an apply removes or resumes it.
enum OnlineRebuildNotice {
    /// One line per online rebuild: the table, running or interrupted, how far it got, and what
    /// removes or resumes it.
    static func lines(_ states: [OnlineRebuildJSON]) -> [String] {
        states.map { state in
            let table = state.table.isEmpty ? "objects without a progress record" : "table \(state.table)"
            if state.running {
                return "\(table) (\(state.temporaryTable)): running now in another connection or process"
            }
            return "\(table) (\(state.temporaryTable)): interrupted after "
                + "\(state.batches) batch\(state.batches == 1 ? "" : "es"), \(CLIOutput.count(state.rowsCopied, "row")) copied; "
                + "`strata apply --online` of the same change resumes it, any other apply removes it"
        }
    }

    /// The rebuilds of `db`, or none when they cannot be read (a report that has more to say
    /// goes on).
    static func states(_ db: Database) -> [OnlineRebuildJSON] {
        ((try? db.onlineRebuilds()) ?? []).map(OnlineRebuildJSON.init)
    }
}

/// An online rebuild in `strata status --format json`.
struct OnlineRebuildJSON: Encodable {
    var table: String
    var temporaryTable: String
    var batches: Int
    var rowsCopied: Int
    var running: Bool

    init(_ state: OnlineRebuildState) {
        table = state.table
        temporaryTable = state.temporaryTable
        batches = state.batches
        rowsCopied = state.rowsCopied
        running = state.isRunning
    }
}
