#!/usr/bin/env bash
# A job array's task of make grade-class (SHARD=I/N) removes the last
# grading's files of its own students and of students no longer in DIR,
# never another task's (nothing lost, round 6, item 3: a student's id was read
# from a file's name by stripping .csv and then .log, so the result of a
# student named bob.log, results/bob.log.csv, was taken for "bob", no longer
# in DIR, and removed by the other task). Now results/ID.csv loses only .csv,
# logs/ID.log only .log: ids such as bob.log, cy.csv and dan.log.csv keep
# their files when another task runs. The gradings are stand-ins (a
# tools/grade.sh of the scratch copy that writes a result at once, and a
# judge_prepare that builds nothing): this is the class tool's bookkeeping.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "grade-class checks the last results with tools/collect_grades.py"
tool_copy "$1"
passing_grading <<'SH'
# a grading at once: a passed ch01 for STUDENT in GRADE_OUT
SH
sub=$scratch/submissions
ids=(ann bob.log cy.csv dan.log.csv)
for s in "${ids[@]}"; do mkdir -p "$sub/$s/ch01" || exit 1; done
gc() { GRADES_OUT=$scratch/out JOBS=2 SHARD=$1 BUILD=build bash tools/grade_class.sh "$sub" '' ch01 > "$scratch/said" 2>&1; }
gc 1/2 || fail "task 1 of 2 failed: $(cat "$scratch/said")"
gc 0/2 || fail "task 0 of 2 failed: $(cat "$scratch/said")"
grep -q "removed the last grading's files" "$scratch/said" && fail "task 0 removed files of task 1's students: $(cat "$scratch/said")"
for s in "${ids[@]}"; do
    [ -f "$scratch/out/results/$s.csv" ] && [ -f "$scratch/out/logs/$s.log" ] ||
        fail "after both tasks, $s's files are gone: $(ls "$scratch/out/results" "$scratch/out/logs")"
done
gc 1/2 || fail "task 1 of 2, again, failed: $(cat "$scratch/said")"
grep -qF "grade-class: removed the last grading's files of 2 students (0 no longer in $sub)" "$scratch/said" ||
    fail "task 1 again: its own two students' files not said removed: $(cat "$scratch/said")"
[ "$(ls "$scratch/out/results" | wc -l)" = 4 ] || fail "task 1 again: results/ holds $(ls "$scratch/out/results")"
echo "grade-class: a job array's task keeps another task's bob.log, cy.csv, dan.log.csv; it removes only its own students' and gone students' files"
