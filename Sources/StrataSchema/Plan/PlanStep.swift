import StrataSQLite

/// One step of a plan: a change to one object and the SQL that makes it.
///
/// Steps are made by the planner from the DDL values of their statements (`DDL/`), one factory
/// per kind (`createTable(_:)`, `addColumn(_:table:column:)`, `rebuildTable(_:)`...): the
/// kind, object, summary and destructiveness are derived from those values, and applying reads
/// them (`parts`) for its progress events and to keep temporary names out of messages, never
/// the SQL text back.
public struct PlanStep: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case createTable = "create table"
        case dropTable = "drop table"
        case renameTable = "rename table"
        case addColumn = "add column"
        case renameColumn = "rename column"
        case dropColumn = "drop column"
        /// `ALTER TABLE ... ADD [CONSTRAINT name] CHECK (...)` (SQLite 3.53).
        case addConstraint = "add constraint"
        /// `ALTER TABLE ... DROP CONSTRAINT name` (SQLite 3.53).
        case dropConstraint = "drop constraint"
        /// `ALTER TABLE ... ALTER COLUMN ... SET NOT NULL` (SQLite 3.53).
        case setNotNull = "set not null"
        /// `ALTER TABLE ... ALTER COLUMN ... DROP NOT NULL` (SQLite 3.53).
        case dropNotNull = "drop not null"
        case rebuildTable = "rebuild table"
        case createIndex = "create index"
        case dropIndex = "drop index"
        case createView = "create view"
        case dropView = "drop view"
        case createTrigger = "create trigger"
        case dropTrigger = "drop trigger"
        case createVirtualTable = "create virtual table"
        case dropVirtualTable = "drop virtual table"
        /// `INSERT INTO t(t) VALUES ('rebuild')`: an FTS4/FTS5 table over external content indexed
        /// again from its content table, whose rows a step before may have given new rowids.
        case rebuildFullTextIndex = "rebuild full-text index"
    }

    public var kind: Kind
    /// The object changed: `table`, `table.column`, an index, view or trigger name.
    public var object: String
    /// A human description of the change.
    public var summary: String
    /// The SQL statements of the step, in order (rendered from `parts` when the step is made).
    ///
    /// Editing them (a plan changed by hand) replaces the parts with the edited text: it is
    /// applied as written, and reports no rows copied or indexes built.
    public var statements: [String] {
        didSet { parts = statements.map(Part.verbatim) }
    }
    /// True when the step loses data (drops a table, a column or a virtual table).
    public var isDestructive: Bool
    /// What the step will cost: the rows it copies, reads or indexes, the bytes it writes, the
    /// indexes it builds (``PlanEstimate``), estimated while planning. ``PlanEstimate/zero`` for a
    /// step that touches no rows (a native ADD COLUMN, a rename, a view).
    public internal(set) var estimate: PlanEstimate = .zero
    /// The data conditions that `statements` check inside the applying transaction (their
    /// failure messages and counting queries; the checking SQL is in `statements`).
    private(set) var guards: [DataGuard]
    /// The values the statements were rendered from, in order.
    private(set) var parts: [Part]
    /// The temporary tables of the step (a rebuild's, a rename by case alone) -> the table each
    /// becomes: what messages say instead (``TemporaryNames/userFacing(_:renames:)``).
    let temporaryTables: [String: String]
    /// True for a rebuild that runs online (``SchemaChangeOptions/online``): copied in batches while
    /// the app writes, then swapped in one short transaction.
    public internal(set) var isOnline = false
    /// A rebuild's online statements, when the table can be rebuilt online.
    private(set) var onlineRebuild: OnlineRebuildDDL?
    /// Why a rebuild cannot run online, when it cannot.
    private(set) var onlineRefusal: String?

    public var description: String { summary }

    /// One or more statements of a step, as the value they are rendered from.
    enum Part: Sendable, Hashable {
        /// A guard table whose CHECK constraints are the conditions (``DataGuard/statements(_:)``).
        case guards([DataGuard])
        case drop(DropDDL)
        case renameTable(RenameTableDDL)
        case renameColumn(RenameColumnDDL)
        case dropColumn(DropColumnDDL)
        case addColumn(AddColumnDDL)
        case addCheckConstraint(AddCheckConstraintDDL)
        case dropConstraint(DropConstraintDDL)
        case alterColumnNotNull(AlterColumnNotNullDDL)
        /// A rebuild's new table, under its temporary name.
        case createTable(CreateTableDDL)
        /// A rebuild's copy of the rows.
        case copyRows(RebuildCopyDDL)
        case carryOverSequence(SequenceCarryOverDDL)
        case rebuildFullTextIndex(RebuildFullTextIndexDDL)
        /// A table, virtual table, view or trigger of the desired schema, created from its own text.
        case createDesired(sql: String)
        /// An index of the desired schema, created from its own text.
        case createIndex(IndexInfo)
        /// Text edited by hand into ``PlanStep/statements``.
        case verbatim(String)
        /// Inside an online rebuild's swap: the new table's foreign keys written into its stored
        /// definition (run by ``StrataSQLite/Database/restoreForeignKeys(_:)``, not statement by
        /// statement: the text and the schema version are read when it runs).
        case restoreForeignKeys(OnlineRebuildDDL.ForeignKeyEdit)

        /// True for a rebuild's copy of the rows, and for text edited by hand into a rebuild's
        /// statements that inserts (read as the copy, as it was planned).
        var copiesRows: Bool {
            switch self {
            case .copyRows: true
            case .verbatim(let sql): StatementShape.begins(sql, with: "INSERT")
            default: false
            }
        }

        var statements: [String] {
            switch self {
            case .guards(let guards): DataGuard.statements(guards)
            case .drop(let ddl): ddl.statements
            case .renameTable(let ddl): ddl.statements
            case .renameColumn(let ddl): ddl.statements
            case .dropColumn(let ddl): ddl.statements
            case .addColumn(let ddl): ddl.statements
            case .addCheckConstraint(let ddl): ddl.statements
            case .dropConstraint(let ddl): ddl.statements
            case .alterColumnNotNull(let ddl): ddl.statements
            case .createTable(let ddl): ddl.statements
            case .copyRows(let ddl): ddl.statements
            case .carryOverSequence(let ddl): ddl.statements
            case .rebuildFullTextIndex(let ddl): ddl.statements
            case .createDesired(let sql): [sql]
            case .createIndex(let index): [index.sql]
            case .verbatim(let sql): [sql]
            case .restoreForeignKeys(let edit): edit.statements
            }
        }
    }

    private init(kind: Kind, object: String, summary: String, isDestructive: Bool, parts: [Part]) {
        self.kind = kind
        self.object = object
        self.summary = summary
        self.isDestructive = isDestructive
        self.parts = parts
        self.statements = parts.flatMap(\.statements)
        var guards = [DataGuard]()
        var temporaryTables = [String: String]()
        for part in parts {
            switch part {
            case .guards(let g): guards += g
            case .renameTable(let r) where TemporaryNames.isRebuildTable(r.table): temporaryTables[r.table] = r.newName
            default: break
            }
        }
        self.guards = guards
        self.temporaryTables = temporaryTables
    }
}

