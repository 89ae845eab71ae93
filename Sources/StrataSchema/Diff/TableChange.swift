import StrataSQLite

extension SchemaDiff {
    /// A table present in both schemas, possibly renamed, and what changed in it.
    ///
    /// ```swift
    /// for change in diff.changedTables {
    ///     print(change.live.name, "->", change.desired.name)
    ///     print(change.columnRenames, change.addedColumns.map(\.name), change.droppedColumns.map(\.name))
    /// }
    /// ```
    public struct TableChange: Sendable {
        /// The table as it is (in the schema compared from).
        public var live: TableInfo
        /// The table as it should be (in the schema compared to).
        public var desired: TableInfo
        /// Columns renamed, live name to desired name, in the desired table's order.
        public private(set) var columnRenames: [ColumnRename] = []
        /// Desired columns that have no live column (hint or option resolved), in order.
        public private(set) var addedColumns: [ColumnInfo] = []
        /// Live columns that no desired column comes from, in order.
        public private(set) var droppedColumns: [ColumnInfo] = []
        /// Columns in both whose definition (type, constraints, default, collation) differs.
        public private(set) var redefinedColumns: [ColumnRedefinition] = []
        /// Table constraints (PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY clauses) only the desired table has, as written.
        public private(set) var addedConstraints: [String] = []
        /// Table constraints only the live table has, as written.
        public private(set) var droppedConstraints: [String] = []

        /// Desired column key (lowercased name) -> the live column it comes from.
        private(set) var sources: [String: String] = [:]
        /// True when the stored name of the table must be exactly the desired one, letter case
        /// included: a case-only rename hinted or given as an option, or
        /// ``SchemaChangeOptions/exactNames``.
        public private(set) var comparesTableNameExactly = false
        /// Desired column keys (lowercased names) whose stored name must be exactly the desired
        /// one (see ``comparesTableNameExactly``).
        private(set) var exactColumns: Set<String> = []

        /// True when the table is renamed: its name differs ignoring case, or, when the name is
        /// compared exactly (a case-only rename hinted or given as an option, or
        /// ``SchemaChangeOptions/exactNames``), differs at all.
        public var isRenamed: Bool {
            comparesTableNameExactly ? live.name != desired.name : !live.name.asciiCaseInsensitiveEquals(desired.name)
        }

        /// True when anything differs: the name, a column's name, or the definition.
        public var isChanged: Bool { isRenamed || !columnRenames.isEmpty || !SchemaDiff.sameDefinition(live, desired) }

        /// The live column that desired column `name` comes from, if any.
        func source(of name: String) -> String? { sources[name.asciiLowercased()] }

        /// True when the stored names of `table` (this change's table, as it is in some schema)
        /// are the desired ones wherever this change compares them exactly: the table's own
        /// name, and the columns of ``exactColumns``.
        func hasExactNames(_ table: TableInfo) -> Bool {
            if comparesTableNameExactly, table.name != desired.name { return false }
            for c in desired.columns where exactColumns.contains(c.name.asciiLowercased()) {
                guard let stored = table.column(named: c.name), stored.name == c.name else { return false }
            }
            return true
        }

        /// The stored names that differ from the desired ones by letter case alone where this
        /// change compares them exactly, one line each.
        var caseDescriptions: [String] {
            var out = [String]()
            if comparesTableNameExactly, live.name != desired.name, live.name.asciiCaseInsensitiveEquals(desired.name) {
                out.append("name stored as \(live.name)")
            }
            guard !live.isVirtual, !desired.isVirtual else { return out }
            for c in desired.columns where exactColumns.contains(c.name.asciiLowercased()) {
                if let stored = live.column(named: c.name), stored.name != c.name {
                    out.append("column \(c.name) stored as \(stored.name)")
                }
            }
            return out
        }

        /// `live` and `desired` compared column by column, matching names (ignoring case; the
        /// stored names compared exactly too with `exactNames`).
        init(comparing live: TableInfo, to desired: TableInfo, exactNames: Bool = false) {
            self.init(
                comparing: live, to: desired, exactTableName: exactNames,
                exactColumns: exactNames ? Set(desired.columns.map { $0.name.asciiLowercased() }) : [])
        }

        /// `live` and `desired` compared column by column, matching names, the stored names of the
        /// table (`exactTableName`) and of the desired columns `exactColumns` (keys) exactly.
        init(comparing live: TableInfo, to desired: TableInfo, exactTableName: Bool, exactColumns: Set<String>) {
            var sources = [String: String]()
            if !live.isVirtual && !desired.isVirtual {
                for c in desired.columns {
                    if let same = live.column(named: c.name) { sources[c.name.asciiLowercased()] = same.name }
                }
            }
            self.init(
                live: live, desired: desired, sources: sources, exactTableName: exactTableName,
                exactColumns: exactColumns)
        }

