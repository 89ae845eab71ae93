#!/bin/sh
# The attacks of issue 11, the long run: replays each hostile case with random data and random
# timings through the built `strata` command line (AttackTests) and prints the tally of outcomes
# per attack:
#   conflict clauses in a rebuild (ON CONFLICT REPLACE/IGNORE, CHECK) over colliding rows;
#   NULLs committed by another connection at a random moment while `strata apply` runs;
#   a tmpfs that fills up at a random size (rollback journal and WAL; skipped without root);
#   `--backup` aimed at the database by another name, its journal files, files and directories;
#   transaction control hidden among look-alike statements in a migration;
#   migration entries that are links to secrets outside the folder, FIFOs, directories;
#   two `strata migrate` runs on one database, the second after a random delay;
#   hostile desired schemas (code in CREATE TABLE AS, recursive CTEs, huge statements).
# Every trial checks the promise: done with every row kept, or exit 1 naming the culprit and the
# database exactly as it was.
#
#   scripts/attack-test.sh [N] [SEED]      N trials per attack (default 50), SEED defaults to 11
set -eu
N="${1:-50}"
SEED="${2:-11}"
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
STRATA_ATTACK_TRIALS="$N" STRATA_ATTACK_SEED="$SEED" \
    swift test --skip-build --filter 'StrataReliabilityTests.AttackTests' 2>&1 \
    | grep -E 'attack test|✘|✔ Suite|Test run'
