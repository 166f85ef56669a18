#!/usr/bin/env bash
# A column a tool reads that is not in the file is an error naming the file
# and the column (tools/columns.sh; tools/book.py's read_csv for tools/evidence.py), never a field read
# from wherever it happens to be: with one column dropped from the results, evidence.py's best_ceiling
# (value; exit 2; its file and line named), decomposition (median_ms) and ch10's book hook
# (unit, its file and line named) fail saying so, and so does make book where ch11's scaling file
# lacks one (compute_ms; exit 1); a file of the ten older
# columns, which has no run_id, is still read (that column may be missing);
# a --list-stages column the table does not have is named too.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (tools/evidence.py, like make book's generator, needs python3: without it, skipped, saying so)
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
python3 tools/evidence.py best_ceiling no_value.csv ceiling-fp32-peak > out.txt 2> err.txt
rc=$?
[ $rc -eq 2 ] || fail "best_ceiling without a value column: exit $rc (want 2), printed $(cat out.txt)"
[ ! -s out.txt ] || fail "best_ceiling printed a ceiling without a value column: $(cat out.txt)"
names_it err.txt value no_value.csv
grep -q '^[^ ]*evidence.py:[0-9]*: ' err.txt || fail "the message does not start with the script and line: $(cat err.txt)"
got=$(python3 tools/evidence.py best_ceiling "$fixtures/results_no_run_id.csv" ceiling-fp32-peak 2> err.txt)
[ "$got" = "61085.5 -" ] || fail "a file without run_id (the older ten columns): want '61085.5 -', got '$got' $(cat err.txt)"

machine=Fixture-GPU_Fixture-CPU
mkdir -p "data/profiles/$machine" data/results
cp "$fixtures"/profiles/ch05_*.txt "data/profiles/$machine/"
without "$fixtures/results_two_runs.csv" median_ms > "data/results/$machine.csv"
python3 tools/evidence.py decomposition > table.md 2> err.txt && fail "decomposition without a median_ms column passed: $(cat table.md)"
names_it err.txt median_ms "data/results/$machine.csv"

# ch10's book table, run as book.py runs it (its hook chapters/ch10_black_hole/book_extra.py, through
# tools/book.py's chapter_extra; ftime and fval are not reached)
mkdir -p gen
with_unit=$(grep -l '^ch10,.*math=' "$1"/data/results/*.csv | head -n 1)
[ -n "$with_unit" ] || fail "no committed results have ch10's math= rows to test with"
without "$with_unit" unit > no_unit.csv
python3 -c 'import sys; sys.path.insert(0, "tools"); import book
try:
    book.chapter_extra(sys.argv[1], sys.argv[2:], "gen")
except book.BookError as e:
    sys.exit(str(e))' chapters/ch10_black_hole/book_extra.py no_unit.csv > out.txt 2> err.txt &&
    fail "ch10's table without a unit column passed: $(cat gen/*)"
names_it err.txt unit no_unit.csv
grep -q '^book: chapters/ch10_black_hole/book_extra.py:[0-9]*: ' err.txt || fail "the message does not name ch10's hook and line: $(cat err.txt)"
grep -qx 'book: chapters/ch10_black_hole/book_extra.py failed' err.txt || fail "the message does not say the hook failed: $(cat err.txt)"

# make book itself: a file a hook reads by name (ch11's scaling table) without a column it reads
# fails the book (exit 1), naming the hook's line, the file and the column
rm -rf data/results/* && mkdir -p "data/results/$machine" || exit 1
cp "$fixtures/book/GPU-F_CPU-F.csv" "data/results/$machine.csv" || exit 1
without "$1/data/results/NVIDIA-H200_Intel-R-Xeon-R-Processor/ch11-scaling.csv" compute_ms > "data/results/$machine/ch11-scaling.csv"
head -n 1 "data/results/$machine/ch11-scaling.csv" | grep -q '^kind,.*,exchange_ms,mb_per_step,' || fail "the scaling file is not without compute_ms"
python3 tools/book.py > out.txt 2> err.txt
rc=$?
[ $rc -eq 1 ] || fail "make book with a scaling file without compute_ms: exit $rc (want 1): $(tail -n 3 err.txt)"
names_it err.txt compute_ms "data/results/$machine/ch11-scaling.csv"
grep -q '^book: chapters/ch11_mpi_nbody/book_extra.py:[0-9]*: ' err.txt || fail "make book's message does not name ch11's hook and line: $(cat err.txt)"

# the stage list: its columns are named in tools/columns.sh, a name not among them is refused
# shellcheck source=tools/columns.sh
. tools/columns.sh
stage_columns name kernel || fail "stage_columns refused the stage list's own columns"
(stage_columns name kernl) 2> err.txt && fail "stage_columns took a column the stage list has not"
grep -qF 'has no column "kernl" (its columns: name,where,kernel,bench,tags,description)' err.txt ||
    fail "the message does not name the missing stage column: $(cat err.txt)"
printf 'a\tcpu\tk\t-\tt\td e\n' | stage_fields kernel name > fields.txt || fail "stage_fields failed"
[ "$(cat fields.txt)" = $'k\ta' ] || fail "stage_fields kernel name: want 'k<TAB>a', got '$(cat fields.txt)'"
echo "a missing column fails naming the file and the column (best_ceiling, decomposition, ch10's table, make book's ch11 table, the stage list); run_id may be missing"
