#!/bin/sh
# Every ```swift block of README.md, the other Markdown pages and the DocC catalogs, compiled as
# its own file of the DocExamples target (Tests/DocExamples), with only the imports it shows;
# complete programs are run and their output checked (DocExamplesTests). The marker rules are in
# scripts/doc-examples.py and Tests/README.md ("Documentation examples").
#
#   scripts/doc-examples.sh           rewrite Tests/DocExamples
#   scripts/doc-examples.sh --check   exit 1 if Tests/DocExamples is not what the pages give
set -eu
exec python3 "$(dirname "$0")/doc-examples.py" "$@"
