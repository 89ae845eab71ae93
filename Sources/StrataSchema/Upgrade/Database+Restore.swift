import StrataSQLite

/// What a restore did.
public struct RestoreReport: Sendable, Hashable {
    /// The restore point the database was returned to.
    public let restorePoint: RestorePoint
    /// True when nothing had been written since the upgrade: the database is now exactly the
    /// restore point (copied back with SQLite's backup API, in one transaction).
    public let isExact: Bool
    /// Tables written since the upgrade whose current rows were carried back to the older schema.
    public let carriedForward: [String]
    /// What was lost because the caller accepted it (`acceptingLoss`), one line each.
    public let accepted: [String]
}

extension Database {
    /// Returns the database to the restore point `id` (the newest when nil) of its restore
    /// folder: the schema and rows it had before the upgrade, keeping what was written since.
    ///
    /// ```swift
    /// let report = try db.restore()
    /// print(report.isExact ? "as before the upgrade" : "carried back: \(report.carriedForward)")
    /// ```
    ///
    /// See ``restore(from:acceptingLoss:)`` for the rules.
    @discardableResult
    public func restore(toRestorePoint id: String? = nil, acceptingLoss: Bool = false) throws -> RestoreReport {
        let store = try UpgradeStore(restoringDatabase: self)
        let manifest = try store.load()
        guard let point = id.map({ id in manifest.restorePoints.first { $0.id == id } }) ?? manifest.restorePoints.last
        else {
            let what = id.map { "no restore point \($0) is kept" } ?? "no restore point is kept"
            throw UpgradeError(code: .restorePointNotFound, message: "\(path): \(what)", culprit: id ?? path)
        }
        return try restore(from: point, acceptingLoss: acceptingLoss)
    }

    /// Returns the database to `point`, one of its restore points, in one transaction; on any
    /// failure it is unchanged.
    ///
    /// ```swift
    /// guard let point = try RestorePoint.all(forDatabaseAt: db.path).last else { return }
    /// try db.restore(from: point)
    /// ```
    ///
    /// The restore point is checked first (size, `quick_check`, the digests of its schema and
    /// ledger). When no table changed since the upgrade (each table's digest, recorded when the
    /// upgrade committed, is the same now), the database becomes exactly the restore point.
    /// Otherwise rows written since the upgrade are never silently lost:
    /// - a table unchanged since the upgrade, or one the upgrade dropped, gets the restore
    ///   point's rows;
    /// - a table written since keeps its current rows, brought to its older definition (the
    ///   engine's expand-and-contract change, proven on a schema-only copy); the columns the
    ///   upgrade dropped get their values back from the restore point, row by row (by rowid,
    ///   or primary key for a `WITHOUT ROWID` table);
    /// - a table the older schema does not have that holds rows written since, or a column it
    ///   does not have that holds values other than NULL and its default, makes the restore refuse
    ///   (``UpgradeError/Code/restoreWouldLoseRows``, naming the table or column) unless
    ///   `acceptingLoss` is true; a row that breaks an older constraint makes it refuse,
    ///   naming the table and the constraint.
    ///
    /// The ledger (`strata_migrations`), the fingerprint table and `PRAGMA user_version` come
    /// back from the restore point, so the migrations of the upgrade are pending again.
    @discardableResult
    public func restore(from point: RestorePoint, acceptingLoss: Bool = false) throws -> RestoreReport {
        try restore(from: point, acceptingLoss: acceptingLoss, because: "restored on request")
    }

    /// ``restore(from:acceptingLoss:)``, recording `reason` as why the upgrade was taken back
    /// (``UpgradeRecord/restoredBecause``) when `point` is the last upgrade's restore point.
    package func restore(from point: RestorePoint, acceptingLoss: Bool, because reason: String) throws -> RestoreReport
    {
        guard !isInTransaction else {
            throw UpgradeError(
                code: .restoreRefused, message: "\(path): a restore runs outside any transaction (one is open)",
                culprit: path)
        }
        let store = try UpgradeStore(restoringDatabase: self)
        return try store.withLock {
            var manifest = try store.load()
            let record = manifest.upgrade?.restorePointID == point.id ? manifest.upgrade : nil
            let report = try restore(
                point, store: store, digestsAfterUpgrade: record?.tableDigests, acceptingLoss: acceptingLoss)
            if var upgrade = manifest.upgrade, upgrade.restorePointID == point.id {
                upgrade.phase = .restored
                if upgrade.restoredBecause == nil { upgrade.restoredBecause = reason }
                manifest.upgrade = upgrade
                try store.save(manifest)
            }
            return report
        }
    }

