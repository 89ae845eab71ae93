-- Todo app, schema version 1.

CREATE TABLE list (
  id    INTEGER PRIMARY KEY AUTOINCREMENT,
  name  TEXT NOT NULL
);

CREATE TABLE task (
  id       INTEGER PRIMARY KEY,
  list_id  INTEGER REFERENCES list(id) ON DELETE CASCADE,
  title    TEXT NOT NULL,
  done     INTEGER,
  due      TEXT
);

CREATE INDEX task_list ON task(list_id);

CREATE VIEW open_task AS
  SELECT task.id, list.name AS list, task.title FROM task JOIN list ON list.id = task.list_id
  WHERE NOT task.done;
