import StrataSQLite

/// Which app versions a schema change must keep working for (``Plan/compatibility(policy:)``).
public enum CompatibilityPolicy: String, Sendable, Hashable, CaseIterable {
    /// The previous app version still runs against the new schema (a rollout, a rollback, a
    /// second process): changes that break its reads or writes are breaking.
    case previousVersion = "previous-version"
    /// A synced store (SQLiteData's CloudKit rules): besides the previous-version rules, no
    /// UNIQUE other than the primary key (in new tables too), added NOT NULL columns need
    /// `ON CONFLICT REPLACE` with their DEFAULT, foreign keys only with `ON DELETE CASCADE`,
    /// `SET NULL` or `SET DEFAULT`, and every new table has a single-column primary key.
    case sync
    /// Only additions are safe (a new table, a nullable or defaulted column, an index, a view, a
    /// trigger); every other change, and every data condition, is breaking.
    case strict
}

/// One change of a plan, classified for the app versions that still run (see
/// ``Plan/compatibility(policy:)``).
public struct CompatibilityFinding: Sendable, Hashable, CustomStringConvertible {
    /// How bad the change is for older app versions, in increasing order.
    public enum Level: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Older app versions keep working.
        case safe
        /// May fail on existing rows when it is applied (a data condition of the plan).
        case dataDependent = "data-dependent"
        /// Older readers or writers break.
        case breaking

        private var rank: Int {
            switch self {
            case .safe: return 0
            case .dataDependent: return 1
            case .breaking: return 2
            }
        }

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    }

    /// The stable codes of findings (listed in the StrataMigrations article "Upgrades over an app's life", "Will the previous app version still work?").
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case addTable = "add-table"
        case addColumn = "add-column"
        case addIndex = "add-index"
        case addView = "add-view"
        case addTrigger = "add-trigger"
        case dropIndex = "drop-index"
        case dropTrigger = "drop-trigger"
        case changeTrigger = "change-trigger"
        case changeIndex = "change-index"
        case redefineView = "redefine-view"
        case dropConstraint = "drop-constraint"
        case changeDefault = "change-default"
        case widenType = "widen-type"
        case dropTable = "drop-table"
        case dropColumn = "drop-column"
        case renameTable = "rename-table"
        case renameColumn = "rename-column"
        case addNotNullWithoutDefault = "add-not-null-without-default"
        case setNotNull = "set-not-null"
        case dropNotNull = "drop-not-null"
        case addUnique = "add-unique"
        case addCheck = "add-check"
        case addForeignKey = "add-foreign-key"
        case narrowType = "narrow-type"
        case changeColumn = "change-column"
        case changeTableOptions = "change-table-options"
        case changeView = "change-view"
        case dropView = "drop-view"
        case dataCondition = "data-condition"
        case syncUnique = "sync-unique"
        case syncNotNullWithoutReplace = "sync-not-null-without-replace"
        case syncForeignKeyAction = "sync-foreign-key-action"
        case syncPrimaryKey = "sync-primary-key"
    }

    public var code: Code
    public var level: Level
    /// The object: a table, `table.column`, an index, view or trigger name.
    public var object: String
    /// Why, in one line.
    public var reason: String
    /// The safer sequence of releases, when there is one (nil for safe changes).
    public var saferSequence: String?

    public init(code: Code, level: Level, object: String, reason: String, saferSequence: String? = nil) {
        self.code = code
        self.level = level
        self.object = object
        self.reason = reason
        self.saferSequence = saferSequence
    }

    /// `breaking drop-column note.body: reason`
    public var description: String { "\(level.rawValue) \(code.rawValue) \(object): \(reason)" }
}

/// The compatibility of a plan's changes under a policy (``Plan/compatibility(policy:)``).
public struct CompatibilityReport: Sendable, Hashable {
    public var policy: CompatibilityPolicy
    /// One finding per change, safe ones included, in the plan's order (tables, then indexes,
    /// views and triggers, then data conditions).
    public var findings: [CompatibilityFinding]

