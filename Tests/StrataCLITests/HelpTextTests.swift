import Foundation
import StrataTestSupport
import Testing

/// Every subcommand's `--help`, pinned (as swift-argument-parser's own examples do): a change
/// to an option, its help or the usage shows up here and must be made on purpose (and the
/// README's command-line reference updated with it). Run at 80 columns; `python3 scripts/pin-cli-help.py` rewrites this file.
@Suite("Help text")
struct HelpTextTests {
    private func help(_ command: [String]) throws -> String {
        let r = try ChildProcess.run("strata", command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr == "")
        return r.stdout
    }

    @Test func rootHelp() throws {
        #expect(
            try help([String]()) == """
                OVERVIEW: Safe schema evolution for SQLite.

                Exit codes: 0 done (or nothing to do), 1 error (the database is unchanged), 2
                lint findings at or above --fail-on, 3 refused because destructive changes were
                not allowed (restore: rows would be lost without --accept-loss).

                USAGE: strata <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  plan                    Show the changes that would bring a database to the
                                          desired schema.
                  apply                   Bring a database to the desired schema, in one
                                          transaction.
                  dump                    Print the schema of a database as SQL (tables,
                                          indexes, views, triggers).
                  version                 Print the Strata and SQLite library versions, and the
                                          SQLite advisories that apply.
                  migrate                 Apply the pending migration files (DIR/NNNN_name.sql)
                                          to a database.
                  status                  Show applied, pending, edited and unknown migrations
                                          of a database, and schema drift.
                  new                     Write the next migration file (DIR/NNNN_name.sql)
                                          from the changes in schema.sql.
                  check                   Check that a fresh database migrated through DIR
                                          equals schema.sql.
                  rekey                   Change, add or remove the encryption key of a
                                          database.
                  history                 Write the schema of every version of a migrations
                                          folder into a history folder.
                  verify                  Upgrade a filled database from every version of a
                                          history to head, and check it.
                  squash                  Replace migrations 1...ID of a folder with one
                                          baseline file.
                  lint                    Classify every change of a schema change for the app
                                          versions that still run.
                  generate                Generate code from schema.sql.
                  doctor                  List the known SQLite defects that apply to this
                                          SQLite and to a database.
                  restore                 Return a database to a restore point: its schema and
                                          rows before an upgrade.
                  upgrade                 Show the upgrade safety of a database: its restore
                                          points and its last upgrade.

                  See 'strata help <subcommand>' for detailed help.

                """)
    }

    @Test func planHelp() throws {
        #expect(
            try help(["plan"]) == """
                OVERVIEW: Show the changes that would bring a database to the desired schema.

                Nothing is written. Prints "No changes." when the database already matches.
                Exits 3 when the plan holds destructive changes and --allow-destructive is not
                given (with --format json, the document is printed all the same, the refused
                changes listed).

                USAGE: strata plan [<options>] --db <db> --schema <schema>

                OPTIONS:
                  --db <db>               The database file.
                  --schema <schema>       The desired schema: a .sql file of CREATE statements.
                  --allow-destructive     Allow dropping tables, columns and virtual tables.
                  --rename-table <OLD:NEW>
                                          A table rename, as OLD:NEW (same as a `-- @renamed
                                          from=OLD` hint).
                  --rename-column <TABLE.OLD:NEW>
                                          A column rename, as TABLE.OLD:NEW (TABLE is the new
                                          table name).
                  --exact-names           Make every stored name that differs from the desired
                                          one by letter case alone a change.
                        Tables and columns are renamed, indexes, views and triggers recreated.
                        Without it, names are matched ignoring case and only a case-only rename
                        given as a `-- @renamed` hint or --rename-table/--rename-column is
                        applied.
                  --online                Rebuild tables online: copied in batches while other
                                          connections write, then swapped in one short
                                          transaction.
                        Triggers mirror other connections' writes into the new table; a killed
                        run resumes when run again. Only tables with a rowid that the rebuild
                        keeps can go online: any other is refused.
                  --online-threshold <ROWS>
                                          Rebuild online only the tables estimated at ROWS rows
                                          or more (implies online for those).
                  --online-batch-size <ROWS>
                                          Rows an online rebuild copies per transaction
                                          (default: as many as take about 25 ms, from 2000).
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --format <format>       Output format: text, sql or json. (values: text, sql,
                                          json; default: text)
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func applyHelp() throws {
        #expect(
            try help(["apply"]) == """
                OVERVIEW: Bring a database to the desired schema, in one transaction.

                The plan is proven on a schema-only copy first, then applied atomically: on any
                error the database is unchanged. A database that does not exist is created.

                Several databases (several --db values, a quoted glob pattern, or --db-list):
                each one is planned and applied on its own, in its own transaction, up to
                --jobs at once; one failing database never affects another. Each database's
                result is reported, then a summary. Exit 0 when all succeeded, 1 when any
                failed, else 3 when any was refused.

                USAGE: strata apply [<options>] --schema <schema>

                OPTIONS:
                  --db <path>             The database file (created when missing). Several
                                          paths, or a quoted glob pattern ('tenants/*.sqlite'),
                                          make a batch.
                  --db-list <file>        A file listing database paths, one per line (#
                                          comments and blank lines skipped; - reads stdin).
                  --jobs <n>              In a batch, how many databases to work on at once, up
                                          to 256 (default: the number of CPUs).
                  --continue-on-error     In a batch, go on after a database fails (default:
                                          start no new database after the first failure).
                  --schema <schema>       The desired schema: a .sql file of CREATE statements.
                  --allow-destructive     Allow dropping tables, columns and virtual tables.
                  --rename-table <OLD:NEW>
                                          A table rename, as OLD:NEW (same as a `-- @renamed
                                          from=OLD` hint).
                  --rename-column <TABLE.OLD:NEW>
                                          A column rename, as TABLE.OLD:NEW (TABLE is the new
                                          table name).
                  --exact-names           Make every stored name that differs from the desired
                                          one by letter case alone a change.
                        Tables and columns are renamed, indexes, views and triggers recreated.
                        Without it, names are matched ignoring case and only a case-only rename
                        given as a `-- @renamed` hint or --rename-table/--rename-column is
                        applied.
                  --online                Rebuild tables online: copied in batches while other
                                          connections write, then swapped in one short
                                          transaction.
                        Triggers mirror other connections' writes into the new table; a killed
                        run resumes when run again. Only tables with a rowid that the rebuild
                        keeps can go online: any other is refused.
                  --online-threshold <ROWS>
                                          Rebuild online only the tables estimated at ROWS rows
                                          or more (implies online for those).
                  --online-batch-size <ROWS>
                                          Rows an online rebuild copies per transaction
                                          (default: as many as take about 25 ms, from 2000).
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --dry-run               Print the SQL apply would run; write nothing.
                  --backup <path>         Write a consistent copy of the database to this new
                                          file before applying.
                        The copy gets the database's permissions. An existing file is refused
                        (see --force-backup); so are a directory, a link, and the database
                        itself or its -journal, -wal or -shm file.
                  --record-fingerprint    Also record the launch fingerprint of the schema
                                          file's text, as migrateSchema(to:) does.
                        An app that then migrates to the same text takes the fast path. Off by
                        default: apply writes only the schema it is given.
                  --force-backup          Let --backup replace a regular file already at its
                                          path.
                  --restore-point         Write a restore point before applying (`strata
                                          restore` takes the change back).
                        The restore point is a checked copy in <database>-strata-upgrade/,
                        encrypted with the database's key; its id, path and size are reported.
                        None is written when there is nothing to apply or the database is
                        created by this command.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func dumpHelp() throws {
        #expect(
            try help(["dump"]) == """
                OVERVIEW: Print the schema of a database as SQL (tables, indexes, views,
                triggers).

                The output is a valid desired schema for `strata plan` and `strata apply`.

                USAGE: strata dump --db <db> [--format <format>] [--busy-timeout <time>] [--trace] [--key-file <path>] [--key-env <name>]

                OPTIONS:
                  --db <db>               The database file.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func versionHelp() throws {
        #expect(
            try help(["version"]) == """
                OVERVIEW: Print the Strata and SQLite library versions, and the SQLite
                advisories that apply.

                USAGE: strata version

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func migrateHelp() throws {
        #expect(
            try help(["migrate"]) == """
                OVERVIEW: Apply the pending migration files (DIR/NNNN_name.sql) to a database.

                Each migration runs in its own transaction, with foreign keys off and a foreign
                key check before commit, and is recorded in the strata_migrations table. A
                database that applied migrations missing from DIR, or whose applied files were
                edited, is refused.

                Several databases (several --db values, a quoted glob pattern, or --db-list):
                each one is migrated on its own, all its pending migrations in one transaction
                (all or none), up to --jobs at once; one failing database never affects
                another. Each database's result is reported, then a summary. Exit 0 when all
                succeeded, else 1.

                USAGE: strata migrate [<options>] --migrations <migrations>

                OPTIONS:
                  --db <path>             The database file (created when missing). Several
                                          paths, or a quoted glob pattern ('tenants/*.sqlite'),
                                          make a batch.
                  --db-list <file>        A file listing database paths, one per line (#
                                          comments and blank lines skipped; - reads stdin).
                  --jobs <n>              In a batch, how many databases to work on at once, up
                                          to 256 (default: the number of CPUs).
                  --continue-on-error     In a batch, go on after a database fails (default:
                                          start no new database after the first failure).
                  --migrations <migrations>
                                          The folder of migration files.
                  --to <to>               Stop after this migration (identifier or number).
                  --dry-run               Run the pending migrations on an in-memory copy and
                                          report; the database is unchanged.
                  --restore-point         Write a restore point before the upgrade (`strata
                                          restore` takes the upgrade back).
                        The restore point is a checked copy in <database>-strata-upgrade/,
                        encrypted with the database's key; its id, path and size are reported.
                        None is written when nothing is pending.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func statusHelp() throws {
        #expect(
            try help(["status"]) == """
                OVERVIEW: Show applied, pending, edited and unknown migrations of a database,
                and schema drift.

                Exits 1 (with one line on stderr) when `strata migrate` would refuse the
                database: applied migrations were edited or are missing from DIR.

                Drift: the applied migrations are replayed on an empty in-memory database and
                its schema compared with the database's (as `strata check` compares).
                Differences are listed (a change made outside the migrations, such as `strata
                apply`); they do not change the exit code. Drift is not checked when applied
                migrations are edited or missing from DIR. A migration applied without a
                checksum (a Swift closure migration of an app) cannot be verified: a change to
                its code is not detected, and status says so.

                USAGE: strata status --db <db> --migrations <migrations> [--format <format>] [--busy-timeout <time>] [--trace] [--key-file <path>] [--key-env <name>]

                OPTIONS:
                  --db <db>               The database file.
                  --migrations <migrations>
                                          The folder of migration files.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func newHelp() throws {
        #expect(
            try help(["new"]) == """
                OVERVIEW: Write the next migration file (DIR/NNNN_name.sql) from the changes in
                schema.sql.

                Migrates a scratch in-memory database through every file in DIR, plans the
                changes that turn it into schema.sql (rename hints as in `strata plan`), and
                writes them as the next file with a header comment describing each change.
                Writes nothing when there is no change. Exit 3 when the changes are destructive
                and --allow-destructive is not given.

                USAGE: strata new --migrations <migrations> --schema <schema> --name <name> [--allow-destructive] [--rename-table <OLD:NEW> ...] [--rename-column <TABLE.OLD:NEW> ...] [--exact-names] [--online] [--online-threshold <ROWS>] [--online-batch-size <ROWS>] [--data] [--min-sqlite <VERSION>]

                OPTIONS:
                  --migrations <migrations>
                                          The folder of migration files.
                  --schema <schema>       The desired schema: a .sql file of CREATE statements.
                  --name <name>           What the migration does, for its file name ("add book
                                          year").
                  --allow-destructive     Allow dropping tables, columns and virtual tables.
                  --rename-table <OLD:NEW>
                                          A table rename, as OLD:NEW (same as a `-- @renamed
                                          from=OLD` hint).
                  --rename-column <TABLE.OLD:NEW>
                                          A column rename, as TABLE.OLD:NEW (TABLE is the new
                                          table name).
                  --exact-names           Make every stored name that differs from the desired
                                          one by letter case alone a change.
                        Tables and columns are renamed, indexes, views and triggers recreated.
                        Without it, names are matched ignoring case and only a case-only rename
                        given as a `-- @renamed` hint or --rename-table/--rename-column is
                        applied.
                  --online                Rebuild tables online: copied in batches while other
                                          connections write, then swapped in one short
                                          transaction.
                        Triggers mirror other connections' writes into the new table; a killed
                        run resumes when run again. Only tables with a rowid that the rebuild
                        keeps can go online: any other is refused.
                  --online-threshold <ROWS>
                                          Rebuild online only the tables estimated at ROWS rows
                                          or more (implies online for those).
                  --online-batch-size <ROWS>
                                          Rows an online rebuild copies per transaction
                                          (default: as many as take about 25 ms, from 2000).
                  --data                  Write a declarative entry with a data step instead:
                                          the folder DIR/NNNN_name/ holding schema.sql (a copy
                                          of the schema) and data.sql (a skeleton listing what
                                          the expanding part adds before it runs and what the
                                          contracting part does after).
                  --min-sqlite <VERSION>  The oldest SQLite the migration must run on (default
                                          3.26.0, the oldest Strata supports). ALTER TABLE
                                          forms newer than it (DROP COLUMN 3.35, ADD CONSTRAINT
                                          and SET/DROP NOT NULL 3.53) are written as table
                                          rebuilds.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func checkHelp() throws {
        #expect(
            try help(["check"]) == """
                OVERVIEW: Check that a fresh database migrated through DIR equals schema.sql.

                The drift check that keeps the migrations and the declared schema honest: exits
                1, with the differences listed on stdout, when they disagree.

                USAGE: strata check --migrations <migrations> --schema <schema> [--format <format>]

                OPTIONS:
                  --migrations <migrations>
                                          The folder of migration files.
                  --schema <schema>       The desired schema: a .sql file of CREATE statements.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func rekeyHelp() throws {
        #expect(
            try help(["rekey"]) == """
                OVERVIEW: Change, add or remove the encryption key of a database.

                The database is opened with its current key (--key-file or --key-env; none for
                a plaintext database) and re-encrypted with the new key (--new-key-file or
                --new-key-env), or decrypted (--remove-key). Crash-safe: the new file is
                written beside the database, checked (integrity, the rows of every table, the
                journal mode), flushed and renamed over it. On any error the database is
                unchanged; if interrupted, it opens either with the old key, unchanged, or with
                the new key, complete. The journal mode (WAL or rollback journal), owner and
                permissions are kept; the new file needs as much free space as the database. No
                other connection may use the database meanwhile (one holding a lock is
                refused). Needs an encryption-capable SQLite (SQLCipher or SQLite3 Multiple
                Ciphers).

                USAGE: strata rekey --db <db> [--busy-timeout <time>] [--trace] [--key-file <path>] [--key-env <name>] [--new-key-file <path>] [--new-key-env <name>] [--remove-key]

                OPTIONS:
                  --db <db>               The database file.
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --new-key-file <path>   The new passphrase, in this file (one trailing
                                          newline is ignored).
                  --new-key-env <name>    The new passphrase, in this environment variable.
                  --remove-key            Decrypt the database: it becomes a plaintext SQLite
                                          file.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func historyHelp() throws {
        #expect(
            try help(["history"]) == """
                OVERVIEW: Write the schema of every version of a migrations folder into a
                history folder.

                Version N is the database after the first N migrations of the folder, in order:
                HISTORY/0003.sql holds the schema after the third migration and names it in its
                first line. The text is stable (the same migrations give the same bytes):
                commit the folder, and run `strata verify` in CI. For a declarative app,
                `strata history add` records a release's desired schema.

                USAGE: strata history [--migrations <migrations>] [--out <history>] <subcommand>

                OPTIONS:
                  --migrations <migrations>
                                          The folder of migration files.
                  --out <history>         The history folder to write.
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  add                     Record a desired schema as version N of a history
                                          folder (HISTORY/000N.sql).

                  See 'strata help history <subcommand>' for detailed help.

                """)
    }

    @Test func verifyHelp() throws {
        #expect(
            try help(["verify"]) == """
                OVERVIEW: Upgrade a filled database from every version of a history to head,
                and check it.

                For each version of the history, builds a database at that version (the
                migrations 1...N with --migrations, or the engine with --schema), fills it with
                generated rows that probe the schema's edges, upgrades it to head the way the
                app does, and checks that the schema equals a fresh install, that every row
                kept its values (except what the upgrade drops), and that integrity_check,
                foreign_key_check and FTS integrity pass. One line per version; exits 1 when a
                version fails, naming the table and row. With --key-file or --key-env, each
                version's database is an encrypted file, opened again with the key after the
                upgrade (needs an encryption-capable SQLite).

                With --older-versions (and --migrations), every version of the history also
                opens the head database the way that version of the app does (its migrations,
                opening newer files when compatible: Migrator.newerDatabasePolicy), and the
                verdict is checked by using the file: opens normally (its generated rows
                written and read back), read-only (its columns read, a write refused) or
                refused; one more line per version, exits 1 when a verdict does not hold.

                USAGE: strata verify --history <history> [--migrations <migrations>] [--schema <schema>] [--rows <rows>] [--seed <seed>] [--allow-destructive] [--older-versions] [--key-file <path>] [--key-env <name>] [--format <format>]

                OPTIONS:
                  --history <history>     The history folder.
                  --migrations <migrations>
                                          The folder of migration files (head).
                  --schema <schema>       The desired schema (head) of a declarative app.
                  --rows <rows>           Generated rows per table (default 12). (default: 12)
                  --seed <seed>           The seed of the generated values (default 1).
                                          (default: 1)
                  --allow-destructive     With --schema: upgrade with destructive changes
                                          allowed (their rows are not checked).
                  --older-versions        With --migrations: also open the head database with
                                          every version of the history (the migrations through
                                          it, opening newer files when compatible) and check
                                          the verdict: opens normally (its rows written and
                                          read back), read-only (reads work, writes refused) or
                                          refused.
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func lintHelp() throws {
        #expect(
            try help(["lint"]) == """
                OVERVIEW: Classify every change of a schema change for the app versions that
                still run.

                Plans the change from the old schema (a database, a schema file, or the latest
                version of a history folder) to the desired one, and classifies each change:
                safe while older versions run, breaking for older readers or writers, or
                data-dependent (may fail on existing rows). Each finding has a stable code
                (listed in the Strata documentation, "Upgrades over an app's life"), the
                object, the reason and the safer sequence. Exits 0 when no finding is at or
                above --fail-on, 2 when one is, 1 on an error.

                USAGE: strata lint [<options>] --to <schema>

                OPTIONS:
                  --from <old>            The old schema: a history folder, a .sql schema file,
                                          or a database (decided by what the path is).
                  --db <db>               The old schema: a database file.
                  --schema <schema>       The old schema: a .sql schema file.
                  --history <history>     The old schema: the latest version of a history
                                          folder (or --release N).
                  --release <release>     With a history folder: the version to lint from
                                          (default: the latest).
                  --to <schema>           The desired schema: a .sql file.
                  --policy <policy>       previous-version (default), sync (a synced store's
                                          rules) or strict. (values: previous-version, sync,
                                          strict; default: previous-version)
                  --fail-on <fail-on>     Exit 2 on findings at or above: safe, data-dependent
                                          or breaking (default). (values: safe, data-dependent,
                                          breaking; default: breaking)
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func squashHelp() throws {
        #expect(
            try help(["squash"]) == """
                OVERVIEW: Replace migrations 1...ID of a folder with one baseline file.

                Migrates a scratch database through the files up to ID and writes
                NNNN_baseline.sql (NNNN: ID's number): a `-- strata:baseline` header listing
                the identifiers it covers, then the CREATE statements of the combined schema
                and INSERTs of the rows those migrations left. The baseline is proven before
                anything is written (a database made from it equals one made from the
                originals, schema and rows). New databases run the baseline; databases that
                applied every covered migration skip it; a database stopped in the middle runs
                the originals from --archive (the folder the covered files are moved to), or,
                without it, is refused, naming the oldest version still supported
                (--oldest-supported, default ID). On any failure the migration folder and the
                archive are left as they were; a squash killed midway leaves a journal
                (.strata-squash-journal) that the next squash finishes or undoes first (other
                commands refuse the folder until then). Every file is flushed to disk before it
                is renamed into place. Run again on the squashed folder, it has nothing to do.

                USAGE: strata squash --migrations <migrations> --through <id> [--archive <archive>] [--oldest-supported <id>]

                OPTIONS:
                  --migrations <migrations>
                                          The folder of migration files.
                  --through <id>          The last migration the baseline replaces (identifier
                                          or number).
                  --archive <archive>     Move the covered files to this folder (created if
                                          needed); the folder's baseline names it.
                  --oldest-supported <id> The oldest covered migration a database may have
                                          stopped at (with --archive: only the originals after
                                          it are kept).
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func generateHelp() throws {
        #expect(
            try help(["generate"]) == """
                OVERVIEW: Generate code from schema.sql.

                USAGE: strata generate <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  swift                   Write the Swift query types of schema.sql: a Column
                                          enum per table and view, optionally records.

                  See 'strata help generate <subcommand>' for detailed help.

                """)
    }

    @Test func generateSwiftHelp() throws {
        #expect(
            try help(["generate", "swift"]) == """
                OVERVIEW: Write the Swift query types of schema.sql: a Column enum per table
                and view, optionally records.

                For every table and view, an enum with one Column per column
                (NoteColumns.title); with --records, a Codable record struct per table and view
                (FetchableRecord, PersistableRecord) with the associations its foreign keys
                imply. The output is stable and formatted: commit it, and run `strata generate
                swift --check --out FILE` in CI, which exits 1 when FILE is out of date and
                changes nothing. The file is replaced atomically, and left as it is when
                already current.

                USAGE: strata generate swift --schema <schema> [--out <file>] [--records] [--check] [--format <format>]

                OPTIONS:
                  --schema <schema>       The desired schema: a .sql file of CREATE statements.
                  --out <file>            The Swift file to write; - (the default) prints to
                                          stdout. (default: -)
                  --records               Also write a Codable record struct per table and view.
                  --check                 Write nothing; exit 1 when --out FILE differs from
                                          what would be written.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func doctorHelp() throws {
        #expect(
            try help(["doctor"]) == """
                OVERVIEW: List the known SQLite defects that apply to this SQLite and to a
                database.

                Reads the SQLite library this strata runs with (version and compile options)
                against Strata's table of SQLite advisories (corruption, wrong results, memory
                safety, withdrawn releases, each with its fixed version and source), and the
                database's journal mode: an advisory that needs WAL mode applies to a WAL
                database only. Says whether DatabasePool's WAL-reset mitigation (only the
                writer checkpoints) is on. Opens the database read-only and changes nothing.
                Exits 0 when the checks ran (an advisory that applies is a warning: upgrading
                SQLite is the fix), 1 when the database cannot be read or --quick-check finds
                damage.

                USAGE: strata doctor --db <db> [--quick-check] [--format <format>] [--busy-timeout <time>] [--trace] [--key-file <path>] [--key-env <name>]

                OPTIONS:
                  --db <db>               The database file.
                  --quick-check           Also run PRAGMA quick_check (reads every page: time
                                          grows with the database's size).
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func restoreHelp() throws {
        #expect(
            try help(["restore"]) == """
                OVERVIEW: Return a database to a restore point: its schema and rows before an
                upgrade.

                Restore points are written before an upgrade by `strata apply --restore-point`,
                `strata migrate --restore-point` and an app's upgrade safety (`strata upgrade
                status` lists them). The restore point is checked first (size, checksum,
                integrity, the state its record describes); the restore runs in one transaction
                and on any failure the database is unchanged. When nothing was written since
                the upgrade the database becomes exactly the restore point; otherwise the rows
                written since are carried back to the older schema, the columns the upgrade
                dropped filled from the restore point. A restore that would lose rows or values
                written since (a table or column the older schema does not have) is refused,
                naming the table or column, with exit code 3, unless --accept-loss.

                USAGE: strata restore --db <db> [--restore-point <id>] [--accept-loss] [--format <format>] [--busy-timeout <time>] [--trace] [--key-file <path>] [--key-env <name>]

                OPTIONS:
                  --db <db>               The database file.
                  --restore-point <id>    The restore point to return to (default: the newest).
                  --accept-loss           Restore even when rows or values written since the
                                          upgrade have no place in the older schema.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --busy-timeout <time>   How long to wait for a lock held by another
                                          connection: milliseconds (500), or seconds with an s
                                          suffix (30s, 1.5s). Default 5s.
                        On a terminal, a wait longer than a second is reported once on stderr.
                  --trace                 Print each SQL statement run on the database to
                                          standard error (bound values hidden).
                  --key-file <path>       Open an encrypted database with the passphrase in
                                          this file (one trailing newline is ignored; x'<64 hex
                                          digits>' is a raw key). Needs an encryption-capable
                                          SQLite.
                  --key-env <name>        Open an encrypted database with the passphrase in
                                          this environment variable.
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }

    @Test func upgradeHelp() throws {
        #expect(
            try help(["upgrade"]) == """
                OVERVIEW: Show the upgrade safety of a database: its restore points and its
                last upgrade.

                USAGE: strata upgrade <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  status                  List the restore points of a database and whether its
                                          last upgrade is confirmed.

                  See 'strata help upgrade <subcommand>' for detailed help.

                """)
    }

    @Test func upgradeStatusHelp() throws {
        #expect(
            try help(["upgrade", "status"]) == """
                OVERVIEW: List the restore points of a database and whether its last upgrade is
                confirmed.

                Reads the upgrade state beside the database
                (<database>-strata-upgrade/upgrade.json) and writes nothing. The last upgrade
                is upgrading (it did not finish), unconfirmed (with the launches counted
                since), confirmed, or restored; held-back upgrades are not run again by the app
                build that held them back. Each restore point's file is checked to be there
                with its recorded size (`strata restore` checks its contents).

                USAGE: strata upgrade status --db <db> [--format <format>]

                OPTIONS:
                  --db <db>               The database file.
                  --format <format>       Output format: text or json (a stable document: see
                                          "JSON output" in the Strata documentation). (values:
                                          text, json; default: text)
                  --version               Show the version.
                  -h, --help              Show help information.


                """)
    }
}
