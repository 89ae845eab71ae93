import Foundation
import StrataSQLite
import Testing

/// `SQLValue.exactRealLiteral`: SQL text that the running SQLite reads back as the same double,
/// bit for bit. The shortest decimal does not: SQLite 3.50.4 reads `1e-300` as
/// `9.999999999999999e-301` (which made `strata squash` refuse its own baseline in the
/// real-SQLite matrix), Debian's 3.40.1 reads `2.91e-11` one unit off. The matrix runs this
/// suite on every SQLite of CI.
@Suite("Exact real literals")
struct ExactRealLiteralTests {
    /// The doubles `literals` read back as, in one statement per 400 values.
    static func readBack(_ values: [Double]) throws -> [SQLValue] {
        let db = try Database(inMemory: Configuration())
        var out: [SQLValue] = []
        var start = 0
        while start < values.count {
            let chunk = values[start..<min(start + 400, values.count)]
            let sql = "SELECT " + chunk.map(SQLValue.exactRealLiteral).joined(separator: ", ")
            guard let row = try db.fetchOne(sql: sql) else { throw CancellationError() }
            out += (0..<row.columnCount).map { row.value(at: $0) }
            start += chunk.count
        }
        return out
    }

    static let edges: [Double] = [
        1e-300, 0.1, 0.2, 0.1 + 0.2, 2.91e-11, -4.59911797029e-07, 1.0, -1.0, 0.5, 3.375, -0.0, 0.0,
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, 9007199254740992, 9007199254740994, 9223372036854775808, 1e22, 1e23,
        123456789012345.6, Double(Int64.max), .ulpOfOne, 1 + .ulpOfOne, .pi, -.pi, 1e308, 4.9e-324,
        2.2250738585072009e-308,
    ]

    @Test func everyDoubleReadsBackWithTheSameBits() throws {
        var generator = ValueRandom(seed: 0x5EED_2026)
        var values = Self.edges
        while values.count < 20_000 {
            let d = Double(bitPattern: generator.next())
            if d.isFinite { values.append(d) }
        }
        // Short decimals, the values apps store most.
        for _ in 0..<5_000 {
            let digits = Int.random(in: 1...15, using: &generator)
            let scale = pow(10, Double(Int.random(in: -22...22, using: &generator)))
            let d = Double.random(in: -1...1, using: &generator) * scale
            values.append(Double(String(format: "%.\(digits)g", d)) ?? 0)
        }
        let read = try Self.readBack(values)
        #expect(read.count == values.count)
        var wrong: [String] = []
        for (d, value) in zip(values, read) {
            if case .real(let r) = value, r.bitPattern == d.bitPattern { continue }
            wrong.append("\(d) (\(SQLValue.exactRealLiteral(d))) read as \(value)")
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(values.count): \(wrong.prefix(5))")
    }

    @Test func exactDecimalsStayReadable() {
        #expect(SQLValue.exactRealLiteral(0.5) == "0.5")
        #expect(SQLValue.exactRealLiteral(-12) == "-12.0")
        #expect(SQLValue.exactRealLiteral(3.375) == "3.375")
        #expect(SQLValue.exactRealLiteral(0.0625) == "0.0625")
        #expect(SQLValue.exactRealLiteral(-0.0) == "-0.0")
        #expect(SQLValue.exactRealLiteral(.infinity) == "9e999")
        #expect(SQLValue.exactRealLiteral(-.infinity) == "-9e999")
        #expect(SQLValue.exactRealLiteral(.nan) == "NULL")
        #expect(SQLValue.exactRealLiteral(0.1) == "(CAST(3602879701896397 AS REAL) / 36028797018963968)")
        #expect(
            SQLValue.exactRealLiteral(9007199254740994) == "(CAST(4503599627370497 AS REAL) * 2)",
            "2^53 + 2: its digits as an integer are past 2^53")
    }

    @Test func infinitiesAndNaNReadAsSQLiteStoresThem() throws {
        let read = try Self.readBack([.infinity, -.infinity])
        #expect(read == [.real(.infinity), .real(-.infinity)])
        let db = try Database(inMemory: Configuration())
        #expect(try db.fetchOne(sql: "SELECT \(SQLValue.exactRealLiteral(.nan))")?.value(at: 0) == .null)
    }
}
