#!/usr/bin/env bash
# make diff pairs files as the chapters really renamed them, and claims no
# rename where there was none (A = B showed "render.h -> render.h (renamed)"
# from card.h); make profile without Nsight Compute fails, never exit 0.
set -u
if [ "${1:-}" = --can-run ]; then
    [ -x ./ch05 ] || { echo "./ch05 is not built"; exit 77; }
    command -v ncu > /dev/null || [ -x /usr/local/cuda/bin/ncu ] || exit 0
    echo "ncu is installed here: the no-ncu half cannot be shown"; exit 77
fi
. "$(dirname "$0")/lib.bash"
export CLANG_CUDA=
scratch_file=$(mktemp -u)
out=$(tools/chapter_diff.sh ch04 ch04) || fail "make diff A=ch04 B=ch04 failed"
[ -z "$out" ] || fail "make diff of a chapter with itself shows: $(head -n 3 <<<"$out")"
out=$(tools/chapter_diff.sh ch03 ch04)
grep -qx '=== ch03/card.c -> ch04/card.h (renamed)' <<<"$out" || fail "ch03 -> ch04 lost the card.c -> card.h rename"
grep -qx '=== ch03/card.h -> ch04/render.h (renamed)' <<<"$out" || fail "ch03 -> ch04 lost the card.h -> render.h rename"
out=$(tools/chapter_diff.sh ch02 ch04)
grep -q '^=== .*(renamed)$' <<<"$out" && fail "ch02 -> ch04 claims ch04's renames from ch03: $(grep '^===.*renamed' <<<"$out")"
# Outside text is data, never make or shell code (CH, STAGE, A, B, EX).
rm -f "$scratch_file"
for v in CH STAGE; do make -s profile CH=ch05 STAGE=loop "$v=\$(shell touch $scratch_file)" > /dev/null 2>&1; done
make -s diff A="\$(shell touch $scratch_file)" B=ch05 > /dev/null 2>&1
make -s diff A="ch0'4" B=ch05 > /dev/null 2>&1 && fail "make diff with a quote in A exited 0"
make -s hint EX="\$(shell touch $scratch_file)" > /dev/null 2>&1
[ -e "$scratch_file" ] && fail "a make variable's text was run as code"
said=$(tools/profile.sh ch05 loop 2>&1) && fail "make profile without ncu exited 0"
grep -q 'ncu (Nsight Compute) not found' <<<"$said" || fail "make profile without ncu says: $said"
echo "make diff pairs true renames only; make profile without ncu fails with its reason"