    /// The restore itself; the caller holds the restore folder's lock.
    ///
    /// What another connection wrote decides between restoring a table's rows and carrying them
    /// back, so it is read in the transaction that acts on it: the carried-back restore reads the
    /// tables' digests and the losses inside its write transaction; the exact restore (SQLite's
    /// backup API, which cannot run inside a transaction of the destination) reads them in one
    /// read transaction with `PRAGMA data_version` and takes the carried-back path when another
    /// connection committed since. `beforeActing` runs between the exact path's reads and its
    /// copy (tests commit there from another connection).
    package func restore(
        _ point: RestorePoint, store: UpgradeStore, digestsAfterUpgrade: [String: String]?, acceptingLoss: Bool,
        beforeActing: () throws -> Void = {}
    ) throws -> RestoreReport {
        let copy = try store.openRestorePoint(point, for: self)
        defer { copy.close() }
        let old = try DatabaseSchema.read(from: copy)
        if let digestsAfterUpgrade {
            let (now, version) = try transaction(.deferred) {
                (
                    try TableDigest.digests(of: self, schema: DatabaseSchema.read(from: self)),
                    try UpgradeAirbag.dataVersion(self)
                )
            }
            try beforeActing()
            if digestsAfterUpgrade == now, try UpgradeAirbag.dataVersion(self) == version {
                do {
                    try copy.backup(to: self)
                } catch {
                    throw UpgradeError(
                        code: .restoreRefused,
                        message: "\(path): cannot copy the restore point back; the database was not changed",
                        culprit: path, cause: "\(error)")
                }
                return RestoreReport(restorePoint: point, isExact: true, carriedForward: [], accepted: [])
            }
        }
        return try restoreCarryingBack(
            point, old: old, copy: copy, digestsAfterUpgrade: digestsAfterUpgrade, acceptingLoss: acceptingLoss)
    }

    /// The restore that carries rows written since the upgrade back to the older schema: the
    /// tables' digests, the losses and the change in one write transaction.
    private func restoreCarryingBack(
        _ point: RestorePoint, old: DatabaseSchema, copy: Database, digestsAfterUpgrade: [String: String]?,
        acceptingLoss: Bool
    ) throws -> RestoreReport {
        var carried: [String] = []
        var losses: [RestoreLoss] = []
        do {
            try withForeignKeysOff { foreignKeysWereOn in
                try transaction(.immediate) {
                    let current = try DatabaseSchema.read(from: self)
                    let now = try TableDigest.digests(of: self, schema: current)
                    func unchanged(_ table: String) -> Bool {
                        guard let after = digestsAfterUpgrade?[table.asciiLowercased()] else { return false }
                        return now[table.asciiLowercased()] == after
                    }
                    losses = try self.losses(current: current, old: old, unchanged: unchanged)
                    if !losses.isEmpty, !acceptingLoss {
                        throw UpgradeError(
                            code: .restoreWouldLoseRows,
                            message: losses[0].text
                                + (losses.count > 1 ? " (and \(losses.count - 1) more)" : "")
                                + "; nothing was changed (accept the loss to restore anyway)",
                            culprit: losses[0].culprit)
                    }
                    var options = SchemaChangeOptions()
                    options.allowDestructive = true
                    // The older definitions; the columns the upgrade dropped filled from the restore point.
                    try expandAndContract(to: old.sql, options: options) { db in
                        try db.dropAllTriggers()
                        for table in old.tables where !table.isVirtual && !unchanged(table.name) {
                            guard let live = current.table(named: table.name), !live.isVirtual else { continue }
                            carried.append(table.name)
                            let missing = table.storedColumns.filter { live.column(named: $0.name) == nil }
                            guard !missing.isEmpty else { continue }
                            try db.copyColumns(missing.map(\.name), of: table, from: copy)
                        }
                    }
                    // Tables unchanged since the upgrade, and those it dropped: the restore point's rows.
                    try dropAllTriggers()
                    for table in old.tables where unchanged(table.name) || current.table(named: table.name) == nil {
                        try replaceRows(of: table, from: copy)
                    }
                    for table in old.tables where table.isVirtual {
                        if unchanged(table.name) || current.table(named: table.name) == nil {
                            try replaceVirtualRows(of: table, from: copy)
                        }
                    }
                    for trigger in old.triggers { try execute(sql: trigger.sql) }
                    try copyBookkeeping(from: copy)
                    if foreignKeysWereOn, let violation = try foreignKeyViolations().first {
                        throw UpgradeError(
                            code: .restoreRefused,
                            message:
                                "table \(violation.table): a row breaks a foreign key of the older schema (\(violation)); nothing was changed",
                            culprit: violation.table)
                    }
                    let result = try DatabaseSchema.read(from: self)
                    if let difference = result.differences(from: old).first {
                        throw UpgradeError(
                            code: .restoreRefused,
                            message:
                                "\(path): the restored schema differs from the restore point's (\(difference)); nothing was changed",
                            culprit: path)
                    }
                }
            }
        } catch let error as UpgradeError {
            throw error
        } catch let error as SchemaError {
            throw UpgradeError(
                code: .restoreRefused,
                message: (error.culprit.map { "table \($0): " } ?? "")
                    + "the rows written since the upgrade do not fit the older schema: \(error.message); nothing was changed",
                culprit: error.culprit ?? path)
        } catch {
            throw UpgradeError(
                code: .restoreRefused, message: "\(path): the restore failed; nothing was changed", culprit: path,
                cause: "\(error)")
        }
        return RestoreReport(
            restorePoint: point, isExact: false, carriedForward: carried.sorted(),
            accepted: acceptingLoss ? losses.map(\.text) : [])
    }

