#!/bin/sh
# Property-based schema changes, the long run: N random schema pairs (A, B) from SEED, each on
# the modern and the old-SQLite path (capabilities lowered to 3.24.0). A database at A holding
# random rows is brought to B: the schema must equal B, kept columns keep their values, a second
# plan is empty, integrity and foreign keys hold. A failing pair is shrunk to a minimal case and
# printed, ready to paste into Tests/StrataReliabilityTests/PropertyRegressionTests.swift.
#
#   scripts/property-test.sh [N] [SEED] [EDITS]
#       N defaults to 2000, SEED to the current time, EDITS (the most edits per pair) to 4
set -eu
N="${1:-2000}"
SEED="${2:-$(date +%s)}"
EDITS="${3:-4}"
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
echo "property test: $N pairs, seed $SEED, up to $EDITS edits per pair"
STRATA_PROPERTY_PAIRS="$N" STRATA_PROPERTY_SEED="$SEED" STRATA_PROPERTY_EDITS="$EDITS" \
    swift test --skip-build --filter 'StrataReliabilityTests.SchemaPropertyTests' 2>&1 \
    | grep -vE '^\[|^◇|^↳ (Testing Library|Target Platform)'
