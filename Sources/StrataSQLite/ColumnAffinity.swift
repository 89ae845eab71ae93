/// SQLite's affinity of a declared column type, by its rules in their order
/// (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>): the one copy of
/// them, for the compatibility rules of a type change, the Swift types `strata generate swift`
/// writes, and the rows the test kit generates.
package enum ColumnAffinity: String, Sendable, Hashable {
    case integer = "INTEGER"
    case text = "TEXT"
    case blob = "BLOB"
    case real = "REAL"
    case numeric = "NUMERIC"

    /// The affinity of a column declared with `declaredType` (no type at all is BLOB).
    package init(declaredType: String) {
        let t = declaredType.uppercased()
        if t.contains("INT") {
            self = .integer
        } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
            self = .text
        } else if t.contains("BLOB") || t.isEmpty {
            self = .blob
        } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }
}
