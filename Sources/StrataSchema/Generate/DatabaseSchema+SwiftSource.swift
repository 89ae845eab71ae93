import StrataSQLite

/// What ``DatabaseSchema/swiftSource(_:)`` writes.
public struct SwiftSourceOptions: Sendable, Hashable {
    /// Also write a `Codable` record struct for each table and view, with its associations.
    public var records: Bool

    /// Options for ``DatabaseSchema/swiftSource(_:)``: column namespaces only by default.
    ///
    /// ```swift
    /// let source = try DatabaseSchema(sql: text).swiftSource(SwiftSourceOptions(records: true))
    /// ```
    public init(records: Bool = false) {
        self.records = records
    }
}

extension DatabaseSchema {
    /// Swift source for the query types of this schema: for every table and view, an enum with
    /// one `Column` per column (`NoteColumns.title`), and with
    /// ``SwiftSourceOptions/records`` a `Codable` record struct (`Note`) whose `Columns` are that
    /// enum, conforming to `FetchableRecord` and, for a table, `PersistableRecord`
    /// (`MutablePersistableRecord` with `didInsert` setting the id when the table has an
    /// `INTEGER PRIMARY KEY`), with a `belongsTo` association for each foreign key and a `hasMany`
    /// on the parent, each with its `ForeignKey` written out.
    ///
    /// ```swift
    /// let source = try DatabaseSchema(sql: String(contentsOfFile: "schema.sql", encoding: .utf8))
    ///     .swiftSource(SwiftSourceOptions(records: true))
    /// ```
    ///
    /// Renaming a column in the schema then breaks the build where the old name is used. The
    /// output is stable (the same schema gives the same bytes) and already formatted as
    /// swift-format formats it with the project's settings. `strata generate swift` writes it.
    ///
    /// Swift types follow the declared type (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>),
    /// optional unless the column is NOT NULL (a view's columns are always optional, an
    /// `INTEGER PRIMARY KEY` is `Int64?` so that an insert assigns it):
    /// `BOOLEAN`/`BOOL` → `Bool`; `DATE`, `DATETIME`, `TIMESTAMP` → `Date`; `JSON` → `String`;
    /// then by affinity: INTEGER → `Int64`, TEXT → `String`, `BLOB` → `Data`, REAL → `Double`,
    /// NUMERIC (`NUMERIC`, `DECIMAL(10,2)`, any other name) → `Double`; a column without a declared
    /// type (and `ANY` in a STRICT table) → `String`, the usual content of an untyped column
    /// (full-text columns).
    ///
    /// Generated and hidden columns are in the column enum but not in the record (they cannot be
    /// written). Swift names are camel-cased from the SQL names (`created_at` → `createdAt`), with
    /// backticks for keywords and deterministic suffixes for clashes; the SQL names are kept exact
    /// in every `Column` and coding key.
    /// A view's columns are read by compiling the schema's tables and views in a scratch database.
    public func swiftSource(_ options: SwiftSourceOptions = SwiftSourceOptions()) throws -> String {
        try SwiftSourceGenerator(schema: self, options: options).render()
    }
}

extension SchemaDefinition {
    /// The Swift query types of this schema: ``DatabaseSchema/swiftSource(_:)`` of the schema it
    /// declares.
    ///
    /// ```swift
    /// let source = try schema.swiftSource(SwiftSourceOptions(records: true))
    /// ```
    public func swiftSource(_ options: SwiftSourceOptions = SwiftSourceOptions()) throws -> String {
        try DatabaseSchema(self).swiftSource(options)
    }
}

/// The Swift type of a column, from its declared type (see ``DatabaseSchema/swiftSource(_:)``).
enum SwiftColumnType {
    static func name(declaredType: String) -> String {
        let declared = declaredType.uppercased()
        let base = declared.split(separator: "(", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        switch base.split(separator: " ").joined(separator: " ") {
        case "BOOLEAN", "BOOL": return "Bool"
        case "DATE", "DATETIME", "TIMESTAMP": return "Date"
        case "JSON": return "String"
        case "", "ANY": return "String"
        default: break
        }
        switch ColumnAffinity(declaredType: declared) {
        case .integer: return "Int64"
        case .text: return "String"
        case .blob: return "Data"
        case .real, .numeric: return "Double"
        }
    }
}

/// Renders ``DatabaseSchema/swiftSource(_:)``.
struct SwiftSourceGenerator {
    let schema: DatabaseSchema
    let options: SwiftSourceOptions

