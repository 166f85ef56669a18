#!/usr/bin/env bash
# A grade file's row says why, as the console does (an instructor preparing a
# class found a rule-breaking answer's row with an empty messages field: the
# console's "FAIL  ch05: your shade.h compiles other code for the GPU than for
# the CPU ..." reached no grade file, so grades.csv's and Gradescope's
# results.json showed a bare FAIL). For each verdict line make grade prints
# with a reason (a rule broken, "your code does not compile:", "the test did
# not run to its end ...", "CPU part; GPU part not run: no CUDA device"), the
# exercise's row's messages field (RFC 4180, as collect-grades reads it)
# starts with that reason, then the lines printed under it; and collect-grades'
# results.json for the student carries the same text.
# ch01's cases always run; ch05's (a rule of CUDA files, the CPU part) where
# nvcc is installed (the CPU part where no GPU is either).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading patch python3
graded_copy "$1"
mkdir -p out class || exit 1
nvcc=$(make -s --no-print-directory print-nvcc 2> /dev/null)
cuda=
command -v "$nvcc" > /dev/null 2>&1 && cuda=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n1)

# answer EX [PATCH]: the model answer of EX in exercises/, PATCH applied to it.
answer() {
    cp solutions/"$1"/* exercises/"$1"/ || fail "cannot copy solutions/$1"
    [ -z "${2:-}" ] || patch -s -p1 -d exercises/"$1" < tests/wrong/"$1"/"$2".patch || fail "cannot apply $1's $2"
}
# grade ID EX...: make grade of EX, the row file out/ID.csv, the console out/ID.said
grade() {
    local id=$1
    shift
    make --no-print-directory grade EX="$*" STUDENT="$id" GRADE_OUT="out/$id.csv" > "out/$id.said" 2>&1
    [ -s "out/$id.csv" ] || fail "make grade of $id wrote no grade file: $(cat "out/$id.said")"
}
# says ID EX KIND REASON: the console's line for EX says REASON, and the row's
# messages begin with it, then hold the lines printed under the verdict line.
says() {
    local id=$1 e=$2 kind=$3 reason=$4
    grep -qF -- "$reason" "out/$id.said" || fail "$id's console does not say '$reason' for $e: $(cat "out/$id.said")"
    python3 - "out/$id.said" "out/$id.csv" "$e" "$kind" "$reason" <<'EOF' || fail "$id's row of $e does not say why"
import csv, sys
said, path, e, kind, reason = sys.argv[1:]
rows = [r for r in csv.DictReader(open(path, newline="")) if r["exercise"] == e]
if len(rows) != 1 or rows[0]["verdict"] != kind:
    sys.exit(f"{path}: the rows of {e}: {rows} (want one, {kind})")
m = rows[0]["messages"]
if not m.startswith(reason):
    sys.exit(f"{path}: {e}'s messages are {m!r}: they do not start with {reason!r}")
# the lines printed under the verdict line (indented six), but make hint's
lines, under = [], False
for line in open(said):
    line = line.rstrip("\n")
    if line.startswith(("PASS  ", "FAIL  ", "SKIP  ")):
        under = line.split()[1].rstrip(":") == e
    elif under and line.startswith("      ") and not line.startswith("      stuck? make hint"):
        lines.append(line[6:])
for line in lines:
    if line not in m.split("\n"):
        sys.exit(f"{path}: the line {line!r} printed under {e}'s verdict is not in its messages {m!r}")
EOF
}

# A: an answer that would end the test early (exit(): refused by the rules, a
# library call the stub does not make); a CUDA rule broken.
answer ch01 exit-early
ex=ch01
[ -z "$cuda" ] || { answer ch05 powf-on-device-only; ex+=" ch05"; }
grade ann $ex
says ann ch01 failed ""
[ -z "$cuda" ] || says ann ch05 failed "your shade.h compiles other code for the GPU than for the CPU"
# B: a rule broken (a symbol of Check's defined); the CPU part only.
answer ch01 defines-framework-symbol
ex=ch01
[ -z "$cuda" ] || { answer ch05; ex+=" ch05"; }
grade bob $ex
says bob ch01 failed "your vec.c defines "
[ -z "$cuda" ] || [ -n "$gpu" ] || says bob ch05 cpu-part-only "CPU part; GPU part not run: no CUDA device"
# C: an answer that does not compile: the reason, then the compiler's errors.
answer ch01
echo 'this is not C' >> exercises/ch01/vec.c
grade cat ch01
says cat ch01 does-not-compile "your vec.c does not compile on its own:"
grep -q error out/cat.csv || fail "the compiler's error is not in cat's row: $(cat out/cat.csv)"
# D: the stub: the failing checks' lines (no reason on its line).
git checkout -q -- exercises/ch01
grade dan ch01
python3 -c 'import csv,sys; m=list(csv.DictReader(open(sys.argv[1])))[0]["messages"]; sys.exit(0 if "vec_" in m and "got" in m else m)' out/dan.csv ||
    fail "the stub's row lacks the failing checks' lines: $(cat out/dan.csv)"

# Each file is still wholly a grade file (make grade replaces it again), and
# the reasons reach Gradescope's results.json through collect-grades.
for id in ann bob cat dan; do
    why=$(bash -c '. <(sed -n "/^grade_header/p;/^grade_file_problem() {/,/^}/p" tools/grade.sh); . tools/file_checks.bash; grade_file_problem "$1"' _ "out/$id.csv") ||
        fail "$id's grade file is not wholly a grade file: $why"
    cp "out/$id.csv" class/ || exit 1
done
make --no-print-directory collect-grades DIR=class GRADES_OUT=grades > out/collect.said 2>&1 ||
    fail "collect-grades of the rows failed: $(cat out/collect.said)"
python3 - grades/gradescope <<'EOF' || fail "results.json does not say why"
import json, sys
d = sys.argv[1]
def out(s, e):
    t = [t for t in json.load(open(f"{d}/{s}/results.json"))["tests"] if t["name"] == e]
    return t[0]["output"]
for s, e, why in (("ann", "ch01", "your vec.c calls exit"), ("bob", "ch01", "your vec.c defines "),
                  ("cat", "ch01", "does not compile")):
    if why not in out(s, e):
        sys.exit(f"{s}'s results.json for {e}: {out(s, e)!r} lacks {why!r}")
EOF
echo "a grade row's messages say why, as the console does (a rule, no compile, a failed check$([ -z "$cuda" ] || echo ", a CUDA rule")$([ -z "$cuda" ] || [ -n "$gpu" ] || echo ", the CPU part")); results.json too"
