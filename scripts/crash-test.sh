#!/bin/sh
# Crash safety, the long run: kills the StrataTestHelper process with SIGKILL at N random
# moments while it applies a three-table rebuild plan, and N more while it runs a migration
# list (half of the schema trials in rollback-journal mode, half in WAL mode). After every kill
# the database must open, pass integrity_check and foreign_key_check, hold exactly the old or
# the new schema and rows (or the state after a whole number of migrations), and a rerun must
# complete. Also kills `strata squash` N times (SquashKillTests: the folders hold the old set,
# the squashed set or a journal the rerun finishes). Prints what the kills hit.
#
#   scripts/crash-test.sh [N] [SEED]      N defaults to 200, SEED to 8
set -eu
N="${1:-200}"
SEED="${2:-8}"
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
STRATA_CRASH_TRIALS="$N" STRATA_CRASH_SEED="$SEED" STRATA_SQUASH_KILLS="$N" STRATA_SQUASH_SEED="$SEED" \
    STRATA_ONLINE_KILLS="$N" STRATA_ONLINE_SEED="$SEED" \
    swift test --skip-build --filter 'StrataReliabilityTests.(CrashSafetyTests|SquashKillTests|OnlineRebuildKillTests)' 2>&1 \
    | grep -E 'crash test|✘|✔ Suite|Test run' 
