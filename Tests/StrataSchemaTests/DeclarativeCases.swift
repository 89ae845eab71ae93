import Strata

// The scenarios of the declarative engine. Each builds a database holding rows, evolves it, and
// checks schema and rows (see DeclarativeCase.swift).
let declarativeCases: [DeclarativeCase] = [
    DeclarativeCase(
        name: "add a nullable column",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER);",
        kinds: [.addColumn],
        checks: [.check("SELECT id, a, b FROM t ORDER BY id", [[1, "x", nil], [2, "y", nil]])]),
    DeclarativeCase(
        name: "add NOT NULL with default",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, n INTEGER NOT NULL DEFAULT 7);",
        kinds: [.addColumn],
        checks: [.check("SELECT id, a, n FROM t", [[1, "x", 7]])]),
    DeclarativeCase(
        name: "add NOT NULL without default on a non-empty table",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, n INTEGER NOT NULL);",
        error: .preflightFailed, errorMentions: ["table t", "column n", "2 rows"]),
    DeclarativeCase(
        // SQLite's ADD COLUMN accepts this only while the table is empty; the plan must not depend
        // on the rows of the moment (a rebuild with a guard refuses rows that arrive later).
        name: "add NOT NULL without default on an empty table",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, n INTEGER NOT NULL);",
        kinds: [.rebuildTable]),
    DeclarativeCase(
        // ADD COLUMN's rule (AddColumnDDL): DEFAULT NULL is no default for a NOT NULL column.
        name: "add NOT NULL DEFAULT NULL on a non-empty table",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, n INTEGER NOT NULL DEFAULT NULL);",
        error: .preflightFailed, errorMentions: ["table t", "column n", "2 rows"]),
    DeclarativeCase(
        name: "add NOT NULL DEFAULT NULL on an empty table",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, n INTEGER NOT NULL DEFAULT NULL);",
        kinds: [.rebuildTable]),
    DeclarativeCase(
        name: "add a UNIQUE column to a table with rows",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, code TEXT UNIQUE);",
        kinds: [.rebuildTable],
        checks: [.check("SELECT id, code FROM t ORDER BY id", [[1, nil], [2, nil]])]),
    DeclarativeCase(
        // Refused by ADD COLUMN while foreign keys are on, which they may be where a plan runs.
        name: "add a REFERENCES column with a non-NULL default to a table with rows",
        before:
            "CREATE TABLE p(id INTEGER PRIMARY KEY); INSERT INTO p VALUES (1); CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (5);",
        after:
            "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE t(id INTEGER PRIMARY KEY, p_id INTEGER DEFAULT 1 REFERENCES p(id));",
        kinds: [.rebuildTable],
        checks: [.check("SELECT id, p_id FROM t", [[5, 1]])]),
    DeclarativeCase(
        name: "add a column with an expression default to a table with rows",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);",
        after:
            "CREATE TABLE t(id INTEGER PRIMARY KEY, tag TEXT DEFAULT ('a' || char(0) || 'b'), at TEXT DEFAULT CURRENT_DATE);",
        kinds: [.rebuildTable],
        checks: [.check("SELECT id, tag, at IS NOT NULL FROM t", [[1, .text("a\u{0}b"), 1]])]),
    DeclarativeCase(
        name: "add a column whose only default is a parenthesized expression to a table with rows",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER DEFAULT (6 * 7));",
        kinds: [.rebuildTable],
        checks: [.check("SELECT id, n FROM t", [[1, 42]])]),
    DeclarativeCase(
        name: "a mistyped double-quoted column in a desired CHECK is an error",
        before: "CREATE TABLE t(a INTEGER);",
        after: "CREATE TABLE t(a INTEGER CHECK (\"typo\" > 0));",
        // SQLite's "no such column: typo" from 3.29, Strata's own check before.
        error: .invalidSQL, errorMentions: ["statement 1", "typo", "column"]),
    DeclarativeCase(
        name: "drop column refused",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t VALUES (1, 'x', 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);",
        error: .destructiveChangesRefused, errorMentions: ["drop column t.b (1 row)"]),
    DeclarativeCase(
        name: "drop column allowed",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t VALUES (1, 'x', 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);",
        allowDestructive: true, kinds: [.dropColumn], kindsWithout: [(.dropColumn, [.rebuildTable])],
        checks: [.check("SELECT * FROM t", [[1, "x"]])]),
    DeclarativeCase(
        name: "drop an indexed column goes through a rebuild",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT UNIQUE); INSERT INTO t VALUES (1, 'x', 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);",
        allowDestructive: true, kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM t", [[1, "x"]])]),
    DeclarativeCase(
        name: "drop table refused lists every destructive change",
        before: "CREATE TABLE t(a); CREATE TABLE u(a, b); INSERT INTO t VALUES (1);",
        after: "CREATE TABLE u(a);",
        error: .destructiveChangesRefused, errorMentions: ["drop table t (1 row)", "drop column u.b (0 rows)"]),
    DeclarativeCase(
        name: "rename column with hint",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'Ann');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, full_name TEXT -- @renamed from=name\n);",
        kinds: [.renameColumn],
        checks: [.check("SELECT id, full_name FROM t", [[1, "Ann"]])]),
    DeclarativeCase(
        name: "rename table with hint, children follow",
        before: """
            CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE post(id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES user(id) ON DELETE CASCADE);
            INSERT INTO user VALUES (1, 'Ann'); INSERT INTO post VALUES (10, 1);
            """,
        after: """
            CREATE TABLE users( -- @renamed from=user
              id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE post(id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id) ON DELETE CASCADE);
            """,
        kinds: [.renameTable],
        checks: [.check("SELECT * FROM users", [[1, "Ann"]]), .check("SELECT * FROM post", [[10, 1]])]),
    DeclarativeCase(
        name: "rename a referenced column, children follow",
        before: """
            CREATE TABLE p(code TEXT PRIMARY KEY, label TEXT);
            CREATE TABLE c(id INTEGER PRIMARY KEY, p_code TEXT REFERENCES p(code) ON UPDATE CASCADE);
            INSERT INTO p VALUES ('a', 'A'); INSERT INTO c VALUES (1, 'a');
            """,
        after: """
            CREATE TABLE p(key TEXT PRIMARY KEY, -- @renamed from=code
              label TEXT);
            CREATE TABLE c(id INTEGER PRIMARY KEY, p_code TEXT REFERENCES p(key) ON UPDATE CASCADE);
            """,
        kinds: [.renameColumn],
        checks: [.check("SELECT * FROM p", [["a", "A"]]), .check("SELECT * FROM c", [[1, "a"]])]),
    DeclarativeCase(
        name: "rename hint that names nothing",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT -- @renamed from=nope\n);",
        error: .unresolvedRename, errorMentions: ["t.b", "nope"]),
    DeclarativeCase(
        name: "change a type",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, '42'), (2, 'x');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER);",
        kinds: [.rebuildTable],
        checks: [.check("SELECT id, v, typeof(v) FROM t", [[1, 42, "integer"], [2, "x", "text"]])]),
    DeclarativeCase(
        name: "add, change and remove CHECKs (named and unnamed)",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER CHECK (a > 0), b INTEGER, CONSTRAINT b_pos CHECK (b >= 0));
            INSERT INTO t VALUES (1, 5, 3);
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, CONSTRAINT b_pos CHECK (b >= 1), CHECK (a < 100));
            """,
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM t", [[1, 5, 3]])]),
    DeclarativeCase(
        name: "a CHECK the data violates fails and changes nothing",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER); INSERT INTO t VALUES (1, -5);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER CHECK (a > 0));",
        error: .applyFailed, errorMentions: ["CHECK constraint failed"]),
    DeclarativeCase(
        name: "add and remove UNIQUE",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT UNIQUE, b TEXT); INSERT INTO t VALUES (1, 'x', 'y');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT, UNIQUE (b));",
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM t", [[1, "x", "y"]])]),
    DeclarativeCase(
        name: "add a foreign key",
        before: """
            CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY, p_id INTEGER);
            INSERT INTO p VALUES (1); INSERT INTO c VALUES (1, 1), (2, NULL);
            """,
        after: """
            CREATE TABLE p(id INTEGER PRIMARY KEY);
            CREATE TABLE c(id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id) ON DELETE SET NULL);
            """,
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM c", [[1, 1], [2, nil]])]),
    DeclarativeCase(
        name: "a foreign key the data violates is refused",
        before: """
            CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY, p_id INTEGER);
            INSERT INTO p VALUES (1); INSERT INTO c VALUES (1, 2);
            """,
        after: """
            CREATE TABLE p(id INTEGER PRIMARY KEY);
            CREATE TABLE c(id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id));
            """,
        error: .foreignKeyViolation, errorMentions: ["table c row 1", "p"]),
    DeclarativeCase(
        name: "change the primary key",
        before: "CREATE TABLE t(a TEXT PRIMARY KEY, b INTEGER); INSERT INTO t VALUES ('x', 1), ('y', 2);",
        after: "CREATE TABLE t(a TEXT, b INTEGER, PRIMARY KEY (a, b));",
        kinds: [.rebuildTable],
        checks: [.check("SELECT a, b FROM t ORDER BY a", [["x", 1], ["y", 2]])]),
    DeclarativeCase(
        name: "reorder columns",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t VALUES (1, 'a', 'b');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, a TEXT);",
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM t", [[1, "b", "a"]])]),
    DeclarativeCase(
        name: "indexes: plain, unique, partial, expression added and removed",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER);
            CREATE INDEX t_a ON t(a); CREATE UNIQUE INDEX t_b ON t(b);
            INSERT INTO t VALUES (1, 'A', 1);
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER);
            CREATE INDEX t_a ON t(a);
            CREATE INDEX t_b_partial ON t(b) WHERE b > 0;
            CREATE UNIQUE INDEX t_lower ON t(lower(a));
            """,
        kinds: [.dropIndex, .createIndex, .createIndex],
        checks: [.check("SELECT * FROM t", [[1, "A", 1]])]),
    DeclarativeCase(
        name: "index changed",
        before: "CREATE TABLE t(a, b); CREATE INDEX i ON t(a);",
        after: "CREATE TABLE t(a, b); CREATE INDEX i ON t(a, b);",
        kinds: [.dropIndex, .createIndex]),
    DeclarativeCase(
        name: "COLLATE added and removed",
        before:
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT COLLATE NOCASE); INSERT INTO t VALUES (1, 'A', 'B');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT COLLATE NOCASE, b TEXT);",
        kinds: [.rebuildTable],
        checks: [.check("SELECT id FROM t WHERE a = 'a'", [[1]])]),
    DeclarativeCase(
        name: "to WITHOUT ROWID and back",
        before: "CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER); INSERT INTO t VALUES ('a', 1);",
        after: "CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;",
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM t", [["a", 1]])]),
    DeclarativeCase(
        name: "to STRICT",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t VALUES (1, 5);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER) STRICT;",
        kinds: [.rebuildTable], features: [.strictTables],
        checks: [.check("SELECT * FROM t", [[1, 5]])]),
    DeclarativeCase(
        name: "add a VIRTUAL generated column natively",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER); INSERT INTO t VALUES (1, 3);",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, v INTEGER GENERATED ALWAYS AS (a + 1) VIRTUAL);",
        kinds: [.addColumn], features: [.generatedColumns],
        checks: [.check("SELECT * FROM t", [[1, 3, 4]])]),
    DeclarativeCase(
        name: "AUTOINCREMENT sequence above max(id) never goes backwards",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT);
            INSERT INTO t(a) VALUES ('x'), ('y'), ('z'); DELETE FROM t WHERE id = 3;
            """,
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT NOT NULL DEFAULT '');",
        kinds: [.rebuildTable],
        checks: [
            .check("SELECT seq FROM sqlite_sequence WHERE name = 't'", [[3]]),
            .check("SELECT * FROM t", [[1, "x"], [2, "y"]]),
        ]),
    DeclarativeCase(
        name: "tighten to NOT NULL with a default backfills NULLs",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, NULL), (2, 'k');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL DEFAULT 'none');",
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM t", [[1, "none"], [2, "k"]])]),
    DeclarativeCase(
        name: "tighten to NOT NULL without default while NULLs exist",
        before: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, NULL), (2, NULL), (3, 'k');",
        after: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL);",
        error: .preflightFailed, errorMentions: ["table t", "column a", "2 rows hold NULL"]),
    DeclarativeCase(
        name: "a view on the rebuilt table",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE VIEW v AS SELECT id, a FROM t;
            CREATE VIEW vv AS SELECT * FROM v; INSERT INTO t VALUES (1, 'x');
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL DEFAULT '');
            CREATE VIEW v AS SELECT id, a FROM t; CREATE VIEW vv AS SELECT * FROM v;
            """,
        kinds: [.dropView, .dropView, .rebuildTable, .createView, .createView],
        checks: [.check("SELECT * FROM vv", [[1, "x"]])]),
    DeclarativeCase(
        name: "a trigger on the rebuilt table and one on another table mentioning it",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE log(msg TEXT); CREATE TABLE other(x);
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('t ' || new.a); END;
            CREATE TRIGGER other_ins AFTER INSERT ON other BEGIN INSERT INTO t(a) VALUES (new.x); END;
            INSERT INTO t VALUES (1, 'x');
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT COLLATE NOCASE); CREATE TABLE log(msg TEXT); CREATE TABLE other(x);
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('t ' || new.a); END;
            CREATE TRIGGER other_ins AFTER INSERT ON other BEGIN INSERT INTO t(a) VALUES (new.x); END;
            """,
        kinds: [.dropTrigger, .dropTrigger, .rebuildTable, .createTrigger, .createTrigger],
        checks: [.check("SELECT * FROM log", [["t x"]])]),
    DeclarativeCase(
        name: "children with ON DELETE CASCADE and SET NULL keep their rows when the parent is rebuilt",
        before: """
            CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE c1(id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id) ON DELETE CASCADE);
            CREATE TABLE c2(id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id) ON DELETE SET NULL ON UPDATE CASCADE);
            INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c1 VALUES (1, 1), (2, 2); INSERT INTO c2 VALUES (1, 2);
            """,
        after: """
            CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', created TEXT);
            CREATE TABLE c1(id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id) ON DELETE CASCADE);
            CREATE TABLE c2(id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id) ON DELETE SET NULL ON UPDATE CASCADE);
            """,
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM c1", [[1, 1], [2, 2]]), .check("SELECT * FROM c2", [[1, 2]])]),
    DeclarativeCase(
        name: "a self-referencing table",
        before: """
            CREATE TABLE node(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES node(id) ON DELETE CASCADE, label TEXT);
            INSERT INTO node VALUES (1, NULL, 'root'), (2, 1, 'child'), (3, 2, 'leaf');
            """,
        after: """
            CREATE TABLE node(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES node(id) ON DELETE CASCADE,
              label TEXT NOT NULL DEFAULT 'x' CHECK (length(label) < 50));
            """,
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM node", [[1, nil, "root"], [2, 1, "child"], [3, 2, "leaf"]])]),
    // Minimal plans: views and triggers move only when SQLite requires it.
    DeclarativeCase(
        name: "a nullable column added natively leaves the table's views and triggers in place",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE log(msg TEXT); CREATE TABLE other(x);
            CREATE VIEW v AS SELECT id, a FROM t; CREATE VIEW vv AS SELECT * FROM v; CREATE VIEW everything AS SELECT * FROM t;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('t ' || new.a); END;
            CREATE TRIGGER other_ins AFTER INSERT ON other BEGIN INSERT INTO t(a) VALUES (new.x); END;
            CREATE TRIGGER v_ins INSTEAD OF INSERT ON v BEGIN INSERT INTO t(a) VALUES (new.a); END;
            INSERT INTO t VALUES (1, 'x');
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT DEFAULT 'none'); CREATE TABLE log(msg TEXT);
            CREATE TABLE other(x);
            CREATE VIEW v AS SELECT id, a FROM t; CREATE VIEW vv AS SELECT * FROM v; CREATE VIEW everything AS SELECT * FROM t;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('t ' || new.a); END;
            CREATE TRIGGER other_ins AFTER INSERT ON other BEGIN INSERT INTO t(a) VALUES (new.x); END;
            CREATE TRIGGER v_ins INSTEAD OF INSERT ON v BEGIN INSERT INTO t(a) VALUES (new.a); END;
            """,
        kinds: [.addColumn],
        checks: [
            .check("INSERT INTO other VALUES ('y')", []),
            .check("INSERT INTO v(a) VALUES ('z')", []),
            .check("SELECT * FROM everything", [[1, "x", "none"], [2, "y", "none"], [3, "z", "none"]]),
            .check("SELECT * FROM vv", [[1, "x"], [2, "y"], [3, "z"]]),
            .check("SELECT * FROM log", [["t x"], ["t y"], ["t z"]]),
        ]),
    DeclarativeCase(
        name: "a native column rename leaves views and triggers that do not use the column in place",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE log(id INTEGER);
            CREATE VIEW everything AS SELECT * FROM t;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.id); END;
            INSERT INTO t VALUES (1, 'x');
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, label TEXT -- @renamed from=a
            ); CREATE TABLE log(id INTEGER);
            CREATE VIEW everything AS SELECT * FROM t;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.id); END;
            """,
        kinds: [.renameColumn],
        checks: [
            .check("INSERT INTO t VALUES (2, 'y')", []),
            .check("SELECT label FROM everything", [["x"], ["y"]]), .check("SELECT * FROM log", [[1], [2]]),
        ]),
    DeclarativeCase(
        name: "a native DROP COLUMN moves only the trigger that uses the column",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); CREATE TABLE log(msg TEXT);
            CREATE VIEW everything AS SELECT * FROM t;
            CREATE TRIGGER t_uses_b AFTER UPDATE ON t BEGIN INSERT INTO log VALUES (new.b); END;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a); END;
            INSERT INTO t VALUES (1, 'x', 'y');
            """,
        // SQLite accepts a trigger whose body names a missing column (it fails when it fires),
        // but refuses to drop a column while a trigger names it.
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE log(msg TEXT);
            CREATE VIEW everything AS SELECT * FROM t;
            CREATE TRIGGER t_uses_b AFTER UPDATE ON t BEGIN INSERT INTO log VALUES (new.b); END;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a); END;
            """,
        allowDestructive: true,
        kinds: [.dropTrigger, .dropColumn, .createTrigger],
        // Before DROP COLUMN (3.35) the table is rebuilt, which moves every view and trigger on it.
        kindsWithout: [
            (
                .dropColumn,
                [.dropTrigger, .dropTrigger, .dropView, .rebuildTable, .createView, .createTrigger, .createTrigger]
            )
        ],
        checks: [
            .check("INSERT INTO t VALUES (2, 'z')", []),
            .check("SELECT * FROM everything", [[1, "x"], [2, "z"]]), .check("SELECT * FROM log", [["x"], ["z"]]),
        ]),
    DeclarativeCase(
        name: "a rebuild after a native column rename still moves the views and triggers of the table",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE log(msg TEXT);
            CREATE VIEW everything AS SELECT * FROM t; CREATE VIEW over AS SELECT count(*) AS n FROM everything;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('x'); END;
            INSERT INTO t VALUES (1, 'x');
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, label TEXT NOT NULL DEFAULT '' -- @renamed from=a
            ); CREATE TABLE log(msg TEXT);
            CREATE VIEW everything AS SELECT * FROM t; CREATE VIEW over AS SELECT count(*) AS n FROM everything;
            CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('x'); END;
            """,
        kinds: [
            .renameColumn, .dropTrigger, .dropView, .dropView, .rebuildTable, .createView, .createView, .createTrigger,
        ],
        checks: [.check("SELECT label FROM everything", [["x"]]), .check("SELECT n FROM over", [[1]])]),
    DeclarativeCase(
        name: "a new foreign key that rows of a WITHOUT ROWID table break names them by primary key",
        before: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(k TEXT PRIMARY KEY, p INTEGER) WITHOUT ROWID;
            INSERT INTO parent VALUES (1); INSERT INTO child VALUES ('a', 1), ('b', 9);
            """,
        after: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(k TEXT PRIMARY KEY, p INTEGER REFERENCES parent(id)) WITHOUT ROWID;
            """,
        error: .foreignKeyViolation, errorMentions: ["table child row with k = 'b' references a missing row of parent"]),
    DeclarativeCase(
        name: "an FTS5 table with sync triggers on a rebuilt content table",
        before: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
            CREATE TRIGGER doc_ai AFTER INSERT ON doc BEGIN INSERT INTO doc_fts(rowid, body) VALUES (new.id, new.body); END;
            CREATE TRIGGER doc_ad AFTER DELETE ON doc BEGIN
              INSERT INTO doc_fts(doc_fts, rowid, body) VALUES ('delete', old.id, old.body); END;
            INSERT INTO doc VALUES (1, 'hello world'), (2, 'goodbye moon');
            """,
        after: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT '', title TEXT COLLATE NOCASE);
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
            CREATE TRIGGER doc_ai AFTER INSERT ON doc BEGIN INSERT INTO doc_fts(rowid, body) VALUES (new.id, new.body); END;
            CREATE TRIGGER doc_ad AFTER DELETE ON doc BEGIN
              INSERT INTO doc_fts(doc_fts, rowid, body) VALUES ('delete', old.id, old.body); END;
            """,
        // The content table is rebuilt: its FTS table is indexed again after it (issue 24).
        kinds: [.dropTrigger, .dropTrigger, .rebuildTable, .createTrigger, .createTrigger, .rebuildFullTextIndex],
        checks: [
            .check("SELECT rowid FROM doc_fts WHERE doc_fts MATCH 'moon'", [[2]]),
            .check("INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)", []),
        ]),
    DeclarativeCase(
        name: "a new FTS5 table over existing rows is populated",
        before:
            "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO doc VALUES (1, 'alpha'), (2, 'beta');",
        after: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
            """,
        kinds: [.createVirtualTable],
        checks: [.check("SELECT rowid FROM doc_fts WHERE doc_fts MATCH 'beta'", [[2]])]),
    DeclarativeCase(
        name: "identifiers with spaces, quotes, brackets, keywords, unicode and mixed case",
        before: #"""
            CREATE TABLE "Order Items"("Id" INTEGER PRIMARY KEY, "select" TEXT, [we"ird] TEXT, `naïve 🍕` TEXT);
            CREATE INDEX "idx ""q""" ON "Order Items"("select");
            INSERT INTO "Order Items" VALUES (1, 'a', 'b', 'c');
            """#,
        after: #"""
            CREATE TABLE "Order Items"("Id" INTEGER PRIMARY KEY, "select" TEXT NOT NULL DEFAULT '', "we""ird" TEXT,
              "naïve 🍕" TEXT, "from" INTEGER);
            CREATE INDEX "idx ""q""" ON "Order Items"("select");
            """#,
        kinds: [.rebuildTable],
        checks: [.check("SELECT * FROM \"order items\"", [[1, "a", "b", "c", nil]])]),
    DeclarativeCase(
        name: "several related tables changed at once",
        before: """
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), title TEXT);
            CREATE TABLE review(id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES book(id) ON DELETE CASCADE, stars INT);
            INSERT INTO author VALUES (1, 'A'); INSERT INTO book VALUES (1, 1, 'T'); INSERT INTO review VALUES (1, 1, 5);
            """,
        after: """
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
              title TEXT NOT NULL DEFAULT '', year INTEGER);
            CREATE TABLE review(id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES book(id) ON DELETE CASCADE,
              stars INTEGER CHECK (stars BETWEEN 1 AND 5));
            CREATE INDEX book_author ON book(author_id);
            """,
        kinds: [.rebuildTable, .rebuildTable, .rebuildTable],
        checks: [
            .check("SELECT * FROM author", [[1, "A"]]), .check("SELECT * FROM book", [[1, 1, "T", nil]]),
            .check("SELECT * FROM review", [[1, 1, 5]]),
        ]),
    DeclarativeCase(
        name: "create and drop tables, views and triggers",
        before: "CREATE TABLE old(a); CREATE VIEW old_v AS SELECT a FROM old;",
        after: """
            CREATE TABLE fresh(a INTEGER PRIMARY KEY, b TEXT);
            CREATE VIEW fresh_v AS SELECT b FROM fresh;
            CREATE TRIGGER fresh_t AFTER INSERT ON fresh BEGIN SELECT 1; END;
            """,
        allowDestructive: true,
        kinds: [.dropView, .dropTable, .createTable, .createView, .createTrigger]),
    DeclarativeCase(
        name: "invalid desired SQL quotes the statement and SQLite's message",
        before: "CREATE TABLE t(a);",
        after: "CREATE TABLE t(a);\nCREATE TABLE u(a INTEGER PRIMARY KEY,, b);",
        error: .invalidSQL, errorMentions: ["statement 2", "CREATE TABLE u", "syntax error"]),
    DeclarativeCase(
        name: "a dangling foreign key in the desired schema",
        before: "CREATE TABLE t(a);",
        after: "CREATE TABLE t(a REFERENCES nowhere(id));",
        error: .invalidSQL, errorMentions: ["table t", "nowhere"]),
]

/// Scenarios whose database before the change has generated columns: they need a runtime of
/// SQLite 3.31 or newer to exist at all (the tests running them are gated with `.requiresSQLite`).
let generatedColumnCases: [DeclarativeCase] = [
    DeclarativeCase(
        name: "generated columns VIRTUAL and STORED",
        before: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, d INTEGER GENERATED ALWAYS AS (a * 2) STORED);
            INSERT INTO t(id, a) VALUES (1, 3);
            """,
        after: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, d INTEGER GENERATED ALWAYS AS (a * 3) STORED,
              v INTEGER GENERATED ALWAYS AS (a + 1) VIRTUAL);
            """,
        kinds: [.rebuildTable], features: [.generatedColumns],
        checks: [.check("SELECT id, a, d, v FROM t", [[1, 3, 9, 4]])])
]
