/// Column names of a result set with a case-insensitive lookup, shared by all its rows.
///
/// ```swift
/// let columns = ColumnNames(["id", "Name"])
/// columns.index(of: "name")   // 1
/// ```
public final class ColumnNames: Sendable, Hashable {
    /// The names, in column order.
    public let names: [String]
    private let exact: [String: Int]
    private let folded: [String: Int]
    /// The name→index table resolved once for the whole result set: an open-addressed hash
    /// table keyed by the raw bits of each name's `String` (two words), probed before any string
    /// comparison. Equal bits mean the same string (the same inline bytes of a small string, up
    /// to 15 UTF-8 bytes, or the same storage, which the table keeps alive), so a hit is exact;
    /// a miss (a longer name spelled elsewhere, another case) takes the comparing path.
    /// Memory the instance owns and never changes after `init` (a pointer, not an array: reading
    /// an array held by a class retains and releases its buffer at each lookup).
    @usableFromInline nonisolated(unsafe) let slots: UnsafeMutablePointer<NameSlot>
    @usableFromInline let slotMask: Int
    /// Where each coding key of a record type was found in these columns (see `RowDecodingPlan`).
    let decodingPlans = LockedValue<[RowDecodingPlan]>([])

    /// Column names in order; duplicates are allowed (the leftmost wins on lookup).
    public init(_ names: [String]) {
        self.names = names
        var exact = [String: Int]()
        var folded = [String: Int]()
        // SQLite column names are case-insensitive; the leftmost column wins, as in SQL.
        for (i, name) in names.enumerated().reversed() {
            exact[name] = i
            folded[name.lowercased()] = i
        }
        self.exact = exact
        self.folded = folded
        var capacity = 4
        while capacity < names.count * 2 { capacity *= 2 }
        let slots = UnsafeMutablePointer<NameSlot>.allocate(capacity: capacity)
        slots.initialize(repeating: NameSlot(bits: (0, 0), index: -1), count: capacity)
        if ColumnNames.bitsLookup {
            // Left to right, and a name already in the table is skipped: the leftmost wins.
            insertion: for (i, name) in names.enumerated() {
                let bits = ColumnNames.bits(of: name)
                var slot = ColumnNames.hash(bits) & (capacity - 1)
                while slots[slot].index >= 0 {
                    if slots[slot].bits == bits { continue insertion }
                    slot = (slot + 1) & (capacity - 1)
                }
                slots[slot] = NameSlot(bits: bits, index: i)
            }
        }
        self.slots = slots
        self.slotMask = capacity - 1
    }

    deinit { slots.deallocate() }

    /// One entry of the bits table (`index` -1: empty).
    @usableFromInline
    struct NameSlot: Sendable {
        @usableFromInline var bits: (UInt64, UInt64)
        @usableFromInline var index: Int
        @usableFromInline init(bits: (UInt64, UInt64), index: Int) {
            self.bits = bits
            self.index = index
        }
    }

    /// The bits table needs a two-word `String` (64-bit platforms).
    @inlinable static var bitsLookup: Bool { MemoryLayout<String>.size == 16 }

    @inlinable @inline(__always)
    static func bits(of name: String) -> (UInt64, UInt64) { unsafeBitCast(name, to: (UInt64, UInt64).self) }

    @inlinable @inline(__always)
    static func hash(_ bits: (UInt64, UInt64)) -> Int {
        let mixed = (bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 40)
    }

    /// The index of `name` when its bits are in the table, else nil (then compare strings).
    @inlinable @inline(__always)
    func indexByBits(of name: String) -> Int? {
        guard ColumnNames.bitsLookup else { return nil }
        let bits = ColumnNames.bits(of: name)
        var slot = ColumnNames.hash(bits) & slotMask
        while true {
            let entry = slots[slot]
            if entry.index < 0 { return nil }
            if entry.bits == bits { return entry.index }
            slot = (slot + 1) & slotMask
        }
    }