    /// What a carried-back restore would lose: rows of tables the older schema does not have,
    /// values other than NULL and the default in columns it does not have (tables unchanged
    /// since the upgrade take the restore point's rows: nothing of theirs is lost).
    private func losses(
        current: DatabaseSchema, old: DatabaseSchema, unchanged: (String) -> Bool
    ) throws
        -> [RestoreLoss]
    {
        var losses: [RestoreLoss] = []
        for table in current.tables where !unchanged(table.name) {
            let quoted = SQLLiteral.quote(identifier: table.name)
            guard let older = old.table(named: table.name) else {
                let rows = try fetchValue(Int.self, sql: "SELECT count(*) FROM main.\(quoted)") ?? 0
                if rows > 0 {
                    losses.append(
                        (
                            table.name,
                            "table \(table.name): \(rows) row\(rows == 1 ? "" : "s") written since the upgrade; the older schema has no such table"
                        ))
                }
                continue
            }
            guard !table.isVirtual else { continue }
            for column in table.storedColumns where older.column(named: column.name) == nil {
                let c = SQLLiteral.quote(identifier: column.name)
                // NULL and the column's default are no one's data.
                let isDefault = column.defaultSQL.map { " AND \(c) IS NOT (\($0))" } ?? ""
                let values =
                    try fetchValue(
                        Int.self, sql: "SELECT count(*) FROM main.\(quoted) WHERE \(c) IS NOT NULL\(isDefault)")
                    ?? 0
                if values > 0 {
                    losses.append(
                        (
                            "\(table.name).\(column.name)",
                            "column \(table.name).\(column.name): \(values) values other than NULL and its default; the older schema has no such column"
                        ))
                }
            }
        }
        return losses
    }

    /// Drops every trigger of the main schema (the restore's own writes must not fire them; the
    /// older schema's are made again after).
    func dropAllTriggers() throws {
        let names = try fetchColumn(String.self, sql: "SELECT name FROM main.sqlite_master WHERE type = 'trigger'")
        for name in names { try execute(sql: "DROP TRIGGER main.\(SQLLiteral.quote(identifier: name))") }
    }

    /// The key that finds a row of `table` in both databases: the rowid, or the primary key.
    private func keyColumns(_ table: TableInfo) -> [String] {
        if table.hasRowID { return ["rowid"] }
        return table.columns.filter { $0.primaryKeyPosition > 0 }.sorted {
            $0.primaryKeyPosition < $1.primaryKeyPosition
        }
        .map(\.name)
    }

    /// `UPDATE table SET columns = the restore point's values WHERE key = the row's key`, for every row of the restore point.
    func copyColumns(_ columns: [String], of table: TableInfo, from copy: Database) throws {
        let key = keyColumns(table)
        let quotedTable = SQLLiteral.quote(identifier: table.name)
        let selection =
            (key.map { $0 == "rowid" ? "rowid" : SQLLiteral.quote(identifier: $0) }
            + columns.map(SQLLiteral.quote(identifier:))).joined(separator: ", ")
        let assignments = columns.map { "\(SQLLiteral.quote(identifier: $0)) = ?" }.joined(separator: ", ")
        let condition = key.map { "\($0 == "rowid" ? "rowid" : SQLLiteral.quote(identifier: $0)) IS ?" }
            .joined(separator: " AND ")
        let update = try makeStatement(sql: "UPDATE main.\(quotedTable) SET \(assignments) WHERE \(condition)")
        for row in try copy.fetchAll(sql: "SELECT \(selection) FROM main.\(quotedTable)") {
            var values: [SQLValue] = []
            for index in key.count..<row.columnCount { values.append(row.value(at: index)) }
            for index in 0..<key.count { values.append(row.value(at: index)) }
            try update.execute(arguments: StatementArguments(values))
        }
    }