// MARK: - Factories, one per kind

extension PlanStep {
    /// `CREATE TABLE` or `CREATE VIRTUAL TABLE` from the desired text; an FTS table over external
    /// content is then indexed from its content (``RebuildFullTextIndexDDL``).
    static func createTable(_ t: TableInfo) -> PlanStep {
        let what = t.isVirtual ? "virtual table" : "table"
        let populate =
            Planner.isRebuiltFromContent(t) ? [Part.rebuildFullTextIndex(RebuildFullTextIndexDDL(t.name))] : []
        return PlanStep(
            kind: t.isVirtual ? .createVirtualTable : .createTable, object: t.name, summary: "create \(what) \(t.name)",
            isDestructive: false, parts: [.createDesired(sql: t.sql)] + populate)
    }

    /// `DROP TABLE` of a table or virtual table that goes away (destructive).
    static func dropTable(_ t: TableInfo) -> PlanStep {
        let drop = DropDDL.table(t.name)
        let what = t.isVirtual ? "virtual table" : "table"
        return PlanStep(
            kind: t.isVirtual ? .dropVirtualTable : .dropTable, object: drop.name, summary: "drop \(what) \(drop.name)",
            isDestructive: true, parts: [.drop(drop)])
    }

    /// `DROP TABLE` of a virtual table created again after it: destructive unless the new one is
    /// indexed from its content table.
    static func dropVirtualTableToRecreate(_ name: String, fromContent: Bool) -> PlanStep {
        let drop = DropDDL.table(name)
        return PlanStep(
            kind: .dropVirtualTable, object: drop.name,
            summary: "drop virtual table \(drop.name) (recreated\(fromContent ? " from its content table" : ""))",
            isDestructive: !fromContent, parts: [.drop(drop)])
    }

