#!/usr/bin/env bash
# make grade-class DIR=submissions grades a folder per student, several at
# once, as make grade grades one: the model answer "passed", the stub and an
# answer that prints a forged pass "failed" (their own messages in their
# logs), each with the hash of the files graded (the stub's and the model
# answer's differ); a folder whose name is no student id, a link, and one
# holding a link to another's answer are left out by name (exit 1) while the rest are graded; the class's table, gradebook
# and Gradescope results follow. SHARD=1/2 grades every second student only
# and collects nothing; a bad JOBS or SHARD is refused before anything. Every
# grading is given the class folder to hide (no answer reads a classmate's).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading patch python3
graded_copy "$1"
sub=$scratch/submissions
mkdir -p "$sub/ann" "$sub/bob" "$sub/cy" "$sub/not an id" || exit 1
cp -r solutions/ch01 "$sub/ann/" && cp -r exercises/ch01 "$sub/bob/" && cp -r solutions/ch01 "$sub/cy/" || exit 1
patch -s "$sub/cy/ch01/vec.c" < tests/wrong/ch01/forged-result.patch || fail "cannot apply the forged answer"
cp -r exercises/ch01 "$sub/not an id/" && ln -s "$sub/ann" "$sub/dan" || exit 1
mkdir "$sub/eve" && ln -s ../ann/ch01 "$sub/eve/ch01" || exit 1 # another's answer, linked

make --no-print-directory grade-class DIR="$sub" EX=ch01 JOBS=0 > said 2>&1 && fail "JOBS=0 exited 0"
grep -q 'JOBS=0: say how many' said || fail "JOBS=0 said: $(cat said)"
make --no-print-directory grade-class DIR="$sub" EX=ch01 SHARD=2/2 > said 2>&1 && fail "SHARD=2/2 exited 0"
grep -q 'SHARD=2/2: say I/N' said || fail "SHARD=2/2 said: $(cat said)"
[ ! -e mine/grades ] || fail "a refused grade-class wrote mine/grades"

make --no-print-directory grade-class DIR="$sub" EX=ch01 JOBS=3 > said 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'grade-class\] Error 1' said || # (make says "Error 1" for the script's status 1)
    fail "grade-class with two folders to leave out exited $rc, not 1: $(cat said)"
grep -qF 'not\ an\ id: not a student id' said && grep -q "dan is not a folder" said && grep -q "eve holds a link" said ||
    fail "the folders left out are not named: $(cat said)"
grep -q '^grade-class: 3 students graded in [0-9]* s (3 at once' said || fail "no timing line: $(cat said)"
# (each grading hides the class folder: its path reached every grading; an
# empty one, as once, made realpath complain and hid no classmate)
grep -q "realpath\|no class folder to hide" said && fail "a grading was not given the class folder to hide: $(cat said)"
verdict() { sed -n 2p "mine/grades/results/$1.csv" | awk -F'","' '{print $7}'; }
answer() { sed -n 2p "mine/grades/results/$1.csv" | awk -F'","' '{gsub(/"$/, "", $9); print $9}'; }
[ "$(verdict ann)" = passed ] && [ "$(verdict bob)" = failed ] && [ "$(verdict cy)" = failed ] ||
    fail "verdicts: ann $(verdict ann), bob $(verdict bob), cy $(verdict cy): $(cat said)"
grep -q 'vec_add(.*got (0 0 0)' mine/grades/logs/bob.log || fail "bob's log lacks the stub's message: $(cat mine/grades/logs/bob.log)"
[[ $(answer ann) =~ ^[0-9a-f]{16}$ ]] && [ "$(answer ann)" != "$(answer bob)" ] ||
    fail "answer hashes: ann '$(answer ann)', bob '$(answer bob)'"
grep -qF '| ann | pass | 1 |' mine/grades/grades.md && grep -qF '| bob | FAIL | 0 |' mine/grades/grades.md ||
    fail "the class's table: $(cat mine/grades/grades.md)"
[ -f mine/grades/gradebook.csv ] && [ -f mine/grades/gradescope/cy/results.json ] || fail "no gradebook or Gradescope results"

rm -rf mine/grades "$sub/not an id" "$sub/dan" "$sub/eve"
# (no EX: every exercise the registry lists, here only ch01)
make --no-print-directory grade-class DIR="$sub" EXERCISES=ch01 SHARD=1/2 > said 2>&1 || fail "SHARD=1/2 failed: $(cat said)"
[ "$(ls mine/grades/results)" = bob.csv ] || fail "SHARD=1/2 of ann, bob, cy graded: $(ls mine/grades/results)"
grep -q '^0 passed, 1 failed, of 1$' mine/grades/logs/bob.log || fail "without EX, bob's grading: $(tail -n 2 mine/grades/logs/bob.log)"
[ ! -e mine/grades/grades.md ] && grep -q 'make collect-grades DIR=mine/grades/results' said ||
    fail "a shard collected, or did not say how to: $(cat said)"
echo "grade-class graded three students at once (passed, failed, forged pass failed), left out two folders by name, and sharded"
