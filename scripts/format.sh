#!/usr/bin/env bash
# Style, settled by swift-format with the repository's .swift-format:
#   scripts/format.sh          rewrites every Swift file in place
#   scripts/format.sh --lint   fails (exit 1) on any file that is not formatted (what .ci/run runs)
# Tests/DocExamples is generated from the Markdown pages (scripts/doc-examples.sh), and
# scripts/doc-example-preludes.swift is the preludes it reads (text in sections): both left out.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.swift' | grep -v -e '^Tests/DocExamples/' -e '^scripts/doc-example-preludes.swift$')
if [ "${1:-}" = "--lint" ]; then
    swift format lint --strict --parallel "${files[@]}"
else
    swift format format --in-place --parallel "${files[@]}"
fi
