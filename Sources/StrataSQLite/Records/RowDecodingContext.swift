import Foundation

/// The state of decoding one record from one row: the row, the plan of its columns, and the
/// position of the next key asked for. Shared by the decoder and its containers.
final class RowDecodingContext<Record: FetchableRecord> {
    let row: Row
    private let plan: RowDecodingPlan?
    private var position = 0
    /// The keys and columns met so far, while there is no plan yet; nil once a key was asked for
    /// twice or out of order (then no plan is kept).
    private var recordedKeys: [String]?
    private var recordedColumns: [Int] = []

    init(row: Row) {
        self.row = row
        self.plan = row.columns.decodingPlan(for: ObjectIdentifier(Record.self))
        if plan == nil {
            recordedKeys = []
            recordedKeys?.reserveCapacity(row.values.count)
            recordedColumns.reserveCapacity(row.values.count)
        }
    }

    /// Keeps the plan of the first row for the rows that follow.
    func finish() {
        guard plan == nil, let recordedKeys else { return }
        row.columns.storeDecodingPlan(
            RowDecodingPlan(recordType: ObjectIdentifier(Record.self), keys: recordedKeys, columns: recordedColumns))
    }

    /// The index of the column of `key`, or nil when the row has none.
    @inline(__always)
    func columnIndex(forKey key: String) -> Int? {
        let p = position
        position = p + 1
        if let plan, p < plan.keys.count, plan.keys[p] == key {
            let column = plan.columns[p]
            return column >= 0 ? column : nil
        }
        return resolveColumn(forKey: key, position: p)
    }

    private func resolveColumn(forKey key: String, position p: Int) -> Int? {
        let column = lookUpColumn(forKey: key)
        if recordedKeys != nil {
            if recordedKeys!.count == p, !recordedKeys!.contains(key) {
                recordedKeys!.append(key)
                recordedColumns.append(column ?? -1)
            } else {
                recordedKeys = nil
            }
        }
        return column
    }

    private func lookUpColumn(forKey key: String) -> Int? {
        switch Record.databaseColumnDecodingStrategy {
        case .useDefaultKeys:
            return row.index(ofColumn: key)
        case .convertFromSnakeCase:
            for (i, name) in row.columnNames.enumerated() where SnakeCase.camelCase(name) == key { return i }
            return row.index(ofColumn: SnakeCase.snakeCase(key))
        case .custom(let keyForColumn):
            for (i, name) in row.columnNames.enumerated() where keyForColumn(name).stringValue == key { return i }
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
        let value = row.values[index]
        guard let result = T.fromSQLValue(value) else { throw mismatch(at: index, value, T.self) }
        return result
    }

    /// The value of column `index` decoded as `T`: a `Date` by the record's date strategy, an
    /// ``SQLValueConvertible`` by its conversion, anything else through its `Decodable`
    /// conformance from the single value, or from JSON text when it wants a container.
    func decodeColumn<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        let value = row.values[index]
        if T.self == Date.self {
            let strategy = Record.databaseDateDecodingStrategy(for: row.columnNames[index])
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
        let value = row.values[index]
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let bytes): data = Data(bytes)
        default: throw mismatch(at: index, value, T.self, detail: "JSON text expected")
        }
        do {
            return try Record.databaseJSONDecoder(for: row.columnNames[index]).decode(T.self, from: data)
        } catch let error as DecodingError {
            throw mismatch(at: index, value, T.self, detail: "JSON: " + DecodingErrorText.describe(error))
        }
    }

    // MARK: Errors

    func columnNotFound(forKey key: String, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            kind: .columnNotFound, column: "\"\(columnName(forKey: key))\"", requestedType: "\(type)", value: nil,
            availableColumns: row.columnNames, sql: row.sourceSQL, recordType: "\(Record.self)")
    }

    func mismatch(at index: Int, _ value: SQLValue, _ type: Any.Type, detail: String? = nil) -> RowDecodingError {
        RowDecodingError(
            kind: .typeMismatch, column: "\"\(row.columnNames[index])\"", requestedType: "\(type)", value: value,
            availableColumns: row.columnNames, sql: row.sourceSQL, recordType: "\(Record.self)", detail: detail)
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
