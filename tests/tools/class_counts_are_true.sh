#!/usr/bin/env bash
# The counts the class tools' texts give are the registry's (issue 66, an
# instructor's dry run found "Only ch06 and ch07gpu have GPU parts" and "all
# twelve exercises" in tools/slurm/ after ch04's, ch05's and ch12's GPU parts
# and a thirteenth exercise): the number of exercises (make print-registry),
# those with a GPU part (their test adds one with harness_add_gpu_test), each
# named, in tools/slurm/grade.sbatch, grade_class.sbatch and TEACHING.md
# (where there is one: a student release has none); and ch12's row in
# TEACHING.md's plan and its table of what each chapter needs.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || exit 0
cd "$1" || exit 1
export CLANG_CUDA=
eval "$(make -s --no-print-directory print-registry)" || fail "make print-registry failed"
read -r -a all <<<"$COURSE_EXERCISES"
gpu=()
for e in "${all[@]}"; do
    [ -f "tests/test_ex_$e.cu" ] && grep -q 'harness_add_gpu_test' "tests/test_ex_$e.cu" && gpu+=("$e")
done
[ ${#all[@]} -gt 0 ] && [ ${#gpu[@]} -gt 0 ] || fail "no exercise, or none with a GPU part, in the registry"
words=(no one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty)
[ ${#all[@]} -lt ${#words[@]} ] || fail "more exercises (${#all[@]}) than this test has words for"
n=${words[${#all[@]}]} g=${words[${#gpu[@]}]} cpu=${words[$((${#all[@]} - ${#gpu[@]}))]}
# "ch04, ch05, ch06, ch07gpu and ch12"
named=$(printf '%s, ' "${gpu[@]:0:${#gpu[@]}-1}")
named="${named%, } and ${gpu[-1]}"
[ ${#gpu[@]} -gt 1 ] || named=${gpu[0]}

flat() { tr -s ' \n#' ' ' < "$1"; } # a comment's lines joined
flat tools/slurm/grade.sbatch | grep -qF "${g^} of the $n exercises have a GPU part ($named:" ||
    fail "tools/slurm/grade.sbatch does not say \"${g^} of the $n exercises have a GPU part ($named: ...\""
flat tools/slurm/grade_class.sbatch | grep -qF "there are $n now" || fail "tools/slurm/grade_class.sbatch does not say there are $n exercises now"
stale=$(grep -rniE "only ch06 and ch07gpu|all twelve|twelve exercises\)" tools/slurm)
[ -z "$stale" ] || fail "stale counts in tools/slurm: $stale"
if [ -f TEACHING.md ]; then
    flat TEACHING.md | grep -qF "${cpu^} of the $n exercises are checked entirely on the CPU. ${g^} check their core on the CPU" ||
        fail "TEACHING.md does not say ${cpu^} of the $n exercises are CPU-only and ${g^} have a GPU part"
    flat TEACHING.md | grep -qF "the GPU parts of $g ($named)" || fail "TEACHING.md's laptop sentence does not name the $g GPU parts ($named)"
    grep -q '^| 1 | .*`make check` (about 12 minutes on a 2-core laptop' TEACHING.md || fail "TEACHING.md's week 1 has no warning of make check's 12 minutes"
    lectures=$(sed -n '/^## A 13-week plan/,/^### /p' TEACHING.md | awk -F'|' '/^\| [0-9]+ \|/ {print $3}')
    for c in $COURSE_CHAPTERS; do
        grep -qw "$c" <<<"$lectures" || fail "TEACHING.md's 13-week plan has no lecture on $c"
    done
    sed -n '/^## What each chapter needs/,/^## /p' TEACHING.md | grep -q "ch12's GPU stages" ||
        fail "TEACHING.md's \"What each chapter needs\" says nothing of ch12's GPU stages"
fi
echo "the class tools' texts count ${#all[@]} exercises, ${#gpu[@]} with a GPU part ($named), as the registry does"
