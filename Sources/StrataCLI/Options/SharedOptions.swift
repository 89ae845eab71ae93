import ArgumentParser
import Foundation
import Strata

// The option groups the subcommands share (as swift-argument-parser's `Examples/math/Math.swift`
// shares its `Options`): each option is declared once, with one help text, and every command
// that takes it includes the group with `@OptionGroup`.

/// `--db PATH`: the one database of `plan`, `dump`, `status` and `rekey` (`apply` and `migrate`
/// take several: see ``DatabaseSelection``).
struct DatabaseArguments: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The database file.", valueName: "db"))
    var path: String
}

/// `--migrations DIR`: the folder of migration files of `migrate`, `status`, `new` and `check`.
struct MigrationsArguments: ParsableArguments {
    @Option(
        name: .customLong("migrations"), help: ArgumentHelp("The folder of migration files.", valueName: "migrations"))
    var path: String

    /// The folder, loaded and checked; its errors name the file.
    func load() throws -> MigrationDirectory {
        try MigrationFolder.load(path)
    }
}

/// `--schema FILE`: the desired schema of `plan`, `apply`, `new` and `check`.
struct SchemaFileArguments: ParsableArguments {
    @Option(
        name: .customLong("schema"),
        help: ArgumentHelp("The desired schema: a .sql file of CREATE statements.", valueName: "schema"))
    var path: String

    /// The desired schema, loaded once per command before any database is touched: the file read
    /// (errors name it) and parsed (``SchemaFile/parse(_:)``). A parse error is thrown as the
    /// library's error; see ``load()`` for the CLI's.
    func parse() throws -> DatabaseSchema {
        try SchemaFile.parse(path).schema
    }

    /// ``parse()``, with the text the schema was parsed from (what `apply --record-fingerprint`
    /// records the launch fingerprint of, as `migrateSchema(to:)` does).
    func parseKeepingText() throws -> (schema: DatabaseSchema, text: String) {
        try SchemaFile.parse(path)
    }

    /// ``parse()``, its errors naming the schema file (`schema.sql: statement 2 ...`).
    func load() throws -> DatabaseSchema {
        try SchemaFile.load(path).schema
    }
}

/// `--format text|json`, for every command that reports something (`plan` has its own, with `sql`).
struct FormatArguments: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(
        name: .customLong("format"),
        help: "Output format: text or json (a stable document: see \"JSON output\" in the Strata documentation).")
    var format: Format = .text

    var isJSON: Bool { format == .json }
}

/// Options that shape a plan, shared by `plan`, `apply` and `new`.
struct PlanningArguments: ParsableArguments {
    @Flag(name: .customLong("allow-destructive"), help: "Allow dropping tables, columns and virtual tables.")
    var allowDestructive = false

    @Option(
        name: .customLong("rename-table"), parsing: .singleValue,
        help: ArgumentHelp("A table rename, as OLD:NEW (same as a `-- @renamed from=OLD` hint).", valueName: "OLD:NEW"))
    var tableRenames: [String] = []

    @Option(
        name: .customLong("rename-column"), parsing: .singleValue,
        help: ArgumentHelp(
            "A column rename, as TABLE.OLD:NEW (TABLE is the new table name).", valueName: "TABLE.OLD:NEW"))
    var columnRenames: [String] = []

    @Flag(
        name: .customLong("exact-names"),
        help: ArgumentHelp(
            "Make every stored name that differs from the desired one by letter case alone a change.",
            discussion: "Tables and columns are renamed, indexes, views and triggers recreated. Without it, "
                + "names are matched ignoring case and only a case-only rename given as a `-- @renamed` hint "
                + "or --rename-table/--rename-column is applied."))
    var exactNames = false

    @Flag(
        name: .customLong("online"),
        help: ArgumentHelp(
            "Rebuild tables online: copied in batches while other connections write, then swapped in one short transaction.",
            discussion: "Triggers mirror other connections' writes into the new table; a killed run resumes when run "
                + "again. Only tables with a rowid that the rebuild keeps can go online: any other is refused."))
    var online = false

