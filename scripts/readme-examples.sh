#!/bin/sh
# The old name of scripts/doc-examples.sh (it covers README.md, every other Markdown page and
# the DocC catalogs now).
set -eu
exec "$(dirname "$0")/doc-examples.sh" "$@"
