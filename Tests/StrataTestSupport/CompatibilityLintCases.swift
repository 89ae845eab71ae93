import Strata

/// The compatibility lint's cases, shared by the library's tests (CompatibilityLintTests) and the
/// CLI's (LifecycleCommandTests): for every code, a change that gives it and a near miss that does not.
public enum CompatibilityLintCases {
    public struct Case: Sendable, CustomStringConvertible {
        public var code: CompatibilityFinding.Code
        public var policy: CompatibilityPolicy = .previousVersion
        public var old: String
        public var positive: String
        public var negative: String
        /// The old schema of the negative case, when it differs.
        /// The SQLite version the case's schemas need (STRICT tables: 3.37).
        public var minimumSQLiteVersion: (Int, Int) {
            [old, positive, negative, negativeOld ?? ""].contains { $0.uppercased().contains("STRICT") }
                ? (3, 37) : (3, 0)
        }
        public var negativeOld: String? = nil
        public var description: String { "\(code.rawValue) (\(policy.rawValue))" }

        public init(
            code: CompatibilityFinding.Code, policy: CompatibilityPolicy = .previousVersion, old: String,
            positive: String,
            negative: String, negativeOld: String? = nil
        ) {
            self.code = code
            self.policy = policy
            self.old = old
            self.positive = positive
            self.negative = negative
            self.negativeOld = negativeOld
        }
    }

    public static let a = "CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, n INTEGER NOT NULL DEFAULT 0, r REAL);"
    public static func a(_ columns: String, _ rest: String = "") -> String {
        "CREATE TABLE a(id INTEGER PRIMARY KEY, \(columns))\(rest);"
    }
    public static let base = "x TEXT, n INTEGER NOT NULL DEFAULT 0, r REAL"
    public static let index = "CREATE INDEX a_x ON a(x);"
    public static let uniqueIndex = "CREATE UNIQUE INDEX a_x ON a(x);"
    public static let trigger = "CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET n = 1 WHERE id = new.id; END;"
    public static let trigger2 = "CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET n = 2 WHERE id = new.id; END;"
    public static let view = "CREATE VIEW v AS SELECT id, x FROM a;"
    public static let b = "CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER);"

    public static let cases: [Case] = [
        Case(code: .addTable, old: a, positive: a + b, negative: a(base + ", y TEXT")),
        Case(code: .addColumn, old: a, positive: a(base + ", y TEXT"), negative: a(base + ", y TEXT NOT NULL")),
        Case(code: .addIndex, old: a, positive: a + index, negative: a + uniqueIndex),
        Case(code: .addView, old: a, positive: a + view, negative: a + index),
        Case(code: .addTrigger, old: a, positive: a + trigger, negative: a + index),
        Case(code: .dropIndex, old: a + index, positive: a, negative: a, negativeOld: a + uniqueIndex),
        Case(code: .dropTrigger, old: a + trigger, positive: a, negative: a + trigger2),
        Case(code: .changeTrigger, old: a + trigger, positive: a + trigger2, negative: a),
        Case(
            code: .changeIndex, old: a + index, positive: a + "CREATE INDEX a_x ON a(x, n);", negative: a + uniqueIndex),
        Case(
            code: .redefineView, old: a + view, positive: a + "CREATE VIEW v AS SELECT id, x FROM a WHERE n > 0;",
            negative: a + "CREATE VIEW v AS SELECT id FROM a;"),
        Case(
            code: .changeView, old: a + view, positive: a + "CREATE VIEW v AS SELECT id FROM a;",
            negative: a + "CREATE VIEW v AS SELECT id, x FROM a WHERE n > 0;"),
        Case(code: .dropView, old: a + view, positive: a, negative: a + "CREATE VIEW v AS SELECT id FROM a;"),
        Case(
            code: .dropConstraint, old: a(base + ", UNIQUE(x)"), positive: a, negative: a(base + ", UNIQUE(x)"),
            negativeOld: a),
        Case(
            code: .changeDefault, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 1, r REAL"),
            negative: a("x TEXT, n REAL NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .widenType, old: a, positive: a("x TEXT, n REAL NOT NULL DEFAULT 0, r REAL"),
            negative: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, r INTEGER")),
        Case(
            code: .narrowType, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, r INTEGER"),
            negative: a("x TEXT, n REAL NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .dropTable, old: a + b, positive: a,
            negative: a + "CREATE TABLE c( -- @renamed from=b\n id INTEGER PRIMARY KEY, a_id INTEGER);"),
        Case(
            code: .dropColumn, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 0"),
            negative:
                "CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, n INTEGER NOT NULL DEFAULT 0,\n s REAL -- @renamed from=r\n);"
        ),
        Case(
            code: .renameTable, old: a + b,
            positive: a + "CREATE TABLE c( -- @renamed from=b\n id INTEGER PRIMARY KEY, a_id INTEGER);",
            negative: a + "CREATE TABLE c(id INTEGER PRIMARY KEY, a_id INTEGER);"),
        Case(
            code: .renameColumn, old: a,
            positive:
                "CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, n INTEGER NOT NULL DEFAULT 0,\n s REAL -- @renamed from=r\n);",
            negative: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, s REAL")),
        Case(
            code: .addNotNullWithoutDefault, old: a, positive: a(base + ", y TEXT NOT NULL"),
            negative: a(base + ", y TEXT NOT NULL DEFAULT ''")),
        Case(
            code: .setNotNull, old: a, positive: a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a("x TEXT DEFAULT 'a', n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .dropNotNull, old: a, positive: a("x TEXT, n INTEGER DEFAULT 0, r REAL"),
            negative: a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .addUnique, old: a, positive: a("x TEXT UNIQUE, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a + index),
        Case(
            code: .addCheck, old: a, positive: a("x TEXT CHECK (x <> ''), n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a, negativeOld: a("x TEXT CHECK (x <> ''), n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .addForeignKey, old: a + b,
            positive: a + "CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));",
            negative: a + "CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER, c INTEGER);"),
        Case(
            code: .changeColumn, old: a, positive: a("x TEXT COLLATE NOCASE, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a("x TEXT DEFAULT 'a', n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .changeTableOptions, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, r REAL", " STRICT"),
            negative: a(base + ", y TEXT")),
        Case(
            code: .dataCondition, old: a, positive: a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a(base + ", y TEXT")),
        Case(
            code: .syncUnique, policy: .sync, old: a,
            positive: a + "CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT UNIQUE);",
            negative: a + "CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT);"),
        Case(
            code: .syncNotNullWithoutReplace, policy: .sync, old: a,
            positive: a(base + ", y INTEGER NOT NULL DEFAULT 0"),
            negative: a(base + ", y INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0")),
        Case(
            code: .syncForeignKeyAction, policy: .sync, old: a,
            positive: a + "CREATE TABLE c(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));",
            negative: a + "CREATE TABLE c(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id) ON DELETE CASCADE);"),
        Case(
            code: .syncPrimaryKey, policy: .sync, old: a, positive: a + "CREATE TABLE c(a_id INTEGER, b_id INTEGER);",
            negative: a + "CREATE TABLE c(id TEXT PRIMARY KEY NOT NULL, a_id INTEGER);"),
    ]

}