    public init(policy: CompatibilityPolicy, findings: [CompatibilityFinding]) {
        self.policy = policy
        self.findings = findings
    }

    /// The findings at `level` or above.
    public func findings(atLeast level: CompatibilityFinding.Level) -> [CompatibilityFinding] {
        findings.filter { $0.level >= level }
    }

    /// The highest level among the findings, nil when there are none.
    public var highestLevel: CompatibilityFinding.Level? { findings.map(\.level).max() }
}

extension Plan {
    /// Classifies every change of this plan for the app versions that still run: safe (a new
    /// table, a nullable or defaulted column, an index), breaking for older readers or writers
    /// (a drop, a rename, NOT NULL without a default, a new UNIQUE, CHECK or foreign key, a
    /// narrowing type change, a view whose columns change) or data-dependent (the plan's data
    /// conditions: the change may fail on existing rows). It reads the plan's ``diff``, the
    /// engine's one comparator.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: desiredSQL, options: .init(allowDestructive: true))
    /// for finding in plan.compatibility(policy: .previousVersion).findings(atLeast: .breaking) {
    ///     print(finding.code.rawValue, finding.object, finding.reason)
    /// }
    /// ```
    public func compatibility(policy: CompatibilityPolicy = .previousVersion) -> CompatibilityReport {
        var linter = CompatibilityLinter(policy: policy, base: base, desired: desired)
        linter.lint(diff)
        for step in steps {
            for g in step.guards where g.violationCount != nil {
                linter.add(
                    .dataCondition, g.culprit, "may fail on existing rows: \(g.message)",
                    "Clean or backfill the rows that break the condition in an earlier release (or give the column a DEFAULT), then apply the change."
                )
            }
        }
        return CompatibilityReport(policy: policy, findings: linter.findings)
    }
}

/// The classification rules of ``Plan/compatibility(policy:)``.
struct CompatibilityLinter {
    typealias Code = CompatibilityFinding.Code
    let policy: CompatibilityPolicy
    let base: DatabaseSchema
    let desired: DatabaseSchema
    var findings: [CompatibilityFinding] = []

    init(policy: CompatibilityPolicy, base: DatabaseSchema, desired: DatabaseSchema) {
        self.policy = policy
        self.base = base
        self.desired = desired
    }

    /// The level of `code` under the policy.
    func level(of code: Code) -> CompatibilityFinding.Level {
        switch code {
        case .addTable, .addColumn, .addIndex, .addView, .addTrigger:
            return .safe
        case .dropIndex, .dropTrigger, .changeTrigger, .changeIndex, .redefineView, .dropConstraint, .changeDefault,
            .widenType:
            return policy == .strict ? .breaking : .safe
        case .dataCondition:
            return policy == .strict ? .breaking : .dataDependent
        default:
            return .breaking
        }
    }

    mutating func add(_ code: Code, _ object: String, _ reason: String, _ safer: String? = nil) {
        let level = level(of: code)
        findings.append(
            CompatibilityFinding(
                code: code, level: level, object: object, reason: reason, saferSequence: level == .safe ? nil : safer))
    }

    static let expandContract =
        "Expand and contract: add the new one, backfill it from the old one (keep both written, e.g. with a trigger), switch readers to it, and drop the old one in a later release."

    mutating func lint(_ diff: SchemaDiff) {
        for table in diff.createdTables {
            add(.addTable, table.name, "new \(table.isVirtual ? "virtual table" : "table"): older versions ignore it")
            if policy == .sync { syncRules(newTable: table) }
        }
        for table in diff.droppedTables {
            add(
                .dropTable, table.name, "older versions still read and write table \(table.name)",
                "Stop using the table in one release; drop it in a later release, once no older version runs.")
        }
        for change in diff.changedTables { lint(change) }
        lintIndexes(diff)
        lintViews(diff)
        for t in diff.triggers.created { add(.addTrigger, t.name, "new trigger on \(t.table)") }
        for t in diff.triggers.dropped { add(.dropTrigger, t.name, "trigger on \(t.table) removed") }
        for t in diff.triggers.changed { add(.changeTrigger, t.new.name, "trigger on \(t.new.table) redefined") }
    }

