#!/usr/bin/env bash
# Crash safety of `strata rekey` (issue 24), alone: kills the command line with SIGKILL N times
# at random moments, in every mode (WAL and rollback journal; plaintext → key, key → key,
# key → plaintext), against SQLite3 Multiple Ciphers 3.54.0 (built by scripts/sqlite-versions.sh,
# loaded with LD_LIBRARY_PATH on the test process only). After every kill the file must open with
# the old key or the new one, hold every row and keep its journal mode (RekeyKillTests).
# CI runs the same suite with its default of 1,002 kills in the 3.54.0 step of
# `scripts/sqlite-versions.sh test`.
#
#   scripts/rekey-kill-test.sh [N] [SEED]      N defaults to 1002, SEED to 24
set -euo pipefail
N="${1:-1002}"
SEED="${2:-24}"
cd "$(dirname "$0")/.."
folder=$(scripts/sqlite-versions.sh path 3.54.0)
swift build --build-tests >/dev/null
bin=$(swift build --show-bin-path)
STRATA_REKEY_KILLS="$N" STRATA_REKEY_SEED="$SEED" LD_LIBRARY_PATH="$folder" \
    "$bin/StrataPackageTests.xctest" --testing-library swift-testing --filter 'RekeyKillTests' 2>&1 |
    grep -E 'crash test|✘|✔ Suite|Test run|skipped'
