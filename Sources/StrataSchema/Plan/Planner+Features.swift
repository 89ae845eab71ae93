import StrataSQLite

extension Planner {
    /// Phase 1, before the diff: refuses a desired table that needs a feature the connection's
    /// SQLite lacks (the desired SQL may have been read by a newer SQLite, or
    /// ``Configuration/capabilityLimit`` lowers this one). The diff itself is a value computed
    /// without the database: ``SchemaDiff/init(from:to:renames:)``.
    func checkFeatures() throws {
        for table in desired.tables {
            var needed = [SQLiteFeature]()
            if table.isStrict { needed.append(.strictTables) }
            if table.columns.contains(where: \.isGenerated) { needed.append(.generatedColumns) }
            if let missing = needed.first(where: { !capabilities.supports($0) }) {
                throw SchemaError(
                    code: .featureUnavailable,
                    message: "table \(table.name): \(missing.unavailableMessage(capabilities.version))",
                    culprit: table.name)
            }
        }
    }
}