    private mutating func lint(_ change: SchemaDiff.TableChange) {
        let (live, desired) = (change.live, change.desired)
        let name = desired.name
        if change.isRenamed {
            add(
                .renameTable, name, "renamed from \(live.name): older versions still use the old name",
                Self.expandContract + " (A view named like the old table can serve older readers meanwhile.)")
        }
        if live.isVirtual || desired.isVirtual {
            if !SchemaDiff.sameDefinition(live, desired) {
                add(
                    .changeTableOptions, name, "virtual table redefined (it is rebuilt)",
                    "Create the new virtual table beside the old one and switch readers before dropping the old one.")
            }
            return
        }
        for rename in change.columnRenames {
            add(
                .renameColumn, "\(name).\(rename.to)",
                "renamed from \(rename.from): older versions still read and write \(rename.from)", Self.expandContract)
        }
        for column in change.addedColumns { lint(addedColumn: column, in: desired) }
        for column in change.droppedColumns {
            add(
                .dropColumn, "\(name).\(column.name)",
                "older versions still read and write \(live.name).\(column.name)",
                "Stop reading and writing the column in one release; drop it in a later release, once no older version runs (expand and contract)."
            )
        }
        for redefinition in change.redefinedColumns { lint(redefinition, table: name, change: change) }
        lintConstraints(change)
        if live.isStrict != desired.isStrict || live.isWithoutRowID != desired.isWithoutRowID {
            let what =
                live.isStrict != desired.isStrict
                ? (desired.isStrict
                    ? "becomes STRICT: older writers' loosely typed values are refused" : "is no longer STRICT")
                : (desired.isWithoutRowID ? "becomes WITHOUT ROWID: older readers of rowid fail" : "gets a rowid")
            add(
                .changeTableOptions, name, "table \(what)",
                "Create the new table beside the old one, copy and keep both in step, switch readers, drop the old one later."
            )
        }
    }

    private mutating func lint(addedColumn c: ColumnInfo, in table: TableInfo) {
        let object = "\(table.name).\(c.name)"
        let tokens = Self.words(c.definition)
        if c.isNotNull && c.defaultSQL == nil && !c.isGenerated {
            add(
                .addNotNullWithoutDefault, object,
                "NOT NULL without a DEFAULT: older writers, which do not know the column, cannot insert",
                "Add the column nullable or with a DEFAULT, backfill it, and make it NOT NULL in a later release once no older writer runs."
            )
        } else {
            add(.addColumn, object, c.isNotNull ? "new column with a DEFAULT" : "new nullable column")
        }
        if tokens.contains("UNIQUE") {
            add(
                .addUnique, object, "the new column is UNIQUE: writers of the new version can collide",
                "Enforce uniqueness in the app first; add the UNIQUE constraint once every writer keeps it.")
        }
        if tokens.contains("CHECK") {
            add(
                .addCheck, object, "the new column has a CHECK that older writers know nothing of",
                "Add the column without the CHECK; add the CHECK once every writer respects it.")
        }
        if tokens.contains("REFERENCES") {
            add(
                .addForeignKey, object, "the new column references another table: its values must exist there",
                "Add the column without the foreign key; add it once every writer writes existing parents only.")
        }
        if policy == .sync {
            if c.isNotNull && c.defaultSQL != nil && !Self.hasNotNullOnConflictReplace(c.definition) {
                add(
                    .syncNotNullWithoutReplace, object,
                    "NOT NULL with a DEFAULT but without ON CONFLICT REPLACE: a record synced from an older device inserts NULL and fails",
                    "Declare it `NOT NULL ON CONFLICT REPLACE DEFAULT ...`, or nullable.")
            }
            if tokens.contains("UNIQUE") { syncUnique(object) }
            syncForeignKeys(of: table, columns: [c.name])
        }
    }

