#!/usr/bin/env bash
# make profile CH=ch05 STAGE=fast-math: Nsight Compute on one stage's kernels.
# Saves the report as text in data/profiles/<machine>/<chapter>_<stage>.txt
# (<machine> as make bench names it: <gpu>_<cpu>), its first line naming the
# device and driver, then ncu's version, the commit profiled and the run id
# (tools/run_provenance.sh: BENCH_RUN_ID, make bench's, when given), the SM clock
# when profiling began, the command and the launch profiled: launch
# statistics (registers, grid and block), occupancy, speed of light (compute
# and memory throughput; the SM Frequency the kernel ran at), scheduler
# statistics (active, eligible and issued warps), warp-state stalls,
# local-memory traffic and FP64 instruction counts. The whole report ncu
# wrote is kept too, as mine/profiles/<machine>/<chapter>_<stage>.ncu-rep
# (git-ignored; PROFILE_REP_DIR=folder: elsewhere), for ncu --import or the GUI.
# The kernel to profile is the stage's row's (./chNN --list-stages, its kernel
# column: its name as Nsight Compute writes it, "tiled_float4_kernel<(int)3>",
# or a part of it), run as make bench runs it (the chapter's standard
# workload; chNN_PROFILE_ARGS, where a chapter has them, are added: keep them
# to what does not change the launch), and the launch measured is the stage's
# last launch of that kernel: the check run after the timed runs, the same
# grid, block and input as the timed launch, after any sweep of shapes has
# chosen (ch05, ch08 measure their winner last). Profiling a timed launch would
# slow the very launch a sweep chooses by. A first, light pass of ncu (launch
# statistics only) counts the launches; the second profiles the last.
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/columns.sh"
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
ch=${1:-}
stage=${2:-}
if [ -z "$ch" ] || [ -z "$stage" ]; then echo "usage: make profile CH=chNN STAGE=name" >&2; exit 2; fi
eval "$(make -s print-registry)" || exit 2
avar=${ch}_PROFILE_ARGS
case " $CHAPTERS " in *" $ch "*) ;; *) echo "profile: '$ch' is not a chapter (one of: $CHAPTERS)" >&2; exit 2 ;; esac
[ -x "./$ch" ] || { echo "profile: ./$ch is not built (make $ch)" >&2; exit 2; }
stage_columns name || exit 2
row=$(./"$ch" --list-stages | awk -F'\t' "${cols[@]}" -v s="$stage" '$c_name == s')
[ -n "$row" ] || { echo "profile: $ch has no stage '$stage' (./$ch --help lists them)" >&2; exit 2; }
name=$(stage_fields kernel <<<"$row")
[ "$name" != - ] || { echo "profile: $ch's stage $stage names no kernel to profile (its row in stages.h)" >&2; exit 2; }
# ncu matches a regex anywhere in the demangled name: the name's ( ) < > and
# the like stand for themselves through '.', which matches any one character.
kernel="regex:$(sed 's/[][()*+?.^$|\\{}]/./g' <<<"$name")"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
if [ ! -x "$ncu" ]; then echo "profile: ncu (Nsight Compute) not found (it comes with the full CUDA Toolkit): nothing profiled" >&2; exit 1; fi
# count_launches: how many times the stage's run launches the kernel (ncu's
# launch statistics alone, one light pass: every launch is listed with its
# grid and block, "(64, 32, 1)x(16, 8, 1), Context 1, ...").
count_launches() {
    local n
    "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "$kernel" --section LaunchStats \
        "${command[@]}" > "$out.launches" 2>&1 < /dev/null
    n=$(grep -cE '\([0-9]+, [0-9]+, [0-9]+\)x\([0-9]+, [0-9]+, [0-9]+\), Context' "$out.launches")
    if [ "$n" -lt 1 ]; then
        mv "$out.launches" "$out.failed"
        echo "profile: $ch $stage: ncu saw no launch of $kernel in ${command[*]} (log: $out.failed); $out left as it was" >&2
        return 1
    fi
    rm -f "$out.launches"
    echo "$n"
}
dir=data/profiles/$MACHINE
mkdir -p "$dir"
out=$dir/${ch}_${stage}.txt
# The whole report as ncu wrote it (.ncu-rep: every section, for the GUI or
# ncu --import), a few MB each, so kept beside your other results in the
# git-ignored mine/profiles/<machine>/ (PROFILE_REP_DIR: elsewhere), not in data/.
rep_dir=${PROFILE_REP_DIR:-mine/profiles/$MACHINE}
mkdir -p "$rep_dir" || exit 1
rep=$rep_dir/${ch}_${stage}.ncu-rep
rep_tmp=$rep_dir/${ch}_${stage}.$$.tmp.ncu-rep
# The counted work the book's rates and rooflines use: bytes moved at DRAM and
# L2, cycles the SMs were active and elapsed, instructions issued per active
# cycle, and thread-level instructions (for active lanes).
counted=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,smsp__issue_active.avg.per_cycle_active,smsp__thread_inst_executed.sum
metrics=$counted,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,smsp__thread_inst_executed_per_inst_executed.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
# how busy each pipe was, in % of its peak over the active cycles: which one a
# compute-bound kernel is up against (FMA: fp32; FP64; XU: rsqrt, sin, conversions)
for pipe in alu fma fp64 xu lsu; do
    metrics=$metrics,sm__inst_executed_pipe_${pipe}.avg.pct_of_peak_sustained_active