    /// The index of the column named `name`: the leftmost exact match, else the leftmost
    /// case-insensitive one.
    @inlinable
    public func index(of name: String) -> Int? {
        if let index = indexByBits(of: name) { return index }
        return indexComparingNames(of: name)
    }

    @usableFromInline
    func indexComparingNames(of name: String) -> Int? {
        // For the usual handful of columns, comparing strings (a few instructions each for short
        // names) beats hashing the name; the dictionaries serve wide rows and case-insensitive hits.
        if names.count <= 16 {
            for i in names.indices where names[i] == name { return i }
            return folded[name.lowercased()]
        }
        return exact[name] ?? folded[name.lowercased()]
    }

    /// Same names in the same order.
    public static func == (a: ColumnNames, b: ColumnNames) -> Bool { a === b || a.names == b.names }
    /// Hashes the names.
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}

/// Read access to the columns of one row, by index or by name, with typed conversion.
///
/// ```swift
/// let id: Int64 = try row[0]
/// let name: String = try row["name"]
/// let note: String? = try row["note"]   // nil for NULL
/// ```
public protocol RowReader {
    /// Number of columns.
    var columnCount: Int { get }
    /// The name of each column.
    var columnNames: [String] { get }
    /// The raw value of the column at `index` (0-based). Precondition: `index < columnCount`.
    func value(at index: Int) -> SQLValue
    /// The index of the column named `name`, case-insensitive.
    func index(ofColumn name: String) -> Int?
    /// The SQL that produced the row, for error messages.
    var sourceSQL: String? { get }
}

extension RowReader {
    /// The value of column `index` converted to `T`; throws ``RowDecodingError`` when the index is
    /// out of range or the value does not convert.
    @inlinable @inline(__always)
    public func decode<T: SQLValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
        // The error paths live in non-inlined functions, so that this body stays small enough to
        // be inlined into row loops (where it reduces to a type check and a column read).
        guard index >= 0, index < columnCount else { throw columnNotFound(at: index, T.self) }
        let v = value(at: index)
        guard let result = T.fromSQLValue(v) else { throw typeMismatch(at: index, v, T.self) }
        return result
    }

    /// The value of the column named `name` converted to `T`.
    @inlinable
    public func decode<T: SQLValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T {
        guard let index = index(ofColumn: name) else { throw columnNotFound(named: name, T.self) }
        let v = value(at: index)
        guard let result = T.fromSQLValue(v) else { throw typeMismatch(named: name, v, T.self) }
        return result
    }

    @usableFromInline
    func columnNotFound(at index: Int, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            code: .columnNotFound, column: "#\(index)", requestedType: "\(type)", value: nil,
            availableColumns: columnNames, sql: sourceSQL)
    }

    @usableFromInline
    func columnNotFound(named name: String, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            code: .columnNotFound, column: "\"\(name)\"", requestedType: "\(type)", value: nil,
            availableColumns: columnNames, sql: sourceSQL)
    }

    @usableFromInline
    func typeMismatch(at index: Int, _ value: SQLValue, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            code: .typeMismatch, column: "#\(index) \"\(columnNames[index])\"", requestedType: "\(type)",
            value: value, availableColumns: columnNames, sql: sourceSQL,
            detail: RowDecodingError.textDetail(value, type))
    }

    @usableFromInline
    func typeMismatch(named name: String, _ value: SQLValue, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            code: .typeMismatch, column: "\"\(name)\"", requestedType: "\(type)", value: value,
            availableColumns: columnNames, sql: sourceSQL, detail: RowDecodingError.textDetail(value, type))
    }

    /// The value of column `index` converted to `T`: `let id: Int64 = try row[0]`.
    @inlinable @inline(__always)
    public subscript<T: SQLValueConvertible>(_ index: Int) -> T {
        get throws { try decode(T.self, at: index) }
    }

    /// The value of the column named `name` converted to `T`: `let name: String = try row["name"]`.
    @inlinable
    public subscript<T: SQLValueConvertible>(_ name: String) -> T {
        get throws { try decode(T.self, named: name) }
    }

    /// The raw value of the column named `name`, or nil if there is no such column.
    public func value(named name: String) -> SQLValue? {
        index(ofColumn: name).map { value(at: $0) }
    }

    /// True when the row has a column named `name`.
    public func hasColumn(_ name: String) -> Bool { index(ofColumn: name) != nil }
}