        /// `live` becoming `desired`, each desired column coming from the live column `sources`
        /// names; the stored names of the table (`exactTableName`) and of the desired columns
        /// `exactColumns` (keys) must be exactly the desired ones, letter case included.
        init(
            live: TableInfo, desired: TableInfo, sources: [String: String], exactTableName: Bool = false,
            exactColumns: Set<String> = []
        ) {
            self.live = live
            self.desired = desired
            self.comparesTableNameExactly = exactTableName
            self.exactColumns = exactColumns
            // A generated column comes from no stored column: the stored values cannot be kept
            // (the rebuild computes the column), so that column is dropped, which is destructive.
            var sources = sources
            for c in desired.columns where c.isGenerated {
                let key = c.name.asciiLowercased()
                if let name = sources[key], let old = live.column(named: name), !old.isGenerated { sources[key] = nil }
            }
            self.sources = sources
            guard !live.isVirtual, !desired.isVirtual else { return }
            var used = Set<String>()
            for c in desired.columns {
                guard let sourceName = sources[c.name.asciiLowercased()], let old = live.column(named: sourceName)
                else {
                    addedColumns.append(c)
                    continue
                }
                used.insert(old.name.asciiLowercased())
                if !old.name.asciiCaseInsensitiveEquals(c.name)
                    || (old.name != c.name && exactColumns.contains(c.name.asciiLowercased()))
                {
                    columnRenames.append(ColumnRename(from: old.name, to: c.name))
                }
                if old.normalizedBody != c.normalizedBody {
                    redefinedColumns.append(ColumnRedefinition(live: old, desired: c))
                }
            }
            droppedColumns = live.columns.filter { !used.contains($0.name.asciiLowercased()) }
            let liveConstraints = Set(live.normalizedConstraints)
            let desiredConstraints = Set(desired.normalizedConstraints)
            addedConstraints = zip(desired.constraints, desired.normalizedConstraints)
                .filter { !liveConstraints.contains($0.1) }.map(\.0)
            droppedConstraints = zip(live.constraints, live.normalizedConstraints)
                .filter { !desiredConstraints.contains($0.1) }.map(\.0)
        }

        /// What differs, one line each, with the desired table as the expected one and columns
        /// matched by name (a column renamed is missing under its new name), after the stored
        /// names that differ by letter case where they are compared exactly (`name stored as
        /// Player`, `column name stored as Name`): `[]` when the definitions and those names are
        /// the same.
        public var descriptions: [String] {
            let expected = desired
            let found = live
            let names = caseDescriptions
            guard !SchemaDiff.sameDefinition(expected, found) else { return names }
            if expected.isVirtual || found.isVirtual {
                return names + ["expected `\(expected.sql)`, found `\(found.sql)`"]
            }
            var out = [String]()
            for c in expected.columns {
                if let o = found.column(named: c.name) {
                    if o.normalizedBody != c.normalizedBody {
                        out.append(
                            "column \(c.name) expected `\(c.definition.collapsingWhitespace)`, "
                                + "found `\(o.definition.collapsingWhitespace)`")
                    }
                } else {
                    out.append("column \(c.name) is missing")
                }
            }
            for o in found.columns where expected.column(named: o.name) == nil {
                out.append("column \(o.name) is not expected")
            }
            if out.isEmpty,
                expected.columns.map({ $0.name.asciiLowercased() }) != found.columns.map({ $0.name.asciiLowercased() })
            {
                out.append(
                    "columns expected in order (\(expected.columns.map(\.name).joined(separator: ", "))), "
                        + "found (\(found.columns.map(\.name).joined(separator: ", ")))")
            }
            if expected.normalizedConstraints.sorted() != found.normalizedConstraints.sorted() {
                out.append(
                    "constraints expected [\(expected.constraints.joined(separator: "; "))], "
                        + "found [\(found.constraints.joined(separator: "; "))]")
            }
            if expected.isWithoutRowID != found.isWithoutRowID {
                out.append(expected.isWithoutRowID ? "expected WITHOUT ROWID" : "expected a rowid table")
            }
            if expected.isStrict != found.isStrict {
                out.append(expected.isStrict ? "expected STRICT" : "expected not STRICT")
            }
            if out.isEmpty { out.append("expected `\(expected.sql)`, found `\(found.sql)`") }
            return names + out
        }
    }

    /// A column renamed: its live name and its desired name.
    public struct ColumnRename: Sendable, Hashable, CustomStringConvertible {
        public var from: String
        public var to: String
        public var description: String { "\(from) -> \(to)" }
    }

    /// A column in both tables whose definition differs.
    public struct ColumnRedefinition: Sendable, Hashable {
        public var live: ColumnInfo
        public var desired: ColumnInfo
    }
}

extension String {
    /// Runs of whitespace as one space, for messages.
    var collapsingWhitespace: String {
        split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
