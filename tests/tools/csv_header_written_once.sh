#!/usr/bin/env bash
# The results CSV's header is written in two places a maintainer keeps
# together: common/report.h's REPORT_CSV_HEADER (what the programs write) and
# tools/columns.sh's results_columns (what make bench accepts as a results
# file's header, and its shorter prefixes). They must be the same text.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
# shellcheck source=tools/columns.sh
. "$1/tools/columns.sh"
# the macro's string literals, joined (it spans two lines of the header)
c=$(awk '/^#define REPORT_CSV_HEADER[ \\]*$/ { on = 1; next } on { line = $0; while (match(line, /"[^"]*"/)) { s = s substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) } if ($0 !~ /\\$/) exit } END { print s }' "$1/common/report.h")
[ -n "$c" ] || fail "no REPORT_CSV_HEADER read from common/report.h"
[ "$c" = "$results_columns" ] || fail "common/report.h writes '$c', tools/columns.sh accepts '$results_columns'"
[[ "$results_columns," == "$results_columns_10,"* ]] || fail "results_columns does not start with the ten columns"
echo "the results' header is the same in common/report.h and tools/columns.sh"
