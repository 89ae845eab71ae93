import CSQLite
import Foundation

/// The state of decoding one record from one row: the row, the plan of its columns, and the
/// position of the next key asked for. Shared by the decoder and its containers.
///
/// The row is either a copied ``Row`` or, on the fetch loops' fast path, the current row of a
/// ``Statement`` (read in place, the context reused from row to row: see `FastRecordDecoding`).
final class RowDecodingContext<Record: FetchableRecord> {
    let columns: ColumnNames
    /// The values of a copied row (empty when reading a statement).
    private let values: [SQLValue]
    /// The statement's handle when reading a statement: kept unretained, the statement outlives
    /// the context (the fetch loop holds it), and reading a column then costs no reference count.
    private let handle: OpaquePointer?
    let sourceSQL: String?
    private let hasPlan: Bool
    /// The plan's keys and columns (empty without a plan), held directly so that reading them
    /// costs no reference counting.
    private let planKeys: [String]
    private let planColumns: [Int]
    /// The plan's key bits and their key type (empty and nil when the plan compares strings).
    private let planBits: [UInt64]
    private let planKeyType: ObjectIdentifier?
    private var position = 0
    /// The keys and columns met so far, while there is no plan yet; nil once a key was asked for
    /// twice or out of order (then no plan is kept).
    private var recordedKeys: [String]?
    private var recordedColumns: [Int] = []
    private var recordedBits: [UInt64] = []
    /// The type of the keys met so far; nil with `bitsUsable` false once a key had no bits or
    /// another type.
    private var recordedKeyType: ObjectIdentifier?
    private var bitsUsable = true
    /// True for a statement context, which serves every row of a fetch.
    let isReused: Bool
    /// The keyed container of the last row, for the next (see `RowDecoder.container(keyedBy:)`).
    var cachedContainer: AnyObject?
    var cachedContainerKey: ObjectIdentifier?

    /// The scopes and prefetched rows of a copied row (empty when reading a statement).
    let scopes: [String: Row]
    let prefetchedRows: [String: [Row]]
    /// The row without its scopes, for a record decoded from the base columns (`var note: Note`).
    let baseRow: Row?

    init(row: Row) {
        self.scopes = row.scopes
        self.prefetchedRows = row.prefetchedRows
        self.baseRow =
            row.scopes.isEmpty && row.prefetchedRows.isEmpty
            ? nil : Row(columns: row.columns, values: row.values, sourceSQL: row.sourceSQL)
        self.columns = row.columns
        self.values = row.values
        self.handle = nil
        self.isReused = false
        self.sourceSQL = row.sourceSQL
        let plan = row.columns.decodingPlan(for: ObjectIdentifier(Record.self))
        self.hasPlan = plan != nil
        self.planKeys = plan?.keys ?? []
        self.planColumns = plan?.columns ?? []
        self.planBits = plan?.keyBits ?? []
        self.planKeyType = plan?.keyType
        if plan == nil {
            recordedKeys = []
            recordedKeys?.reserveCapacity(row.values.count)
            recordedColumns.reserveCapacity(row.values.count)
        }
    }

    /// A context reading the current row of `statement` with `plan`, reused for each row.
    init(statement: Statement, columns: ColumnNames, plan: RowDecodingPlan) {
        self.scopes = [:]
        self.prefetchedRows = [:]
        self.baseRow = nil
        self.columns = columns
        self.values = []
        self.handle = statement.handle
        self.isReused = true
        self.sourceSQL = statement.sql
        self.hasPlan = true
        self.planKeys = plan.keys
        self.planColumns = plan.columns
        self.planBits = plan.keyBits
        self.planKeyType = plan.keyType
    }

    /// Starts the next row of the statement.
    @inline(__always)
    func startRow() { position = 0 }

    /// The row being decoded, for error messages.
    var columnNames: [String] { columns.names }

