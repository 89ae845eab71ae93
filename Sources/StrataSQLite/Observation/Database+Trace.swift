import CSQLite

/// What a statement tracer is told: a statement starting, or a statement done with its duration.
///
/// ```swift
/// db.trace(options: .profile) { event in
///     if let duration = event.duration, duration > .milliseconds(100) { print("slow: \(event.sql)") }
/// }
/// ```
///
/// ``sql`` shows bound values (`sqlite3_expanded_sql`) only when
/// ``Configuration/publicStatementArguments`` is on; otherwise it is the SQL as written, with
/// its `?` and `:name` placeholders, since values may be personal data.
public struct TraceEvent: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of event.
    public enum Kind: Sendable, Hashable {
        /// A statement starts running (`SQLITE_TRACE_STMT`), or a trigger's program starts
        /// (``TraceEvent/sql`` is then `-- TRIGGER name`).
        case statement
        /// A statement finished (`SQLITE_TRACE_PROFILE`); ``TraceEvent/duration`` is set.
        case profile
    }

    /// Which kind of event.
    public let kind: Kind
    /// The statement's SQL (expanded only when bound values may be shown).
    public let sql: String
    /// How long the statement ran (wall time as SQLite measures it), for ``Kind/profile``.
    public let duration: Duration?

    /// An event from its parts.
    public init(kind: Kind, sql: String, duration: Duration? = nil) {
        self.kind = kind
        self.sql = sql
        self.duration = duration
    }

    /// The SQL, preceded by the duration in milliseconds for a profile event: `1.204 ms  SELECT ...`.
    public var description: String {
        guard let duration else { return sql }
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return "\(milliseconds.formatted(fractionDigits: 3)) ms  \(sql)"
    }
}

/// Which statement events a tracer receives (see ``Database/trace(options:_:)``).
public struct TraceOptions: OptionSet, Sendable, Hashable {
    /// The `SQLITE_TRACE_*` mask.
    public let rawValue: UInt32
    /// Options from a mask.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Each statement as it starts (`SQLITE_TRACE_STMT`).
    public static let statements = TraceOptions(rawValue: UInt32(SQLITE_TRACE_STMT))
    /// Each statement as it ends, with its duration (`SQLITE_TRACE_PROFILE`).
    public static let profile = TraceOptions(rawValue: UInt32(SQLITE_TRACE_PROFILE))
}

extension Database {
    /// Calls `tracer` for each statement this connection runs (nil stops tracing), through
    /// `sqlite3_trace_v2` (SQLite 3.14+). See <https://www.sqlite.org/c3ref/trace_v2.html>.
    ///
    /// ```swift
    /// db.trace { event in print("SQL: \(event.sql)") }                     // each statement
    /// db.trace(options: .profile) { event in log(event.description) }        // with durations
    /// ```
    ///
    /// A trigger's program is reported as `-- TRIGGER name`, then each of its statements as a
    /// comment (`-- INSERT INTO log VALUES (new.x)`). Bound values appear only
    /// when ``Configuration/publicStatementArguments`` is on. To trace every connection of a
    /// ``DatabasePool`` or ``DatabaseQueue``, set ``Configuration/tracer`` instead.
    public func trace(options: TraceOptions = .statements, _ tracer: ((TraceEvent) -> Void)?) {
        guard !isClosed else { return }
        hooks.tracer = tracer
        hooks.tracesExpandedSQL = configuration.publicStatementArguments
        guard tracer != nil, !options.isEmpty else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        // The callback's P is the statement, X its unexpanded text (STMT) or a pointer to the
        // elapsed nanoseconds (PROFILE).
        sqlite3_trace_v2(
            handle, options.rawValue,
            { mask, context, statement, x in
                guard let context, let statement else { return 0 }
                let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
                guard let tracer = hooks.tracer else { return 0 }
                let handle = OpaquePointer(statement)
                if mask == UInt32(SQLITE_TRACE_STMT) {
                    // "The X argument points to a UTF-8 string which is the unexpanded SQL text
                    // of the prepared statement or an SQL comment that indicates the invocation
                    // of a trigger."
                    if let x, let text = Optional(String(cString: x.assumingMemoryBound(to: CChar.self))),
                        text.hasPrefix("--")
                    {
                        tracer(TraceEvent(kind: .statement, sql: text))
                    } else {
                        tracer(
                            TraceEvent(
                                kind: .statement,
                                sql: ConnectionHooks.sql(of: handle, expanded: hooks.tracesExpandedSQL)))
                    }
                } else if mask == UInt32(SQLITE_TRACE_PROFILE) {
                    let nanoseconds = x?.assumingMemoryBound(to: Int64.self).pointee ?? 0
                    tracer(
                        TraceEvent(
                            kind: .profile, sql: ConnectionHooks.sql(of: handle, expanded: hooks.tracesExpandedSQL),
                            duration: .nanoseconds(nanoseconds)))
                }
                return 0
            },
            Unmanaged.passUnretained(hooks).toOpaque())
    }
}

extension ConnectionHooks {
    /// A statement's SQL: expanded with its bound values (`sqlite3_expanded_sql`, whose result
    /// the caller frees) or as written. https://www.sqlite.org/c3ref/expanded_sql.html
    static func sql(of statement: OpaquePointer, expanded: Bool) -> String {
        if expanded, let text = sqlite3_expanded_sql(statement) {
            defer { sqlite3_free(text) }
            return Database.statementText(String(cString: text))
        }
        return sqlite3_sql(statement).map { Database.statementText(String(cString: $0)) } ?? ""
    }
}

extension Double {
    /// The number with exactly `digits` decimals, without Foundation's locale-dependent formatting.
    func formatted(fractionDigits digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (self * scale).rounded()
        let whole = Int64(scaled / scale)
        let fraction = Int64(abs(scaled) - abs(Double(whole)) * scale)
        let digitsText = String(fraction)
        return "\(whole).\(String(repeating: "0", count: max(0, digits - digitsText.count)))\(digitsText)"
    }
}
