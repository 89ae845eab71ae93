import NameClashStandIns
import Strata
import Testing

/// An app imports SwiftUI, SwiftData and Strata in one file and uses their names unqualified
/// (issue 12). This file compiling is the test: no public top-level name of any Strata module
/// may clash with theirs. The stand-ins live in their own module, as SwiftUI's types do.
@Suite("Name clashes with SwiftUI and SwiftData")
struct NameClashTests {
    struct NoteList: View {}

    @Test func swiftUIAndSwiftDataNamesResolveBesideStrata() throws {
        // SwiftUI's and SwiftData's names, unqualified.
        let views: [any View] = [
            Table(), TableColumn(), TableRow(), Text("x"), Section(), Group(), ForEach(), List(), NoteList(),
        ]
        _ = (Transaction(), Index(), Trigger(), Binding(), State())
        _ = (Schema(), Query(), Attribute(), Relationship(), ModelContext(), FetchDescriptor(), Predicate())
        #expect(views.count == 9)

        // Strata's, unqualified too.
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE)")
        let schema: DatabaseSchema = try DatabaseSchema.read(from: db)
        let table: TableInfo = try #require(schema.table(named: "note"))
        let column: ColumnInfo = try #require(table.column(named: "title"))
        #expect(column.isNotNull)
        #expect(!table.isWithoutRowID && !table.isStrict)
        let indexes: [IndexInfo] = schema.indexes
        let views2: [ViewInfo] = schema.views
        let triggers: [TriggerInfo] = schema.triggers
        let keys: [ForeignKeyInfo] = table.foreignKeys
        #expect(indexes.isEmpty && views2.isEmpty && triggers.isEmpty && keys.isEmpty)
        #expect(db.capabilities.supportsRenameColumn)
        let plan = try db.planSchemaChange(
            to: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT);")
        #expect(plan.steps.map(\.kind) == [.addColumn])
    }
}