    /// True when column `index` is NULL.
    @inline(__always)
    func isNull(at index: Int) -> Bool {
        if let handle { return sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
        return values[index].isNull
    }

    /// The value of column `index` of the row.
    @inline(__always)
    func value(at index: Int) -> SQLValue {
        if let handle { return Statement.columnValue(handle, at: index) }
        return values[index]
    }

    /// Keeps the plan of the first row for the rows that follow.
    func finish() {
        guard !hasPlan, let recordedKeys else { return }
        columns.storeDecodingPlan(
            RowDecodingPlan(
                recordType: ObjectIdentifier(Record.self), keys: recordedKeys, columns: recordedColumns,
                keyBits: recordedBits, keyType: bitsUsable ? recordedKeyType : nil))
    }

    /// The index of the column of `key`, or nil when the row has none. `bits` are the key's
    /// (``CodingKeyBits``): with a plan of the same key type, the n-th key asked for is checked
    /// against the plan's n-th by its bits alone.
    @inline(__always)
    func columnIndex<K: CodingKey>(for key: K, bits: UInt64) -> Int? {
        let p = position
        position = p + 1
        if p < planBits.count, planBits[p] == bits, planKeyType == ObjectIdentifier(K.self) {
            let column = planColumns[p]
            return column >= 0 ? column : nil
        }
        return columnIndexByName(for: key, bits: bits, position: p)
    }

    @inline(never)
    private func columnIndexByName<K: CodingKey>(for key: K, bits: UInt64, position p: Int) -> Int? {
        let name = key.stringValue
        if p < planKeys.count, planKeys[p] == name {
            let column = planColumns[p]
            return column >= 0 ? column : nil
        }
        return resolveColumn(forKey: name, bits: bits, keyType: ObjectIdentifier(K.self), position: p)
    }

    private func resolveColumn(forKey key: String, bits: UInt64, keyType: ObjectIdentifier, position p: Int) -> Int? {
        let column = lookUpColumn(forKey: key)
        if recordedKeys != nil {
            if recordedKeys!.count == p, !recordedKeys!.contains(key) {
                recordedKeys!.append(key)
                recordedColumns.append(column ?? -1)
                recordedBits.append(bits)
                if bits == CodingKeyBits.none || (recordedKeyType != nil && recordedKeyType != keyType) {
                    bitsUsable = false
                }
                recordedKeyType = keyType
            } else {
                recordedKeys = nil
            }
        }
        return column
    }

    private func lookUpColumn(forKey key: String) -> Int? {
        switch Record.databaseColumnDecodingStrategy {
        case .useDefaultKeys:
            return columns.index(of: key)
        case .convertFromSnakeCase:
            for (i, name) in columns.names.enumerated() where SnakeCase.camelCase(name) == key { return i }
            return columns.index(of: SnakeCase.snakeCase(key))
        case .custom(let keyForColumn):
            for (i, name) in columns.names.enumerated() where keyForColumn(name).stringValue == key { return i }
            return nil
        }
    }

    /// The column a key would be read from, for messages.
    func columnName(forKey key: String) -> String {
        switch Record.databaseColumnDecodingStrategy {
        case .useDefaultKeys, .custom: key
        case .convertFromSnakeCase: SnakeCase.snakeCase(key)
        }
    }

    // MARK: Values

    /// The value of column `index` converted to `T`.
    @inline(__always)
    func scalar<T: SQLValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        if let handle, let result = RowDecodingContext.read(T.self, handle, index) { return result }
        return try convert(T.self, at: index)
    }

    /// The value of column `index` converted to `T`, or nil for NULL: on a statement, one
    /// `sqlite3_column_value` serves both the NULL test and the read.
    @inline(__always)
    func scalarIfPresent<T: SQLValueConvertible>(_ type: T.Type, at index: Int) throws -> T? {
        if let handle {
            guard let value = sqlite3_column_value(handle, Int32(index)) else { return try convert(T.self, at: index) }
            let storage = sqlite3_value_type(value)
            if storage == SQLITE_NULL { return nil }
            if let result = RowDecodingContext.read(T.self, value, storage) { return result }
            return try convert(T.self, at: index)
        }
        if values[index].isNull { return nil }
        return try convert(T.self, at: index)
    }

