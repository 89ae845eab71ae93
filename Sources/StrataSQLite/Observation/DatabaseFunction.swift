import CSQLite
import Foundation

/// An SQL function written in Swift: scalar (a closure over the arguments) or aggregate (a type
/// that accumulates rows), registered with ``Database/add(function:)`` or for every connection
/// with ``Configuration/functions``. See <https://www.sqlite.org/c3ref/create_function.html>.
///
/// ```swift
/// let initials = DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { arguments in
///     guard case .text(let name) = arguments[0] else { return nil }
///     return String(name.split(separator: " ").compactMap(\.first))
/// }
/// try db.add(function: initials)
/// let value = try db.fetchValue(String.self, sql: "SELECT initials('Arthur Dent')")   // "AD"
/// ```
///
/// An error thrown by the closure fails the statement with SQLITE_ERROR and the error's
/// description as SQLite's message. Mark a function deterministic (same arguments, same result,
/// no side effect) to use it in an index expression, a CHECK constraint or a generated column.
/// A function is called on the thread of the connection that runs the statement, so with a
/// ``DatabasePool`` it may run on several threads at once: it must be `Sendable`.
public final class DatabaseFunction: Sendable, Hashable, CustomStringConvertible {
    /// The function's SQL name.
    public let name: String
    /// How many arguments it takes; nil: any number (`-1` for SQLite).
    public let argumentCount: Int?
    /// Whether it always gives the same result for the same arguments (`SQLITE_DETERMINISTIC`).
    public let isDeterministic: Bool
    let kind: Kind

    /// True for an aggregate function (what SQLite accepts where a schema names the function differs).
    package var isAggregate: Bool {
        if case .aggregate = kind { return true }
        return false
    }

    enum Kind: Sendable {
        case scalar(@Sendable ([SQLValue]) throws -> (any SQLValueConvertible)?)
        case aggregate(@Sendable () -> any DatabaseAggregate)
    }

    /// A scalar function: `function` gets the arguments and returns the result (nil is NULL).
    public init(
        _ name: String, argumentCount: Int? = nil, isDeterministic: Bool = false,
        function: @escaping @Sendable ([SQLValue]) throws -> (any SQLValueConvertible)?
    ) {
        self.name = name
        self.argumentCount = argumentCount
        self.isDeterministic = isDeterministic
        self.kind = .scalar(function)
    }

    /// An aggregate function: a fresh `Aggregate` is made for each group, given each row's
    /// arguments with ``DatabaseAggregate/step(_:)``, and asked for the result with
    /// ``DatabaseAggregate/finalize()``.
    ///
    /// ```swift
    /// struct Median: DatabaseAggregate {
    ///     var values: [Double] = []
    ///     mutating func step(_ arguments: [SQLValue]) throws {
    ///         if let value = Double.fromSQLValue(arguments[0]) { values.append(value) }
    ///     }
    ///     func finalize() throws -> (any SQLValueConvertible)? {
    ///         values.isEmpty ? nil : values.sorted()[values.count / 2]
    ///     }
    /// }
    /// try db.add(function: DatabaseFunction("median", argumentCount: 1, aggregate: Median.self))
    /// ```
    public init<Aggregate: DatabaseAggregate>(
        _ name: String, argumentCount: Int? = nil, isDeterministic: Bool = false, aggregate: Aggregate.Type
    ) {
        self.name = name
        self.argumentCount = argumentCount
        self.isDeterministic = isDeterministic
        self.kind = .aggregate { Aggregate() }
    }

    /// Functions are identified by name (case-insensitive) and argument count, as in SQLite.
    public static func == (a: DatabaseFunction, b: DatabaseFunction) -> Bool { a.key == b.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// `initials/1`, `concat_all/*`.
    public var description: String { "\(name)/\(argumentCount.map(String.init) ?? "*")" }

    var key: String { "\(name.asciiLowercasedKey)/\(argumentCount ?? -1)" }
}

#if compiler(>=6.2)
/// What ``DatabaseAggregate`` refines: `SendableMetatype` from Swift 6.2 on, as SQLite calls
/// `init()` on the aggregate's type from whichever thread runs the query.
public typealias DatabaseAggregateBase = SendableMetatype
#else
/// What ``DatabaseAggregate`` refines (`SendableMetatype` from Swift 6.2 on).
public protocol DatabaseAggregateBase {}
#endif

/// The state of an aggregate function for one group of rows (see
/// ``DatabaseFunction/init(_:argumentCount:isDeterministic:aggregate:)``).
public protocol DatabaseAggregate: DatabaseAggregateBase {
    /// A fresh state, for a new group.
    init()
    /// Adds one row's arguments.
    mutating func step(_ arguments: [SQLValue]) throws
    /// The group's result (nil is NULL).
    func finalize() throws -> (any SQLValueConvertible)?
}

/// A text collation written in Swift, for `COLLATE name` in queries, columns and indexes;
/// registered with ``Database/add(collation:)`` or for every connection with
/// ``Configuration/collations``. See <https://www.sqlite.org/c3ref/create_collation.html>.
///
/// ```swift
/// let localized = DatabaseCollation("localized") { a, b in a.localizedStandardCompare(b) }
/// try db.add(collation: localized)
/// try db.execute(sql: "CREATE INDEX player_name ON player(name COLLATE localized)")
/// ```
///
/// The comparison must be a consistent total order (and stay the same for the life of the
/// database file when an index uses it), or indexes built with it are corrupt.
public final class DatabaseCollation: Sendable, Hashable, CustomStringConvertible {
    /// The collation's SQL name.
    public let name: String
    let compare: @Sendable (String, String) -> ComparisonResult

