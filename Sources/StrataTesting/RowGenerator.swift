import Foundation
import Strata
import StrataSQLite

/// Fills every table of a database with rows that satisfy its schema and probe its edges.
///
/// For each table, in foreign key order (parents first), `rows` rows: row 0 leaves every column
/// that has a DEFAULT to it and puts NULL in every nullable column; row 1 puts NULL in every
/// nullable column; the other rows put NULL in each nullable column now and then, and otherwise
/// go through boundary values for the column's type (0, -1, the largest and smallest 64-bit
/// integers, the empty string, quotes, non-ASCII text, a 1,000-character string, the largest and
/// smallest doubles, empty and binary blobs), then values drawn from the seeded generator. Foreign
/// key columns take the key of an existing parent row. A row that a constraint refuses (CHECK,
/// UNIQUE, NOT NULL, a foreign key, a STRICT type) is retried once with the literals of the
/// table's CHECK constraints, then skipped and counted. FTS4 and FTS5 tables that keep their own
/// content get text rows; other virtual tables are left empty.
struct RowGenerator {
    let rows: Int
    var random: SplitMix64

    struct Summary {
        var inserted = 0
        var skipped = 0
    }

    init(rows: Int, seed: UInt64) {
        self.rows = rows
        self.random = SplitMix64(seed: seed)
    }

    mutating func fill(_ db: Database) throws -> Summary {
        let schema = try DatabaseSchema.read(from: db)
        var summary = Summary()
        for table in Self.dependencyOrder(schema.tables) {
            if table.isVirtual {
                try fillFullText(table, db, &summary)
            } else {
                try fill(table, db, &summary)
            }
        }
        return summary
    }

    /// Parents before children; tables of a cycle in their schema order.
    static func dependencyOrder(_ tables: [TableInfo]) -> [TableInfo] {
        var done = Set<String>()
        var visiting = Set<String>()
        var order = [TableInfo]()
        let byName = Dictionary(tables.map { ($0.name.asciiLowercasedForKit, $0) }, uniquingKeysWith: { a, _ in a })
        func visit(_ t: TableInfo) {
            let key = t.name.asciiLowercasedForKit
            if done.contains(key) || visiting.contains(key) { return }
            visiting.insert(key)
            for fk in t.foreignKeys {
                if let parent = byName[fk.parentTable.asciiLowercasedForKit] { visit(parent) }
            }
            visiting.remove(key)
            done.insert(key)
            order.append(t)
        }
        tables.forEach(visit)
        return order
    }

    private mutating func fillFullText(_ table: TableInfo, _ db: Database, _ summary: inout Summary) throws {
        let module = (table.module ?? "").lowercased()
        guard module == "fts5" || module == "fts4" else { return }
        // External content and contentless tables are filled through their content table.
        let arguments = table.sql.lowercased()
        if arguments.contains("content") { return }
        let names = try db.fetchAll(sql: "PRAGMA main.table_info(\(SQL.quoteIdentifier(table.name)))").map {
            try $0.decode(String.self, named: "name")
        }
        guard !names.isEmpty else { return }
        let sql =
            "INSERT INTO main.\(SQL.quoteIdentifier(table.name)) (\(names.map(SQL.quoteIdentifier).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        let words = ["", "alpha beta", "ünïcødé ✓ 日本語", "O'Brien \"quoted\"", "the quick brown fox", "NULL"]
        for i in 0..<rows {
            let values: [SQLValue] = names.indices.map { j in
                (i + j) % 5 == 4 ? .null : .text(i < words.count ? words[i] : "word\(i) text\(random.next() % 1000)")
            }
            do {
                try db.execute(sql: sql, arguments: StatementArguments(values))
                summary.inserted += 1
            } catch let error as SQLiteError where Self.isRefusal(error) {
                summary.skipped += 1
            }
        }
    }

    static func isRefusal(_ error: SQLiteError) -> Bool {
        error.resultCode == .SQLITE_CONSTRAINT || error.resultCode == .SQLITE_MISMATCH
    }

