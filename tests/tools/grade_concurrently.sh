#!/usr/bin/env bash
# Four `make grade EX=ch01` at once in one checkout, on the model answer, all
# PASS; and two at once on the stub, both FAIL with the stub's own messages:
# gradings at once share no file (each lays the answer, builds its probe and
# runs it in a private folder; the judges are built once, under a lock), so
# none fails a correct answer, or passes a wrong one, for another's sake.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading
graded_copy "$1"

grade_at_once() { # N: N gradings of ch01 at once, their outputs in $scratch/said.K
    local k pids=()
    for k in $(seq "$1"); do
        make --no-print-directory grade EX=ch01 > "$scratch/said.$k" 2>&1 &
        pids+=($!)
    done
    for k in $(seq "$1"); do wait "${pids[$((k - 1))]}"; echo $? > "$scratch/rc.$k"; done
}
grade_at_once 2
for k in 1 2; do
    grep -q '^FAIL  ch01$' "$scratch/said.$k" && grep -q 'vec_add(.*got (0 0 0)' "$scratch/said.$k" ||
        fail "grading the stub, run $k of 2 at once, said: $(cat "$scratch/said.$k")"
done
cp solutions/ch01/* exercises/ch01/
grade_at_once 4
for k in 1 2 3 4; do
    [ "$(cat "$scratch/rc.$k")" = 0 ] && grep -q '^1 passed, 0 failed, of 1$' "$scratch/said.$k" ||
        fail "grading the model answer, run $k of 4 at once, exited $(cat "$scratch/rc.$k") and said: $(cat "$scratch/said.$k")"
done
echo "ok: 2 gradings of the stub at once failed it, 4 of the model answer at once passed it"
