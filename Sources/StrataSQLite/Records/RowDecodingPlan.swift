/// Where a `Decodable` record found its keys in the columns of a query: the keys in the order
/// `init(from:)` asked for them, and the column index of each (-1 for none).
///
/// Every row of a query shares one ``ColumnNames``, which keeps the plan once the first row is
/// decoded. The next rows check that the n-th key asked for is the plan's n-th key and read its
/// column directly, with no lookup by name. When the keys are plain values of at most 7 bytes
/// (the synthesized `CodingKeys` enum: one byte), the check compares the key's bits with the
/// plan's (`keyBits`, valid for `keyType` only), without asking the key for its string; other keys
/// compare strings. A key out of order is looked up by name, so a plan is only ever a shortcut.
final class RowDecodingPlan: Sendable {
    let recordType: ObjectIdentifier
    let keys: [String]
    let columns: [Int]
    /// The bits of each key (see ``CodingKeyBits``), or empty when some key had none or the keys
    /// were of more than one type.
    let keyBits: [UInt64]
    /// The type of the keys of `keyBits`.
    let keyType: ObjectIdentifier?

    init(recordType: ObjectIdentifier, keys: [String], columns: [Int], keyBits: [UInt64], keyType: ObjectIdentifier?) {
        self.recordType = recordType
        self.keys = keys
        self.columns = columns
        self.keyBits = keyType == nil ? [] : keyBits
        self.keyType = keyType
    }
}

/// A coding key's identity without its string: the bytes of a key that is a plain value (no
/// references, `_isPOD`) of at most 7 bytes. Two such keys of one type with equal bits are the
/// same value, hence the same `stringValue`.
enum CodingKeyBits {
    /// No bits: the key is not a small plain value (never equal to real bits, which fit 7 bytes).
    static let none = UInt64.max

    /// The number of bytes of `K`'s bits, or -1 when its keys have none.
    @inline(__always)
    static func width<K: CodingKey>(_: K.Type) -> Int {
        _isPOD(K.self) && MemoryLayout<K>.size <= 7 ? MemoryLayout<K>.size : -1
    }

    /// The bits of `key` (`width` from ``width(_:)``).
    @inline(__always)
    static func bits<K: CodingKey>(_ key: K, width: Int) -> UInt64 {
        if width < 0 { return none }
        if width == 0 { return 0 }
        return withUnsafeBytes(of: key) { raw in
            if width == 1 { return UInt64(raw.load(as: UInt8.self)) }
            var bits: UInt64 = 0
            for i in 0..<width { bits |= UInt64(raw[i]) << (8 * UInt64(i)) }
            return bits
        }
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
