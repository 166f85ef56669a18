#!/usr/bin/env bash
# make diff A=chNN:S1 B=chNN:S2 shows only what the second stage changes:
# ch05's float-only over loop (one template, F's bits) the float literals and
# powf, not the kernel's unchanged lines nor intrinsics' change; ch06's
# first-add-on-load over sequential (a kernel each) the load, not the tree
# both share. A bad stage, a bad chapter, two chapters exit 2 with the reason;
# make diff A=ch04 B=ch05 is still the chapters' diff.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "no python3: tools/stage_diff.py needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
export CLANG_CUDA=
out=$(tools/chapter_diff.sh ch05:loop ch05:float-only) || fail "make diff A=ch05:loop B=ch05:float-only failed"
grep -qx -- '-    return t > .01;' <<<"$out" || fail "ch05 loop -> float-only: the double threshold is not removed: $(head -n 8 <<<"$out")"
grep -qx -- '+    return t > .01f;' <<<"$out" || fail "ch05 loop -> float-only: the float threshold is not added"
grep -qx -- '+    return powf(x, (float)N);' <<<"$out" || fail "ch05 loop -> float-only: powf is not added"
grep -q '^--- chapters/ch05_intrinsics/card.h:[0-9]* (beyond_epsilon' <<<"$out" || fail "ch05: a hunk not labelled with its file:line"
for unchanged in 'threadIdx.x' 'vec_dot(normal, dir) \* -2' 'sphere_row(j) & 1 << k' '__powf' 'rsqrtf' 'F & '; do
    grep -q -- "$unchanged" <<<"$out" && fail "ch05 loop -> float-only shows what it does not change: $(grep -- "$unchanged" <<<"$out" | head -n 2)"
done
out=$(tools/chapter_diff.sh ch05:intrinsics ch05:pow-squaring) || fail "make diff of ch05 intrinsics -> pow-squaring failed"
grep -q '^+.*x64 \* x32 \* x2 \* x' <<<"$out" || fail "ch05 intrinsics -> pow-squaring: the squarings are not added"
grep -q '^-.*__powf' <<<"$out" || fail "ch05 intrinsics -> pow-squaring: __powf is not dropped"
out=$(tools/chapter_diff.sh ch06:sequential ch06:first-add-on-load) || fail "make diff A=ch06:sequential B=ch06:first-add-on-load failed"
grep -qx -- '-    size_t i = (size_t)blockIdx.x \* BLOCK + t;' <<<"$out" || fail "ch06: the one-element load is not removed: $(head -n 8 <<<"$out")"
grep -qx -- '+    s\[t\] = load_pair(in, n, (size_t)blockIdx.x \* 2 \* BLOCK + t);' <<<"$out" || fail "ch06: the paired load is not added"
grep -q '^+++ chapters/ch06_reduction/reduce_gpu.cu:[0-9]* (first_add_on_load_kernel' <<<"$out" || fail "ch06: the kernel's hunk is not labelled"
grep -q 'partial\[blockIdx.x\] = s\[0\]' <<<"$out" && fail "ch06 shows the tree's end, which both kernels share"
grep -q 'load_pair(const int' <<<"$out" && fail "ch06 shows a helper neither row names"
said=$(tools/chapter_diff.sh ch05:loop ch05:no-such-stage 2>&1)
[ $? -eq 2 ] || fail "make diff of an unknown stage did not exit 2"
grep -q "ch05 has no stage 'no-such-stage' (its stages: loop float-only" <<<"$said" || fail "an unknown stage says: $said"
said=$(tools/chapter_diff.sh ch99:a ch99:b 2>&1)
[ $? -eq 2 ] || fail "make diff of an unknown chapter's stages did not exit 2"
grep -q "no chapter 'ch99'" <<<"$said" || fail "an unknown chapter says: $said"
said=$(tools/chapter_diff.sh ch06:sequential ch07:gpu-naive 2>&1)
[ $? -eq 2 ] || fail "make diff of two chapters' stages did not exit 2"
grep -q "stages of two chapters" <<<"$said" || fail "two chapters' stages say: $said"
out=$(make -s diff A=ch04 B=ch05) || fail "make diff A=ch04 B=ch05 failed"
grep -qx '=== ch05/kernels.h: new in ch05' <<<"$out" || fail "make diff A=ch04 B=ch05 is no longer the chapters' diff: $(head -n 3 <<<"$out")"
echo "make diff of two stages shows what the second changes, and only that; bad names exit 2"