    private mutating func fill(_ table: TableInfo, _ db: Database, _ summary: inout Summary) throws {
        let columns = table.columns.filter { !$0.isGenerated }
        guard !columns.isEmpty else { return }
        let (literals, checkedNames) = Self.checkLiterals(table)
        // The key of each parent row, per foreign key, read once (the parents are filled).
        var parentKeys = [[[SQLValue]]]()
        for fk in table.foreignKeys {
            parentKeys.append(try Self.parentKeys(fk, of: table, db))
        }
        let rowIDAlias = table.rowIDAliasColumn?.name.asciiLowercasedForKit
        for i in 0..<rows {
            var attempt = 0
            while true {
                var names = [String]()
                var values = [SQLValue]()
                for (j, c) in columns.enumerated() {
                    let key = c.name.asciiLowercasedForKit
                    let nullable = !c.isNotNull && c.primaryKeyPosition == 0
                    if i == 0 && c.defaultSQL != nil { continue }
                    let value: SQLValue
                    if let (k, position) = Self.foreignKey(containing: c.name, in: table) {
                        let keys = parentKeys[k]
                        if nullable && (i <= 1 || (i + j) % 4 == 3) {
                            value = .null
                        } else if keys.isEmpty {
                            value = .null
                        } else {
                            let row = keys[(i + k) % keys.count]
                            value = position < row.count ? row[position] : .null
                        }
                    } else if key == rowIDAlias {
                        value = .integer(Int64(i + 1))
                    } else if nullable && (i <= 1 || (i + j) % 4 == 3) {
                        value = .null
                    } else if attempt > 0, !literals.isEmpty, checkedNames.contains(key) {
                        value = Self.literal(literals, for: c, table: table, row: i + j)
                    } else {
                        value = probe(for: c, table: table, row: i, column: j)
                    }
                    names.append(c.name)
                    values.append(value)
                }
                let sql =
                    names.isEmpty
                    ? "INSERT INTO main.\(SQL.quoteIdentifier(table.name)) DEFAULT VALUES"
                    : "INSERT INTO main.\(SQL.quoteIdentifier(table.name)) (\(names.map(SQL.quoteIdentifier).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
                do {
                    try db.execute(sql: sql, arguments: StatementArguments(values))
                    summary.inserted += 1
                    break
                } catch let error as SQLiteError where Self.isRefusal(error) {
                    if attempt == 0 && !literals.isEmpty && error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK {
                        attempt += 1
                        continue
                    }
                    summary.skipped += 1
                    break
                }
            }
        }
    }

    /// The foreign key of `table` holding `column` (its index), and the column's position in it.
    static func foreignKey(containing column: String, in table: TableInfo) -> (Int, Int)? {
        for (k, fk) in table.foreignKeys.enumerated() {
            if let position = fk.columns.firstIndex(where: { $0.asciiLowercasedForKit == column.asciiLowercasedForKit })
            {
                return (k, position)
            }
        }
        return nil
    }

    /// The values of the parent key of `fk`, one array per parent row (at most 64 rows).
    static func parentKeys(_ fk: ForeignKeyInfo, of table: TableInfo, _ db: Database) throws -> [[SQLValue]] {
        let parent = try DatabaseSchema.read(from: db).table(named: fk.parentTable)
        guard let parent else { return [] }
        var columns = fk.parentColumns.compactMap { $0 }
        if columns.count != fk.columns.count {
            columns = parent.columns.filter { $0.primaryKeyPosition > 0 }.sorted {
                $0.primaryKeyPosition < $1.primaryKeyPosition
            }.map(\.name)
            if columns.isEmpty && parent.hasRowID { columns = ["rowid"] }
        }
        guard columns.count == fk.columns.count else { return [] }
        let rows = try db.fetchAll(
            sql:
                "SELECT \(columns.map(SQL.quoteIdentifier).joined(separator: ", ")) FROM main.\(SQL.quoteIdentifier(parent.name)) ORDER BY \(columns.indices.map { String($0 + 1) }.joined(separator: ", ")) LIMIT 64"
        )
        return rows.map(\.values)
    }

