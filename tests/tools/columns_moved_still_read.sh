#!/usr/bin/env bash
# The tools read the results CSV and the --list-stages table by column name
# (tools/columns.sh), never by position: with the columns moved, they read
# the same fields and print the same bytes.
# - results: each file with its columns in reverse order and a column "note"
#   added first (a row of fewer fields than its header keeps them empty):
#   tools/evidence.py's best_ceiling (a run's best row; a file without run_id), decomposition
#   (tests/fixtures/profiles/ch05_*.txt against the fixture's median times)
#   and the book's tables of ch01, ch08 and ch10 (their hooks, book_extra.py, run
#   as book.py runs them, on the committed results) print what they print on the
#   files as they are (the file's name aside);
# - --list-stages: with a column "unit" added after "where" in tools/columns.sh
#   (the one place that names them) and a stand-in ch06 that prints it there,
#   gpu_sanitize.sh (stand-in nvidia-smi and compute-sanitizer, as
#   gpu_sanitize_with_stand_ins.sh) still skips the CPU row and finds the racy one.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (tools/evidence.py and the chapters' book hooks, like make book's generator, need python3)
root=$1
fixture_copy "$1"
export CLANG_CUDA=

# moved FILE: FILE with its columns in reverse order and a column "note" first.
moved() {
    awk -F, -v OFS=, 'NR == 1 { n = NF } { s = NR == 1 ? "note" : "a note"; for (i = n; i >= 1; i--) s = s OFS $i; print s }' "$1"
}
mkdir -p moved
for f in results_two_runs results_no_run_id; do moved "$fixtures/$f.csv" > "moved/$f.csv"; done
[ "$(head -n 1 moved/results_two_runs.csv | cut -d, -f1-3)" = note,temp_c_end,temp_c_start ] || fail "the moved fixture is not moved: $(head -n 1 moved/results_two_runs.csv)"

# best_ceiling: the same value and run from either file.
for q in "results_two_runs ceiling-fp32-peak" "results_two_runs ceiling-read-stream ch06" \
    "results_no_run_id ceiling-fp32-peak" "results_no_run_id ceiling-copy"; do
    # shellcheck disable=SC2086 # a query is words
    set -- $q
    want=$(python3 tools/evidence.py best_ceiling "$fixtures/$1.csv" "${@:2}") || fail "best_ceiling $q failed"
    got=$(python3 tools/evidence.py best_ceiling "moved/$1.csv" "${@:2}") || fail "best_ceiling $q (columns moved) failed"
    [ "$got" = "$want" ] || fail "best_ceiling $q: '$want' as committed, '$got' with the columns moved"
done
[ "$(python3 tools/evidence.py best_ceiling moved/results_two_runs.csv ceiling-fp32-peak)" = "65350.4 20261126T0415Z-3f9a" ] ||
    fail "best_ceiling on the moved fixture is not the newest run's best row"

# decomposition: the same table from either file.
machine=Fixture-GPU_Fixture-CPU
mkdir -p "data/profiles/$machine" data/results
cp "$fixtures"/profiles/ch05_*.txt "data/profiles/$machine/"
cp "$fixtures/results_two_runs.csv" "data/results/$machine.csv"
python3 tools/evidence.py decomposition > as_is.md 2>&1 || fail "decomposition failed: $(tail -n 3 as_is.md)"
cp moved/results_two_runs.csv "data/results/$machine.csv"
python3 tools/evidence.py decomposition > moved.md 2>&1 || fail "decomposition (columns moved) failed: $(tail -n 3 moved.md)"
grep -q '| ch05 | block-shape (after fast-math) | 1.33 |' as_is.md || fail "decomposition measured no speedup: $(cat as_is.md)"
diff as_is.md moved.md > /dev/null || fail "decomposition differs with the columns moved: $(diff as_is.md moved.md | head -n 6)"

