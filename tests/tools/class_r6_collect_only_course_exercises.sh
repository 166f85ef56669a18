#!/usr/bin/env bash
# make collect-grades takes only the course's exercises (nothing lost, round
# 6, item 4: any name of A-Z a-z 0-9 _ was taken, each a column of the whole
# class's table, and a 22 MB hand-in of 500,000 made-up exercises took 642 s,
# growing faster than its size). An exercise the registry does not name
# (make -s print-registry's COURSE_EXERCISES; without make, chapters/*/
# chapter.mk, which it is made from) is malformed: the file is named with
# the line and left out (exit 1), the others make the table; ch07gpu, an
# exercise with no folder of its own, is one of the course's. A 9 MB hand-in
# of 200,000 made-up exercises is refused in seconds, and so is one twice
# that size: the time is linear in the size. --check (grade-class's) says
# the same.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
h=student,commit,machine,gpu,date,exercise,verdict,messages,answer
row() { printf '"%s","c","m","none","2026-11-20T10:00:00Z","%s","passed","",""\n' "$1" "$2"; }
mkdir class || exit 1
{ echo "$h"; row ann ch01; row ann ch07gpu; } > class/ann.csv && { echo "$h"; row bob ch01; row bob madeup; } > class/bob.csv || exit 1
make --no-print-directory collect-grades DIR=class > said 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'collect-grades\] Error 1' said || fail "a made-up exercise beside a good file: exit $rc, not 1: $(cat said)"
grep -qF 'class/bob.csv: line 3: exercise "madeup" is not one of the course'"'"'s' said || fail "the made-up exercise not named by file and line: $(cat said)"
head -n 1 mine/grades/grades.csv | grep -qxF '"student","ch01","ch07gpu","score","gpu","date","answers"' ||
    fail "the table's columns: $(head -n 1 mine/grades/grades.csv)"
grep -rq madeup mine/grades && fail "the made-up exercise is in the table"
python3 tools/collect_grades.py --check class/bob.csv > said 2>&1 && fail "--check took a made-up exercise"
grep -qF 'class/bob.csv: line 3: exercise "madeup"' said || fail "--check: $(cat said)"

# Without make (the registry read from chapters/*/chapter.mk): the same.
py=$(python3 -c 'import sys; print(sys.executable)') && mkdir empty-path || exit 1
PATH=$PWD/empty-path GRADES_OUT=nomake "$py" tools/collect_grades.py class > said 2>&1
[ $? = 1 ] && grep -qF 'class/bob.csv: line 3: exercise "madeup" is not one' said || fail "without make: $(cat said)"
[ -f nomake/gradescope/ann/results.json ] || fail "without make, ann's file was not taken: $(cat said)"

# Linear: a hand-in of 200,000 and of 400,000 made-up exercises, each refused in seconds.
mkdir big
for n in 200000 400000; do
    rm -f big/* && { echo "$h"; row zed ch01; seq -f 'ex%.0f' "$n" | sed 's/.*/"zed","c","m","none","2026-11-20T10:00:00Z","&","passed","",""/'; } > big/zed.csv &&
        { echo "$h"; row amy ch01; } > big/amy.csv || exit 1
    start=$SECONDS
    GRADES_OUT=bigout timeout 120 python3 tools/collect_grades.py big > said 2>&1
    rc=$? took=$((SECONDS - start))
    [ $rc = 1 ] || fail "$n made-up exercises: exit $rc, not 1, in $took s: $(tail -c 300 said)"
    grep -qF 'big/zed.csv: line 3: exercise "ex1" is not one of the course' said || fail "$n made-up exercises: $(tail -c 300 said)"
    [ $took -le 15 ] || fail "$(du -h big/zed.csv | cut -f1) of $n made-up exercises took $took s"
done
echo "collect-grades: only the registry's exercises (with make or without), a made-up one named by file and line; 400,000 made-up ones refused in $took s"
