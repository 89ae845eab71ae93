#!/usr/bin/env bash
# Real SQLite versions for tests: builds libsqlite3.so.0 for several SQLite releases from the
# amalgamations inside PyPI source distributions, and runs the test suite against each.
#
#   scripts/sqlite-versions.sh build [VERSION...]     build (cached) and print each library folder
#   scripts/sqlite-versions.sh path VERSION           print the folder holding VERSION's libsqlite3.so.0
#   scripts/sqlite-versions.sh test [--quick] [VERSION...]
#                                                     swift test against each version (all by default)
#
# Versions: 3.28.0 3.38.3 3.45.0 3.50.4 3.54.0 (3.54.0 is SQLite3 Multiple Ciphers: plain files
# unless a key is set; its folder also serves the encryption tests).
#
# The sdists are fetched with curl from PyPI's simple index and checked against the SHA-256 pinned
# below; no setup script runs. Only sqlite3.c is taken from each, with what the distribution adds
# cut away (sqleet's codec configuration before the amalgamation and its codec after it; sqlean's
# trailing init hook), and compiled with the feature options Debian's libsqlite3 uses. Results are
# cached in .build-sqlite/ (ignored by git). The libraries are loaded with LD_LIBRARY_PATH on the
# test process only: SwiftPM builds and links against the system library as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
cache="$root/.build-sqlite"
all_versions=(3.28.0 3.38.3 3.45.0 3.50.4 3.54.0)

# version → "package version sha256 path-of-sqlite3.c-in-sdist cut-rule"
source_of() {
    case "$1" in
    3.28.0) echo "apsw-sqleet 3.28.0.post2 47a8e917f52834b107da3bf39f754a01b6d840c945b575a4c9f3d722660f71f8 sqlite3/sqlite3.c amalgamation" ;;
    3.38.3) echo "pysqlite-binary 0.5.1.3380300 bc869079d69f9e41fa79bc67c508c0b716d7f4ae5780eb6686989f42509562e9 src/sqlite3.c amalgamation" ;;
    3.45.0) echo "sqlean-py 3.45.0 cdb37523f91d07169996684066bf579e08787a9796288fa1adea21c1745935cf sqlite/sqlite3.c amalgamation" ;;
    3.50.4) echo "sqlean-py 3.50.4 8fdc25e58ee9f3de6a6c6146a158485a46811b7d27ee966d18e2e5fe9a49d31e sqlite/sqlite3.c amalgamation" ;;
    3.54.0) echo "apsw-sqlite3mc 3.54.0.0 60a021cd9f6c8f3e2aa6cb54e197cb344379d5eb9a688b7647a136fc24956db4 sqlite3/sqlite3.c whole" ;;
    *) echo "unknown SQLite version $1 (known: ${all_versions[*]})" >&2; return 1 ;;
    esac
}

# Debian's feature options (PRAGMA compile_options of Debian 12's libsqlite3), plus JSON1 for
# releases before 3.38 where it was optional.
cflags=(-O2 -w -fPIC -shared -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB
    -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS3_TOKENIZER -DSQLITE_ENABLE_FTS4
    -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_JSON1 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS
    -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_UNLOCK_NOTIFY
    -DSQLITE_ENABLE_STMTVTAB -DSQLITE_SECURE_DELETE -DSQLITE_SOUNDEX -DSQLITE_USE_URI=1
    -DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_TEMP_STORE=1
    -DSQLITE_DEFAULT_RECURSIVE_TRIGGERS=1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS)
# SQLite3 Multiple Ciphers: SQLCipher v4 as the default cipher (issue 18), AES without CPU-specific
# instructions so the library runs on any x86-64.
mc_cflags=(-DCODEC_TYPE=CODEC_TYPE_SQLCIPHER -DSQLITE3MC_OMIT_AES_HARDWARE_SUPPORT=1)

folder_of() { echo "$cache/$1"; }