    /// A collation ordering text with `compare`.
    public init(_ name: String, compare: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = compare
    }

    /// Collations are identified by name (case-insensitive).
    public static func == (a: DatabaseCollation, b: DatabaseCollation) -> Bool {
        a.name.asciiLowercasedKey == b.name.asciiLowercasedKey
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(name.asciiLowercasedKey) }
    /// The name.
    public var description: String { name }
}

extension Database {
    /// Registers `function` on this connection (replacing one with the same name and argument
    /// count). For every connection of a pool, use ``Configuration/functions``.
    ///
    /// ```swift
    /// try db.add(function: DatabaseFunction("double", argumentCount: 1, isDeterministic: true) { args in
    ///     Int64.fromSQLValue(args[0]).map { $0 * 2 }
    /// })
    /// ```
    /// Fails with SQLITE_MISUSE for a bad name or argument count (more than 127), and with
    /// SQLITE_BUSY while a statement that uses a function of the same name runs.
    public func add(function: DatabaseFunction) throws {
        try checkOpen(nil)
        let box = Unmanaged.passRetained(function).toOpaque()
        var flags = SQLITE_UTF8
        if function.isDeterministic { flags |= SQLITE_DETERMINISTIC }
        let count = Int32(clamping: function.argumentCount ?? -1)
        let rc: Int32
        switch function.kind {
        case .scalar:
            rc = sqlite3_create_function_v2(
                handle, function.name, count, flags, box,
                { context, count, values in
                    let function = DatabaseFunction.from(context)
                    guard case .scalar(let body) = function.kind else { return }
                    do {
                        DatabaseFunction.setResult(try body(DatabaseFunction.arguments(count, values)), context)
                    } catch {
                        DatabaseFunction.setError(error, function, context)
                    }
                }, nil, nil, { box in box.map { Unmanaged<DatabaseFunction>.fromOpaque($0).release() } })
        case .aggregate:
            rc = sqlite3_create_function_v2(
                handle, function.name, count, flags, box, nil,
                { context, count, values in
                    let function = DatabaseFunction.from(context)
                    guard let state = DatabaseFunction.aggregateState(context, create: true) else {
                        sqlite3_result_error_nomem(context)
                        return
                    }
                    guard state.error == nil else { return }
                    do {
                        try state.aggregate.step(DatabaseFunction.arguments(count, values))
                    } catch {
                        state.error = error
                        DatabaseFunction.setError(error, function, context)
                    }
                },
                { context in
                    let function = DatabaseFunction.from(context)
                    // No row at all: no state was made; a fresh aggregate gives the empty result.
                    let state = DatabaseFunction.aggregateState(context, create: false)
                    defer { DatabaseFunction.releaseAggregateState(context) }
                    if let error = state?.error {
                        DatabaseFunction.setError(error, function, context)
                        return
                    }
                    do {
                        guard case .aggregate(let make) = function.kind else { return }
                        let aggregate = state?.aggregate ?? make()
                        DatabaseFunction.setResult(try aggregate.finalize(), context)
                    } catch {
                        DatabaseFunction.setError(error, function, context)
                    }
                }, { box in box.map { Unmanaged<DatabaseFunction>.fromOpaque($0).release() } })
        }
        // "If sqlite3_create_function_v2() fails, then the destructor is invoked" (3.25+):
        // the box must not be released a second time here.
        if rc != SQLITE_OK {
            throw SQLiteError(
                resultCode: ResultCode(rawValue: rc),
                message: "cannot register function \(function): \(String(cString: sqlite3_errmsg(handle)))")
        }
        hooks.functions[function.key] = function
    }

    /// Unregisters the function with the same name and argument count as `function`.
    ///
    /// ```swift
    /// try db.remove(function: initials)
    /// ```
    public func remove(function: DatabaseFunction) throws {
        try checkOpen(nil)
        let rc = sqlite3_create_function_v2(
            handle, function.name, Int32(clamping: function.argumentCount ?? -1), SQLITE_UTF8, nil, nil, nil, nil, nil)
        if rc != SQLITE_OK { throw connection.error(code: rc, sql: nil) }
        hooks.functions[function.key] = nil
    }