    /// `ALTER TABLE ... RENAME TO` (one statement, or two through a temporary name for a rename by
    /// case alone): from the first statement's table to the last one's new name.
    static func renameTable(_ renames: [RenameTableDDL]) -> PlanStep {
        let from = renames.first?.table ?? ""
        let to = renames.last?.newName ?? ""
        return PlanStep(
            kind: .renameTable, object: to, summary: "rename table \(from) to \(to)", isDestructive: false,
            parts: renames.map(Part.renameTable))
    }

    /// `ALTER TABLE ... RENAME COLUMN` of one column of desired table `table`.
    static func renameColumn(_ rename: RenameColumnDDL, table: String) -> PlanStep {
        PlanStep(
            kind: .renameColumn, object: "\(table).\(rename.newName)",
            summary: "rename column \(table).\(rename.column) to \(rename.newName)", isDestructive: false,
            parts: [.renameColumn(rename)])
    }

    /// Columns of desired table `table` that swap or rotate their names, in one step: each first to
    /// a temporary name (`toTemporary`), then each from it to its new name (`fromTemporary`, in the
    /// same order).
    static func renameColumns(
        toTemporary: [RenameColumnDDL], fromTemporary: [RenameColumnDDL], table: String
    ) -> PlanStep {
        let names = zip(toTemporary, fromTemporary).map { "\(table).\($0.column) to \($1.newName)" }
        return PlanStep(
            kind: .renameColumn, object: table, summary: "rename columns " + names.joined(separator: ", "),
            isDestructive: false, parts: (toTemporary + fromTemporary).map(Part.renameColumn))
    }

    /// `ALTER TABLE ... DROP COLUMN` (destructive); `table` is the desired table's name.
    static func dropColumn(_ drop: DropColumnDDL, table: String) -> PlanStep {
        PlanStep(
            kind: .dropColumn, object: "\(table).\(drop.column)", summary: "drop column \(table).\(drop.column)",
            isDestructive: true, parts: [.dropColumn(drop)])
    }

    /// `ALTER TABLE ... ADD COLUMN` of `column` to desired table `table`.
    static func addColumn(_ add: AddColumnDDL, table: String, column: String) -> PlanStep {
        PlanStep(
            kind: .addColumn, object: "\(table).\(column)", summary: "add column \(table).\(column): \(add.definition)",
            isDestructive: false, parts: [.addColumn(add)])
    }

    /// `ALTER TABLE ... DROP CONSTRAINT` (SQLite 3.53) on desired table `table`.
    static func dropConstraint(_ drop: DropConstraintDDL, table: String) -> PlanStep {
        PlanStep(
            kind: .dropConstraint, object: "\(table).\(drop.name)",
            summary: "drop constraint \(drop.name) of table \(table)", isDestructive: false,
            parts: [.dropConstraint(drop)])
    }