fetch() {  # package version sha256 → path of the verified sdist
    local package="$1" version="$2" sha="$3" downloads="$cache/downloads"
    mkdir -p "$downloads"
    local existing
    existing=$(ls "$downloads" 2>/dev/null | grep -i -E "^${package//-/[-_.]}-${version//./\\.}\.tar\.gz$" | head -1 || true)
    if [ -n "$existing" ] && echo "$sha  $downloads/$existing" | sha256sum --check --status; then
        echo "$downloads/$existing"; return
    fi
    local url
    url=$(curl -sSfL --retry 3 -m 60 -H "Accept: application/vnd.pypi.simple.v1+json" "https://pypi.org/simple/$package/" |
        python3 -c '
import json, re, sys
version, files = sys.argv[1], json.load(sys.stdin)["files"]
for f in files:
    if f["filename"].endswith(".tar.gz") and re.search(r"-" + re.escape(version) + r"\.tar\.gz$", f["filename"]):
        print(f["url"]); break
' "$version")
    [ -n "$url" ] || { echo "no sdist of $package $version on PyPI" >&2; return 1; }
    local file="$downloads/${url##*/}"
    curl -sSfL --retry 3 -m 300 -o "$file.part" "$url"
    if ! echo "$sha  $file.part" | sha256sum --check --status; then
        echo "checksum mismatch for $url (expected $sha)" >&2; rm -f "$file.part"; return 1
    fi
    mv "$file.part" "$file"
    echo "$file"
}

build() {  # version → builds $cache/version/libsqlite3.so.0 unless present
    local version="$1" folder
    folder=$(folder_of "$version")
    if [ -f "$folder/libsqlite3.so.0" ] && [ -f "$folder/.complete" ]; then return; fi
    read -r package pversion sha member rule < <(source_of "$version")
    local sdist work
    sdist=$(fetch "$package" "$pversion" "$sha")
    work=$(mktemp -d)
    tar -xzf "$sdist" -C "$work" --wildcards "*/$member"
    local source
    source=$(find "$work" -path "*/$member" | head -1)
    mkdir -p "$folder"
    if [ "$rule" = amalgamation ]; then
        # From the comment block that opens SQLite's amalgamation to its "End of sqlite3.c" line.
        awk '
            !started && /^\*\* This file is an amalgamation/ { started = 1; print previous }
            started { print }
            started && /^\/\*+ End of sqlite3\.c \*+\/$/ { exit }
            { previous = $0 }
        ' "$source" >"$folder/sqlite3.c"
        extra=()
    else
        cp "$source" "$folder/sqlite3.c"
        extra=("${mc_cflags[@]}")
    fi
    grep -q "^\*\* version $version\." "$folder/sqlite3.c" ||
        { echo "$sdist does not hold SQLite $version's amalgamation" >&2; rm -rf "$work"; return 1; }
    echo "== building SQLite $version from $(basename "$sdist")" >&2
    gcc "${cflags[@]}" "${extra[@]}" -Wl,-soname,libsqlite3.so.0 -o "$folder/libsqlite3.so.0" \
        "$folder/sqlite3.c" -lpthread -ldl -lm
    rm -f "$folder/sqlite3.c"
    rm -rf "$work"
    touch "$folder/.complete"
}

command="${1:-}"; shift || true
case "$command" in
build)
    versions=("$@"); [ ${#versions[@]} -gt 0 ] || versions=("${all_versions[@]}")
    pids=()
    for v in "${versions[@]}"; do source_of "$v" >/dev/null; build "$v" & pids+=($!); done
    status=0; for p in "${pids[@]}"; do wait "$p" || status=1; done
    [ $status -eq 0 ] || exit 1
    for v in "${versions[@]}"; do folder_of "$v"; done
    ;;
path)
    build "$1" && folder_of "$1"
    ;;
test)
    quick=0
    if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
    versions=("$@"); [ ${#versions[@]} -gt 0 ] || versions=("${all_versions[@]}")
    "$0" build "${versions[@]}" >/dev/null
    swift build --build-tests
    bin=$(swift build --show-bin-path)
    filter=()
    # The quick subset: the connection layer, the engine and the version checks.
    [ $quick -eq 0 ] || filter=(--filter 'StrataSQLiteTests|StrataSchemaTests|RealSQLiteVersionTests')
    release="$(swift build -c release --show-bin-path)/strata"
    failed=()
    summaries=()
    for v in "${versions[@]}"; do
        folder=$(folder_of "$v")
        # The test bundle runs directly: `swift test` itself links libsqlite3 and must keep the
        # system's, so LD_LIBRARY_PATH is set on the test process alone.
        echo "== tests against SQLite $v ($folder)"
        # The output is kept so that the failures of every version are repeated at the end (CI
        # shows only the tail of a long log).
        log="$bin/sqlite-$v-tests.log"
        # The long kill suites run in full once, on the system SQLite (`swift test`); here each
        # version gets a sample (the upgrade airbag's 300 kills take about 2 minutes on 2 cores).
        if STRATA_EXPECT_SQLITE_VERSION="$v" STRATA_SQUASH_HISTORY=40 STRATA_SQUASH_KILLS=10 \
            STRATA_AIRBAG_KILLS=36 STRATA_AIRBAG_RACE_ROUNDS=4 STRATA_ROUNDTRIP_PAIRS=60 LD_LIBRARY_PATH="$folder" \
            "$bin/StrataPackageTests.xctest" --testing-library swift-testing "${filter[@]}" 2>&1 | tee "$log"; then
            :
        else
            failed+=("$v (tests)")
            summaries+=("$v" "$log")
        fi
        for strata in "$bin/strata" "$release"; do
            [ -x "$strata" ] || continue
            echo "== $strata version against SQLite $v"
            # (Not `tee /dev/stderr`: when stderr is a file, tee would truncate it.)
            out=$(LD_LIBRARY_PATH="$folder" "$strata" version 2>&1) || true
            echo "$out"
            case "$out" in *"(SQLite $v)"*) ;; *) failed+=("$v ($strata version)") ;; esac
        done
    done
    if [ ${#failed[@]} -gt 0 ]; then
        set -- "${summaries[@]+"${summaries[@]}"}"
        while [ $# -ge 2 ]; do
            echo "== what failed against SQLite $1 (from $2)" >&2
            grep -E '✘|recorded an issue|Fatal error|error:' "$2" | head -60 >&2 || true
            shift 2
        done
        echo "== failed on: ${failed[*]}" >&2
        exit 1
    fi
    echo "== passed on SQLite ${versions[*]}"
    ;;
*)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
