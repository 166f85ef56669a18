#!/usr/bin/env bash
# A column a tool reads that is not in the file is an error naming the file
# and the column (tools/columns.sh), never a field read from wherever it
# happens to be: with one column dropped from the results, best_ceiling.sh
# (value; exit 2), decomposition.sh (median_ms) and ch10's book table
# (unit, its script and line named) fail saying so; a file of the ten older
# columns, which has no run_id, is still read (that column may be missing);
# a --list-stages column the table does not have is named too.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
fixture_copy "$1"
export CLANG_CUDA=

# without FILE NAME: FILE less its column NAME (found by its header).
without() {
    awk -F, -v OFS=, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) k = i }
        { s = sep = ""; for (i = 1; i <= NF; i++) if (i != k) { s = s sep $i; sep = OFS } print s }' "$1"
}
# names_it LOG NAME FILE: LOG says FILE has no column NAME.
names_it() {
    grep -qF "$3 has no column \"$2\"" "$1" || fail "the message does not name $3 and its missing column $2: $(cat "$1")"
}

without "$fixtures/results_two_runs.csv" value > no_value.csv
head -n 1 no_value.csv | grep -q ',value,' && fail "the fixture still has a value column"
bash tools/best_ceiling.sh no_value.csv ceiling-fp32-peak > out.txt 2> err.txt
rc=$?
[ $rc -eq 2 ] || fail "best_ceiling without a value column: exit $rc (want 2), printed $(cat out.txt)"
[ ! -s out.txt ] || fail "best_ceiling printed a ceiling without a value column: $(cat out.txt)"
names_it err.txt value no_value.csv
grep -q '^[^ ]*best_ceiling.sh:[0-9]*: ' err.txt || fail "the message does not start with the script and line: $(cat err.txt)"
got=$(bash tools/best_ceiling.sh "$fixtures/results_no_run_id.csv" ceiling-fp32-peak 2> err.txt)
[ "$got" = "61085.5 -" ] || fail "a file without run_id (the older ten columns): want '61085.5 -', got '$got' $(cat err.txt)"

machine=Fixture-GPU_Fixture-CPU
mkdir -p "data/profiles/$machine" data/results
cp "$fixtures"/profiles/ch05_*.txt "data/profiles/$machine/"
without "$fixtures/results_two_runs.csv" median_ms > "data/results/$machine.csv"
bash tools/decomposition.sh > table.md 2> err.txt && fail "decomposition without a median_ms column passed: $(cat table.md)"
names_it err.txt median_ms "data/results/$machine.csv"

# ch10's book table, run as book.py runs it (ftime and fval are not reached)
mkdir -p gen
with_unit=$(grep -l '^ch10,.*math=' "$1"/data/results/*.csv | head -n 1)
[ -n "$with_unit" ] || fail "no committed results have ch10's math= rows to test with"
without "$with_unit" unit > no_unit.csv
gen=$PWD/gen fmt_awk='' bash -c 'set -u; shopt -s nullglob; csvs=("${@:2}"); source "$1"' book_extra \
    chapters/ch10_black_hole/book_extra.sh no_unit.csv > out.txt 2> err.txt && fail "ch10's table without a unit column passed: $(cat gen/*)"
names_it err.txt unit no_unit.csv
grep -q '^chapters/ch10_black_hole/book_extra.sh:[0-9]*: ' err.txt || fail "the message does not name ch10's script and line: $(cat err.txt)"

# the stage list: its columns are named in tools/columns.sh, a name not among them is refused
# shellcheck source=tools/columns.sh
. tools/columns.sh
stage_columns name kernel || fail "stage_columns refused the stage list's own columns"
(stage_columns name kernl) 2> err.txt && fail "stage_columns took a column the stage list has not"
grep -qF 'has no column "kernl" (its columns: name,where,kernel,bench,tags,description)' err.txt ||
    fail "the message does not name the missing stage column: $(cat err.txt)"
printf 'a\tcpu\tk\t-\tt\td e\n' | stage_fields kernel name > fields.txt || fail "stage_fields failed"
[ "$(cat fields.txt)" = $'k\ta' ] || fail "stage_fields kernel name: want 'k<TAB>a', got '$(cat fields.txt)'"
echo "a missing column fails naming the file and the column (best_ceiling, decomposition, ch10's table, the stage list); run_id may be missing"
