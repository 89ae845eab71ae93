#!/usr/bin/env bash
# The WAL-reset stress test at full size: 10,000 commit/checkpoint races (half in the test
# process through a DatabasePool, half in a second process through its own pool, readers
# reading and trying to checkpoint meanwhile), PRAGMA integrity_check every 100 rounds and at
# the end; it must report 0 failures. CI runs the same test with 300 races.
#
#   scripts/wal-stress-test.sh                   against the system SQLite
#   scripts/wal-stress-test.sh 3.50.4 3.54.0     against real SQLite builds (scripts/sqlite-versions.sh)
#   STRATA_WAL_STRESS_RACES=N scripts/wal-stress-test.sh ...   another number of races
#
# See https://sqlite.org/wal.html#walresetbug and WALResetMitigationTests.
set -euo pipefail
cd "$(dirname "$0")/.."
races="${STRATA_WAL_STRESS_RACES:-10000}"
swift build --build-tests >&2
bin=$(swift build --show-bin-path)
run() {  # folder-or-empty label
    echo "== WAL-reset stress test, $races races, $2"
    STRATA_WAL_STRESS_RACES="$races" LD_LIBRARY_PATH="$1" "$bin/StrataPackageTests.xctest" \
        --testing-library swift-testing --filter 'WALResetMitigationTests/commitCheckpointRacesKeepTheDatabaseIntact' 2>&1 |
        grep -E 'WAL-reset stress|✘|recorded an issue|Test run'
}
status=0
if [ $# -eq 0 ]; then
    run "${LD_LIBRARY_PATH:-}" "system SQLite" || status=1
else
    for v in "$@"; do
        folder=$(scripts/sqlite-versions.sh path "$v")
        run "$folder" "SQLite $v" || status=1
    done
fi
exit $status