    /// Swift, Foundation and Strata type names a generated type must not shadow: a table named
    /// `date` gives `DateTable`, a view `column` gives `ColumnView`.
    static let reservedTypeNames: Set<String> = [
        "Any", "Array", "Association", "Bool", "Character", "Codable", "CodingKey", "CodingKeys", "Column", "Columns",
        "Configuration", "Data", "Database", "DatabasePool", "DatabaseQueue", "Date", "Decimal", "Decodable",
        "Dictionary", "Double", "Encodable", "EncodableRecord", "Equatable", "Error", "FetchableRecord", "Float",
        "ForeignKey", "Foundation", "Hashable", "Identifiable", "InsertionSuccess", "Int", "Int64",
        "MutablePersistableRecord", "Never", "Optional", "PersistableRecord", "Protocol", "QueryInterfaceRequest",
        "Result", "Row", "SQLExpression", "SQLLiteral", "SQLValue", "Self", "Sendable", "Set", "Statement",
        "StatementArguments", "Strata", "String", "Swift", "TableAlias", "TableRecord", "Type", "URL", "UUID", "Void",
        "Actor", "Clock", "Collection", "Duration", "Float32", "Float64", "Int16", "Int32", "Int8", "MainActor",
        "Range",
        "Sequence", "Substring", "Task", "UInt", "UInt16", "UInt32", "UInt64", "UInt8", "Unicode",
    ]

    /// Static members of records and requests an association must not be named after.
    static let reservedStaticMembers: Set<String> = [
        "aliased", "all", "annotated", "belongsTo", "databaseColumnDecodingStrategy", "databaseColumnEncodingStrategy",
        "databaseComponents", "databaseDateDecodingStrategy", "databaseDateEncodingStrategy", "databaseSelection",
        "databaseTableName", "deleteAll", "deleteOne", "distinct", "exists", "fetchAll", "fetchCount", "fetchCursor",
        "fetchOne", "fetchSet", "filter", "find", "group", "hasMany", "hasOne", "having", "including", "joining",
        "limit", "matching", "none", "order", "persistenceConflictPolicy", "request", "select", "updateAll",
    ]

    /// Members of the record struct (its protocols' instance members) a property must not be named after.
    static let reservedInstanceMembers: Set<String> = [
        "hashValue", "stringValue", "intValue", "rawValue", "databaseContainer",
    ]

    /// A column, as the generator needs it.
    struct GeneratedColumn {
        var name: String
        var declaredType: String
        var isNotNull: Bool
        /// Whether the record holds it (generated and hidden columns cannot be written).
        var isStored: Bool

        init(name: String, declaredType: String, isNotNull: Bool = false, isStored: Bool = true) {
            self.name = name
            self.declaredType = declaredType
            self.isNotNull = isNotNull
            self.isStored = isStored
        }

        init(_ column: ColumnInfo) {
            self.init(
                name: column.name, declaredType: column.declaredType, isNotNull: column.isNotNull,
                isStored: column.kind == .normal)
        }
    }

    /// One table or view, named.
    struct Object {
        var sqlName: String
        var isView: Bool
        var isVirtual: Bool
        var columns: [GeneratedColumn]
        var foreignKeys: [ForeignKeyInfo]
        var rowIDAlias: String?
        var primaryKey: [String]
        var typeName = ""
        var columnsTypeName = ""
        /// Swift member identifiers of the columns, by position.
        var members: [String] = []
    }

    /// One association of a record.
    struct AssociationLine {
        var name: String
        var kind: String
        var destination: String
        var origin: [String]
        var destinationColumns: [String]?
    }

    func render() throws -> String {
        let scratchColumns = try readScratchColumns()
        var objects = schema.tables.map { table in
            Object(
                sqlName: table.name, isView: false, isVirtual: table.isVirtual,
                columns: table.isVirtual ? scratchColumns[table.name] ?? [] : table.columns.map(GeneratedColumn.init),
                foreignKeys: table.foreignKeys, rowIDAlias: table.rowIDAliasColumn?.name,
                primaryKey: table.columns.filter { $0.primaryKeyPosition > 0 }
                    .sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }.map(\.name))
        }
        objects += schema.views.map { view in
            Object(
                sqlName: view.name, isView: true, isVirtual: false, columns: scratchColumns[view.name] ?? [],
                foreignKeys: [], rowIDAlias: nil, primaryKey: [])
        }
        nameTypes(&objects)
        for index in objects.indices { nameMembers(&objects[index]) }

