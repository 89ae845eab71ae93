INSERT INTO list(name) VALUES ('Home'), ('Work');
INSERT INTO task(list_id, title, done, due) VALUES
  (1, 'Water the plants', 0, '2026-11-23'),
  (1, 'Call the plumber', 1, NULL),
  (2, 'Write the quarterly report', 0, '2026-11-30'),
  (2, 'Review pull requests', NULL, NULL);