/// A row copied out of a result set: a value that can be kept, compared and sent across tasks.
///
/// ```swift
/// let row = try db.fetchOne(sql: "SELECT 1 AS id, 'Arthur' AS name")!
/// let name: String = try row["name"]
/// #expect(row == ["id": 1, "name": "Arthur"])
/// ```
///
/// Two rows are equal when they have the same column names and values, in the same order, and equal scopes and prefetched rows;
/// ``sourceSQL`` does not count.
public struct Row: RowReader, Sendable, Hashable, CustomStringConvertible {
    /// The column names.
    public let columns: ColumnNames
    /// The values, in column order.
    public let values: [SQLValue]
    /// The SQL that produced the row, for error messages.
    public let sourceSQL: String?
    /// The rows of the associations included with `including(required:)` and
    /// `including(optional:)`, by key: `row.scopes["folder"]`. The base row's columns do not
    /// include them.
    public internal(set) var scopes: [String: Row] = [:]
    /// The rows of the to-many associations included with `including(all:)`, by key:
    /// `row.prefetchedRows["notes"]`.
    public internal(set) var prefetchedRows: [String: [Row]] = [:]

    /// A row from column names and as many values.
    ///
    /// ```swift
    /// Row(columns: ColumnNames(["id"]), values: [.integer(1)])
    /// ```
    public init(columns: ColumnNames, values: [SQLValue], sourceSQL: String? = nil) {
        precondition(columns.names.count == values.count, "Row: as many values as columns")
        self.columns = columns
        self.values = values
        self.sourceSQL = sourceSQL
    }

    /// A row from names and values, for tests and literals.
    public init(_ pairs: KeyValuePairs<String, SQLValue>) {
        self.init(columns: ColumnNames(pairs.map(\.key)), values: pairs.map(\.value))
    }

    /// Number of columns.
    public var columnCount: Int { values.count }
    /// The name of each column.
    public var columnNames: [String] { columns.names }
    /// The raw value of the column at `index`.
    @inlinable public func value(at index: Int) -> SQLValue { values[index] }
    /// The index of the column named `name`, case-insensitive.
    @inlinable public func index(ofColumn name: String) -> Int? { columns.index(of: name) }

    /// Same column names and values, in the same order.
    public static func == (a: Row, b: Row) -> Bool {
        a.columns.names == b.columns.names && a.values == b.values && a.scopes == b.scopes
            && a.prefetchedRows == b.prefetchedRows
    }

    /// True when at least one column is not NULL: an optional association that matched
    /// nothing has a scope whose columns are all NULL.
    public var containsNonNullValue: Bool { values.contains { !$0.isNull } }
    /// Hashes names and values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(columns.names)
        hasher.combine(values)
    }

    /// `[id: 1, name: 'Arthur']`.
    public var description: String {
        "[" + zip(columns.names, values).map { "\($0): \($1.sqlLiteral)" }.joined(separator: ", ") + "]"
    }
}

extension Row: ExpressibleByDictionaryLiteral {
    /// A row from a literal, in order: `["id": 1, "name": "Arthur", "note": nil]`.
    ///
    /// ```swift
    /// #expect(try db.fetchOne(sql: "SELECT 1 AS id") == ["id": 1])
    /// ```
    public init(dictionaryLiteral elements: (String, SQLValue)...) {
        self.init(columns: ColumnNames(elements.map(\.0)), values: elements.map(\.1))
    }
}
