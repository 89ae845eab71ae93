#!/bin/sh
# Builds the DocC documentation of the four library modules (the catalogs Sources/*/*.docc) with
# swift-docc-plugin, which Package.swift adds only when STRATA_DOCS=1 (users of the library never
# resolve it). Fails on any DocC warning (a broken link, an ambiguous symbol reference).
#
#   scripts/docs.sh [SWIFT PACKAGE OPTIONS]     e.g. scripts/docs.sh --scratch-path .build-docs
#
# The archives land in <scratch path>/plugins/Swift-DocC/outputs/*.doccarchive.
set -eu
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
STRATA_DOCS=1 swift package "$@" generate-documentation --warnings-as-errors \
    --target StrataSQLite --target StrataSchema --target StrataMigrations --target Strata >"$log" 2>&1 || status=$?
grep -v '^\[[0-9]*/[0-9]*\]' "$log"
if [ "$status" -ne 0 ] || grep -q 'warning:\|error:' "$log"; then
    echo "docs: failed (exit $status, $(grep -c 'warning:\|error:' "$log") warnings or errors)" >&2
    exit 1
fi
echo "docs: 4 archives, no warnings"
