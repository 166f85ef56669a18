#!/usr/bin/env bash
# best_ceiling.sh CSV STAGE [CHAPTER]: the value of a ceiling (ceiling-fp32-peak,
# ceiling-read-stream, ...) as the tools read it from a results file: the best
# (largest: GFLOP/s, GB/s) of the STAGE rows (of CHAPTER, when given) of the
# newest run in CSV, never the file's last such row. A run is the run_id column
# (12th; `make bench` writes one id for all the rows of one invocation): the
# newest is the one whose rows' dates (10th column, UTC, ISO 8601) are latest.
# Rows written before there was a run_id column (ten columns) count only in a
# file where no STAGE row has one: all of them are then one unknown run. Rows
# whose check is FAIL are not ceilings. Prints "VALUE RUN_ID" (RUN_ID "-" for
# rows without one), nothing when there is no such row; exit 2 on bad usage or
# an unreadable CSV.
set -u
csv=${1:-} stage=${2:-} chapter=${3:-}
if [ -z "$csv" ] || [ -z "$stage" ]; then echo "usage: best_ceiling.sh CSV STAGE [CHAPTER]" >&2; exit 2; fi
[ -r "$csv" ] || { echo "best_ceiling: $csv: cannot read it" >&2; exit 2; }
awk -F, -v stage="$stage" -v chapter="$chapter" '
NR > 1 && $2 == stage && (chapter == "" || $1 == chapter) && $8 != "FAIL" && $6 ~ /^[0-9.eE+-]+$/ {
    run = NF >= 12 && $12 != "" ? $12 : "-"
    if (!(run in best) || $6 + 0 > best[run] + 0) best[run] = $6
    if (!(run in latest) || $10 > latest[run]) latest[run] = $10
}
END {
    newest = ""
    for (run in best) {
        if (run == "-") continue
        if (newest == "" || latest[run] > latest[newest] || (latest[run] == latest[newest] && run > newest)) newest = run
    }
    if (newest == "" && ("-" in best)) newest = "-"
    if (newest != "") print best[newest], newest
}' "$csv"
