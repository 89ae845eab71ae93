-- Todo app, schema version 2:
--  * list gains a color (a nullable column: a native ALTER TABLE ADD COLUMN);
--  * task.due is renamed to due_date (a hinted rename: ALTER TABLE RENAME COLUMN);
--  * task.done becomes a NOT NULL boolean with a CHECK (no ALTER can do that: a safe rebuild,
--    with the NULL backfilled from the default, rows and rowids kept, the view recreated);
--  * tasks get a priority and a full-text index kept in sync by triggers.

CREATE TABLE list (
  id    INTEGER PRIMARY KEY AUTOINCREMENT,
  name  TEXT NOT NULL,
  color TEXT
);

CREATE TABLE task (
  id        INTEGER PRIMARY KEY,
  list_id   INTEGER REFERENCES list(id) ON DELETE CASCADE,
  title     TEXT NOT NULL,
  done      INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
  due_date  TEXT, -- @renamed from=due
  priority  INTEGER NOT NULL DEFAULT 2 CHECK (priority BETWEEN 1 AND 3)
);

CREATE INDEX task_list ON task(list_id);
CREATE INDEX task_open_due ON task(due_date) WHERE done = 0;

CREATE VIEW open_task AS
  SELECT task.id, list.name AS list, task.title, task.due_date FROM task JOIN list ON list.id = task.list_id
  WHERE NOT task.done;

CREATE VIRTUAL TABLE task_search USING fts5(title, content='task', content_rowid='id');

CREATE TRIGGER task_search_insert AFTER INSERT ON task BEGIN
  INSERT INTO task_search(rowid, title) VALUES (new.id, new.title);
END;

CREATE TRIGGER task_search_delete AFTER DELETE ON task BEGIN
  INSERT INTO task_search(task_search, rowid, title) VALUES ('delete', old.id, old.title);
END;
