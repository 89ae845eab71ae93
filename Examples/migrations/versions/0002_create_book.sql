-- Books, each by one author.
CREATE TABLE book(
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
    title TEXT NOT NULL COLLATE NOCASE
);

CREATE INDEX book_author ON book(author_id);