    private mutating func lint(_ r: SchemaDiff.ColumnRedefinition, table: String, change: SchemaDiff.TableChange) {
        let (old, new) = (r.live, r.desired)
        let object = "\(table).\(new.name)"
        var explained = false
        if !old.declaredType.asciiCaseInsensitiveEquals(new.declaredType) {
            explained = true
            let (from, to) = (Self.affinity(old.declaredType), Self.affinity(new.declaredType))
            if from == to {
                add(
                    .widenType, object,
                    "type \(old.declaredType.isEmpty ? "(none)" : old.declaredType) -> \(new.declaredType.isEmpty ? "(none)" : new.declaredType), the same affinity (\(to)): SQLite stores the same values"
                )
            } else if Self.widens(from: from, to: to) {
                add(.widenType, object, "type \(old.declaredType) -> \(new.declaredType) widens (\(from) -> \(to))")
            } else {
                add(
                    .narrowType, object,
                    "type \(old.declaredType.isEmpty ? "(none)" : old.declaredType) -> \(new.declaredType.isEmpty ? "(none)" : new.declaredType) narrows (\(from) -> \(to)): older writers' values are converted or refused, older readers get another type",
                    "Add a column of the new type, backfill converted values, switch readers, drop the old column later (expand and contract)."
                )
            }
        }
        if old.isNotNull != new.isNotNull {
            explained = true
            if new.isNotNull {
                add(
                    .setNotNull, object, "becomes NOT NULL: older writers that write NULL fail",
                    "Backfill the NULLs and ship writers that never write NULL; make the column NOT NULL in a later release."
                )
            } else {
                add(
                    .dropNotNull, object, "may now hold NULL: older readers expect a value",
                    "Ship readers that accept NULL first; relax the column in a later release.")
            }
        }
        if old.defaultSQL != new.defaultSQL {
            explained = true
            add(.changeDefault, object, "DEFAULT \(old.defaultSQL ?? "none") -> \(new.defaultSQL ?? "none")")
        }
        let (oldWords, newWords) = (Self.words(old.definition), Self.words(new.definition))
        if newWords.contains("UNIQUE") && !oldWords.contains("UNIQUE") {
            explained = true
            add(
                .addUnique, object,
                "becomes UNIQUE: older writers can write duplicates (and existing rows may hold some)",
                "Deduplicate, ship writers that keep values unique, add the UNIQUE constraint in a later release.")
            if policy == .sync { syncUnique(object) }
        } else if oldWords.contains("UNIQUE") && !newWords.contains("UNIQUE") {
            explained = true
            add(.dropConstraint, object, "no longer UNIQUE")
        }
        let (oldChecks, newChecks) = (Self.checkClauses(old.definition), Self.checkClauses(new.definition))
        if !newChecks.subtracting(oldChecks).isEmpty {
            explained = true
            add(
                .addCheck, object, "a new CHECK: older writers can violate it (and existing rows may)",
                "Clean the rows, ship writers that respect the condition, add the CHECK in a later release.")
        } else if !oldChecks.subtracting(newChecks).isEmpty {
            explained = true
            add(.dropConstraint, object, "a CHECK removed")
        }
        // Foreign keys are compared in lintConstraints.
        if newWords.contains("REFERENCES") || oldWords.contains("REFERENCES") { explained = true }
        if !explained {
            add(
                .changeColumn, object,
                "redefined: `\(old.definition.collapsingWhitespace)` -> `\(new.definition.collapsingWhitespace)`",
                "Add a new column with the new definition, backfill, switch readers, drop the old one later.")
        }
    }

