#!/usr/bin/env bash
# TEACHING.md warns, where it offers PARTS=half|full (round 8, item 1: an
# instructor found no word that a CPU part runs no kernel), that the race and
# run checks of ch04, ch05, ch06, ch07gpu and ch12 exist only in their GPU
# part, so under PARTS=half or full a wrong answer whose mistake only a GPU
# run catches (a missing __syncthreads) earns the CPU part's credit; and it
# recommends PARTS=none for marks without a GPU, or grading the GPU parts on
# a GPU machine. Both places that offer the choice say so: "When students
# have no GPU" and "Grading a class".
set -u
[ "${1:-}" != --can-run ] || exit 0
. "$(dirname "$0")/lib.bash"
doc=$1/TEACHING.md
[ -f "$doc" ] || fail "no $doc"
# section TITLE: the text of TEACHING.md's section TITLE, its lines joined
section() { awk -v t="$1" '/^#/ { on = ($0 ~ "^#+ " t "$") ; next } on' "$doc" | tr '\n' ' ' | tr -s ' '; }
for s in "When students have no GPU" "Grading a class"; do
    text=$(section "$s")
    [ -n "$text" ] || fail "TEACHING.md has no section \"$s\""
    grep -qE 'PARTS=(half|full)|`half`' <<<"$text" || fail "\"$s\" does not offer PARTS=half or full (the test is out of date)"
    grep -qE 'ch04, ch05, ch06, ch07gpu and ch12 exist only in their GPU part' <<<"$text" ||
        fail "\"$s\" offers PARTS=half|full but does not say the race and run checks of ch04, ch05, ch06, ch07gpu and ch12 exist only in their GPU part"
    grep -qF '__syncthreads' <<<"$text" || fail "\"$s\" does not name a mistake only a GPU run catches (a missing __syncthreads)"
    grep -qE 'earns (the CPU part.s|its) credit' <<<"$text" || fail "\"$s\" does not say such a wrong answer earns the CPU part's credit"
    grep -qE 'PARTS=none' <<<"$text" && grep -qE 'grade the GPU parts on a GPU machine' <<<"$text" ||
        fail "\"$s\" does not recommend PARTS=none for marks without a GPU, or grading the GPU parts on a GPU machine"
done
echo "TEACHING.md: PARTS=half|full comes with the warning that a CPU part catches no race, and PARTS=none recommended for marks"
