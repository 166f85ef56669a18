#!/usr/bin/env bash
# A folder whose owner's write bit is clear (mode 0555) is not written in, by
# root either (nothing lost, round 5, item C): root may create and rename in
# it whatever its mode says, so the tools read the folder's mode bits as they
# read a file's. Each refuses up front (exit 2), the work not done, the folder
# as it was: tools/write_checked.sh (make host-record), make hint (its count's
# folder, there or to be made in it), make grade GRADE_OUT= (a new file and
# a grade file there), make bench (mine/results/, the machine's log folder,
# its image folder), make reset (saved/, exercises/: your answer kept). As an ordinary user -w already says no, and the same
# refusals hold. In a scratch copy.
set -u
[ "${1:-}" = --can-run ] && { command -v git > /dev/null || { echo "no git here (make reset reads the stubs from it)"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - tests/hints exercises | tar -C "$repo" -xf - || fail "cannot copy the hints and exercises"
cd "$repo" || exit 1
export CLANG_CUDA= # no clang probe: the registry is all this needs
eval "$(make -s print-registry)" || fail "cannot read the registry"
ro=$scratch/ro
mkdir "$ro" || exit 1
snapshot() { find "$1" -printf '%p %m %s\n' | LC_ALL=C sort | cksum; }
# refused WHAT WANT COMMAND...: COMMAND exits 2 saying WANT, $ro unchanged
refused() {
    local what=$1 want=$2 before rc
    shift 2
    before=$(snapshot "$ro")
    "$@" > "$scratch/said" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, not 2: $(tail -n 3 "$scratch/said")"
    grep -q -- "$want" "$scratch/said" || fail "$what: not said ($want): $(tail -n 3 "$scratch/said")"
    [ "$(snapshot "$ro")" = "$before" ] || fail "$what: wrote in the read-only folder: $(ls -lA "$ro")"
}
printf '%s\n' student,commit,machine,gpu,date,exercise,verdict,messages,answer > "$ro/g.csv"
chmod 0555 "$ro" || exit 1
refused "write_checked into a 0555 folder" "'$ro' is read-only (mode 555)" \
    bash tools/write_checked.sh "$ro/host.txt" sh -c "touch '$scratch/ran'; echo mine"
[ ! -e "$scratch/ran" ] || fail "write_checked ran its command before refusing"
refused "hint's count in a 0555 folder" "hint: cannot keep the count .*read-only (mode 555)" \
    env HINTS_DIR="$ro" bash tools/hint.sh ch01 ch01 ch02
refused "hint's count in a folder to be made in a 0555 one" "read-only (mode 555)" \
    env HINTS_DIR="$ro/hints" bash tools/hint.sh ch01 ch01 ch02
refused "a new grade file in a 0555 folder" "grade: GRADE_OUT=$ro/new.csv: '$ro' is read-only (mode 555)" \
    env GRADE_OUT="$ro/new.csv" STUDENT=ann BUILD=build bash tools/grade.sh ch01 ch01 ch02
refused "a grade file in a 0555 folder" "grade: GRADE_OUT=$ro/g.csv: '$ro' is read-only (mode 555)" \
    env GRADE_OUT="$ro/g.csv" STUDENT=ann BUILD=build bash tools/grade.sh ch01 ch01 ch02
[ ! -e build/tests ] || fail "grade built the judges before refusing"

# bench: a stand-in ch04 runs once from clean; then each of its folders made 0555
stand_in_ch04 <<SCRIPT
touch "$scratch/ran"
echo "ch04,loop,w,1,1,1,ms,ok,d,x" >> "\$csv"
printf 'P6\n1 1\n255\nabc' > "\$images/ch04-loop.ppm"
echo "a table"
SCRIPT
CHAPTERS=ch04 bash tools/bench.sh > bench.log 2>&1 || fail "a bench from clean failed: $(tail -n 5 bench.log)"
chmod 0755 "$scratch/ro" || exit 1 # (as it was: the scratch folder is removed at the end)
for ro in mine/results "mine/results/$MACHINE" "mine/images/$MACHINE"; do
    chmod 0555 "$ro" && rm -f "$scratch/ran" || exit 1
    refused "bench into a 0555 $ro" "bench: cannot write the results in $ro/: .*read-only (mode 555)" env CHAPTERS=ch04 bash tools/bench.sh
    [ ! -e "$scratch/ran" ] || fail "bench ran the chapter before refusing a 0555 $ro"
    chmod 0755 "$ro" || exit 1
done
# reset (make's exit 2 for the tool's 1): your answer in exercises/ch01, saved/ or exercises/ made 0555
git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm course || fail "git commit in the scratch copy"
echo "my answer" > exercises/ch01/vec.c && mkdir saved || exit 1
for ro in saved exercises; do
    chmod 0555 "$ro" || exit 1
    refused "reset with a 0555 $ro/" "reset: ch01 left as it was: '$ro' is read-only (mode 555)" make -s reset EX=ch01
    chmod 0755 "$ro" || exit 1
    [ "$(cat exercises/ch01/vec.c)" = "my answer" ] || fail "reset with a 0555 $ro/ changed your answer"
done
[ -z "$(ls -A saved)" ] && [ -z "$(find exercises -maxdepth 1 -name '.reset-*')" ] || fail "a refused reset left: $(ls -A saved exercises)"
echo "0555 folders refused up front (root too) by write_checked, hint, grade, bench and reset"
