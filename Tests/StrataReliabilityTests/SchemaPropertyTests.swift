import Foundation
import Strata
import Testing

/// Random schema pairs (A, B): a database at A holding rows is brought to B (destructive changes
/// allowed); the schema must equal B, kept columns keep their values, a second plan is empty.
///
/// The suite runs `STRATA_PROPERTY_PAIRS` pairs (default 200) from seed `STRATA_PROPERTY_SEED`
/// (default 20240601) on the modern and on the old-SQLite path; `scripts/property-test.sh N SEED`
/// runs more. A failure is shrunk and printed as a regression case.
@Suite("Schema change properties")
struct SchemaPropertyTests {
    static var pairCount: Int {
        ProcessInfo.processInfo.environment["STRATA_PROPERTY_PAIRS"].flatMap { Int($0) } ?? 200
    }
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATA_PROPERTY_SEED"].flatMap { UInt64($0) } ?? 20_240_601
    }

    @Test func randomPairsOnModernSQLite() throws {
        try runPairs(capabilityLimit: nil)
    }

    /// The oldest SQLite Strata supports, simulated: no native DROP COLUMN, STRICT or generated
    /// columns (the pairs leave the last two out).
    @Test func randomPairsOnOldSQLite() throws {
        try runPairs(capabilityLimit: SQLiteVersion.minimumSupported)
    }

    func runPairs(capabilityLimit: SQLiteVersion?) throws {
        let path = capabilityLimit.map { "limit \($0)" } ?? "runtime \(SQLiteVersion.runtime)"
        let capabilities = SQLiteCapabilities(version: min(SQLiteVersion.runtime, capabilityLimit ?? .runtime))
        var applied = 0
        var steps = 0
        var rejected = [SchemaError.Code: Int]()
        var failures = [String]()
        for index in 0..<Self.pairCount {
            let pair = try GeneratedPair.make(seed: Self.seed, index: index, capabilities: capabilities)
            let outcome = SchemaChangeCheck.run(pair.testCase, capabilityLimit: capabilityLimit)
            switch outcome {
            case .applied(let n):
                applied += 1
                steps += n
            case .rejected(let code):
                rejected[code, default: 0] += 1
            case .failed(let kind, let detail):
                let small = PairShrinker.shrink(pair, kind: kind, capabilityLimit: capabilityLimit)
                let smallOutcome = SchemaChangeCheck.run(small.testCase, capabilityLimit: capabilityLimit)
                let report = """
                    pair \(index) (seed \(Self.seed), \(path)): \(kind): \(detail)
                    edits: \(pair.edits.map(\.description).joined(separator: "; "))
                    shrunk to (\(smallOutcome)):
                    \(small.testCase)
                    """
                failures.append(report)
                Issue.record(Comment(rawValue: report))
                if failures.count >= 5 { break }
            }
        }
        let summary =
            "property run (\(path)): \(Self.pairCount) pairs from seed \(Self.seed): \(applied) applied "
            + "(\(steps) steps), rejected by the data: \(rejected.map { "\($0.key) \($0.value)" }.sorted()), "
            + "failures: \(failures.count)"
        print(summary)
        #expect(failures.isEmpty, Comment(rawValue: summary))
        // The generator must mostly produce changes that apply, or the run proves little.
        #expect(applied * 2 > Self.pairCount, Comment(rawValue: summary))
    }
}
