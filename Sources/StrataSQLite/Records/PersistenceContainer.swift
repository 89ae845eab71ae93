/// The columns and values a record stores, in order: what ``EncodableRecord/encode(to:)`` fills.
///
/// ```swift
/// func encode(to container: inout PersistenceContainer) throws {
///     container["id"] = id
///     container["title"] = title
/// }
/// ```
///
/// Column names compare without regard to case, as SQLite does: setting `Title` replaces `title`.
/// Keeping the same columns in the same order from one record to the next lets the same
/// prepared statement serve every insert.
public struct PersistenceContainer: Sendable {
    /// The column names, in order.
    public private(set) var columns: [String]
    /// The values, in column order.
    public private(set) var values: [SQLValue]

    /// An empty container.
    ///
    /// ```swift
    /// var container = PersistenceContainer()
    /// container["title"] = "Groceries"
    /// ```
    public init() {
        columns = []
        values = []
    }

    init(minimumCapacity: Int) {
        columns = []
        values = []
        columns.reserveCapacity(minimumCapacity)
        values.reserveCapacity(minimumCapacity)
    }

    /// The encoder's result: `columns` and `values` of the same count.
    init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// Set by the record insert while the record encodes: the columns of the table's last
    /// insert and an encoder to reuse (see ``RecordEncodingSlot``). Only a hint: the `Encodable`
    /// encoder compares every key with the expected columns, and the columns it produces are the
    /// keys it was given. Cleared before the container leaves the insert.
    nonisolated(unsafe) var encodingSlot: RecordEncodingSlot?

    /// The value of a column (nil when the container has no such column; a NULL value is
    /// ``SQLValue/null``), or sets it: nil stores NULL.
    ///
    /// ```swift
    /// container["score"] = score        // Int? : nil becomes NULL
    /// let title = container["title"]    // any SQLValueConvertible, here an SQLValue
    /// ```
    public subscript(column: String) -> (any SQLValueConvertible)? {
        get { index(ofColumn: column).map { values[$0] } }
        set { self[value: column] = newValue?.sqlValue ?? .null }
    }

    /// The ``SQLValue`` of a column, or nil when the container has no such column.
    ///
    /// ```swift
    /// container[value: "id"]   // .integer(1)
    /// ```
    public subscript(value column: String) -> SQLValue? {
        get { index(ofColumn: column).map { values[$0] } }
        set {
            if let index = index(ofColumn: column) {
                if let newValue {
                    values[index] = newValue
                } else {
                    columns.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                columns.append(column)
                values.append(newValue)
            }
        }
    }

    /// The position of `column`, compared without regard to case.
    func index(ofColumn column: String) -> Int? {
        if let index = columns.firstIndex(of: column) { return index }
        return columns.firstIndex { Self.equalIgnoringASCIICase($0, column) }
    }

    /// SQLite's comparison of column names: ASCII letters without regard to case, every other
    /// byte exactly (<https://www.sqlite.org/lang_keywords.html>); allocates nothing, unlike
    /// `lowercased()`, which also folded non-ASCII letters that SQLite tells apart.
    static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        return zip(x, y).allSatisfy { p, q in
            if p == q { return true }
            let lower = p | 0x20
            return lower == q | 0x20 && lower >= 0x61 && lower <= 0x7a
        }
    }

    /// Keeps one entry per column (compared without regard to case): the first position, with
    /// the last value set.
    mutating func removeDuplicateColumns() {
        // Records have a handful of columns: a scan without allocation beats hashing folded copies.
        let hasDuplicates = columns.indices.contains { i in
            columns[..<i].contains { Self.equalIgnoringASCIICase($0, columns[i]) }
        }
        guard hasDuplicates else { return }
        var result = PersistenceContainer(minimumCapacity: columns.count)
        for (column, value) in zip(columns, values) { result[value: column] = value }
        self = result
    }
}

extension PersistenceContainer: RandomAccessCollection {
    /// Positions are column indexes.
    public var startIndex: Int { 0 }
    /// The number of columns.
    public var endIndex: Int { columns.count }
    /// The column name and value at `position`.
    ///
    /// ```swift
    /// for (column, value) in container { print(column, value) }
    /// ```
    public subscript(position: Int) -> (column: String, value: SQLValue) { (columns[position], values[position]) }
}
