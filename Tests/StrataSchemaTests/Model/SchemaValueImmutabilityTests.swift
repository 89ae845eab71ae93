import StrataSchema
import Testing

// Not `@testable`: this file sees what an app sees.

/// Schema values cannot be edited into lying (issue 41): a `TableInfo` whose `columns` said one
/// thing and its `sql` another would diff by whichever the comparison reads. Outside the module
/// every field of the `…Info` types and `DatabaseSchema`'s arrays is read-only (their key paths
/// are not writable), so the only schemas an app holds are read or parsed ones, and the parts of
/// those put together with `DatabaseSchema(tables:indexes:views:triggers:)`.
@Suite("Schema values are read-only outside the engine")
struct SchemaValueImmutabilityTests {
    // Decided by the compiler from what this file can see: a key path literal types as a
    // `WritableKeyPath` (the more specific overload) only where a setter is visible. (A runtime
    // `is WritableKeyPath` check would see the internal setter a debug build exports for testing.)
    func isWritable<Root, Value>(_ keyPath: WritableKeyPath<Root, Value>) -> Bool { true }
    func isWritable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> Bool { false }

    @Test func noFieldOfASchemaValueHasAPublicSetter() {
        let fields: [(String, Bool)] = [
            ("DatabaseSchema.tables", isWritable(\DatabaseSchema.tables)),
            ("DatabaseSchema.indexes", isWritable(\DatabaseSchema.indexes)),
            ("DatabaseSchema.views", isWritable(\DatabaseSchema.views)),
            ("DatabaseSchema.triggers", isWritable(\DatabaseSchema.triggers)),
            ("TableInfo.name", isWritable(\TableInfo.name)), ("TableInfo.sql", isWritable(\TableInfo.sql)),
            ("TableInfo.isVirtual", isWritable(\TableInfo.isVirtual)),
            ("TableInfo.module", isWritable(\TableInfo.module)),
            ("TableInfo.columns", isWritable(\TableInfo.columns)),
            ("TableInfo.constraints", isWritable(\TableInfo.constraints)),
            ("TableInfo.foreignKeys", isWritable(\TableInfo.foreignKeys)),
            ("TableInfo.isWithoutRowID", isWritable(\TableInfo.isWithoutRowID)),
            ("TableInfo.isStrict", isWritable(\TableInfo.isStrict)),
            ("TableInfo.hasAutoincrement", isWritable(\TableInfo.hasAutoincrement)),
            ("TableInfo.renamedFrom", isWritable(\TableInfo.renamedFrom)),
            ("ColumnInfo.name", isWritable(\ColumnInfo.name)),
            ("ColumnInfo.declaredType", isWritable(\ColumnInfo.declaredType)),
            ("ColumnInfo.isNotNull", isWritable(\ColumnInfo.isNotNull)),
            ("ColumnInfo.defaultSQL", isWritable(\ColumnInfo.defaultSQL)),
            ("ColumnInfo.primaryKeyPosition", isWritable(\ColumnInfo.primaryKeyPosition)),
            ("ColumnInfo.kind", isWritable(\ColumnInfo.kind)),
            ("ColumnInfo.collation", isWritable(\ColumnInfo.collation)),
            ("ColumnInfo.definition", isWritable(\ColumnInfo.definition)),
            ("ColumnInfo.renamedFrom", isWritable(\ColumnInfo.renamedFrom)),
            ("ForeignKeyInfo.columns", isWritable(\ForeignKeyInfo.columns)),
            ("ForeignKeyInfo.parentTable", isWritable(\ForeignKeyInfo.parentTable)),
            ("ForeignKeyInfo.parentColumns", isWritable(\ForeignKeyInfo.parentColumns)),
            ("ForeignKeyInfo.onDelete", isWritable(\ForeignKeyInfo.onDelete)),
            ("ForeignKeyInfo.onUpdate", isWritable(\ForeignKeyInfo.onUpdate)),
            ("ForeignKeyInfo.match", isWritable(\ForeignKeyInfo.match)),
            ("ForeignKeyInfo.isDeferred", isWritable(\ForeignKeyInfo.isDeferred)),
            ("IndexInfo.name", isWritable(\IndexInfo.name)), ("IndexInfo.table", isWritable(\IndexInfo.table)),
            ("IndexInfo.sql", isWritable(\IndexInfo.sql)), ("IndexInfo.isUnique", isWritable(\IndexInfo.isUnique)),
            ("IndexInfo.isPartial", isWritable(\IndexInfo.isPartial)),
            ("IndexInfo.origin", isWritable(\IndexInfo.origin)),
            ("IndexInfo.columns", isWritable(\IndexInfo.columns)),
            ("IndexInfo.normalizedSQL", isWritable(\IndexInfo.normalizedSQL)),
            ("TriggerInfo.name", isWritable(\TriggerInfo.name)),
            ("TriggerInfo.table", isWritable(\TriggerInfo.table)),
            ("TriggerInfo.sql", isWritable(\TriggerInfo.sql)),
            ("TriggerInfo.normalizedSQL", isWritable(\TriggerInfo.normalizedSQL)),
            ("ViewInfo.name", isWritable(\ViewInfo.name)), ("ViewInfo.sql", isWritable(\ViewInfo.sql)),
            ("ViewInfo.normalizedSQL", isWritable(\ViewInfo.normalizedSQL)),
        ]
        for (name, writable) in fields { #expect(!writable, "\(name) can be set from outside the module") }
    }

    /// What an app can still do: put parts of parsed schemas together. The result diffs as the
    /// schema those parts come from, never by a stale lookup.
    @Test func aSchemaPutTogetherFromPartsDiffsAsTheSchemaTheyCameFrom() throws {
        let tables = try DatabaseSchema(
            sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL); CREATE TABLE tag(name TEXT)")
        let indexes = try DatabaseSchema(
            sql:
                "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL); CREATE INDEX note_title ON note(title)"
        )
        let whole = try DatabaseSchema(
            sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL); CREATE TABLE tag(name TEXT);
                CREATE INDEX note_title ON note(title)
                """)
        let assembled = DatabaseSchema(tables: tables.tables, indexes: indexes.indexes)
        #expect(assembled.differences(from: whole).isEmpty, "\(assembled.differences(from: whole))")
        #expect(assembled.table(named: "TAG")?.name == "tag")
        #expect(assembled.index(named: "note_title")?.table == "note")
        let withoutTag = DatabaseSchema(tables: indexes.tables, indexes: indexes.indexes)
        #expect(!withoutTag.differences(from: whole).isEmpty, "a missing table is a difference")
    }
}
