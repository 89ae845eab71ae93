/// The fetch loops' fast path for `Decodable` records: decodes each row straight from the
/// statement, without copying it into a ``Row``, with one decoding context reused for every row.
///
/// It applies only when the record's ``FetchableRecord/init(row:)`` is the `Decodable` one, which
/// the loops learn from the first row: that initializer, and no other, leaves a
/// ``RowDecodingPlan`` for the record type in the statement's column names. A record with its own
/// `init(row:)` (even a `Decodable` one) never leaves a plan, and every row goes through its
/// initializer.
struct StatementRecordDecoder<Record: FetchableRecord> {
    private let decodeCurrentRow: () throws -> Record

    /// The decoder of `statement`'s rows, or nil when the fast path does not apply (yet).
    init?(statement: Statement) {
        guard let decodable = Record.self as? any (FetchableRecord & Decodable).Type else { return nil }
        let columns = statement.columns
        guard let plan = columns.decodingPlan(for: ObjectIdentifier(Record.self)) else { return nil }
        func make<D: FetchableRecord & Decodable>(_: D.Type) -> () throws -> Record {
            let context = RowDecodingContext<D>(statement: statement, columns: columns, plan: plan)
            let decoder: any Decoder = RowDecoder(context: context)
            return {
                context.startRow()
                // D is Record (the cast above succeeded on Record.self): the bits are a Record.
                return unsafeBitCast(try D(from: decoder), to: Record.self)
            }
        }
        decodeCurrentRow = make(decodable)
    }

    /// The record of the statement's current row.
    @inline(__always)
    func decode() throws -> Record { try decodeCurrentRow() }
}