    private mutating func lintConstraints(_ change: SchemaDiff.TableChange) {
        let name = change.desired.name
        // A constraint only renamed along with its columns is the same constraint.
        let renames = Dictionary(
            change.columnRenames.map { ($0.to.asciiLowercased(), $0.from.asciiLowercased()) },
            uniquingKeysWith: { a, _ in a })
        let dropped = Set(change.droppedConstraints.map { Self.normalizedConstraint($0, renames: [:]) })
        let added = Set(change.addedConstraints.map { Self.normalizedConstraint($0, renames: renames) })
        for text in change.addedConstraints where !dropped.contains(Self.normalizedConstraint(text, renames: renames)) {
            let words = Self.words(text)
            let kind = Self.constraintKind(words)
            switch kind {
            case "UNIQUE":
                add(
                    .addUnique, name,
                    "a new UNIQUE constraint `\(text.collapsingWhitespace)`: older writers can write duplicates",
                    "Deduplicate, ship writers that keep values unique, add the UNIQUE constraint in a later release.")
                if policy == .sync { syncUnique(name) }
            case "CHECK":
                add(
                    .addCheck, name, "a new CHECK `\(text.collapsingWhitespace)`: older writers can violate it",
                    "Clean the rows, ship writers that respect the condition, add the CHECK in a later release.")
            case "PRIMARY":
                add(
                    .changeColumn, name, "the primary key changes to `\(text.collapsingWhitespace)`",
                    "Create a new table with the new key beside the old one, copy, switch readers, drop the old one later."
                )
            default: break  // FOREIGN KEY: compared below with the column-level ones
            }
        }
        for text in change.droppedConstraints where !added.contains(Self.normalizedConstraint(text, renames: [:])) {
            let kind = Self.constraintKind(Self.words(text))
            if kind == "PRIMARY" {
                add(
                    .changeColumn, name, "the primary key `\(text.collapsingWhitespace)` is removed",
                    "Create a new table beside the old one, copy, switch readers, drop the old one later.")
            } else if kind != "FOREIGN" {
                add(.dropConstraint, name, "constraint `\(text.collapsingWhitespace)` removed")
            }
        }
        // Foreign keys, column-level and table-level alike, matched with renamed columns.
        func key(_ fk: ForeignKeyInfo, renames: [String: String]) -> String {
            let columns = fk.columns.map { renames[$0.asciiLowercased()] ?? $0.asciiLowercased() }
            return
                "\(columns)->\(fk.parentTable.asciiLowercased())\(fk.parentColumns.map { $0?.asciiLowercased() ?? "" })"
        }
        let oldKeys = Set(change.live.foreignKeys.map { key($0, renames: [:]) })
        let newKeys = Set(change.desired.foreignKeys.map { key($0, renames: renames) })
        for fk in change.desired.foreignKeys where !oldKeys.contains(key(fk, renames: renames)) {
            add(
                .addForeignKey, "\(name).\(fk.columns.joined(separator: ","))",
                "a new foreign key to \(fk.parentTable): older writers can write rows without a parent",
                "Clean orphans and ship writers that write existing parents only; add the foreign key in a later release."
            )
        }
        for fk in change.live.foreignKeys where !newKeys.contains(key(fk, renames: [:])) {
            add(
                .dropConstraint, "\(name).\(fk.columns.joined(separator: ","))",
                "foreign key to \(fk.parentTable) removed")
        }
        if policy == .sync {
            let added = change.desired.foreignKeys.filter { !oldKeys.contains(key($0, renames: renames)) }
            syncForeignKeys(of: change.desired, columns: added.flatMap(\.columns))
        }
    }

