import Foundation
import Strata

/// `strata-bench --estimates` (issue 29): how close ``PlanEstimate`` comes to what a plan does, on
/// the databases of cases 3 and 4, with and without `sqlite_stat1`, and what planning the 300-table
/// schema of case 6 costs now that every plan is estimated. Prints a markdown report; the figures
/// of a run are kept in Benchmarks/README.md ("Plan estimates: accuracy and cost").
enum EstimateCases {
    struct Row {
        var label: String
        var statistics: Bool
        var estimate: PlanEstimate
        var actualRows: Int
        var planSeconds: Double
        var applySeconds: Double
        var actualBytes: Int64
    }

    static func measure(
        template: String, label: String, desired: String, statistics: Bool, directory: String
    ) throws -> Row {
        let scratch = directory + "/estimate-scratch.sqlite"
        try copyDatabase(template, to: scratch)
        defer { removeDatabase(scratch) }
        let db = try StrataCases.open(scratch)
        defer { db.close() }
        if statistics { try db.execute(sql: "ANALYZE") }
        let actualRows = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") ?? 0
        let actualBytes =
            try db.fetchValue(
                Int64.self,
                sql:
                    "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'item')"
            )
            ?? 0
        var plan: Plan?
        let planSeconds = try timed { plan = try db.planSchemaChange(to: desired) }
        guard let plan else { throw BenchError("no plan") }
        let applySeconds = try timed { try db.applySchemaChange(plan) }
        return Row(
            label: label, statistics: statistics, estimate: plan.estimate, actualRows: actualRows,
            planSeconds: planSeconds, applySeconds: applySeconds, actualBytes: actualBytes)
    }

    @MainActor static func run(directory: String) throws {
        var rows = [Row]()
        let sizes: [(String, Int)] = [("250k", 250_000), ("1m", 1_000_000), ("4m", 4_000_000)]
        for (name, count) in sizes {
            let template = directory + "/item-\(name).sqlite"
            if !FileManager.default.fileExists(atPath: template) {
                progress("building the \(count)-row table")
                try Fixtures.makeItemTemplate(path: template, rows: count)
            }
            for statistics in [false, true] {
                progress("case 3, \(name) rows, sqlite_stat1 \(statistics ? "present" : "absent")")
                rows.append(
                    try measure(
                        template: template, label: "3: rebuild, \(name) rows", desired: Fixtures.itemSchemaTypeChange,
                        statistics: statistics, directory: directory))
            }
        }
        for statistics in [false, true] {
            progress("case 4, sqlite_stat1 \(statistics ? "present" : "absent")")
            rows.append(
                try measure(
                    template: directory + "/item-1m.sqlite", label: "4: add column, 1m rows",
                    desired: Fixtures.itemSchemaAddColumn, statistics: statistics, directory: directory))
        }
        var lines = [
            "| Case | sqlite_stat1 | Estimated rows | Actual rows | Rows ratio | Estimated bytes | Table + indexes bytes | Expected time | Actual apply | Time ratio (actual/expected) | Planning |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows {
            let expected = r.estimate.expectedDuration()
            let expectedSeconds = Double(expected.components.seconds) + Double(expected.components.attoseconds) / 1e18
            let rowsRatio =
                r.estimate.rows > 0 ? String(format: "%.2f", Double(r.actualRows) / Double(r.estimate.rows)) : "—"
            let timeRatio = expectedSeconds > 0 ? String(format: "%.2f", r.applySeconds / expectedSeconds) : "—"
            lines.append(
                "| \(r.label) | \(r.statistics ? "yes" : "no") | \(r.estimate.rowsAreLowerBound ? "≥ " : "")\(r.estimate.rows) | \(r.actualRows) | \(rowsRatio) | \(r.estimate.bytes) (\(r.estimate.byteSource.rawValue)) | \(r.actualBytes) | \(String(format: "%.3f s", expectedSeconds)) | \(String(format: "%.3f s", r.applySeconds)) | \(timeRatio) | \(String(format: "%.1f ms", r.planSeconds * 1000)) |"
            )
        }
        print(lines.joined(separator: "\n"))

        // Case 6's planning, estimates included.
        let planPath = directory + "/plan.sqlite"
        removeDatabase(planPath)
        try StrataCases.makePlanDatabase(path: planPath)
        let db = try StrataCases.open(planPath)
        defer { db.close() }
        let desired = Fixtures.bigSchema(changed: true)
        var seconds = [Double]()
        var last: Plan?
        for _ in 0..<7 { seconds.append(try timed { last = try db.planSchemaChange(to: desired) }) }
        seconds.sort()
        print("")
        print(
            "Case 6 (300-table schema, 10 tables changed), planSchemaChange with estimates: median \(String(format: "%.1f ms", seconds[3] * 1000)) of 7 (min \(String(format: "%.1f", seconds[0] * 1000)), max \(String(format: "%.1f", seconds[6] * 1000))); steps \(last?.steps.count ?? 0), estimate: \(last?.estimate.description ?? "")"
        )
    }
}
