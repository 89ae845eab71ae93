#!/usr/bin/env bash
# Planted bugs (issue 37 item 8): plants each realistic one-line bug of scripts/planted-bugs/*.bug
# in turn into a copy of the package, builds it, runs the tests meant to catch it, and reports
# "caught by <tests>" or "SURVIVED". Never touches this tree: the copy lives in
# $STRATA_PLANTED_DIR (default: $TMPDIR/strata-planted-bugs, kept between runs so that each run
# builds incrementally).
#
#   scripts/planted-bugs.sh [NAME...]     every bug (default) or the ones named (file stem)
#   scripts/planted-bugs.sh --list        the bugs, one per line
#
# A bug counts as caught only when a test fails: a test run still going after
# $STRATA_PLANTED_TIMEOUT seconds (default 1200) is killed and reported HUNG.
#
# Exit status: 0 when every bug was caught; 1 when one survived, hung, no longer applies, or its
# build failed; 2 when one could not be run here (the rekey's needs the SQLite3 Multiple Ciphers build
# that scripts/sqlite-versions.sh makes). Too slow for CI (one incremental build per bug, about
# 2-6 minutes each on 2 cores): run it by hand after touching a safety path.
#
# A bug file holds shell assignments:
#   file=Sources/...              the file the bug goes into
#   sed='s/.../.../'              the change: a sed script (basic regular expressions)
#   tests='SuiteA|SuiteB'         the --filter of the tests that must catch it
#   cipher=1                      (optional) the tests need the SQLite3 Multiple Ciphers build
#   what='...'                    one line saying what the bug does
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
bugs_dir="$root/scripts/planted-bugs"
work="${STRATA_PLANTED_DIR:-${TMPDIR:-/tmp}/strata-planted-bugs}"

if [ "${1:-}" = "--list" ]; then
    for f in "$bugs_dir"/*.bug; do
        what=""; file=""
        # shellcheck disable=SC1090
        . "$f"
        echo "$(basename "$f" .bug): $what ($file)"
    done
    exit 0
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$bugs_dir"/*.bug; do names+=("$(basename "$f" .bug)"); done
fi
for name in "${names[@]}"; do
    [ -f "$bugs_dir/$name.bug" ] || { echo "no planted bug $name (scripts/planted-bugs/$name.bug)" >&2; exit 2; }
done

# The copy: this tree's files (tracked and untracked, not ignored), modification times kept so
# that the copy's build (kept in $work/.build) stays incremental.
echo "== copying the package to $work"
mkdir -p "$work"
find "$work" -mindepth 1 -maxdepth 1 ! -name .build ! -name '*.log' -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work"
cd "$work"

# The cipher build, when a bug needs it.
cipher_path=""
for name in "${names[@]}"; do
    cipher=0
    # shellcheck disable=SC1090
    . "$bugs_dir/$name.bug"
    if [ "$cipher" = 1 ] && [ -z "$cipher_path" ]; then
        cipher_path=$("$root/scripts/sqlite-versions.sh" path 3.54.0 2>/dev/null || true)
    fi
done

# A run that outlasts this bound hung: a hang is not a catch (the tests must fail in bounded time).
bound="${STRATA_PLANTED_TIMEOUT:-1200}"

run_tests() {  # filter, needs-cipher, log → status of the test bundle (124: killed at the bound)
    local filter="$1" needs="$2" log="$3" bin
    bin=$(swift build --show-bin-path)
    if [ "$needs" = 1 ]; then
        LD_LIBRARY_PATH="$cipher_path" STRATA_EXPECT_SQLITE_VERSION=3.54.0 timeout -k 10 "$bound" \
            "$bin/StrataPackageTests.xctest" --testing-library swift-testing --filter "$filter" >"$log" 2>&1
    else
        timeout -k 10 "$bound" \
            "$bin/StrataPackageTests.xctest" --testing-library swift-testing --filter "$filter" >"$log" 2>&1
    fi
}

# The tests must pass before any bug is planted, else a "catch" would prove nothing.
echo "== building the unchanged copy"
swift build --build-tests >"$work/build-clean.log" 2>&1 || { tail -30 "$work/build-clean.log"; exit 1; }
for name in "${names[@]}"; do
    cipher=0
    # shellcheck disable=SC1090
    . "$bugs_dir/$name.bug"
    if [ "$cipher" = 1 ] && [ -z "$cipher_path" ]; then continue; fi
    echo "== $name: its tests on the unchanged code ($tests)"
    if ! run_tests "$tests" "$cipher" "$work/clean-$name.log"; then
        sed -E 's/\x1b\[[0-9;]*m//g' "$work/clean-$name.log" | grep -E '✘' | head -20 >&2 || true
        echo "the tests of $name fail without the bug (log: $work/clean-$name.log)" >&2
        exit 1
    fi
done

status=0
report=()
for name in "${names[@]}"; do
    file=""; sed=""; tests=""; cipher=0; what=""
    # shellcheck disable=SC1090
    . "$bugs_dir/$name.bug"
    if [ "$cipher" = 1 ] && [ -z "$cipher_path" ]; then
        report+=("$name: NOT RUN (needs the SQLite3 Multiple Ciphers build: scripts/sqlite-versions.sh build 3.54.0)")
        [ $status -ne 0 ] || status=2
        continue
    fi
    echo "== $name: $what"
    cp "$file" "$file.planted-orig"
    sed -i -e "$sed" "$file"
    if cmp -s "$file" "$file.planted-orig"; then
        mv "$file.planted-orig" "$file"
        touch "$file"
        report+=("$name: NO LONGER APPLIES (the sed script changes nothing in $file)")
        status=1
        continue
    fi
    diff -u "$file.planted-orig" "$file" | sed -n '3,$p' | grep -E '^[-+]' | sed 's/^/    /' || true
    tests_status=0
    if ! swift build --build-tests >"$work/build-$name.log" 2>&1; then
        report+=("$name: BUILD FAILED with the bug (log: $work/build-$name.log)")
        status=1
    elif run_tests "$tests" "$cipher" "$work/tests-$name.log" || tests_status=$?; [ $tests_status -eq 0 ]; then
        report+=("$name: SURVIVED ($tests all passed; log: $work/tests-$name.log)")
        status=1
    elif [ $tests_status -eq 124 ] || [ $tests_status -eq 137 ]; then
        report+=("$name: HUNG (no result within $bound s: a hang is not a catch; log: $work/tests-$name.log)")
        status=1
    else
        caught=$(sed -E 's/\x1b\[[0-9;]*m//g' "$work/tests-$name.log" | grep -oE '✘ Test [^ ]+ ' |
            grep -v '^✘ Test run ' | sed -E 's/^✘ Test ([^ (]+).*/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//' || true)
        report+=("$name: caught by ${caught:-the failing run of $tests} (log: $work/tests-$name.log)")
    fi
    mv "$file.planted-orig" "$file"
    # A fresh modification time: the Swift driver recompiles only files newer than its last build,
    # and the restored copy carries the time it was copied at.
    touch "$file"
done
# The copy back as it was, built, for the next run.
swift build --build-tests >"$work/build-clean.log" 2>&1 || true

echo "== planted bugs"
for line in "${report[@]}"; do echo "$line"; done
exit $status
