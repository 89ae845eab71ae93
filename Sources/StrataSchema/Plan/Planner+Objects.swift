import StrataSQLite

extension Planner {
    /// Phase C: indexes, views and triggers missing from (or different in) the copy.
    func createMissingObjects(_ desired: DatabaseSchema, into builder: inout StepBuilder) throws {
        let current = try SchemaReader(db: builder.scratch).readDependentObjects()
        // What differs between the copy and the desired schema.
        let triggers = SchemaDiff.ObjectChanges(current.triggers, desired.triggers, named: current.trigger(named:))
        let views = SchemaDiff.ObjectChanges(current.views, desired.views, named: current.view(named:))
        let indexes = SchemaDiff.ObjectChanges(current.indexes, desired.indexes, named: current.index(named:))
        for t in current.triggers where triggers.removes(t.name) {
            try builder.add(
                PlanStep(
                    kind: .dropTrigger, object: t.name, summary: "drop trigger \(t.name)",
                    statements: [DropDDL.trigger(t.name).sql], isDestructive: false))
        }
        for v in current.views.reversed() where views.removes(v.name) {
            try builder.add(
                PlanStep(
                    kind: .dropView, object: v.name, summary: "drop view \(v.name)",
                    statements: [DropDDL.view(v.name).sql], isDestructive: false))
        }
        for i in current.indexes where indexes.removes(i.name) {
            try builder.add(
                PlanStep(
                    kind: .dropIndex, object: i.name, summary: "drop index \(i.name)",
                    statements: [DropDDL.index(i.name).sql], isDestructive: false))
        }
        for i in desired.indexes where indexes.adds(i.name) {
            try builder.add(
                PlanStep(
                    kind: .createIndex, object: i.name, summary: "create index \(i.name) on \(i.table)",
                    statements: [i.sql], isDestructive: false))
        }
        for v in desired.views where views.adds(v.name) {
            try builder.add(
                PlanStep(
                    kind: .createView, object: v.name, summary: "create view \(v.name)",
                    statements: [v.sql], isDestructive: false))
        }
        for t in desired.triggers where triggers.adds(t.name) {
            try builder.add(
                PlanStep(
                    kind: .createTrigger, object: t.name, summary: "create trigger \(t.name) on \(t.table)",
                    statements: [t.sql], isDestructive: false))
        }
    }
}
