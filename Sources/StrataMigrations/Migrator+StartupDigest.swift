import StrataSQLite
import StrataSchema

/// The digest of a list of registered migrations: their identifiers, kinds and texts, in order
/// (XXH64 of each text, chained). Not cryptographic: it detects change (an edited text changes
/// it with probability 1 - 2⁻⁶⁴), it does not authenticate.
struct StartupDigest {
    private var state: UInt64 = 0x2545_F491_4F6C_DD1D
    private var items: UInt64 = 0

    /// Adds `text` (its length is part of what is hashed, so `"ab", "c"` differs from `"a", "bc"`).
    mutating func add(_ text: String) {
        let seed = UInt64(truncatingIfNeeded: text.utf8.count)
        // Native strings are contiguous UTF-8: hashed in place, without a copy.
        mix(
            text.utf8.withContiguousStorageIfAvailable { XXH64.hash(UnsafeRawBufferPointer($0), seed: seed) }
                ?? XXH64.hash(text, seed: seed))
    }

    /// Adds a tag that tells kinds of bodies apart.
    mutating func add(kind: UInt8) {
        mix(UInt64(kind) &* 0x9E37_79B9_7F4A_7C15)
    }

    private mutating func mix(_ value: UInt64) {
        items &+= 1
        state ^= value &+ items &* 0xC2B2_AE3D_27D4_EB4F
        state = ((state << 27) | (state >> 37)) &* 0x9E37_79B1_85EB_CA87 &+ 0x85EB_CA77_C2B2_AE63
    }

    /// 16 hexadecimal digits, after a final avalanche.
    var hex: String {
        var h = state ^ items
        h ^= h >> 33
        h &*= 0xC2B2_AE3D_27D4_EB4F
        h ^= h >> 29
        h &*= 0x1656_67B1_9E37_79F9
        h ^= h >> 32
        let digits = String(h, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension Migrator {
    /// The ledger column that holds, on its last row, the start-up digest: `v1:<digest of the
    /// registered migrations>:<number of ledger rows>` as they were when a run that applied
    /// migrations ended with the ledger holding exactly the registered ones (their checksums
    /// compared one by one). Added to the ledger the first time it is written.
    static let startupDigestColumn = "startup_digest"

    /// What the last ledger row holds when the ledger is exactly `expected` (without the row count).
    func startupDigest(of expected: ArraySlice<Migration>) -> String {
        var digest = StartupDigest()
        if let baseline {
            digest.add(kind: 9)
            for identifier in baseline.covered { digest.add(identifier) }
        }
        for migration in expected { migration.feed(into: &digest) }
        return "v1:" + digest.hex
    }

    /// The usual start-up in one short query, hashing no migration with SHA-256: the last ledger
    /// row's start-up digest equals the digest of `expected` and the ledger's current row count.
    /// A changed text changes the digest; a row added after it (by another app version) is the
    /// last row and has none or another; a row removed changes the count. Any mismatch (or a
    /// ledger without the column) answers false and the caller compares every checksum.
    func ledgerMatchesStartupDigest(_ expected: ArraySlice<Migration>, in db: Database) -> Bool {
        guard
            let row = try? db.fetchOne(
                sql: """
                    SELECT (SELECT startup_digest FROM main.strata_migrations ORDER BY rowid DESC LIMIT 1),
                           (SELECT count(*) FROM main.strata_migrations)
                    """),
            let stored = try? row.decode(String?.self, at: 0), let count = try? row.decode(Int.self, at: 1)
        else { return false }
        return stored == startupDigest(of: expected) + ":\(count)"
    }

    /// After a run that applied migrations: when the ledger holds exactly `expected` (every
    /// checksum compared), records the start-up digest on its last row, in a transaction of its
    /// own. A failure is not an error (the next start-up compares the checksums instead).
    func recordStartupDigest(_ expected: ArraySlice<Migration>, in db: Database) {
        guard storage == .ledger, !eraseDatabaseOnChange, legacyVersion == nil, !expected.isEmpty else { return }
        let digest = startupDigest(of: expected)
        try? db.transaction(.immediate) {
            guard ledgerHoldsExactly(expected, in: db) else { return }
            let hasColumn =
                try db.fetchValue(
                    Bool.self,
                    sql: "SELECT count(*) > 0 FROM pragma_table_info('strata_migrations') WHERE name = ?",
                    arguments: [Migrator.startupDigestColumn]) ?? false
            if !hasColumn {
                try db.execute(sql: "ALTER TABLE main.strata_migrations ADD COLUMN startup_digest TEXT")
            }
            try db.execute(
                sql: """
                    UPDATE main.strata_migrations SET startup_digest = ? || ':' || (SELECT count(*) FROM main.strata_migrations)
                    WHERE rowid = (SELECT max(rowid) FROM main.strata_migrations)
                    """, arguments: [digest])
        }
    }
}
