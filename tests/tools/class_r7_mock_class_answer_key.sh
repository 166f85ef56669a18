#!/usr/bin/env bash
# make mock-class (tools/mock_class.sh, here of ch01 alone) writes an answer key (an instructor preparing a class could
# not check the grader's verdicts: nothing said which student was given what):
# DIR/.answer-key.csv, named on the tool's last line, a row per student and
# exercise (student,exercise,given,expect; every field quoted), given "model
# answer", "stub" or "wrong answer NAME", each true of the files in the
# student's folder; a class larger than an exercise's wrong answers (+ the
# model answer and the stub) is told what the later students get instead; and
# make grade-class takes the key for no student: a small class grades with
# no folder left out, and its verdicts are the key's.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading patch python3
graded_copy "$1"
wrong=$(ls tests/wrong/ch01/*.patch | wc -l)
n=$((wrong + 4)) # two more than the turn of model, stub and each wrong answer once
tools/mock_class.sh $n class ch01 > said 2>&1 || fail "make mock-class failed: $(cat said)"
key=class/.answer-key.csv
last=$(tail -n 1 said)
[[ $last == *"answer key"*"$key" ]] || fail "the last line does not name the key $key: $last"
[ -f "$key" ] || fail "no answer key at $key: $(ls -A class)"
again=$(printf 's%03d' $((wrong + 3)))
grep -qF "ch01 has $wrong wrong answers: students $again to $(printf 's%03d' "$n") are given the same turn again: $again the model answer, $(printf 's%03d' "$n") the stub" said ||
    fail "mock-class does not say what students past ch01's $wrong wrong answers are given: $(cat said)"
# Every row true of the student's files.
python3 - "$key" "$n" <<'EOF' || fail "the answer key is not true of the class"
import csv, sys
key, n = sys.argv[1], int(sys.argv[2])
text = open(key, newline="").read()
lines = text.splitlines()
if lines[0] != "student,exercise,given,expect":
    sys.exit(f"header {lines[0]!r}")
if any(not l.startswith('"') or not l.endswith('"') for l in lines[1:]):
    sys.exit("a row whose fields are not all quoted")
rows = list(csv.DictReader(text.splitlines()))
if [r["student"] for r in rows] != [f"s{k:03d}" for k in range(1, n + 1)] or {r["exercise"] for r in rows} != {"ch01"}:
    sys.exit(f"the rows are not one per student of ch01: {[(r['student'], r['exercise']) for r in rows]}")
for r in rows:
    g = r["given"]
    if not (g in ("model answer", "stub") or g.startswith("wrong answer ")):
        sys.exit(f"{r['student']}: given {g!r}")
    if r["expect"] != ("pass" if g == "model answer" else "fail"):
        sys.exit(f"{r['student']}: {g} expects {r['expect']!r}")
EOF
python3 - "$key" > picks <<'EOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print(r["student"], r["given"].removeprefix("wrong answer "))
EOF
while read -r id given; do
    rm -rf want && cp -r solutions/ch01 want || exit 1
    case $given in
    "model answer") ;;
    stub) git show HEAD:exercises/ch01/vec.c > want/vec.c ;;
    *) patch -s -p1 -d want < "tests/wrong/ch01/$given.patch" || fail "cannot apply $given" ;;
    esac
    diff -r want "class/$id/ch01" > /dev/null || fail "$id was given '$given' by the key, but its files are not that: $(diff -r want "class/$id/ch01" | head -n 5)"
done < picks
[ "$(wc -l < picks)" -eq "$n" ] || fail "the key has $(wc -l < picks) students, not $n"
# The later students: the same turn again.
[ "$(sed -n "$((wrong + 3))p" picks)" = "$again model answer" ] || fail "$again is not given the model answer again: $(sed -n "$((wrong + 3))p" picks)"

# grade-class takes the key for no student: a class of two, graded.
tools/mock_class.sh 2 two ch01 > said 2>&1 || fail "make mock-class N=2 failed: $(cat said)"
[ -f two/.answer-key.csv ] || fail "no key for the class of two"
make --no-print-directory grade-class DIR=two EX=ch01 JOBS=2 > graded 2>&1
grep -qi 'answer-key\|left out' graded && fail "grade-class took the key for a student: $(cat graded)"
[ "$(ls mine/grades/results)" = "$(printf 's001.csv\ns002.csv')" ] || fail "grade-class graded $(ls mine/grades/results): $(cat graded)"
python3 - two/.answer-key.csv mine/grades/results <<'EOF' || fail "the verdicts are not the key's"
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    v = [g for g in csv.DictReader(open(f"{sys.argv[2]}/{r['student']}.csv", newline="")) if g["exercise"] == r["exercise"]][0]["verdict"]
    if (v == "passed") != (r["expect"] == "pass"):
        sys.exit(f"{r['student']} {r['exercise']}: given {r['given']}, expect {r['expect']}, graded {v}")
EOF
echo "mock-class writes its answer key ($key, named on its last line), true of every student's files; says what students past the wrong answers get; grade-class takes it for no student"