    /// Every row of `table` replaced by the restore point's (rowids included).
    func replaceRows(of table: TableInfo, from copy: Database) throws {
        guard !table.isVirtual else { return }
        let quotedTable = SQLLiteral.quote(identifier: table.name)
        var columns = table.storedColumns.map { SQLLiteral.quote(identifier: $0.name) }
        if table.hasRowID, table.rowIDAliasColumn == nil, table.column(named: "rowid") == nil {
            columns.insert("rowid", at: 0)
        }
        try execute(sql: "DELETE FROM main.\(quotedTable)")
        let list = columns.joined(separator: ", ")
        let insert = try makeStatement(
            sql:
                "INSERT INTO main.\(quotedTable)(\(list)) VALUES(\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        )
        for row in try copy.fetchAll(sql: "SELECT \(list) FROM main.\(quotedTable)") {
            try insert.execute(arguments: StatementArguments((0..<row.columnCount).map { row.value(at: $0) }))
        }
    }

    /// A full-text or R*Tree table's rows replaced by the restore point's; an external-content
    /// index is rebuilt from its table. Another module's table is refused.
    func replaceVirtualRows(of table: TableInfo, from copy: Database) throws {
        let quoted = SQLLiteral.quote(identifier: table.name)
        let module = (table.module ?? "").lowercased()
        let options = table.sql.lowercased().filter { !$0.isWhitespace }
        switch module {
        case "fts5", "fts4", "fts3":
            if options.contains("content=''") || options.contains("content=\"\"") {
                throw UpgradeError(
                    code: .restoreRefused,
                    message:
                        "table \(table.name): a contentless full-text table keeps no text to restore; nothing was changed",
                    culprit: table.name)
            }
            if options.contains("content=") {
                try execute(sql: "INSERT INTO main.\(quoted)(\(quoted)) VALUES('rebuild')")
                return
            }
            let columns = try copy.fetchColumn(
                String.self, sql: "SELECT name FROM pragma_table_xinfo(?1, 'main') WHERE hidden <> 1 ORDER BY cid",
                arguments: [table.name])
            let list = (["rowid"] + columns.map(SQLLiteral.quote(identifier:))).joined(separator: ", ")
            try execute(sql: "DELETE FROM main.\(quoted)")
            let insert = try makeStatement(
                sql:
                    "INSERT INTO main.\(quoted)(\(list)) VALUES(\(Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")))"
            )
            for row in try copy.fetchAll(sql: "SELECT \(list) FROM main.\(quoted)") {
                try insert.execute(arguments: StatementArguments((0..<row.columnCount).map { row.value(at: $0) }))
            }
        case "rtree", "rtree_i32":
            let columns = try copy.fetchColumn(
                String.self, sql: "SELECT name FROM pragma_table_xinfo(?1, 'main') ORDER BY cid",
                arguments: [table.name])
            let list = columns.map(SQLLiteral.quote(identifier:)).joined(separator: ", ")
            try execute(sql: "DELETE FROM main.\(quoted)")
            let insert = try makeStatement(
                sql:
                    "INSERT INTO main.\(quoted)(\(list)) VALUES(\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
            )
            for row in try copy.fetchAll(sql: "SELECT \(list) FROM main.\(quoted)") {
                try insert.execute(arguments: StatementArguments((0..<row.columnCount).map { row.value(at: $0) }))
            }
        default:
            throw UpgradeError(
                code: .restoreRefused,
                message:
                    "table \(table.name): a virtual table of module \(table.module ?? "?") cannot be restored row by row; nothing was changed",
                culprit: table.name)
        }
    }

    /// The ledger, the fingerprint table and `user_version` as the restore point has them.
    func copyBookkeeping(from copy: Database) throws {
        for name in [ReservedNames.migrationsTable, ReservedNames.fingerprintTable] {
            let quoted = SQLLiteral.quote(identifier: name)
            let mine = try fetchValue(
                String.self, sql: "SELECT sql FROM main.sqlite_master WHERE name = ?", arguments: [name])
            let theirs = try copy.fetchValue(
                String.self, sql: "SELECT sql FROM main.sqlite_master WHERE name = ?", arguments: [name])
            if mine != nil, mine != theirs { try execute(sql: "DROP TABLE main.\(quoted)") }
            guard let theirs else { continue }
            if mine != theirs { try execute(sql: theirs) } else { try execute(sql: "DELETE FROM main.\(quoted)") }
            let rows = try copy.fetchAll(sql: "SELECT * FROM main.\(quoted) ORDER BY rowid")
            guard let first = rows.first else { continue }
            let insert = try makeStatement(
                sql:
                    "INSERT INTO main.\(quoted) VALUES(\(Array(repeating: "?", count: first.columnCount).joined(separator: ", ")))"
            )
            for row in rows {
                try insert.execute(arguments: StatementArguments((0..<row.columnCount).map { row.value(at: $0) }))
            }
        }
        let version = try copy.fetchValue(Int.self, sql: "PRAGMA user_version") ?? 0
        try execute(sql: "PRAGMA user_version = \(version)")
    }
}

