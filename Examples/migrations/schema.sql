-- The library app's declared schema. Edit it, then let `strata new` write the migration:
--   strata new --migrations Examples/migrations/versions --schema Examples/migrations/schema.sql --name "what changed"
CREATE TABLE author(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    birth_year INTEGER
);

CREATE TABLE book(
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
    title TEXT NOT NULL COLLATE NOCASE,
    year INTEGER CHECK (year > 0)
);

CREATE INDEX book_author ON book(author_id);
