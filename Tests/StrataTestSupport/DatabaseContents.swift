import Foundation
import Strata
import Testing

/// Everything observable in a database: schema entries (including internal ones) and every row
/// of every table, for before/after comparisons.
public struct DatabaseContents: Equatable, CustomStringConvertible {
    public var schema: [String]
    public var rows: [String: [[SQLValue]]]

    public init(_ db: Database) throws {
        schema = try db.fetchAll(sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
            .map { $0.values.map(\.sqlLiteral).joined(separator: " | ") }
        rows = [:]
        let tables: [String] = try db.fetchColumn(
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
        for table in tables {
            let quoted = SQL.quoteIdentifier(table)
            let withRowID = (try? db.makeStatement(sql: "SELECT rowid FROM \(quoted)")) != nil
            let order = withRowID ? "ORDER BY rowid" : "ORDER BY 1"
            rows[table] = try db.fetchAll(sql: "SELECT \(withRowID ? "rowid, " : "")* FROM \(quoted) \(order)").map(
                \.values)
        }
    }

    public var description: String {
        schema.joined(separator: "\n") + "\n"
            + rows.sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }
}

/// The bytes of a file, for "the database is unchanged" checks.
public func fileBytes(_ path: String) -> Data {
    FileManager.default.contents(atPath: path) ?? Data()
}
