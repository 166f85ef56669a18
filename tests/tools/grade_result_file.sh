#!/usr/bin/env bash
# make grade GRADE_OUT=FILE STUDENT=ID writes the result a teacher collects,
# in a scratch copy of the course: ch01's stub is "failed" with the lines grade
# printed, ch01's solution copied over it "passed", an answer that prints a
# forged pass (tests/wrong/ch01/forged-result.patch) "failed" (the verdict is
# the harness's channel's, not the output's), an answer that does not compile
# "does-not-compile"; the rows name the student, the commit (with -dirty), the
# machine, the GPU and the date. A bad STUDENT and a GRADE_OUT that cannot be
# replaced safely (read-only, a link, a folder, not a grade file: the answer
# itself, the Makefile) are refused (exit 2) before anything is built, and nothing
# is written; EX="ch01 ch01" grades ch01 once ("of 1").
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading patch python3
graded_copy "$1"
head=$(git rev-parse HEAD)
out=$scratch/out
mkdir "$out"

# EX's odd values: a name twice counts once, in the order first given; a
# terminal escape in a wrong name is shown as '?', never sent to the terminal.
got=$(tool=t; . tools/exercise_names.sh; exercise_names "ch03 ch01 ch03 ch01" ch01 ch02 ch03; echo "${names[*]}")
[ "$got" = "ch03 ch01" ] || fail "EX=\"ch03 ch01 ch03 ch01\" gives the names '$got', not 'ch03 ch01'"
said=$(make --no-print-directory grade EX=$'ch01 \e[2Jx' 2>&1) && fail "a wrong EX exited 0"
[[ $said == *"no exercise '?[2Jx'"* && $said != *$'\e'* ]] || fail "a wrong EX with an escape said: $(printf '%q' "$said")"

# grade STUDENT FILE [EX]: make grade, its output in $scratch/said, its status in rc.
grade() {
    make --no-print-directory grade EX="${3:-ch01}" STUDENT="$1" GRADE_OUT="$2" > "$scratch/said" 2>&1
    rc=$?
}
# field FILE ROW COLUMN: one field of a result (RFC 4180, as collect-grades reads it).
field() { python3 -c 'import csv, sys; print(list(csv.reader(open(sys.argv[1])))[int(sys.argv[2])][int(sys.argv[3]) - 1])' "$@"; }

# Refused before anything is built: no ex_ch01 binary may appear.
refused() { # WHY STUDENT FILE: must exit 2, say WHY, write FILE not, build nothing
    grade "$2" "$3"
    [ "$rc" = 2 ] || fail "$1: make grade exited $rc, not 2: $(cat "$scratch/said")"
    grep -q "grade: .*$1" "$scratch/said" || fail "$1: grade said: $(cat "$scratch/said")"
    [ ! -e build/tests/ex_ch01_stub ] || fail "$1: grade built the judge before refusing"
}
refused 'needs STUDENT' '' "$out/a.csv"
refused 'control character' $'ann\033[2J' "$out/a.csv"
refused 'at most 64' "$(printf 'x%.0s' {1..65})" "$out/a.csv"
refused 'formula' '=HYPERLINK("x")' "$out/a.csv"
refused 'may hold only' 'Ann "A", 3' "$out/a.csv"
refused 'may hold only' $'abc\u202edef' "$out/a.csv" # a right-to-left override: shown reversed
refused 'may hold only' $'caf\xe9' "$out/a.csv"      # not UTF-8
refused 'may hold only' '$(shell touch pwned)' "$out/a.csv"
[ ! -e pwned ] || fail "STUDENT's text ran as make code"
refused 'no folder' ann "$out/missing/a.csv"
echo old > "$out/ro.csv" && chmod 444 "$out/ro.csv"
refused 'read-only' ann "$out/ro.csv"
[ "$(cat "$out/ro.csv")" = old ] || fail "the read-only GRADE_OUT was changed"
ln -s ro.csv "$out/link.csv"
refused 'symbolic link' ann "$out/link.csv"
refused 'not a regular file' ann "$out"
# not a grade file (the student's answer, the Makefile): refused, left as it was
cp exercises/ch01/vec.c "$scratch/vec.c.before"
refused 'not a grade file' ann exercises/ch01/vec.c
cmp -s exercises/ch01/vec.c "$scratch/vec.c.before" || fail "GRADE_OUT=exercises/ch01/vec.c changed the answer"
refused 'not a grade file' ann Makefile
[ -z "$(find "$out" -mindepth 1 ! -name ro.csv ! -name link.csv)" ] || fail "a refused run left files: $(ls -A "$out")"

# The stub: failed, with the got/want lines grade printed.
grade ann.x@uni.edu "$out/stub.csv" "ch01 ch01"
[ "$rc" = 2 ] || fail "make grade of the stub exited $rc: $(cat "$scratch/said")"
grep -q 'of 1$' "$scratch/said" || fail "EX=\"ch01 ch01\" did not grade ch01 once: $(tail -n 1 "$scratch/said")"
[ "$(head -n 1 "$out/stub.csv")" = student,commit,machine,gpu,date,exercise,verdict,messages,answer ] ||
    fail "the header is $(head -n 1 "$out/stub.csv")"