    private mutating func lintIndexes(_ diff: SchemaDiff) {
        let newTables = Set(diff.createdTables.map { $0.name.asciiLowercased() })
        for index in diff.indexes.created {
            if index.isUnique {
                if newTables.contains(index.table.asciiLowercased()) {
                    add(.addIndex, index.name, "new unique index on the new table \(index.table)")
                } else {
                    add(
                        .addUnique, index.name,
                        "new unique index on \(index.table): older writers can write duplicates (and existing rows may hold some)",
                        "Deduplicate, ship writers that keep values unique, add the unique index in a later release.")
                }
                if policy == .sync { syncUnique(index.name) }
            } else {
                add(.addIndex, index.name, "new index on \(index.table)")
            }
        }
        for index in diff.indexes.dropped {
            add(index.isUnique ? .dropConstraint : .dropIndex, index.name, "index on \(index.table) removed")
        }
        for r in diff.indexes.changed {
            if r.new.isUnique && !r.old.isUnique {
                add(
                    .addUnique, r.new.name,
                    "index on \(r.new.table) becomes unique: older writers can write duplicates",
                    "Deduplicate, ship writers that keep values unique, make the index unique in a later release.")
                if policy == .sync { syncUnique(r.new.name) }
            } else {
                add(.changeIndex, r.new.name, "index on \(r.new.table) redefined")
                if policy == .sync && r.new.isUnique { syncUnique(r.new.name) }
            }
        }
    }

    private mutating func lintViews(_ diff: SchemaDiff) {
        for view in diff.views.created { add(.addView, view.name, "new view") }
        for view in diff.views.dropped {
            add(
                .dropView, view.name, "older readers still query the view",
                "Keep the view until no older version reads it.")
        }
        guard !diff.views.changed.isEmpty else { return }
        let oldColumns = Self.viewColumns(base)
        let newColumns = Self.viewColumns(desired)
        for r in diff.views.changed {
            let (o, n) = (oldColumns[r.old.name.asciiLowercased()], newColumns[r.new.name.asciiLowercased()])
            if let o, let n, o.map({ $0.asciiLowercased() }) == n.map({ $0.asciiLowercased() }) {
                add(.redefineView, r.new.name, "view redefined with the same columns")
            } else {
                let detail =
                    if let o, let n { "(\(o.joined(separator: ", "))) -> (\(n.joined(separator: ", ")))" } else {
                        "(could not be compared)"
                    }
                add(
                    .changeView, r.new.name, "the view's columns change \(detail): older readers break",
                    "Add a new view with the new columns beside the old one; drop the old view once no older version reads it."
                )
            }
        }
    }

    // MARK: sync rules (SQLiteData's CloudKit documentation, "Designing your schema with synchronization in mind")

    private mutating func syncRules(newTable table: TableInfo) {
        guard !table.isVirtual else { return }
        let keyColumns = table.columns.filter { $0.primaryKeyPosition > 0 }
        if keyColumns.count != 1 {
            add(
                .syncPrimaryKey, table.name,
                keyColumns.isEmpty
                    ? "no primary key: a synced table needs a single-column primary key"
                    : "a compound primary key: a synced table needs a single-column one",
                "Give the table a single-column primary key (a globally unique text id with a default), and make the other key columns plain columns."
            )
        }
        for c in table.columns where Self.words(c.definition).contains("UNIQUE") {
            syncUnique("\(table.name).\(c.name)")
        }
        for text in table.constraints where Self.constraintKind(Self.words(text)) == "UNIQUE" { syncUnique(table.name) }
        syncForeignKeys(of: table, columns: table.foreignKeys.flatMap(\.columns))
    }

    private mutating func syncUnique(_ object: String) {
        add(
            .syncUnique, object,
            "a UNIQUE constraint other than the primary key: synced records created on two devices collide",
            "Make the unique value the primary key, or enforce uniqueness in the app.")
    }

    private mutating func syncForeignKeys(of table: TableInfo, columns: [String]) {
        let wanted = Set(columns.map { $0.asciiLowercased() })
        for fk in table.foreignKeys where fk.columns.contains(where: { wanted.contains($0.asciiLowercased()) }) {
            let action = fk.onDelete.uppercased()
            if action == "NO ACTION" || action == "RESTRICT" {
                add(
                    .syncForeignKeyAction, "\(table.name).\(fk.columns.joined(separator: ","))",
                    "ON DELETE \(action): a synced store supports only CASCADE, SET NULL and SET DEFAULT",
                    "Declare the foreign key ON DELETE CASCADE, SET NULL or SET DEFAULT.")
            }
        }
    }