        var associations: [String: [AssociationLine]] = [:]
        if options.records { associations = makeAssociations(objects) }

        var blocks: [String] = []
        var usesFoundation = false
        for object in objects {
            blocks.append(columnsEnum(object))
            if options.records {
                let (block, foundation) = record(object, associations: associations[object.sqlName] ?? [])
                blocks.append(block)
                usesFoundation = usesFoundation || foundation
            }
        }
        var header = [
            "// Generated by `strata generate swift` from the declared schema: do not edit.",
            "// Regenerate after changing the schema; `strata generate swift --check` fails when this file is out of date.",
            "",
        ]
        if usesFoundation { header.append("import Foundation") }
        header.append("import Strata")
        return (header + blocks.map { "\n" + $0 }).joined(separator: "\n") + "\n"
    }

    /// The columns of each view and virtual table, which the schema does not list: the schema's
    /// tables and views created in a hardened scratch database, and read with `PRAGMA table_xinfo`
    /// (which compiles a view). A virtual table's hidden columns (FTS5's `rank`) are not stored.
    private func readScratchColumns() throws -> [String: [GeneratedColumn]] {
        let names = schema.views.map(\.name) + schema.tables.filter(\.isVirtual).map(\.name)
        guard !names.isEmpty else { return [:] }
        let (scratch, guardian) = try ScratchDatabase.open(ScratchDatabase.configuration())
        defer { scratch.close() }
        try scratch.execute(sql: "BEGIN")
        for table in schema.tables { try guardian.create(table.sql, in: scratch) }
        for view in schema.views { try guardian.create(view.sql, in: scratch) }
        var result: [String: [GeneratedColumn]] = [:]
        for name in names {
            let rows = try scratch.fetchAll(
                sql: "SELECT name, type, \"notnull\", hidden FROM pragma_table_xinfo(?) ORDER BY cid", arguments: [name]
            )
            result[name] = try rows.map { row in
                GeneratedColumn(
                    name: try row["name"], declaredType: try row["type"] ?? "", isNotNull: try row["notnull"],
                    isStored: try row["hidden"] as Int == 0)
            }
        }
        try scratch.execute(sql: "ROLLBACK")
        return result
    }

    private func nameTypes(_ objects: inout [Object]) {
        var namer = Namer(reserved: Self.reservedTypeNames)
        // Record names first, so that a table keeps its plain name before any `...Columns` enum;
        // a name that is already its identifier (`NoteTag`) before one converted (`note_tag`).
        let converted = objects.map { object in
            let name = SwiftIdentifier.type(object.sqlName)
            return Self.reservedTypeNames.contains(name) ? name + (object.isView ? "View" : "Table") : name
        }
        for index in objects.indices where converted[index] == objects[index].sqlName {
            if !namer.isTaken(converted[index]) { objects[index].typeName = namer.claim(converted[index]) }
        }
        for index in objects.indices where objects[index].typeName.isEmpty {
            objects[index].typeName = namer.claim(converted[index])
        }
        for index in objects.indices {
            objects[index].columnsTypeName = namer.claim(objects[index].typeName + "Columns")
        }
    }

    /// Member names of the columns: a column whose SQL name is already its identifier keeps it;
    /// the others, in declaration order, take the next free one.
    private func nameMembers(_ object: inout Object) {
        var namer = Namer(reserved: Self.reservedInstanceMembers)
        var members = [String?](repeating: nil, count: object.columns.count)
        let converted = object.columns.map { SwiftIdentifier.member($0.name) }
        for (index, column) in object.columns.enumerated() where converted[index] == column.name {
            if !namer.isTaken(column.name) { members[index] = namer.claim(column.name) }
        }
        for index in object.columns.indices where members[index] == nil {
            members[index] = namer.claim(converted[index])
        }
        object.members = members.map { $0 ?? "" }
    }

