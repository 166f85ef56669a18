#!/usr/bin/env bash
# make show CH STAGE prints the stage's row and the code it names, read from
# the source: ch12's gpu-double-buffer shows its kernel's definition and its
# launcher; ch05's intrinsics shows the one change its flag set adds (the
# places card.h tests INTRINSICS), not float-only's; ch11's ring-overlap
# where the code asks for EXCHANGE_RING. An unknown stage or chapter exits 2
# with the reason; CH and STAGE are text, never make code.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "no python3: tools/show_stage.py needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
out=$(python3 tools/show_stage.py ch12 gpu-double-buffer) || fail "make show CH=ch12 STAGE=gpu-double-buffer failed"
grep -q '^== the row: chapters/ch12_gemm/stages.h:[0-9]*$' <<<"$out" || fail "ch12 gpu-double-buffer: no row line: $(head -n 2 <<<"$out")"
grep -q '^== double_buffer_kernel: chapters/ch12_gemm/gpu_fp32.cu:[0-9]*$' <<<"$out" || fail "ch12 gpu-double-buffer: its kernel not shown"
grep -q '^    double_buffer_kernel(gemm_shape s' <<<"$out" || fail "ch12 gpu-double-buffer: the kernel's definition is not printed"
grep -q '^void gemm_gpu_double_buffer(' <<<"$out" || fail "ch12 gpu-double-buffer: its launcher is not printed"
out=$(python3 tools/show_stage.py ch05 intrinsics) || fail "make show CH=ch05 STAGE=intrinsics failed"
grep -q '^== where the code tests INTRINSICS' <<<"$out" || fail "ch05 intrinsics: its change (INTRINSICS) not shown"
grep -q 'F & INTRINSICS' <<<"$out" || fail "ch05 intrinsics: no F & INTRINSICS site printed"
grep -q 'tests FLOAT_ONLY' <<<"$out" && fail "ch05 intrinsics shows float-only's change as its own"
out=$(python3 tools/show_stage.py ch11 ring-overlap) || fail "make show CH=ch11 STAGE=ring-overlap failed"
grep -q 'exchange == EXCHANGE_RING' <<<"$out" || fail "ch11 ring-overlap: where the code asks for EXCHANGE_RING not shown"
said=$(python3 tools/show_stage.py ch12 no-such-stage 2>&1)
[ $? -eq 2 ] || fail "make show of an unknown stage did not exit 2"
grep -q "ch12 has no stage 'no-such-stage'" <<<"$said" || fail "make show of an unknown stage says: $said"
said=$(python3 tools/show_stage.py ch99 loop 2>&1)
[ $? -eq 2 ] || fail "make show of an unknown chapter did not exit 2"
scratch_file=$(mktemp -u)
make -s show CH="\$(shell touch $scratch_file)" STAGE=loop > /dev/null 2>&1
make -s show CH=ch05 STAGE="\$(shell touch $scratch_file)" > /dev/null 2>&1
[ -e "$scratch_file" ] && { rm -f "$scratch_file"; fail "a make variable's text was run as code"; }
echo "make show prints a stage's row, its kernel and launcher, and the one change a flag set adds"