    // MARK: text helpers

    /// The uppercased words (keywords and bare names) of `sql`, outside strings and quotes.
    static func words(_ sql: String) -> [String] {
        SQLTokenizer.significantTokens(sql).filter { $0.kind == .word }.map { $0.text.uppercased() }
    }

    /// The first keyword of a table constraint after an optional `CONSTRAINT name`.
    static func constraintKind(_ words: [String]) -> String {
        if words.first == "CONSTRAINT", words.count > 2 { return words[2] }
        return words.first ?? ""
    }

    /// The tokens of a table constraint as one comparable string: names unquoted and lowercased
    /// (a renamed column replaced by its old name), keywords uppercased, no whitespace.
    static func normalizedConstraint(_ sql: String, renames: [String: String]) -> String {
        SQLTokenizer.significantTokens(sql).map { token -> String in
            if let name = token.identifierValue {
                let key = name.asciiLowercased()
                return "\u{1}" + (renames[key] ?? key)
            }
            return token.text
        }.joined(separator: " ")
    }

    /// The `CHECK (...)` clauses of a column definition, normalized.
    static func checkClauses(_ definition: String) -> Set<String> {
        let tokens = SQLTokenizer.significantTokens(definition)
        var result = Set<String>()
        var i = 0
        while i < tokens.count {
            if tokens[i].kind == .word, tokens[i].text.uppercased() == "CHECK" {
                var depth = 0
                var parts = [String]()
                var j = i + 1
                while j < tokens.count {
                    let t = tokens[j]
                    if t.text == "(" { depth += 1 } else if t.text == ")" { depth -= 1 }
                    parts.append(t.identifierValue.map { "\u{1}" + $0.asciiLowercased() } ?? t.text)
                    j += 1
                    if depth == 0 { break }
                }
                result.insert(parts.joined(separator: " "))
                i = j
            } else {
                i += 1
            }
        }
        return result
    }

    /// True when the column's NOT NULL is followed by `ON CONFLICT REPLACE`.
    static func hasNotNullOnConflictReplace(_ definition: String) -> Bool {
        let words = words(definition)
        for i in words.indices where words[i] == "NOT" && i + 4 < words.count {
            if words[i + 1] == "NULL", words[i + 2] == "ON", words[i + 3] == "CONFLICT", words[i + 4] == "REPLACE" {
                return true
            }
        }
        return false
    }

    /// SQLite's affinity of a declared type (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>).
    static func affinity(_ declaredType: String) -> String { ColumnAffinity(declaredType: declaredType).rawValue }

    /// True when every value a column of affinity `from` holds is kept as is (or only widened) by `to`.
    static func widens(from: String, to: String) -> Bool {
        switch (from, to) {
        case (_, "BLOB"), ("INTEGER", "REAL"), ("INTEGER", "NUMERIC"), ("REAL", "NUMERIC"): return true
        default: return false
        }
    }

    /// Each view's column names, lowercased view name -> names, read from a scratch database
    /// holding `schema` (empty when it cannot be built there).
    static func viewColumns(_ schema: DatabaseSchema) -> [String: [String]] {
        guard !schema.views.isEmpty, let db = try? Database(inMemory: Configuration()) else { return [:] }
        defer { db.close() }
        guard (try? db.execute(sql: schema.sql)) != nil else { return [:] }
        var result = [String: [String]]()
        for view in schema.views {
            if let rows = try? db.fetchAll(sql: "PRAGMA main.table_info(\(SQL.quoteIdentifier(view.name)))"),
                let names = try? rows.map({ try $0.decode(String.self, named: "name") })
            {
                result[view.name.asciiLowercased()] = names
            }
        }
        return result
    }
}