    private func columnsEnum(_ object: Object) -> String {
        var lines = [
            "/// The columns of \(object.isView ? "view" : "table") \(SwiftIdentifier.literal(object.sqlName)).",
            "enum \(object.columnsTypeName) {",
        ]
        for (column, member) in zip(object.columns, object.members) {
            lines.append(
                fitted(
                    "    static let \(SwiftIdentifier.spelled(member)) = Column(",
                    [SwiftIdentifier.literal(column.name)], ")"))
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private func swiftType(_ column: GeneratedColumn, in object: Object) -> String {
        let base = SwiftColumnType.name(declaredType: column.declaredType)
        let optional = object.isView || !column.isNotNull || column.name == object.rowIDAlias
        return optional ? base + "?" : base
    }

    private func record(_ object: Object, associations: [AssociationLine]) -> (String, usesFoundation: Bool) {
        let stored = zip(object.columns, object.members).filter { $0.0.isStored }
        let types = stored.map { swiftType($0.0, in: object) }
        let usesFoundation = types.contains { $0.hasPrefix("Date") || $0.hasPrefix("Data") }
        let rowIDMember = stored.first { $0.0.name == object.rowIDAlias }?.1
        let persistence: String
        if object.isView {
            persistence = "TableRecord"
        } else {
            persistence = rowIDMember == nil ? "PersistableRecord" : "MutablePersistableRecord"
        }
        var lines = [
            "/// A row of \(object.isView ? "view" : "table") \(SwiftIdentifier.literal(object.sqlName)).",
            Self.typeDeclaration(
                "struct \(object.typeName):", ["Codable", "Hashable", "Sendable", "FetchableRecord", persistence]),
            fitted("    static let databaseTableName = ", [SwiftIdentifier.literal(object.sqlName)], ""),
            "    typealias Columns = \(object.columnsTypeName)",
        ]
        if !stored.isEmpty {
            lines.append("")
            for ((_, member), type) in zip(stored, types) {
                lines.append("    var \(SwiftIdentifier.spelled(member)): \(type)")
            }
            lines.append("")
            lines.append("    enum CodingKeys: String, CodingKey {")
            for (column, member) in stored {
                if column.name == member {
                    lines.append("        case \(SwiftIdentifier.spelled(member))")
                } else {
                    let head = "        case \(SwiftIdentifier.spelled(member)) ="
                    let value = SwiftIdentifier.literal(column.name)
                    // swift-format moves a value that does not fit to the next line, indented.
                    lines.append(
                        head.count + 1 + value.count <= 120 ? head + " " + value : head + "\n            " + value)
                }
            }
            lines.append("    }")
        }
        if !associations.isEmpty {
            lines.append("")
            for association in associations { lines.append(associationLine(association, in: object)) }
        }
        if let rowIDMember {
            lines += [
                "",
                "    mutating func didInsert(_ inserted: InsertionSuccess) {",
                "        \(SwiftIdentifier.spelled(rowIDMember)) = inserted.rowID",
                "    }",
            ]
        }
        lines.append("}")
        return (lines.joined(separator: "\n"), usesFoundation)
    }

    /// `struct Name: A, B, C {` on one line when it fits in 120 columns; else as swift-format
    /// breaks it: the conformances filled line by line (continuation lines indented), and the
    /// brace on a line of its own.
    static func typeDeclaration(_ head: String, _ conformances: [String]) -> String {
        let oneLine = head + " " + conformances.joined(separator: ", ") + " {"
        if oneLine.count <= 120 { return oneLine }
        var lines: [String] = []
        var current = head
        for (index, conformance) in conformances.enumerated() {
            let piece = conformance + (index == conformances.count - 1 ? "" : ",")
            if current != head && current.count + 1 + piece.count > 120 {
                lines.append(current)
                current = "    " + piece
            } else {
                current += " " + piece
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n") + "\n{"
    }

    private func associationLine(_ association: AssociationLine, in object: Object) -> String {
        var key = "ForeignKey(" + list(association.origin)
        if let destination = association.destinationColumns { key += ", to: " + list(destination) }
        key += ")"
        let head = "    static let \(SwiftIdentifier.spelled(association.name)) = \(association.kind)("
        let arguments = [
            "\(association.destination).self", "key: \(SwiftIdentifier.literal(association.name))", "using: \(key)",
        ]
        return fitted(head, arguments, ")")
    }

    private func list(_ names: [String]) -> String {
        "[" + names.map(SwiftIdentifier.literal).joined(separator: ", ") + "]"
    }

    /// `head` + arguments + `tail` on one line when it fits in 120 columns; else broken the way
    /// swift-format breaks a call (arguments on the next line, indented, together when they fit,
    /// one per line when they do not).
    private func fitted(_ head: String, _ arguments: [String], _ tail: String) -> String {
        let oneLine = head + arguments.joined(separator: ", ") + tail
        if oneLine.count <= 120 { return oneLine }
        let indent = String(repeating: " ", count: head.prefix { $0 == " " }.count + 4)
        let together = indent + arguments.joined(separator: ", ") + tail
        if head.hasSuffix("(") && together.count <= 120 { return head + "\n" + together }
        if !head.hasSuffix("(") {
            // `static let x = "..."`: swift-format leaves a literal that cannot fit after the `=`.
            return oneLine
        }
        let separated = arguments.enumerated().map { index, argument in
            indent + argument + (index == arguments.count - 1 ? "" : ",")
        }
        return head + "\n" + separated.joined(separator: "\n") + "\n" + indent.dropLast(4) + tail
    }

    /// The associations of each record (by SQL table name): `belongsTo` on the child for each
    /// foreign key to a table of the schema, `hasMany` on the parent.
    private func makeAssociations(_ objects: [Object]) -> [String: [AssociationLine]] {
        let byName = Dictionary(
            objects.filter { !$0.isView && !$0.isVirtual }.map { ($0.sqlName.lowercased(), $0) },
            uniquingKeysWith: { first, _ in first })
        var result: [String: [AssociationLine]] = [:]
        var namers: [String: Namer] = [:]
        func claim(_ name: String, on table: String) -> String {
            var namer = namers[table] ?? Namer(reserved: Self.reservedStaticMembers)
            let claimed = namer.claim(name)
            namers[table] = namer
            return claimed
        }
        // belongsTo first (each child in schema order), then hasMany, so adding a child table
        // never renames a parent's belongsTo.
        var pending: [(parent: Object, child: Object, key: ForeignKeyInfo, origin: [String], destination: [String]?)] =
            []
        for child in objects where !child.isView && !child.isVirtual {
            // The schema lists a table's keys as SQLite numbers them, the last declared first:
            // declaration order reads better, and names are handed out in it.
            let keys = Array(child.foreignKeys.reversed())
            for key in keys {
                guard let parent = byName[key.parentTable.lowercased()] else { continue }
                let destination: [String]? =
                    key.parentColumns.contains { $0 == nil }
                    ? (parent.primaryKey.count == key.columns.count ? parent.primaryKey : nil)
                    : key.parentColumns.compactMap { $0 }
                let sameParent = keys.filter { $0.parentTable.lowercased() == key.parentTable.lowercased() }.count
                var name = SwiftIdentifier.member(parent.sqlName)
                if key.columns.count == 1, let stripped = Self.strippingIDSuffix(key.columns[0]) {
                    name = SwiftIdentifier.member(stripped)
                } else if key.columns.count == 1, sameParent > 1 {
                    name = SwiftIdentifier.member(key.columns[0])
                } else if sameParent > 1 {
                    name += SwiftIdentifier.type(key.columns.joined(separator: "_"))
                }
                let line = AssociationLine(
                    name: claim(name, on: child.sqlName), kind: "belongsTo", destination: parent.typeName,
                    origin: key.columns, destinationColumns: destination)
                result[child.sqlName, default: []].append(line)
                pending.append((parent, child, key, key.columns, destination))
            }
        }
        for (parent, child, key, origin, destination) in pending {
            var name = Self.plural(SwiftIdentifier.member(child.sqlName))
            let sameParent = child.foreignKeys.filter { $0.parentTable.lowercased() == key.parentTable.lowercased() }
            if sameParent.count > 1 {
                let belongs = result[child.sqlName]?.first { $0.kind == "belongsTo" && $0.origin == origin }
                name += "By" + SwiftIdentifier.type(belongs?.name ?? origin.joined(separator: "_"))
            }
            let line = AssociationLine(
                name: claim(name, on: parent.sqlName), kind: "hasMany", destination: child.typeName, origin: origin,
                destinationColumns: destination)
            result[parent.sqlName, default: []].append(line)
        }
        return result
    }

    /// `folder_id`, `folderId`, `folderID`, `folder id` → `folder`; nil for a name without the suffix.
    static func strippingIDSuffix(_ column: String) -> String? {
        for suffix in ["_id", " id", "Id", "ID", "_ID"] where column.hasSuffix(suffix) && column.count > suffix.count {
            return String(column.dropLast(suffix.count))
        }
        return nil
    }

    /// A naive English plural, stable: `note` → `notes`, `category` → `categories`, a name that
    /// already ends in `s` is kept.
    static func plural(_ name: String) -> String {
        if name.hasSuffix("s") { return name }
        if name.hasSuffix("y"), let before = name.dropLast().last, !"aeiou".contains(before) {
            return name.dropLast() + "ies"
        }
        return name + "s"
    }
}
