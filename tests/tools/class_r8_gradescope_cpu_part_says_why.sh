#!/usr/bin/env bash
# Gradescope's results.json says why a "CPU part" verdict is one (round 8,
# item 4: its output was only "CPU part\nanswer ..."): the test's output is
# the verdict, then the messages field of the grade file's row (make grade's
# reason and the lines under it), then the answer's hash; where the row has
# no messages (a grade file of an older make grade), "(GPU part not run: no
# CUDA device)". And TEACHING.md, where grades.csv's columns are described,
# says the date column is when each student's grading started.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
root=$1
scratch_copy "$root"
cd "$repo" || exit 1
export CLANG_CUDA=
h=student,commit,machine,gpu,date,exercise,verdict,messages,answer
mkdir class || exit 1
cat > class/ann.csv <<EOF
$h
"ann","c","m","none","2026-11-20T10:00:00Z","ch04","cpu-part-only","CPU part; GPU part not run: no CUDA device
the kernel's machine code checked","fedcba9876543210"
"ann","c","m","none","2026-11-20T10:00:00Z","ch06","cpu-part-only","","0123456789abcdef"
"ann","c","m","none","2026-11-20T10:00:00Z","ch01","passed","","00112233aabbccdd"
EOF
GRADES_OUT=out python3 tools/collect_grades.py class > said 2>&1 || fail "collect-grades failed: $(cat said)"
python3 - out/gradescope/ann/results.json <<'PY' || fail "ann's results.json does not say why"
import json, sys
tests = {t["name"]: t for t in json.load(open(sys.argv[1]))["tests"]}
want = {
    "ch04": "CPU part\nCPU part; GPU part not run: no CUDA device\nthe kernel's machine code checked\nanswer fedcba9876543210",
    "ch06": "CPU part\n(GPU part not run: no CUDA device)\nanswer 0123456789abcdef",
    "ch01": "pass\nanswer 00112233aabbccdd",
}
for e, w in want.items():
    if tests[e]["output"] != w:
        sys.exit(f"{e}'s output is {tests[e]['output']!r}, not {w!r}")
PY
# TEACHING.md: grades.csv's date column is each student's start time
awk '/^### Grading a class$/ { on = 1; next } /^#/ { on = 0 } on' "$root/TEACHING.md" | tr '\n' ' ' | tr -s ' ' |
    grep -qE "The date is when that student's grading started" ||
    fail "TEACHING.md's \"Grading a class\" does not say grades.csv's date is when each student's grading started"
echo "collect-grades: a CPU part's output in results.json says why (the row's messages, or that the GPU part did not run)"
