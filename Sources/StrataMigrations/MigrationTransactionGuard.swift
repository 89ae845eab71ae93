import StrataSQLite

/// Decides, for one migration, which transaction control statements its body may compile.
///
/// A migration runs inside the transaction the migrator opened, and the ledger row is written
/// in that same transaction. So the body must not end it (`COMMIT`, `END`, `ROLLBACK`), start
/// another (`BEGIN`), or release or roll back to a savepoint it did not open itself (that would
/// be the migrator's, or none). Its own savepoints are fine: `SAVEPOINT s` ... `ROLLBACK TO s`
/// ... `RELEASE s`. SQLite itself reports each statement (see
/// `Database.checkingTransactionControl(_:_:)`), so no choice of words, strings,
/// comments or trigger bodies can disguise one.
///
/// Savepoints are tracked as the statements are compiled, which is when SQLite runs them in a
/// script; a closure that compiles `SAVEPOINT s` without running it may then release `s`, and
/// SQLite reports "no such savepoint".
final class MigrationTransactionGuard {
    /// The migration's open savepoints, innermost last, as ASCII-lowercased names (SQLite
    /// compares savepoint names without regard to ASCII case).
    private var savepoints: [String] = []
    /// The first statement refused.
    private(set) var refused: TransactionControl?

    /// Whether the migration may run `control`; records the first refusal.
    func allows(_ control: TransactionControl) -> Bool {
        let allowed: Bool
        let name = (control.savepoint ?? "").asciiLowercased
        switch control.kind {
        case .begin, .commit, .rollback:
            allowed = false
        case .savepoint:
            savepoints.append(name)
            allowed = true
        case .release:
            // "RELEASE ... removes all savepoints back to and including the most recent savepoint
            // with a matching name." https://www.sqlite.org/lang_savepoint.html
            if let index = savepoints.lastIndex(of: name) {
                savepoints.removeSubrange(index...)
                allowed = true
            } else {
                allowed = false
            }
        case .rollbackToSavepoint:
            // ROLLBACK TO keeps the named savepoint and cancels the ones opened after it.
            if let index = savepoints.lastIndex(of: name) {
                savepoints.removeSubrange((index + 1)...)
                allowed = true
            } else {
                allowed = false
            }
        }
        if !allowed, refused == nil { refused = control }
        return allowed
    }

    /// The refusal of `control`, quoting `statement` (the refused statement's text, when known).
    func error(for migration: Migration, _ control: TransactionControl, statement: String?) -> MigrationError {
        let quoted = MigrationError.excerpt(statement ?? control.description)
        let reason: String
        switch control.kind {
        case .begin:
            reason =
                "would start a transaction inside the migration's own (each migration already runs in one; remove it)"
        case .commit, .rollback:
            reason = "would end the migration's transaction (each migration already runs in one; remove it)"
        case .savepoint, .release, .rollbackToSavepoint:
            reason =
                "names savepoint \(control.savepoint ?? ""), which the migration did not open "
                + "(a migration may release or roll back to its own savepoints only)"
        }
        return MigrationError(
            .migrationFailed, "migration \(migration.identifier): its `\(quoted)` \(reason)",
            migrations: [migration.identifier])
    }
}

extension String {
    /// The string with ASCII letters lowercased (how SQLite folds names), other characters kept.
    var asciiLowercased: String {
        String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