    /// The general path of a read: the column as an ``SQLValue``, converted, or the error naming
    /// the column.
    @inline(never)
    private func convert<T: SQLValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        let value = value(at: index)
        guard let result = T.fromSQLValue(value) else { throw mismatch(at: index, value, T.self) }
        return result
    }

    /// The common cases of a statement column read without building an ``SQLValue``: an INTEGER
    /// as `Int64`, `Int` or `Bool`, a REAL as `Double`, a TEXT as `String`. Nil for the others,
    /// which take the general path (and its errors). `T` is known where this is inlined, so the
    /// type tests fold away. See <https://www.sqlite.org/c3ref/column_blob.html>.
    @inline(__always)
    static func read<T>(_ type: T.Type, _ handle: OpaquePointer, _ index: Int) -> T? {
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return nil }
        return read(T.self, value, sqlite3_value_type(value))
    }

    /// `value` (of storage class `storage`) as `T`, for the common cases; nil for the others.
    @inline(__always)
    static func read<T>(_ type: T.Type, _ value: OpaquePointer, _ storage: Int32) -> T? {
        switch storage {
        case SQLITE_INTEGER:
            if T.self == Int64.self { return unsafeBitCast(sqlite3_value_int64(value), to: T.self) }
            if T.self == Int.self { return unsafeBitCast(Int(sqlite3_value_int64(value)), to: T.self) }
            if T.self == Bool.self { return unsafeBitCast(sqlite3_value_int64(value) != 0, to: T.self) }
        case SQLITE_FLOAT:
            if T.self == Double.self { return unsafeBitCast(sqlite3_value_double(value), to: T.self) }
        case SQLITE_TEXT:
            // Text that is not valid UTF-8 gives nil: the general path reads it as a blob and
            // throws (see `Statement.text(of:)`).
            if T.self == String.self, let text = sqlite3_value_text(value),
                let string = Statement.validUTF8(text, count: Int(sqlite3_value_bytes(value)))
            {
                return unsafeBitCast(string, to: T.self)
            }
        default:
            break
        }
        return nil
    }

    /// The value of column `index` decoded as `T`: a `Date` by the record's date strategy, an
    /// ``SQLValueConvertible`` by its conversion, anything else through its `Decodable`
    /// conformance from the single value, or from JSON text when it wants a container.
    func decodeColumn<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        let value = value(at: index)
        if T.self == Date.self {
            let strategy = Record.databaseDateDecodingStrategy(for: columns.names[index])
            guard let date = strategy.decode(value) else { throw mismatch(at: index, value, Date.self) }
            return date as! T
        }
        if let convertible = T.self as? any SQLValueConvertible.Type {
            func convert<C: SQLValueConvertible>(_: C.Type) -> T? { C.fromSQLValue(value).map { $0 as! T } }
            guard let result = convert(convertible) else { throw mismatch(at: index, value, T.self) }
            return result
        }
        do {
            return try T(from: ColumnDecoder(context: self, index: index))
        } catch is JSONRequired {
            return try decodeJSON(T.self, at: index)
        } catch let error as DecodingError {
            throw mismatch(at: index, value, T.self, detail: DecodingErrorText.describe(error))
        }
    }

    private func decodeJSON<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        let value = value(at: index)
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let bytes): data = Data(bytes)
        default: throw mismatch(at: index, value, T.self, detail: "JSON text expected")
        }
        do {
            return try Record.databaseJSONDecoder(for: columns.names[index]).decode(T.self, from: data)
        } catch let error as DecodingError {
            throw mismatch(at: index, value, T.self, detail: "JSON: " + DecodingErrorText.describe(error))
        }
    }

    // MARK: Errors

    func columnNotFound(forKey key: String, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            code: .columnNotFound, column: "\"\(columnName(forKey: key))\"", requestedType: "\(type)", value: nil,
            availableColumns: columns.names, sql: sourceSQL, recordType: "\(Record.self)")
    }

    func mismatch(at index: Int, _ value: SQLValue, _ type: Any.Type, detail: String? = nil) -> RowDecodingError {
        RowDecodingError(
            code: .typeMismatch, column: "\"\(columns.names[index])\"", requestedType: "\(type)", value: value,
            availableColumns: columns.names, sql: sourceSQL, recordType: "\(Record.self)",
            detail: detail ?? RowDecodingError.textDetail(value, type))
    }
}

/// Thrown by ``ColumnDecoder`` when a value wants a keyed or unkeyed container: the column holds
/// JSON.
struct JSONRequired: Error {}

/// A `DecodingError` or `EncodingError` in one line.
enum DecodingErrorText {
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? context.debugDescription : "at \(keys): \(context.debugDescription)"
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return path(context)
        case .keyNotFound(let key, let context):
            return "no key \"\(key.stringValue)\"" + (context.codingPath.isEmpty ? "" : " " + path(context))
        @unknown default:
            return "\(error)"
        }
    }
}
