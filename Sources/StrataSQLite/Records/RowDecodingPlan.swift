/// Where a `Decodable` record found its keys in the columns of a query: the keys in the order
/// `init(from:)` asked for them, and the column index of each (-1 for none).
///
/// Every row of a query shares one ``ColumnNames``, which keeps the plan once the first row is
/// decoded. The next rows check that the n-th key asked for is the plan's n-th key (a string
/// comparison that succeeds on identity for `CodingKeys`) and read its column directly, with no
/// lookup by name. A key out of order is looked up by name, so a plan is only ever a shortcut.
final class RowDecodingPlan: Sendable {
    let recordType: ObjectIdentifier
    let keys: [String]
    let columns: [Int]

    init(recordType: ObjectIdentifier, keys: [String], columns: [Int]) {
        self.recordType = recordType
        self.keys = keys
        self.columns = columns
    }
}

extension ColumnNames {
    /// The plan a record type left in these columns, if any.
    func decodingPlan(for recordType: ObjectIdentifier) -> RowDecodingPlan? {
        decodingPlans.withLock { plans in
            for plan in plans where plan.recordType == recordType { return plan }
            return nil
        }
    }

    /// Keeps `plan` for the next rows (a few record types at most per query).
    func storeDecodingPlan(_ plan: RowDecodingPlan) {
        decodingPlans.withLock { plans in
            guard plans.count < 8, !plans.contains(where: { $0.recordType == plan.recordType }) else { return }
            plans.append(plan)
        }
    }
}
