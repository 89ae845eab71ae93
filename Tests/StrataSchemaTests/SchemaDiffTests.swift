import StrataSQLite
import Testing

@testable import StrataSchema

/// `SchemaDiff` is computed from two schema values alone: these tests build the values from SQL
/// text with the text parser only (no SQLite connection is opened).
@Suite("Schema diff (no database)")
struct SchemaDiffTests {
    /// A table value from its CREATE TABLE text, parsed without SQLite.
    static func table(_ sql: String) throws -> TableInfo {
        let parsed = try CreateTableStatement(sql: sql)
        let columns = parsed.columns.map { c in
            ColumnInfo(
                name: c.name, declaredType: c.tokens.dropFirst().first?.text ?? "",
                isNotNull: c.normalizedBody.contains("not null"), defaultSQL: nil,
                primaryKeyPosition: c.normalizedBody.contains("primary key") ? 1 : 0, kind: .normal, collation: nil,
                definition: c.text, renamedFrom: c.renamedFrom, normalizedBody: c.normalizedBody,
                definitionTokensContainDesc: false)
        }
        return TableInfo(
            name: parsed.name, sql: sql, isVirtual: false, module: nil, columns: columns,
            constraints: parsed.constraints, foreignKeys: [], isWithoutRowID: parsed.isWithoutRowID,
            isStrict: parsed.isStrict, hasAutoincrement: parsed.hasAutoincrement, renamedFrom: parsed.renamedFrom,
            normalizedConstraints: parsed.normalizedConstraints)
    }

    static func schema(_ tables: [String], indexes: [(String, String, String)] = []) throws -> DatabaseSchema {
        DatabaseSchema(
            tables: try tables.map(table),
            indexes: indexes.map { name, table, sql in
                IndexInfo(
                    name: name, table: table, sql: sql, isUnique: false, isPartial: false, origin: "c", columns: [],
                    normalizedSQL: SQLNormalizer.normalize(sql))
            })
    }

    @Test func equalSchemasHaveAnEmptyDiffWhateverTheirSpelling() throws {
        let a = try Self.schema(["CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)"])
        let b = try Self.schema([
            "create table \"player\" (  id integer primary key, -- the key\n [name] text not null )"
        ])
        let diff = SchemaDiff(from: a, to: b)
        #expect(diff.isEmpty)
        #expect(diff.descriptions == [])
        #expect(a == b)
    }