[ "$(stat -c %a "$out/stub.csv")" = "$(printf '%o' $((0666 & ~0$(umask))))" ] ||
    fail "a new result's mode is $(stat -c %a "$out/stub.csv"), not what the umask gives"
grep -q '^"ann.x@uni.edu","' "$out/stub.csv" || fail "the student field is not quoted as RFC 4180 says: $(sed -n 2p "$out/stub.csv")"
stub_answer=$(field "$out/stub.csv" 1 9)
[[ $stub_answer =~ ^[0-9a-f]{16}$ ]] || fail "the answer's hash is '$stub_answer', not 16 hex digits"
[ "$(field "$out/stub.csv" 1 2)" = "$head" ] || fail "commit is $(field "$out/stub.csv" 1 2), not $head"
[ "$(field "$out/stub.csv" 1 3)" = "$(tools/machine.sh)" ] || fail "machine is $(field "$out/stub.csv" 1 3)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
[ "$(field "$out/stub.csv" 1 4)" = "${gpu:-none}" ] || fail "gpu is $(field "$out/stub.csv" 1 4)"
[[ $(field "$out/stub.csv" 1 5) =~ ^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}Z$ ]] || fail "date is $(field "$out/stub.csv" 1 5)"
[ "$(field "$out/stub.csv" 1 6)" = ch01 ] && [ "$(field "$out/stub.csv" 1 7)" = failed ] ||
    fail "the stub's row: $(sed -n 2p "$out/stub.csv")"
[ "$(grep -c '^"' "$out/stub.csv")" = 1 ] || fail "EX=\"ch01 ch01\" wrote $(grep -c '^"' "$out/stub.csv") rows"
printed=$(grep -m1 'vec_scale' "$scratch/said" | sed 's/^ *//')
[ -n "$printed" ] && grep -qxF "$printed" "$out/stub.csv" || fail "the failure line grade printed ($printed) is not in the file"

# The solution: passed, over the same file (replaced; its mode kept), another
# answer hash; the commit not dirty (answers are meant to change), but dirty
# once a course file outside exercises/ differs.
cp solutions/ch01/*.c exercises/ch01/ || exit 1
chmod 640 "$out/stub.csv"
grade ann "$out/stub.csv"
[ "$rc" = 0 ] || fail "make grade of the solution exited $rc: $(cat "$scratch/said")"
[ "$(field "$out/stub.csv" 1 7)" = passed ] || fail "the solution's verdict: $(sed -n 2p "$out/stub.csv")"
[ "$(field "$out/stub.csv" 1 2)" = "$head" ] || fail "commit with only an answer changed is $(field "$out/stub.csv" 1 2), not $head"
[ "$(stat -c %a "$out/stub.csv")" = 640 ] || fail "the replaced file's mode is $(stat -c %a "$out/stub.csv"), not 640"
want=$(cd exercises/ch01 && sed -n 's|^[0-9a-f]* exercises/ch01/||p' ../STUBS | LC_ALL=C sort | xargs sha256sum -- | sha256sum | cut -c1-16)
[ "$(field "$out/stub.csv" 1 9)" = "$want" ] && [ "$want" != "$stub_answer" ] ||
    fail "the solution's answer hash is $(field "$out/stub.csv" 1 9), not $want (the stub's: $stub_answer)"
echo '# changed' >> tools/slurm/README.md
grade ann "$out/dirty.csv"
[ "$(field "$out/dirty.csv" 1 2)" = "$head-dirty" ] || fail "commit with a course file changed is $(field "$out/dirty.csv" 1 2)"
git checkout -q tools/slurm/README.md

# A forged pass: the output claims one, the channel does not.
patch -s exercises/ch01/vec.c < tests/wrong/ch01/forged-result.patch || fail "cannot apply the forged answer"
grade ann "$out/forged.csv"
[ "$(field "$out/forged.csv" 1 7)" = failed ] || fail "the forged pass was recorded as: $(sed -n 2p "$out/forged.csv")"

# An answer that does not compile (the stub with a line that is not C: the
# forged answer's destructor would be refused first, by the rules).
git checkout -q exercises/ch01/vec.c
echo 'this is not C' >> exercises/ch01/vec.c
grade ann "$out/broken.csv"
[ "$(field "$out/broken.csv" 1 7)" = does-not-compile ] || fail "a broken answer was recorded as: $(sed -n 2p "$out/broken.csv")"
grep -q 'error' "$out/broken.csv" || fail "the compiler's error is not in the file"
[ -z "$(find "$out" -name '*.tmp')" ] || fail "a temp file was left: $(ls -A "$out")"
echo "make grade wrote the result file (failed, passed, forged pass failed, does-not-compile) and refused bad STUDENT/GRADE_OUT first"
