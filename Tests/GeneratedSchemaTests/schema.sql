-- The schema of GeneratedSchemaTests: Schema.swift is generated from it with
-- `strata generate swift --schema Tests/GeneratedSchemaTests/schema.sql --records --out Tests/GeneratedSchemaTests/Schema.swift`
-- (GeneratedSourceTests fails when Schema.swift is out of date). Its names are hostile on purpose:
-- keywords, spaces, quotes, a leading digit, non-ASCII, names that clash once converted.
CREATE TABLE folder (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id INTEGER REFERENCES folder(id),
    created_at DATETIME NOT NULL,
    "is archived" BOOLEAN NOT NULL DEFAULT 0
);
CREATE TABLE note (
    id INTEGER PRIMARY KEY,
    folder_id INTEGER NOT NULL REFERENCES folder(id) ON DELETE CASCADE,
    previous_folder_id INTEGER REFERENCES folder(id),
    title TEXT NOT NULL,
    body TEXT,
    score REAL,
    price NUMERIC,
    attachment BLOB,
    "default" TEXT,
    "class" INTEGER,
    "self" TEXT,
    "Type" TEXT,
    "2fa" TEXT,
    "with ""quotes"" and \ backslash" TEXT,
    "created at" DATE,
    "createdAt" VARCHAR(20),
    "café" TEXT,
    hashValue INTEGER,
    untyped
);
CREATE TABLE tag (name TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
CREATE TABLE "note tag" (
    note_id INTEGER NOT NULL REFERENCES note(id) ON DELETE CASCADE,
    tag_name TEXT NOT NULL REFERENCES tag(name),
    PRIMARY KEY (note_id, tag_name)
);
CREATE TABLE translation (
    note_id INTEGER NOT NULL REFERENCES note(id),
    lang TEXT NOT NULL,
    "text" TEXT NOT NULL,
    PRIMARY KEY (note_id, lang)
);
CREATE TABLE review (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL,
    lang TEXT NOT NULL,
    stars INTEGER NOT NULL,
    FOREIGN KEY (note_id, lang) REFERENCES translation(note_id, lang)
);
CREATE TABLE "order" (id INTEGER PRIMARY KEY, "select" TEXT, "where" INTEGER NOT NULL);
CREATE TABLE string (value TEXT);
CREATE VIEW "pinned notes" AS SELECT note.id, note.title, folder.name AS "folder name" FROM note JOIN folder ON folder.id = note.folder_id WHERE note.score > 0;