    @Option(
        name: .customLong("online-threshold"),
        help: ArgumentHelp(
            "Rebuild online only the tables estimated at ROWS rows or more (implies online for those).",
            valueName: "ROWS"))
    var onlineThreshold: Int?

    @Option(
        name: .customLong("online-batch-size"),
        help: ArgumentHelp(
            "Rows an online rebuild copies per transaction (default: as many as take about 25 ms, from 2000).",
            valueName: "ROWS"))
    var onlineBatchSize: Int?

    func validate() throws {
        _ = try makeOptions()
    }

    /// The planning options; throws a ValidationError naming a malformed rename or online value.
    func makeOptions() throws -> SchemaChangeOptions {
        var options = SchemaChangeOptions(allowDestructive: allowDestructive, exactNames: exactNames)
        options.online = online
        if let onlineThreshold {
            guard onlineThreshold >= 0 else {
                throw ValidationError("--online-threshold \(onlineThreshold): expected a number of rows, 0 or more")
            }
            options.onlineRowThreshold = onlineThreshold
        }
        if let onlineBatchSize {
            guard onlineBatchSize > 0 else {
                throw ValidationError("--online-batch-size \(onlineBatchSize): expected a number of rows, 1 or more")
            }
            options.onlineBatchSize = onlineBatchSize
        }
        for rename in tableRenames {
            let parts = rename.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--rename-table \(rename): expected OLD:NEW")
            }
            options.renames.append(.table(parts[0], to: parts[1]))
        }
        for rename in columnRenames {
            let parts = rename.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, let dot = parts[0].lastIndex(of: "."), !parts[1].isEmpty else {
                throw ValidationError("--rename-column \(rename): expected TABLE.OLD:NEW")
            }
            let table = String(parts[0][..<dot])
            let column = String(parts[0][parts[0].index(after: dot)...])
            options.renames.append(.column(column, to: parts[1], inTable: table))
        }
        return options
    }
}

/// Options shared by `plan` and `apply` (each has its own `--db`: `apply` takes several).
struct SchemaChangeArguments: ParsableArguments {
    @OptionGroup var schemaFile: SchemaFileArguments

    @OptionGroup var planning: PlanningArguments

    @OptionGroup var connection: ConnectionArguments

    var options: SchemaChangeOptions {
        get throws { try planning.makeOptions() }
    }
}

/// `--busy-timeout` and `--trace`, for every command that opens a database.
struct ConnectionArguments: ParsableArguments {
    @Option(
        name: .customLong("busy-timeout"),
        help: ArgumentHelp(
            "How long to wait for a lock held by another connection: milliseconds (500), or seconds with "
                + "an s suffix (30s, 1.5s). Default 5s.",
            discussion: "On a terminal, a wait longer than a second is reported once on stderr.",
            valueName: "time"))
    var busyTimeout: BusyTimeout?

    @Flag(help: "Print each SQL statement run on the database to standard error (bound values hidden).")
    var trace = false

    @OptionGroup var encryption: EncryptionArguments

    /// Connection settings for the database at `path`: Strata's defaults, with the busy timeout
    /// given, and a note on stderr once a lock wait passes a second (when stderr is a terminal).
    func configuration(for path: String) -> Configuration {
        var configuration = Configuration()
        if let busyTimeout { configuration.busyTimeout = busyTimeout.seconds }
        if LockWaitNotice.isEnabled {
            let limit = configuration.busyTimeout
            configuration.busyWaitHandler = { waited in LockWaitNotice.waited(waited, on: path, limit: limit) }
        }
        if trace {
            configuration.tracer = { event in FileHandle.standardError.write(Data("trace: \(event.sql)\n".utf8)) }
        }
        encryption.apply(to: &configuration)
        return configuration
    }
}
