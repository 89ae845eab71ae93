#!/usr/bin/env bash
# Instruction counts of the benchmark cases (valgrind --tool=callgrind), one repetition of each
# contender, compared with the last committed run (Benchmarks/instructions.tsv): any contender
# that now runs more than 3 % more instructions is flagged and the script exits 1. Instruction
# counts do not depend on the machine's load, so this runs on shared machines where wall times
# swing by 2x. Not part of CI (the default set takes about an hour: callgrind runs code about 50x slower).
#
#   bash Benchmarks/instructions.sh                 compare cases 1,2,7,7b,8,8b,12 with the file
#   bash Benchmarks/instructions.sh --cases 7b,8b   some cases only
#   bash Benchmarks/instructions.sh --update        write the counts to the file (commit it)
#
# One repetition's count is (count with 2 repetitions) - (count with 1), both without warm-up, so
# process start-up, opening and data setup of the child cancel out.
set -euo pipefail
cd "$(dirname "$0")"
cases="1,2,7,7b,8,8b,12"
update=0
threshold=3
while [ $# -gt 0 ]; do
    case "$1" in
    --cases) cases="$2"; shift 2 ;;
    --update) update=1; shift ;;
    *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 2; }
touch Sources/StrataBench/*.swift Package.swift
swift build -c release --product strata-bench >&2
bench=.build/release/strata-bench
dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-instructions.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$bench" --cases "$cases" --dir "$dir" --keep --prepare-only
count() {  # key repetitions -> instructions of the whole child process
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
        "$bench" --child "$1" --repetitions "$2" --warmup 0 --dir "$dir" >/dev/null 2>"$dir/cg.err" \
        || { cat "$dir/cg.err" >&2; echo "instructions.sh: $1 failed" >&2; exit 1; }
    sed -n 's/^summary: //p' "$dir/cg.out"
}
results="$dir/results.tsv"
: >"$results"
while read -r number key; do
    one=$(count "$key" 1)
    two=$(count "$key" 2)
    printf '%s\t%s\t%s\n' "$number" "$key" "$((two - one))" | tee -a "$results" >&2
done < <("$bench" --cases "$cases" --list-keys)

baseline=instructions.tsv
if [ $update -eq 1 ]; then
    # Keep the counts of cases not measured this time.
    { [ -f "$baseline" ] && awk -F'\t' 'NR == FNR { seen[$2] = 1; next } !seen[$2]' "$results" "$baseline"; \
      cat "$results"; } | sort -t$'\t' -k2,2 >"$dir/new.tsv"
    mv "$dir/new.tsv" "$baseline"
    echo "wrote $(wc -l <"$baseline") counts to Benchmarks/$baseline"
    exit 0
fi
[ -f "$baseline" ] || { echo "no Benchmarks/$baseline yet: run with --update first" >&2; exit 2; }
awk -F'\t' -v limit="$threshold" '
    NR == FNR { before[$2] = $3; next }
    {
        if (!($2 in before)) { printf "%-28s %14d  (new)\n", $2, $3; next }
        change = before[$2] == 0 ? 0 : 100 * ($3 - before[$2]) / before[$2]
        flag = change > limit ? "  REGRESSED" : ""
        if (flag != "") bad = 1
        printf "%-28s %14d  %+6.1f %%%s\n", $2, $3, change, flag
    }
    END { exit bad }' "$baseline" "$results"
