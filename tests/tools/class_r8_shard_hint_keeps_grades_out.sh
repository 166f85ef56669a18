#!/usr/bin/env bash
# A job array's task of make grade-class (SHARD=I/N) ends with the command
# that makes the table, as it must be run (round 8, item 2: the hint was
# `make collect-grades DIR=.../results`, without the GRADES_OUT the teacher
# gave, so running it as printed wrote the tables into mine/grades/, over a
# full grading's). Now it carries GRADES_OUT (and PARTS, where given), each a
# shell word: run as printed, from the checkout, it writes the tables in that
# GRADES_OUT, here a folder whose name holds a blank, a quote and a $, and
# leaves mine/grades/ as it was. The gradings are stand-ins (a tools/grade.sh
# that writes a result at once, a judge_prepare that builds nothing).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
passing_grading <<'SH'
# a grading at once: a passed ch01 for STUDENT in GRADE_OUT
SH
sub=$scratch/submissions
for s in ann bob cy; do mkdir -p "$sub/$s/ch01" || exit 1; done
# a full grading's tables in mine/grades/, which the hint must not replace
mkdir -p mine/grades && printf 'the full grading\n' > mine/grades/grades.md.mine || exit 1
out="$scratch/my grades 'r8' \$HOME"
for t in 0/2 1/2; do
    GRADES_OUT=$out JOBS=1 SHARD=$t PARTS=half BUILD=build bash tools/grade_class.sh "$sub" '' ch01 > "$scratch/said" 2>&1 ||
        fail "task $t failed: $(cat "$scratch/said")"
done
last=$(tail -n 1 "$scratch/said")
hint=${last#*after the last: }
[ "$hint" != "$last" ] || fail "the task's last line gives no command: $last"
[[ $hint == *GRADES_OUT=* ]] || fail "the hint drops GRADES_OUT: $last"
[[ $hint == *PARTS=half* ]] || fail "the hint drops PARTS=half: $last"
[[ $hint == "make collect-grades "* ]] || fail "the hint is not a make collect-grades: $last"
eval "$hint" > "$scratch/collected" 2>&1 || fail "the hint, run as printed, failed: $hint: $(cat "$scratch/collected")"
[ -f "$out/grades.md" ] && [ -f "$out/gradebook.csv" ] || fail "the hint, run as printed ($hint), wrote no table in GRADES_OUT=$out: $(ls -A "$scratch")"
[ "$(ls -A mine/grades)" = grades.md.mine ] || fail "the hint wrote into mine/grades/: $(ls -A mine/grades)"
grep -qF 'PARTS=half' "$out/grades.md" || fail "the table is not PARTS=half's: $(tail -n 2 "$out/grades.md")"
for s in ann bob cy; do grep -q "^| $s |" "$out/grades.md" || fail "$s is not in the table: $(cat "$out/grades.md")"; done
echo "grade-class: a job array's task's last line is the collect-grades command with its GRADES_OUT and PARTS, run as printed"
