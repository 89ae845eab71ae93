/// The names Strata reserves in a database, in one place: the layers that make these tables (Plan,
/// Apply, StrataMigrations) and the one that leaves them out of a schema (Introspection) read them
/// from here.
package enum ReservedNames {
    /// The ledger of applied migrations (StrataMigrations' `Migrator.ledgerTableName`).
    package static let migrationsTable = "strata_migrations"
    /// The launch fingerprint of `migrateSchema(to:)` (`SchemaFingerprint`).
    package static let fingerprintTable = "strata_schema_fingerprint"
    /// The temporary table whose CHECK constraints are a plan's data conditions (`DataGuard`),
    /// created and dropped in the `temp` schema inside the applying transaction.
    package static let guardTable = "strata_guard"
    /// The prefix of a rebuild's temporary table name (`TemporaryNames`).
    package static let rebuildTablePrefix = "strata_tmp_"

    /// The progress of online rebuilds (`OnlineRebuild`): one row per table being rebuilt online,
    /// written in the transaction of each batch; removed with the last rebuild.
    package static let onlineProgressTable = "strata_online_rebuild"
    /// The prefix of the triggers that mirror the app's writes into an online rebuild's new table:
    /// `strata_mirror_<16 hex digits of its temporary table>_insert|_update|_delete`.
    package static let mirrorTriggerPrefix = "strata_mirror_"

    /// The prefix of an online rebuild's change log, the table its triggers append the rowids of
    /// the app's writes to: `strata_log_<16 hex digits of its temporary table>`.
    package static let onlineLogPrefix = "strata_log_"

    /// True when `name` has the shape of an online rebuild's change log.
    package static func isOnlineLog(_ name: String) -> Bool {
        guard name.hasPrefix(onlineLogPrefix) else { return false }
        let digits = name.utf8.dropFirst(onlineLogPrefix.utf8.count)
        return digits.count == 16 && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The tables a replication tool creates in the database it replicates, and needs: Litestream
    /// (0.3 to 0.5) creates `_litestream_seq` and `_litestream_lock` beside the app's tables, and
    /// once they are dropped its checkpoints fail ("no such table: _litestream_lock") and the WAL
    /// grows without bound. They are no part of a schema: a plan neither drops nor copies them.
    package static let replicationToolTables: Set<String> = ["_litestream_seq", "_litestream_lock"]

    /// True for a table of ``replicationToolTables`` (names compared ignoring ASCII case).
    package static func isReplicationToolTable(_ name: String) -> Bool {
        replicationToolTables.contains(name.asciiLowercased())
    }

    /// True when `name` has the shape of an online rebuild's mirror trigger.
    package static func isMirrorTrigger(_ name: String) -> Bool {
        guard name.hasPrefix(mirrorTriggerPrefix) else { return false }
        let rest = name.dropFirst(mirrorTriggerPrefix.count)
        guard let underscore = rest.firstIndex(of: "_") else { return false }
        let digits = rest[..<underscore].utf8
        let suffix = rest[rest.index(after: underscore)...]
        return digits.count == 16
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            && ["insert", "update", "delete"].contains(suffix)
    }

    /// True when `name` has the shape of a rebuild's temporary table name: the prefix and 1 to 16
    /// lowercase hexadecimal digits (16 since names are padded; fewer in plans of earlier versions).
    package static func isRebuildTable(_ name: String) -> Bool {
        guard name.hasPrefix(rebuildTablePrefix) else { return false }
        let digits = name.utf8.dropFirst(rebuildTablePrefix.utf8.count)
        return (1...16).contains(digits.count)
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// True for the objects Strata creates in a database's main schema: the migration ledger, the
    /// fingerprint, a rebuild's temporary table, the progress of online rebuilds, their log
    /// triggers and change logs (names compared ignoring ASCII case, as SQLite matches them).
    package static func isStrataTable(_ name: String) -> Bool {
        let name = name.asciiLowercased()
        return name == migrationsTable || name == fingerprintTable || isRebuildTable(name)
            || name == onlineProgressTable || isMirrorTrigger(name) || isOnlineLog(name)
    }
}
