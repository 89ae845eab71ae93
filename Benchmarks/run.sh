#!/usr/bin/env bash
# Builds Strata's benchmarks in release mode and runs every case (raw C API vs Strata vs GRDB);
# prints a markdown table. Options go to strata-bench: --quick, --cases 1,2,3, --dir PATH, --keep.
# Not part of CI: a full run takes several minutes and builds GRDB.
set -euo pipefail
cd "$(dirname "$0")"
# Strata's @inlinable code is compiled into the benchmark module; an incremental build does not
# always notice when it changes, so the (small) benchmark module is always recompiled.
touch Sources/StrataBench/*.swift
# A file added to the library is not seen until the manifest is evaluated again.
touch Package.swift
swift build -c release --product strata-bench
exec .build/release/strata-bench "$@"