    @Test func columnsAddedDroppedAndRedefined() throws {
        let live = try Self.schema(["CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, nickname TEXT)"])
        let desired = try Self.schema(["CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER)"]
        )
        let diff = SchemaDiff(from: live, to: desired)
        #expect(diff.createdTables.isEmpty && diff.droppedTables.isEmpty)
        let change = try #require(diff.changedTables.first)
        #expect(diff.changedTables.count == 1)
        #expect(change.addedColumns.map(\.name) == ["score"])
        #expect(change.droppedColumns.map(\.name) == ["nickname"])
        #expect(change.redefinedColumns.map(\.desired.name) == ["name"])
        #expect(change.columnRenames.isEmpty && !change.isRenamed)
        #expect(
            diff.descriptions == [
                "table player: column name expected `name TEXT NOT NULL`, found `name TEXT`",
                "table player: column score is missing",
                "table player: column nickname is not expected",
            ])
    }

    @Test func tablesCreatedAndDroppedInOrder() throws {
        let live = try Self.schema(["CREATE TABLE a(x)", "CREATE TABLE old(y)"])
        let desired = try Self.schema(["CREATE TABLE new(z)", "CREATE TABLE a(x)"])
        let diff = SchemaDiff(from: live, to: desired)
        #expect(diff.createdTables.map(\.name) == ["new"])
        #expect(diff.droppedTables.map(\.name) == ["old"])
        #expect(diff.changedTables.isEmpty)
        #expect(diff.descriptions == ["table new is missing", "table old is not expected"])
    }

    @Test func constraintsAndOptions() throws {
        let live = try Self.schema(["CREATE TABLE t(a INTEGER, b INTEGER, CHECK (a > 0))"])
        let desired = try Self.schema(["CREATE TABLE t(a INTEGER, b INTEGER, CONSTRAINT b_pos CHECK (b > 0)) STRICT"])
        let change = try #require(SchemaDiff(from: live, to: desired).changedTables.first)
        #expect(change.addedConstraints == ["CONSTRAINT b_pos CHECK (b > 0)"])
        #expect(change.droppedConstraints == ["CHECK (a > 0)"])
        #expect(change.descriptions.contains("expected STRICT"))
    }

    @Test func columnOrderAloneIsADifference() throws {
        let live = try Self.schema(["CREATE TABLE t(a INTEGER, b TEXT)"])
        let desired = try Self.schema(["CREATE TABLE t(b TEXT, a INTEGER)"])
        let diff = SchemaDiff(from: live, to: desired)
        #expect(diff.descriptions == ["table t: columns expected in order (b, a), found (a, b)"])
    }

    @Test func indexesCreatedDroppedAndRedefined() throws {
        let live = try Self.schema(
            ["CREATE TABLE t(a, b)"],
            indexes: [("t_a", "t", "CREATE INDEX t_a ON t(a)"), ("gone", "t", "CREATE INDEX gone ON t(b)")])
        let desired = try Self.schema(
            ["CREATE TABLE t(a, b)"],
            indexes: [("t_a", "t", "CREATE INDEX t_a ON t(a DESC)"), ("fresh", "t", "CREATE INDEX fresh ON t(b)")])
        let diff = SchemaDiff(from: live, to: desired)
        #expect(diff.indexes.created.map(\.name) == ["fresh"])
        #expect(diff.indexes.dropped.map(\.name) == ["gone"])
        #expect(diff.indexes.changed.map(\.new.name) == ["t_a"])
        #expect(
            diff.descriptions == [
                "index t_a: expected `CREATE INDEX t_a ON t(a DESC)`, found `CREATE INDEX t_a ON t(a)`",
                "index fresh is missing", "index gone is not expected",
            ])
    }

    // MARK: Renames (the planner's view)

    @Test func hintsResolveToRenamesAndAreIdempotent() throws {
        let live = try Self.schema(["CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT)"])
        let desired = try Self.schema([
            "CREATE TABLE person( -- @renamed from=user\n id INTEGER PRIMARY KEY,\n full_name TEXT -- @renamed from=name\n)"
        ])
        let byName = SchemaDiff(from: live, to: desired)
        #expect(byName.createdTables.map(\.name) == ["person"] && byName.droppedTables.map(\.name) == ["user"])

        let diff = try SchemaDiff(from: live, to: desired, renames: [])
        #expect(diff.createdTables.isEmpty && diff.droppedTables.isEmpty)
        let change = try #require(diff.changedTables.first)
        #expect(change.isRenamed && change.live.name == "user" && change.desired.name == "person")
        #expect(change.columnRenames == [SchemaDiff.ColumnRename(from: "name", to: "full_name")])
        #expect(change.addedColumns.isEmpty && change.droppedColumns.isEmpty)

        // Once applied, the same hints resolve to nothing.
        let applied = try Self.schema(["CREATE TABLE person(id INTEGER PRIMARY KEY, full_name TEXT)"])
        #expect(try SchemaDiff(from: applied, to: desired, renames: []).isEmpty)
    }

    @Test func renameOptionsSwapColumnsWhileHintsCannot() throws {
        let live = try Self.schema(["CREATE TABLE t(a TEXT, b TEXT)"])
        let desired = try Self.schema(["CREATE TABLE t(a TEXT, b TEXT)"])
        let swap: [SchemaRename] = [.column("a", to: "b", inTable: "t"), .column("b", to: "a", inTable: "t")]
        let change = try #require(try SchemaDiff(from: live, to: desired, renames: swap).changedTables.first)
        #expect(Set(change.columnRenames.map(\.description)) == ["a -> b", "b -> a"])

        let hinted = try Self.schema(["CREATE TABLE t(a TEXT, -- @renamed from=b\n b TEXT -- @renamed from=a\n)"])
        let error = #expect(throws: SchemaError.self) { try SchemaDiff(from: live, to: hinted, renames: []) }
        #expect(error?.code == .unresolvedRename)
        #expect(error?.message.contains("swap or rotation") == true)
    }

    @Test func unresolvableRenamesNameTheCulprit() throws {
        let live = try Self.schema(["CREATE TABLE t(a TEXT)"])
        let desired = try Self.schema(["CREATE TABLE t(b TEXT -- @renamed from=zzz\n)"])
        let error = #expect(throws: SchemaError.self) { try SchemaDiff(from: live, to: desired, renames: []) }
        #expect(error?.code == .unresolvedRename)
        #expect(error?.message.hasPrefix("column t.b:") == true)
        #expect(error?.message.contains("zzz") == true)

        let option = #expect(throws: SchemaError.self) {
            try SchemaDiff(from: live, to: desired, renames: [.table("nope", to: "missing")])
        }
        #expect(option?.message.contains("has no table missing") == true)
    }

    @Test func aTableThatBecomesVirtualIsDroppedAndCreatedForThePlanner() throws {
        let live = try Self.schema(["CREATE TABLE docs(body TEXT)"])
        var desired = DatabaseSchema()
        desired.tables = [
            TableInfo(
                name: "docs", sql: "CREATE VIRTUAL TABLE docs USING fts5(body)", isVirtual: true, module: "fts5",
                columns: [], constraints: [], foreignKeys: [], isWithoutRowID: false, isStrict: false,
                hasAutoincrement: false, renamedFrom: nil, normalizedConstraints: [])
        ]
        let planned = try SchemaDiff(from: live, to: desired, renames: [])
        #expect(planned.createdTables.map(\.name) == ["docs"] && planned.droppedTables.map(\.name) == ["docs"])
        // Compared by name, it is one table whose definition differs.
        let compared = SchemaDiff(from: live, to: desired)
        #expect(compared.changedTables.count == 1)
        try #require(
            compared.descriptions.count == 1
                && compared.descriptions[0].hasPrefix("table docs: expected `CREATE VIRTUAL"))
    }
}