    /// The string and number literals in the table's CHECK constraints, and the (lowercased)
    /// names that appear after the first CHECK (the columns a retry gives literals to).
    static func checkLiterals(_ table: TableInfo) -> ([SQLValue], Set<String>) {
        let upper = table.sql.uppercased()
        guard upper.contains("CHECK") else { return ([], []) }
        var result = [SQLValue]()
        var names = Set<String>()
        var inCheck = false
        for token in CheckLiteralScanner.tokens(table.sql) {
            switch token {
            case .word(let w):
                if w.uppercased() == "CHECK" {
                    inCheck = true
                } else if inCheck {
                    names.insert(w.asciiLowercasedForKit)
                }
            case .string(let s): if inCheck { result.append(.text(s)) }
            case .number(let n):
                if inCheck {
                    if let i = Int64(n) {
                        result.append(.integer(i))
                    } else if let d = Double(n) {
                        result.append(.real(d))
                    }
                }
            }
        }
        var seen = Set<SQLValue>()
        return (result.filter { seen.insert($0).inserted }, names)
    }

    static func literal(_ literals: [SQLValue], for c: ColumnInfo, table: TableInfo, row: Int) -> SQLValue {
        let affinity = Affinity(c.declaredType, strict: table.isStrict)
        let fitting = literals.filter { value in
            switch (affinity, value) {
            case (.text, .text), (.integer, .integer), (.real, .real), (.real, .integer), (.numeric, .integer),
                (.numeric, .real), (.any, _), (.blob, _):
                return true
            default: return false
            }
        }
        let pool = fitting.isEmpty ? literals : fitting
        return pool[row % pool.count]
    }

    enum Affinity {
        case integer, real, text, blob, numeric, any

        init(_ declaredType: String, strict: Bool) {
            if strict && declaredType.uppercased() == "ANY" {
                self = .any
                return
            }
            switch ColumnAffinity(declaredType: declaredType) {
            case .integer: self = .integer
            case .text: self = .text
            case .blob: self = .blob
            case .real: self = .real
            case .numeric: self = .numeric
            }
        }
    }

    static let integers: [Int64] = [0, 1, -1, Int64.max, Int64.min, 42, 2_147_483_648, -2_147_483_649]
    static let reals: [Double] = [0, 1.5, -1.5, 1e308, -1e308, Double.leastNonzeroMagnitude, 0.1, -0.000_001]
    static let texts: [String] = [
        "", "a", "O'Brien \"quoted\"; -- not a comment", "ünïcødé ✓ 日本語 🙂", String(repeating: "x", count: 1000),
        " padded ", "NULL", "0",
    ]
    static let blobs: [[UInt8]] = [[], [0], [0xFF, 0x00, 0x7F], Array(0...255)]
    static let dates: [String] = [
        "1970-01-01 00:00:00", "2024-02-29", "9999-12-31 23:59:59.999", "2000-01-01T00:00:00Z",
    ]

