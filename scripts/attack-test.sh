#!/bin/sh
# The attacks of issues 11 and 24, the long run: replays each hostile case with random data and
# random timings through the built `strata` command line and prints the tally of outcomes per
# attack:
#   conflict clauses in a rebuild (ON CONFLICT REPLACE/IGNORE, CHECK) over colliding rows;
#   NULLs committed by another connection at a random moment while `strata apply` runs;
#   a tmpfs that fills up at a random size (rollback journal and WAL; skipped without root);
#   `--backup` aimed at the database by another name, its journal files, files and directories;
#   transaction control hidden among look-alike statements in a migration;
#   migration entries that are links to secrets outside the folder, FIFOs, directories;
#   two `strata migrate` runs on one database, the second after a random delay;
#   hostile desired schemas (code in CREATE TABLE AS, recursive CTEs, huge statements)
#   (AttackTests); issue 24:
#   a FIFO, a directory or a device among the databases of a random batch, probed for being
#   opened from a random moment on; random spellings of paths through folder links, existing or
#   not (FileAttackTests);
#   issue 37: odd paths (one letter, ., .., trailing slashes, ~, beyond NAME_MAX and PATH_MAX, bytes
#   that are not UTF-8, newlines) through every path option of every command, each with every odd
#   path, then N x 20 random odd paths (PathAttackTests, STRATA_PATH_FUZZ_TRIALS);
#   `strata rekey` killed with SIGKILL at random moments in every mode, 6 x N kills, against
#   SQLite3 Multiple Ciphers 3.54.0 (RekeyKillTests; built by scripts/sqlite-versions.sh, loaded
#   with LD_LIBRARY_PATH on the test process only; skipped when it cannot be built);
#   issue 37: random new definitions of a table x random app statements (every conflict clause,
#   foreign-key actions on a parent) during an online rebuild, 4 x N trials
#   (OnlineRebuildIsolationAttackTests).
# Every trial checks the promise: done with every row kept, or exit 1 naming the culprit and the
# database exactly as it was (a killed rekey: the old key or the new one, every row).
#
#   scripts/attack-test.sh [N] [SEED]      N trials per attack (default 50), SEED defaults to 11
set -eu
N="${1:-50}"
SEED="${2:-11}"
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
STRATA_ATTACK_TRIALS="$N" STRATA_ATTACK_SEED="$SEED" STRATA_PATH_FUZZ_TRIALS=$((N * 20)) \
    swift test --skip-build --filter 'StrataReliabilityTests.(AttackTests|FileAttackTests|PathAttackTests)' 2>&1 \
    | grep -E 'attack test|✘|✔ Suite|Test run'
STRATA_ONLINE_PROPERTY_TRIALS=$((N * 4)) STRATA_ATTACK_SEED="$SEED" \
    swift test --skip-build --filter 'StrataReliabilityTests.OnlineRebuildIsolationAttackTests' 2>&1 \
    | grep -E 'attack test|✘|✔ Suite|Test run'
if folder=$(scripts/sqlite-versions.sh path 3.54.0 2>/dev/null); then
    bin=$(swift build --show-bin-path)
    STRATA_REKEY_KILLS=$((N * 6)) STRATA_REKEY_SEED="$SEED" LD_LIBRARY_PATH="$folder" \
        "$bin/StrataPackageTests.xctest" --testing-library swift-testing --filter 'RekeyKillTests' 2>&1 \
        | grep -E 'crash test|✘|✔ Suite|Test run'
else
    echo "attack test: strata rekey kills skipped: SQLite3 Multiple Ciphers 3.54.0 could not be built"
fi