    /// `ALTER TABLE ... ADD CHECK` (SQLite 3.53) on desired table `table`.
    static func addConstraint(_ add: AddCheckConstraintDDL, table: String) -> PlanStep {
        PlanStep(
            kind: .addConstraint, object: table, summary: "add constraint to table \(table): \(add.constraint)",
            isDestructive: false, parts: [.addCheckConstraint(add)])
    }

    /// `ALTER TABLE ... ALTER COLUMN ... SET NOT NULL` or `DROP NOT NULL` (SQLite 3.53) on
    /// `column` of desired table `table`; SET NOT NULL after `noNulls`, the guard that says which
    /// column and how many rows in the preflight's terms.
    static func alterNotNull(
        _ alter: AlterColumnNotNullDDL, table: String, column: String, noNulls: DataGuard?
    ) -> PlanStep {
        let verb = alter.isNotNull ? "set" : "drop"
        return PlanStep(
            kind: alter.isNotNull ? .setNotNull : .dropNotNull, object: "\(table).\(column)",
            summary: "\(verb) not null on \(table).\(column)", isDestructive: false,
            parts: (noNulls.map { [Part.guards([$0])] } ?? []) + [.alterColumnNotNull(alter)])
    }

    /// The values of a safe rebuild (see ARCHITECTURE.md, "Rebuilding a table safely"), in the
    /// order they run.
    struct Rebuild {
        /// The preflight's conditions, checked again first.
        var guards: [DataGuard]
        /// The new table under its temporary name.
        var create: CreateTableDDL
        /// The copy of the rows (nil when no column is carried over).
        var copy: RebuildCopyDDL?
        /// The new table must hold as many rows as the old one.
        var countGuard: DataGuard
        /// AUTOINCREMENT: the sequence carried over.
        var sequence: SequenceCarryOverDDL?
        var dropOld: DropDDL
        /// The temporary table renamed to the desired name.
        var rename: RenameTableDDL
        /// The table's indexes, created after the copy.
        var indexes: [IndexInfo]
        /// What changes, for the summary (``SchemaDiff/TableChange/descriptions``).
        var reasons: [String]
        /// True when columns are dropped (the step loses data).
        var dropsColumns: Bool
        /// The online form's statements, when the table can be rebuilt online.
        var online: OnlineRebuildDDL? = nil
        /// Why it cannot, otherwise.
        var onlineRefusal: String? = nil
    }

    /// A safe rebuild of one table, named by its desired name (the temporary table's new name).
    static func rebuildTable(_ r: Rebuild) -> PlanStep {
        var parts = [Part]()
        if !r.guards.isEmpty { parts.append(.guards(r.guards)) }
        parts.append(.createTable(r.create))
        if let copy = r.copy { parts.append(.copyRows(copy)) }
        parts.append(.guards([r.countGuard]))
        if let sequence = r.sequence { parts.append(.carryOverSequence(sequence)) }
        parts.append(.drop(r.dropOld))
        parts.append(.renameTable(r.rename))
        parts += r.indexes.map(Part.createIndex)
        let table = r.rename.newName
        let indexes = r.indexes.map(\.name)
        var step = PlanStep(
            kind: .rebuildTable, object: table,
            summary: "rebuild table \(table): " + r.reasons.joined(separator: "; ")
                + (indexes.isEmpty ? "" : " (then its indexes: \(indexes.joined(separator: ", ")))"),
            isDestructive: r.dropsColumns, parts: parts)
        step.onlineRebuild = r.online
        step.onlineRefusal = r.onlineRefusal
        return step
    }

    /// The statements that create a rebuild's new table under its temporary name.
    var createTableStatements: [String] {
        parts.flatMap { part -> [String] in
            if case .createTable(let ddl) = part { return ddl.statements }
            return []
        }
    }

    /// This rebuild marked to run online (its summary says so).
    func markedOnline() -> PlanStep {
        var step = self
        step.isOnline = true
        step.summary += " (online)"
        return step
    }