    /// Registers `collation` on this connection (replacing one with the same name). For every
    /// connection of a pool, use ``Configuration/collations``.
    ///
    /// ```swift
    /// try db.add(collation: DatabaseCollation("length") { a, b in
    ///     a.utf8.count < b.utf8.count ? .orderedAscending : a.utf8.count > b.utf8.count ? .orderedDescending : .orderedSame
    /// })
    /// ```
    public func add(collation: DatabaseCollation) throws {
        try checkOpen(nil)
        let box = Unmanaged.passRetained(collation).toOpaque()
        let rc = sqlite3_create_collation_v2(
            handle, collation.name, SQLITE_UTF8, box,
            { context, length1, bytes1, length2, bytes2 in
                guard let context else { return 0 }
                let collation = Unmanaged<DatabaseCollation>.fromOpaque(context).takeUnretainedValue()
                let a = String(decoding: UnsafeRawBufferPointer(start: bytes1, count: Int(length1)), as: UTF8.self)
                let b = String(decoding: UnsafeRawBufferPointer(start: bytes2, count: Int(length2)), as: UTF8.self)
                switch collation.compare(a, b) {
                case .orderedAscending: return -1
                case .orderedDescending: return 1
                case .orderedSame: return 0
                }
            }, { box in box.map { Unmanaged<DatabaseCollation>.fromOpaque($0).release() } })
        if rc != SQLITE_OK {
            // "If sqlite3_create_collation_v2() fails, the destructor is not called": release here.
            Unmanaged<DatabaseCollation>.fromOpaque(box).release()
            throw SQLiteError(
                resultCode: ResultCode(rawValue: rc),
                message: "cannot register collation \(collation.name): \(String(cString: sqlite3_errmsg(handle)))")
        }
        hooks.collations[collation.name.asciiLowercasedKey] = collation
    }

    /// The functions registered on this connection (through ``Configuration/functions`` or
    /// ``add(function:)``), so that copies of the database (the schema engine's scratch
    /// databases) can register them too.
    public var registeredFunctions: [DatabaseFunction] {
        hooks.functions.values.sorted { $0.key < $1.key }
    }

    /// The collations registered on this connection (through ``Configuration/collations`` or
    /// ``add(collation:)``).
    public var registeredCollations: [DatabaseCollation] {
        hooks.collations.values.sorted { $0.name.asciiLowercasedKey < $1.name.asciiLowercasedKey }
    }

    /// Registers the configuration's functions and collations and installs its tracer: part of
    /// opening a connection.
    func applyHooksConfiguration() throws {
        for collation in configuration.collations { try add(collation: collation) }
        for function in configuration.functions { try add(function: function) }
        if let tracer = configuration.tracer {
            trace(options: configuration.traceOptions) { event in tracer(event) }
        }
    }
}

/// The state of one group of an aggregate function, kept in SQLite's aggregate context.
final class AggregateState {
    var aggregate: any DatabaseAggregate
    var error: (any Error)?
    init(_ aggregate: any DatabaseAggregate) { self.aggregate = aggregate }
}

extension DatabaseFunction {
    static func from(_ context: OpaquePointer?) -> DatabaseFunction {
        Unmanaged<DatabaseFunction>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    }

    static func arguments(_ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) -> [SQLValue] {
        guard let values else { return [] }
        return (0..<Int(count)).map { i in
            guard let value = values[i] else { return .null }
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
            case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
            case SQLITE_TEXT: return Statement.text(of: value)
            case SQLITE_BLOB: return Statement.blob(of: value)
            default: return .null
            }
        }
    }

    static func setResult(_ result: (any SQLValueConvertible)?, _ context: OpaquePointer?) {
        switch result?.sqlValue ?? .null {
        case .null: sqlite3_result_null(context)
        case .integer(let value): sqlite3_result_int64(context, value)
        case .real(let value): sqlite3_result_double(context, value)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress {
                        sqlite3_result_text64(
                            context, base, UInt64(chars.count), strata_transient(), UInt8(SQLITE_UTF8))
                    } else {
                        sqlite3_result_text(context, "", 0, strata_transient())
                    }
                }
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes { buffer in
                sqlite3_result_blob64(
                    context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count),
                    strata_transient())
            }
        }
    }

    /// The error's description becomes SQLite's message: "initials(): <description>".
    static func setError(_ error: any Error, _ function: DatabaseFunction, _ context: OpaquePointer?) {
        let message = "\(function.name)(): \(error)"
        sqlite3_result_error(context, message, -1)
    }

    /// The group's state, made on the first row. SQLite's aggregate context holds a pointer to it.
    static func aggregateState(_ context: OpaquePointer?, create: Bool) -> AggregateState? {
        let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
        guard let slot = sqlite3_aggregate_context(context, create ? size : 0) else { return nil }
        let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        if let existing = pointer.pointee {
            return Unmanaged<AggregateState>.fromOpaque(existing).takeUnretainedValue()
        }
        guard create else { return nil }
        let state = AggregateState(from(context).makeAggregate())
        pointer.pointee = Unmanaged.passRetained(state).toOpaque()
        return state
    }

    static func releaseAggregateState(_ context: OpaquePointer?) {
        guard let slot = sqlite3_aggregate_context(context, 0) else { return }
        let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        if let existing = pointer.pointee {
            Unmanaged<AggregateState>.fromOpaque(existing).release()
            pointer.pointee = nil
        }
    }

    func makeAggregate() -> any DatabaseAggregate {
        guard case .aggregate(let make) = kind else { preconditionFailure("not an aggregate") }
        return make()
    }
}
