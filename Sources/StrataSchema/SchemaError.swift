import StrataSQLite

/// An error of the declarative engine: invalid desired SQL, a refused destructive change, a
/// failed preflight, an unresolvable rename hint, a plan that does not converge...
///
/// The message names the culprit first (statement, table, column), and ``culprit`` holds it.
///
/// ```swift
/// do { try db.migrateSchema(to: sql) }
/// catch let error as SchemaError where error.code == .destructiveChangesRefused {
///     print(error.destructiveChanges)   // ["drop column user.nickname (12 rows)"]
/// }
/// ```
public struct SchemaError: StrataError, Hashable {
    /// What kind of failure this is. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The desired schema SQL was rejected by SQLite.
        public static let invalidSQL = Code(rawValue: "invalid-sql")
        /// The plan drops tables, columns or virtual tables and destructive changes were not allowed.
        public static let destructiveChangesRefused = Code(rawValue: "destructive-changes-refused")
        /// A change cannot be applied to the data as it is (NOT NULL without default on rows...).
        public static let preflightFailed = Code(rawValue: "preflight-failed")
        /// A `-- @renamed from=` hint (or rename option) names nothing that exists.
        public static let unresolvedRename = Code(rawValue: "unresolved-rename")
        /// The desired schema uses an SQLite feature that the connection's SQLite lacks (generated
        /// columns before 3.31, STRICT before 3.37...): the message names it and both versions.
        public static let featureUnavailable = Code(rawValue: "feature-unavailable")
        /// A construct the engine refuses rather than handles.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The planned statements did not yield the desired schema: a bug in Strata, never applied.
        public static let planDidNotConverge = Code(rawValue: "plan-did-not-converge")
        /// Applying the plan would create foreign key violations.
        public static let foreignKeyViolation = Code(rawValue: "foreign-key-violation")
        /// The database schema changed between planning and applying.
        public static let schemaChanged = Code(rawValue: "schema-changed")
        /// A statement of the plan failed on the real database (the transaction was rolled back).
        public static let applyFailed = Code(rawValue: "apply-failed")
        /// Another connection or process runs an online rebuild of this database now: one runs at
        /// a time (nothing was changed; try again when it is done).
        public static let onlineRebuildRunning = Code(rawValue: "online-rebuild-running")
    }

    /// What kind of failure this is.
    public let code: Code
    /// One line, naming the culprit first.
    public let message: String
    /// What the message names first: a table (`user`), a column (`user.email`), a view, an index,
    /// a trigger, or a statement of the desired schema (`statement 3`); nil when the message
    /// names nothing in particular (a refused plan lists its changes in ``destructiveChanges``).
    public let culprit: String?
    /// For ``Code/destructiveChangesRefused``: every destructive change, one line each.
    public let destructiveChanges: [String]
    /// For ``Code/destructiveChangesRefused``: the proven plan that allowing destructive changes
    /// would apply (``SchemaChangeOptions/allowDestructive``), so a caller can show it without
    /// planning again; nil when the data breaks a condition of the change (there is no plan to
    /// apply), and for every other error.
    public var plan: Plan? { refusedPlan?.plan }
    private let refusedPlan: RefusedPlan?
    /// The SQLite error behind this one, if any.
    public let underlying: SQLiteError?

    /// ``underlying``, as every `StrataError` has it.
    public var underlyingError: (any Error)? { underlying }

    /// An error with the given code, message and culprit (the thing the message names first: a
    /// table, `table.column`, a view, an index, a trigger or `statement N`, as the user names it;
    /// nil when the message names nothing in particular).
    ///
    /// ```swift
    /// SchemaError(
    ///     code: .preflightFailed, message: "table user: column email becomes NOT NULL but 2 rows hold NULL",
    ///     culprit: "user")
    /// ```
    ///
    /// Every throw site of the engine passes the culprit it knows: a name is never read back from
    /// the message, where a name with a space or a colon could not be told from the text around it.
    public init(
        code: Code, message: String, culprit: String? = nil, destructiveChanges: [String] = [],
        underlying: SQLiteError? = nil
    ) {
        self.init(
            code: code, message: message, culprit: culprit, destructiveChanges: destructiveChanges, plan: nil,
            underlying: underlying)
    }

    init(
        code: Code, message: String, culprit: String?, destructiveChanges: [String], plan: Plan?,
        underlying: SQLiteError? = nil
    ) {
        self.refusedPlan = plan.map(RefusedPlan.init)
        self.code = code
        self.message = StrataErrorText.bounded(message)
        self.culprit = culprit
        self.destructiveChanges = destructiveChanges
        self.underlying = underlying
    }

    /// The ``message``, which names its culprit first in its own words (`table user: ...`,
    /// `statement 3: ...`) and quotes SQLite's message when there is one.
    public var description: String { describe(culprit: nil, cause: nil) }

    /// This error, for a failure whose rollback could not finish: its message no longer says the
    /// database is unchanged, and says what to do with the journal.
    func rollbackUnfinished(journal: String) -> SchemaError {
        let note =
            "the rollback could not finish (disk full or I/O error): the database file may hold pages of "
            + "the failed change until the hot journal \(journal) is played back, which the next connection that "
            + "opens the database does; keep that file, and no committed row is lost"
        var text = message.replacingAll("(rolled back, the database is unchanged)", with: "(\(note))")
        if text == message { text += " (\(note))" }
        return SchemaError(
            code: code, message: text, culprit: culprit, destructiveChanges: destructiveChanges, plan: plan,
            underlying: underlying)
    }

    static func unsupported(_ message: String) -> SchemaError {
        SchemaError(code: .unsupported, message: message)
    }
}

/// A refused plan inside a ``SchemaError``: equal to another when their steps are (a plan is not
/// `Hashable`; its steps are what the refusal shows).
private struct RefusedPlan: Sendable, Hashable {
    let plan: Plan

    static func == (a: RefusedPlan, b: RefusedPlan) -> Bool { a.plan.steps == b.plan.steps }
    func hash(into hasher: inout Hasher) { hasher.combine(plan.steps) }
}

/// The culprit a schema DSL message names first (``SchemaDefinitionError``: every such message
/// quotes its names with `SQL.quoteIdentifier`, so they are read back exactly). It opens with it: `table NAME: ...`, `column TABLE.NAME: ...`, `view NAME ...`, `index NAME ...`,
/// `trigger NAME ...`, `virtual table NAME: ...`, `statement N ...`, or the quoted name alone
/// (`"empty" has no columns`). A name in double quotes is unquoted (`""` is one quote).
enum SchemaCulprit {
    private static let kinds = ["virtual table ", "table ", "column ", "view ", "index ", "trigger "]

    static func named(atStartOf message: String) -> String? {
        var rest = Substring(message)
        if rest.hasPrefix("statement ") {
            let number = rest.dropFirst("statement ".count).prefix(while: \.isNumber)
            return number.isEmpty ? nil : "statement \(number)"
        }
        let kind = kinds.first { rest.hasPrefix($0) }
        if let kind { rest = rest.dropFirst(kind.count) }
        if rest.first == "\"" {
            var name = ""
            var index = rest.index(after: rest.startIndex)
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if character == "\"" {
                    guard index < rest.endIndex, rest[index] == "\"" else { return name.isEmpty ? nil : name }
                    index = rest.index(after: index)
                }
                name.append(character)
            }
            return nil  // an unterminated quote: not a name
        }
        guard kind != nil else { return nil }
        let name = rest.prefix { !$0.isWhitespace && $0 != ":" && $0 != "`" }
        return name.isEmpty ? nil : String(name)
    }
}
