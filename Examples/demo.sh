#!/usr/bin/env bash
# The main job: the strata tool evolving the bundled todo app's database from v1 to v2,
# keeping every row. Run from anywhere: bash Examples/demo.sh
#
# STRATA_SQLITE=3.28.0 bash Examples/demo.sh runs strata and the notes example against that SQLite
# release (built and cached by scripts/sqlite-versions.sh; a folder holding a libsqlite3.so.0 works
# too). Only those two programs get LD_LIBRARY_PATH: swift build and the sqlite3 shell keep the
# system library. STRATA_BUILD=release runs the optimised build of both (CI does, after its
# release build: the optimiser has broken programs the debug build ran).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v sqlite3 >/dev/null; then
    echo "This demo uses the sqlite3 shell to insert sample rows: apt-get install sqlite3" >&2
    exit 1
fi

build=(swift build -c "${STRATA_BUILD:-debug}")
with_sqlite=()
if [ -n "${STRATA_SQLITE:-}" ]; then
    if [ -d "$STRATA_SQLITE" ]; then lib="$STRATA_SQLITE"; else lib="$(scripts/sqlite-versions.sh path "$STRATA_SQLITE")"; fi
    with_sqlite=(env "LD_LIBRARY_PATH=$lib")
fi

echo "== Building strata"
"${build[@]}" --product strata 2>&1 | tail -n 1
STRATA=("${with_sqlite[@]}" "$("${build[@]}" --show-bin-path)/strata")
echo "== strata version"
"${STRATA[@]}" version

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/todo.sqlite"

echo
echo "== strata apply --db todo.sqlite --schema Examples/todo/schema-v1.sql   (creates the database)"
"${STRATA[@]}" apply --db "$db" --schema Examples/todo/schema-v1.sql
sqlite3 "$db" < Examples/todo/seed.sql
echo
echo "== The rows at v1"
sqlite3 -header -column "$db" "SELECT id, list_id, title, done, due FROM task ORDER BY id"

echo
echo "== strata plan --db todo.sqlite --schema Examples/todo/schema-v2.sql"
"${STRATA[@]}" plan --db "$db" --schema Examples/todo/schema-v2.sql

echo
echo "== strata apply --db todo.sqlite --schema Examples/todo/schema-v2.sql --backup todo-v1.sqlite"
"${STRATA[@]}" apply --db "$db" --schema Examples/todo/schema-v2.sql --backup "$work/todo-v1.sqlite"

echo
echo "== The rows at v2: all kept, NULL 'done' backfilled with the default, 'due' renamed"
sqlite3 -header -column "$db" "SELECT id, list_id, title, done, due_date, priority FROM task ORDER BY id"
echo
sqlite3 -header -column "$db" "SELECT * FROM open_task ORDER BY id"

echo
echo "== A second plan has nothing to do"
"${STRATA[@]}" plan --db "$db" --schema Examples/todo/schema-v2.sql

echo
echo "== strata dump --db todo.sqlite"
"${STRATA[@]}" dump --db "$db"

echo
echo "== swift run strata-notes notes.sqlite   (records: the Examples/notes program, run twice)"
"${build[@]}" --product strata-notes 2>&1 | tail -n 1
"${with_sqlite[@]}" "$("${build[@]}" --show-bin-path)/strata-notes" "$work/notes.sqlite"
echo
"${with_sqlite[@]}" "$("${build[@]}" --show-bin-path)/strata-notes" "$work/notes.sqlite"
