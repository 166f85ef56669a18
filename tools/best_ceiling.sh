#!/usr/bin/env bash
# best_ceiling.sh CSV STAGE [CHAPTER]: the value of a ceiling (ceiling-fp32-peak,
# ceiling-read-stream, ...) as the tools read it from a results file: the best
# (largest: GFLOP/s, GB/s) of the STAGE rows (of CHAPTER, when given) of the
# newest run in CSV, never the file's last such row. A run is the run_id column
# (`make bench` writes one id for all the rows of one invocation): the newest
# is the one whose rows' dates (the date column, UTC, ISO 8601) are latest.
# Rows written before there was a run_id column (a file of ten columns, or a
# row of ten in a longer one) count only in a file where no STAGE row has one:
# all of them are then one unknown run. Rows whose check is FAIL are not
# ceilings. Columns are read by name (tools/columns.sh). Prints "VALUE RUN_ID"
# (RUN_ID "-" for rows without one), nothing when there is no such row; exit 2
# on bad usage, an unreadable CSV or one whose header lacks a column read here.
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "${BASH_SOURCE[0]}")/columns.sh"
csv=${1:-} stage=${2:-} chapter=${3:-}
if [ -z "$csv" ] || [ -z "$stage" ]; then echo "usage: best_ceiling.sh CSV STAGE [CHAPTER]" >&2; exit 2; fi
[ -r "$csv" ] || { echo "best_ceiling: $csv: cannot read it" >&2; exit 2; }
csv_columns "$csv" chapter stage value check date 'run_id?' || exit 2
awk -F, "${cols[@]}" -v stage="$stage" -v chapter="$chapter" '
NR > 1 && $c_stage == stage && (chapter == "" || $c_chapter == chapter) && $c_check != "FAIL" && $c_value ~ /^[0-9.eE+-]+$/ {
    run = c_run_id && $c_run_id != "" ? $c_run_id : "-"
    if (!(run in best) || $c_value + 0 > best[run] + 0) best[run] = $c_value
    if (!(run in latest) || $c_date > latest[run]) latest[run] = $c_date
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