done
# warp stalls, in cycles per issued instruction, by reason (the smallpt report's "Stall No Instructions", "Stall Wait")
for reason in no_instruction wait long_scoreboard short_scoreboard math_pipe_throttle branch_resolving barrier; do
    metrics=$metrics,smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio
done
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
clock=$(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | head -n1)
# shellcheck source=tools/run_provenance.sh
. "$(dirname "$0")/run_provenance.sh"
provenance_init
# shellcheck disable=SC2206 # PROFILE_ARGS is words
command=(./"$ch" --stage "$stage" --repeat 1 --quiet ${!avar})
launches=$(count_launches) || exit 1
{
    echo "# device: ${device:-unknown} (nvidia-smi: name, driver)"
    echo "# ncu: $("$ncu" --version 2>/dev/null | tail -n1)"
    provenance_lines
    echo "# SM clock at the start: ${clock:-unknown} (nvidia-smi: current, max); the kernel's own is ncu's SM Frequency below"
    echo "# command: ${command[*]}; kernel $kernel, launch $launches of $launches (the last: the check run after the timed runs)"
    echo "# ncu report: $rep (not committed: ncu --import it for every section)"
} > "$out.tmp"
"$ncu" --clock-control none --kernel-name-base demangled --kernel-name "$kernel" --launch-skip $((launches - 1)) --launch-count 1 --section LaunchStats --section Occupancy \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --metrics "$metrics" \
    --export "$rep_tmp" --force-overwrite "${command[@]}" >> "$out.tmp" 2>&1
status=$?
# An ncu that writes the report file instead of printing it: the same details page, read back from the file.
if [ $status -eq 0 ] && ! grep -q "Registers Per Thread" "$out.tmp" && [ -s "$rep_tmp" ]; then
    "$ncu" --import "$rep_tmp" --page details >> "$out.tmp" 2>&1
    status=$?
fi
# Kept only when ncu profiled the kernel: a failed run leaves the last good report.
if [ $status -ne 0 ] || ! grep -q "Registers Per Thread" "$out.tmp"; then
    mv "$out.tmp" "$out.failed"
    rm -f "$rep_tmp"
    echo "profile: $ch $stage: ncu exit $status, no kernel profiled (log: $out.failed); $out left as it was" >&2
    exit 1
fi
mv "$out.tmp" "$out"
echo "profile: $out"
if [ -s "$rep_tmp" ]; then mv -f "$rep_tmp" "$rep" && echo "profile: $rep (ncu --import $rep, or Nsight Compute's window)"; fi
grep -E 'Eligible Warps|Issued Warp|Warp Cycles Per Issued|bank_conflicts|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|dadd|dfma|dmul|ffma|local_op|per_inst_executed|Block Size' "$out" | sed 's/^/  /'
exit $status
