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
            try builder.add(.dropTrigger(t.name))
        }
        for v in current.views.reversed() where views.removes(v.name) {
            try builder.add(.dropView(v.name))
        }
        for i in current.indexes where indexes.removes(i.name) {
            try builder.add(.dropIndex(i.name))
        }
        for i in desired.indexes where indexes.adds(i.name) {
            try builder.add(.createIndex(i))
        }
        for v in desired.views where views.adds(v.name) {
            try builder.add(.createView(v))
        }
        for t in desired.triggers where triggers.adds(t.name) {
            try builder.add(.createTrigger(t))
        }
    }
}