# The chapters' book tables, run as book.py runs them (from the root, for its
# data/reference/), on the committed results and on them moved (with the
# files beside them the tables read too: ch08's smallpt-vs-port.txt).
book_extra() { # HOOK GEN CSV...: the chapter's hook as book.py calls it (its chapter_extra)
    (cd "$root" && python3 -c 'import sys; sys.path.insert(0, "tools"); import book
try:
    book.chapter_extra(sys.argv[1], sys.argv[3:], sys.argv[2])
except book.BookError as e:
    sys.exit(str(e))' "$1" "$2" "${@:3}")
}
committed=("$root"/data/results/*.csv)
[ ${#committed[@]} -gt 0 ] || fail "no committed results in $root/data/results"
mkdir -p gen_as_is gen_moved moved_results
for f in "${committed[@]}"; do
    moved "$f" > "moved_results/${f##*/}"
    [ ! -d "${f%.csv}" ] || cp -R "${f%.csv}" moved_results/
done
tables=0
for ch in ch01_baseline ch08_path_tracer ch10_black_hole; do
    script=chapters/$ch/book_extra.py
    book_extra "$root/$script" "$PWD/gen_as_is" "${committed[@]}" 2> err.txt || fail "$script failed: $(cat err.txt)"
    book_extra "$PWD/$script" "$PWD/gen_moved" "$PWD"/moved_results/*.csv 2> err.txt || fail "$script (columns moved) failed: $(cat err.txt)"
done
for t in gen_as_is/*.md; do
    [ -s "$t" ] || continue
    tables=$((tables + 1))
    sed "s|$PWD/moved_results/|$root/data/results/|g" "gen_moved/${t##*/}" | diff "$t" - > /dev/null ||
        fail "${t##*/} differs with the columns moved: $(sed "s|$PWD/moved_results/|$root/data/results/|g" "gen_moved/${t##*/}" | diff "$t" - | head -n 6)"
done
[ "$tables" -ge 3 ] || fail "only $tables of the three chapters' tables have rows: $(ls -l gen_as_is)"

# The --list-stages table: a column added in its one place, and a program that prints it.
sed -i 's/^stage_list=name,where,kernel,/stage_list=name,where,unit,kernel,/' tools/columns.sh
grep -q '^stage_list=name,where,unit,kernel,bench,tags,description$' tools/columns.sh || fail "tools/columns.sh names the stage list's columns elsewhere"
mkdir -p bin
cat > bin/nvidia-smi <<'SCRIPT'
#!/bin/sh
case "$*" in *compute_cap*) echo 9.0 ;; -L) echo "GPU 0: Stand-in GPU" ;; *) echo "Stand-in GPU, 1.0" ;; esac
SCRIPT
cat > bin/compute-sanitizer <<'SCRIPT'
#!/bin/bash
tool=$2 stage=$7
[ "$tool" = racecheck ] && [ "$stage" = racy-one ] && { echo "========= RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)"; exit 0; }
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
printf '#!/bin/sh\nprintf "cpu-one\\tcpu\\tms\\t-\\t-\\t-\\tx\\nclean\\tgpu\\tms\\tk\\t-\\t-\\tx\\nracy-one\\tgpu\\tms\\tk\\t-\\tracy\\tx\\n"\n' > ch06
chmod +x bin/* ch06
PATH=$PWD/bin:$PATH CHAPTERS=ch06 TOOLS=racecheck bash tools/gpu_sanitize.sh > sanitize.log 2>&1 ||
    fail "gpu_sanitize with a column added failed: $(tail -n 5 sanitize.log)"
grep -q 'cpu-one' sanitize.log && fail "a CPU row was run (its where column not read by name): $(cat sanitize.log)"
grep -q '^gpu-sanitize: 4 runs, 0 failures$' sanitize.log || fail "want 4 runs (two GPU rows, two argument sets), 0 failures: $(tail -n 3 sanitize.log)"
echo "with the columns moved, best_ceiling, decomposition, $tables book tables and gpu_sanitize read the same fields"