    /// The swap of an online rebuild, the step as applying runs it once the rows are copied: the
    /// log triggers dropped and the new table's foreign keys written into its definition
    /// (``OnlineRebuildDDL/foreignKeyEdit``) instead of the table created, the log replayed and
    /// the new table reconciled with the old one by rowid (copies of rows the old table lost
    /// without a DELETE trigger removed, every row still missing copied: see
    /// ``OnlineRebuildDDL/swapCatchUp``) instead of the table filled; the progress record
    /// removed; then the same guards, drop, rename and indexes.
    func onlineSwap(droppingProgressTable: Bool = false) -> PlanStep? {
        guard let online = onlineRebuild else { return nil }
        var swapped = [Part]()
        for part in parts {
            switch part {
            case .createTable:
                swapped += online.dropTriggers.map(Part.verbatim)
                if let edit = online.foreignKeyEdit { swapped.append(.restoreForeignKeys(edit)) }
            case .copyRows:
                swapped += online.swapCatchUp.map(Part.verbatim)
            default:
                swapped.append(part)
            }
        }
        swapped.append(.verbatim(online.deleteProgress))
        if droppingProgressTable {
            swapped.append(.drop(DropDDL.table(ReservedNames.onlineProgressTable)))
        }
        var step = PlanStep(
            kind: kind, object: object, summary: summary, isDestructive: isDestructive, parts: swapped)
        step.estimate = estimate
        step.isOnline = true
        step.onlineRebuild = onlineRebuild
        return step
    }

    /// `CREATE INDEX` from the desired text.
    static func createIndex(_ i: IndexInfo) -> PlanStep {
        PlanStep(
            kind: .createIndex, object: i.name, summary: "create index \(i.name) on \(i.table)", isDestructive: false,
            parts: [.createIndex(i)])
    }

    /// `DROP INDEX`.
    static func dropIndex(_ name: String) -> PlanStep {
        let drop = DropDDL.index(name)
        return PlanStep(
            kind: .dropIndex, object: drop.name, summary: "drop index \(drop.name)", isDestructive: false,
            parts: [.drop(drop)])
    }

    /// `CREATE VIEW` from the desired text.
    static func createView(_ v: ViewInfo) -> PlanStep {
        PlanStep(
            kind: .createView, object: v.name, summary: "create view \(v.name)", isDestructive: false,
            parts: [.createDesired(sql: v.sql)])
    }

    /// `DROP VIEW`; `recreated` when it moves out of the way of a table change.
    static func dropView(_ name: String, recreated: Bool = false) -> PlanStep {
        let drop = DropDDL.view(name)
        return PlanStep(
            kind: .dropView, object: drop.name,
            summary: "drop view \(drop.name)\(recreated ? " (recreated after the table changes)" : "")",
            isDestructive: false, parts: [.drop(drop)])
    }

    /// `CREATE TRIGGER` from the desired text.
    static func createTrigger(_ t: TriggerInfo) -> PlanStep {
        PlanStep(
            kind: .createTrigger, object: t.name, summary: "create trigger \(t.name) on \(t.table)",
            isDestructive: false, parts: [.createDesired(sql: t.sql)])
    }

    /// `DROP TRIGGER`; `recreated` when it moves out of the way of a table change.
    static func dropTrigger(_ name: String, recreated: Bool = false) -> PlanStep {
        let drop = DropDDL.trigger(name)
        return PlanStep(
            kind: .dropTrigger, object: drop.name,
            summary: "drop trigger \(drop.name)\(recreated ? " (recreated after the table changes)" : "")",
            isDestructive: false, parts: [.drop(drop)])
    }

    /// `'rebuild'` of an FTS table over external content whose content rows were copied anew.
    static func rebuildFullTextIndex(_ f: FullTextContent) -> PlanStep {
        let rebuild = RebuildFullTextIndexDDL(f.table)
        return PlanStep(
            kind: .rebuildFullTextIndex, object: rebuild.table,
            summary: "rebuild full-text index \(rebuild.table) (the rows of its content \(f.content) were copied anew)",
            isDestructive: false, parts: [.rebuildFullTextIndex(rebuild)])
    }
}
