#!/usr/bin/env bash
# make profile CH=ch05 STAGE=fast-math: Nsight Compute on one stage's kernels.
# Saves the report as text in data/profiles/<chapter>_<stage>.txt: launch
# statistics (registers, block shape), occupancy, speed of light (compute and
# memory throughput), local-memory traffic and FP64 instruction counts.
set -u
ch=${1:-}
stage=${2:-}
if [ -z "$ch" ] || [ -z "$stage" ]; then echo "usage: make profile CH=chNN STAGE=name" >&2; exit 2; fi
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
if [ ! -x "$ncu" ]; then echo "profile: ncu (Nsight Compute) not found: nothing profiled"; exit 0; fi
[ -x "./$ch" ] || { echo "profile: ./$ch is not built (make $ch)" >&2; exit 2; }
mkdir -p data/profiles
out=data/profiles/${ch}_${stage}.txt
metrics=smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,smsp__thread_inst_executed_per_inst_executed.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed
# The stage's own kernel (not a memset or a second pass), after its warm-up launch.
extra=()
kernel=regex:render_kernel
case $ch in
ch07)
    kernel=regex:${stage#gpu-}
    kernel=${kernel//-/_}_kernel
    [ "$stage" = gpu-tiled-ftz ] && kernel=regex:tiled_unrolled_kernel # the same kernel, FTZ = true
    ;;
ch06)
    extra=(--n 268435456)
    kernel=regex:${stage//-/_}_kernel
    [ "$stage" = cub ] && kernel=regex:DeviceReduceKernel
    ;;
esac
"$ncu" --clock-control none --kernel-name "$kernel" --launch-skip 1 --launch-count 1 --section LaunchStats --section Occupancy \
    --section SpeedOfLight --metrics "$metrics" ./"$ch" --stage "$stage" --repeat 1 --quiet "${extra[@]}" > "$out" 2>&1
status=$?
echo "profile: $out (ncu exit $status)"
grep -E 'Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|dadd|dfma|dmul|ffma|local_op|per_inst_executed|Block Size' "$out" | sed 's/^/  /'
exit $status
