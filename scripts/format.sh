#!/usr/bin/env bash
# Style, settled by swift-format with the repository's .swift-format:
#   scripts/format.sh          rewrites every Swift file in place
#   scripts/format.sh --lint   fails (exit 1) on any file that is not formatted (what .ci/run runs)
# Tests/ReadmeExamples/main.swift is generated from the README (scripts/readme-examples.sh) and left out.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.swift' | grep -v '^Tests/ReadmeExamples/')
if [ "${1:-}" = "--lint" ]; then
    swift format lint --strict --parallel "${files[@]}"
else
    swift format format --in-place --parallel "${files[@]}"
fi
