-- The first release: authors only.
CREATE TABLE author(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