/// What a carried-back restore would lose: the table or column at fault, and why.
private typealias RestoreLoss = (culprit: String, text: String)

extension UpgradeStore {
    /// The restore folder of `db`'s file; throws for an in-memory or temporary database.
    init(restoringDatabase db: Database) throws {
        guard !db.path.isEmpty, db.path != ":memory:", !db.path.hasPrefix("file::memory:") else {
            throw UpgradeError(
                code: .notAFile,
                message: "\(db.path.isEmpty ? "a temporary database" : db.path): restore points need a database file",
                culprit: db.path)
        }
        self.init(databasePath: db.path)
    }
}

/// A digest of each table's rows (values with their storage classes, in key order): tables
/// whose digest is the same before and after a span of time were not written in it.
enum TableDigest {
    static func digests(of db: Database, schema: DatabaseSchema) throws -> [String: String] {
        var out: [String: String] = [:]
        for table in schema.tables {
            let quoted = SQLLiteral.quote(identifier: table.name)
            var columns = ["*"]
            var order = ""
            if table.hasRowID {
                columns.insert("rowid", at: 0)
                order = " ORDER BY rowid"
            } else if !table.isVirtual {
                order =
                    " ORDER BY "
                    + table.columns.filter { $0.primaryKeyPosition > 0 }
                    .sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }
                    .map { SQLLiteral.quote(identifier: $0.name) }.joined(separator: ", ")
            } else {
                columns.insert("rowid", at: 0)
                order = " ORDER BY rowid"
            }
            if table.isVirtual,
                !["fts5", "fts4", "fts3", "rtree", "rtree_i32"].contains((table.module ?? "").lowercased())
            {
                continue
            }
            var hasher = TableHasher()
            hasher.mix(text: table.sql)
            var rows = 0
            let statement = try db.makeStatement(
                sql: "SELECT \(columns.joined(separator: ", ")) FROM main.\(quoted)\(order)")
            // Row by row (a table is never held in memory), eight bytes at a time.
            try statement.forEachRow { row in
                rows += 1
                for index in 0..<row.columnCount {
                    switch row.value(at: index) {
                    case .null: hasher.mix(0)
                    case .integer(let i):
                        hasher.mix(1)
                        hasher.mix(UInt64(bitPattern: i))
                    case .real(let d):
                        hasher.mix(2)
                        hasher.mix(d.bitPattern)
                    case .text(let s):
                        hasher.mix(3)
                        hasher.mix(text: s)
                    case .blob(let b):
                        hasher.mix(4)
                        b.withUnsafeBytes { hasher.mix(bytes: $0) }
                    }
                }
            }
            out[table.name.asciiLowercased()] = hasher.digest + "-\(rows)"
        }
        return out
    }
}

/// Two 64-bit multiply-xor lanes over words: a table's digest (not cryptographic: it tells
/// whether a table changed since the upgrade, compared on the same file).
struct TableHasher {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x8422_2325_cbf2_9ce4

    @inline(__always) mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0xFF51_AFD7_ED55_8CCD
        b = ((b ^ word) &* 0xC4CE_B9FE_1A85_EC53) &+ 0x9E37_79B9_7F4A_7C15
    }

    /// The length, then the bytes eight at a time, the last word zero-padded.
    mutating func mix(bytes: UnsafeRawBufferPointer) {
        mix(UInt64(bytes.count))
        var i = 0
        while i + 8 <= bytes.count {
            mix(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while i < bytes.count {
            last |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        mix(last)
    }

    mutating func mix(text: String) {
        var text = text
        text.withUTF8 { mix(bytes: UnsafeRawBufferPointer($0)) }
    }

    var digest: String { String(a, radix: 16) + String(b, radix: 16) }
}