    /// The value of column `c` in row `row`: boundary values first, then generated ones that
    /// differ in every row (UNIQUE columns get distinct values).
    mutating func probe(for c: ColumnInfo, table: TableInfo, row: Int, column: Int) -> SQLValue {
        // One probe per row (rows 0 and 1 put NULL in nullable columns, not in NOT NULL ones), so
        // that no two rows share a value: a composite key of probes stays unique.
        let k = row
        let distinct = Int64(row) * 1_000_003 + Int64(column)
        let affinity = Affinity(c.declaredType, strict: table.isStrict)
        let type = c.declaredType.uppercased()
        switch affinity {
        case .integer:
            if type.contains("BOOL") { return .integer(Int64(row % 2)) }
            return k < Self.integers.count ? .integer(Self.integers[k]) : .integer(distinct)
        case .real:
            return k < Self.reals.count ? .real(Self.reals[k]) : .real(Double(distinct) + 0.25)
        case .text:
            if type.contains("DATE") || type.contains("TIME") {
                return k < Self.dates.count
                    ? .text(Self.dates[k]) : .text("2001-01-\(String(format: "%02d", row % 28 + 1)) \(row)")
            }
            return k < Self.texts.count ? .text(Self.texts[k]) : .text("text-\(row)-\(random.next() % 100_000)")
        case .blob:
            if type.isEmpty && !table.isStrict {
                // No declared type: any storage class; rotate them.
                switch k % 4 {
                case 0: return .integer(k < Self.integers.count ? Self.integers[k] : distinct)
                case 1: return .text(k < Self.texts.count ? Self.texts[k] : "any-\(row)")
                case 2: return .real(Double(distinct) + 0.5)
                default: return .blob(Array("blob-\(row)".utf8))
                }
            }
            return k < Self.blobs.count
                ? .blob(Self.blobs[k]) : .blob(Array("blob-\(row)-\(random.next() % 1000)".utf8))
        case .numeric:
            if type.contains("DATE") || type.contains("TIME") {
                return k < Self.dates.count
                    ? .text(Self.dates[k]) : .text("2001-02-\(String(format: "%02d", row % 28 + 1)) \(row)")
            }
            if type.contains("BOOL") { return .integer(Int64(row % 2)) }
            return k < Self.integers.count ? .integer(Self.integers[k]) : .real(Double(distinct) + 0.5)
        case .any:
            switch k % 4 {
            case 0: return .integer(k < Self.integers.count ? Self.integers[k] : distinct)
            case 1: return .text(k < Self.texts.count ? Self.texts[k] : "any-\(row)")
            case 2: return .real(Double(distinct) + 0.5)
            default: return .blob(Array("any-\(row)".utf8))
            }
        }
    }
}

/// A deterministic pseudo-random generator (SplitMix64): the same seed gives the same rows.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Just enough of an SQL scanner to find the literals of CHECK constraints.
enum CheckLiteralScanner {
    enum Token {
        case word(String)
        case string(String)
        case number(String)
    }

    static func tokens(_ sql: String) -> [Token] {
        let chars = Array(sql.unicodeScalars)
        var result = [Token]()
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                var s = String.UnicodeScalarView()
                i += 1
                while i < chars.count {
                    if chars[i] == "'" {
                        if i + 1 < chars.count && chars[i + 1] == "'" {
                            s.append("'")
                            i += 2
                            continue
                        }
                        break
                    }
                    s.append(chars[i])
                    i += 1
                }
                result.append(.string(String(s)))
                i += 1
            } else if c == "\"" || c == "`" || c == "[" {
                let close: Unicode.Scalar = c == "[" ? "]" : c
                i += 1
                while i < chars.count && chars[i] != close { i += 1 }
                i += 1
            } else if c == "-" && i + 1 < chars.count && chars[i + 1] == "-" {
                while i < chars.count && chars[i] != "\n" { i += 1 }
            } else if ("0"..."9").contains(c) || (c == "-" && i + 1 < chars.count && ("0"..."9").contains(chars[i + 1]))
            {
                var s = String(c)
                i += 1
                while i < chars.count,
                    ("0"..."9").contains(chars[i]) || chars[i] == "." || chars[i] == "e" || chars[i] == "E"
                {
                    s.unicodeScalars.append(chars[i])
                    i += 1
                }
                result.append(.number(s))
            } else if c.properties.isAlphabetic || c == "_" {
                var s = String(c)
                i += 1
                while i < chars.count,
                    chars[i].properties.isAlphabetic || chars[i] == "_" || ("0"..."9").contains(chars[i])
                {
                    s.unicodeScalars.append(chars[i])
                    i += 1
                }
                result.append(.word(s))
            } else {
                i += 1
            }
        }
        return result
    }
}

extension String {
    /// ASCII-lowercased, the way SQLite compares names.
    var asciiLowercasedForKit: String {
        String(
            String.UnicodeScalarView(
                unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar(UInt8($0.value + 32)) : $0 }))
    }
}
