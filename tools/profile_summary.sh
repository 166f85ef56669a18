#!/usr/bin/env bash
# Summarises the Nsight Compute reports in data/profiles/*.txt (made by
# `make profile`) as one Markdown table, for the book. Values are ncu's own.
set -u
shopt -s nullglob
echo "| profile | duration | registers/thread | occupancy theoretical / achieved | SM throughput | DRAM throughput | L1/shared throughput | local memory ld + st | FP64 instructions | FP32 FMA instructions | active threads per warp instruction |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in data/profiles/ch0*_*.txt; do
    grep -q "Registers Per Thread" "$f" || continue
    awk -v name="$(basename "$f" .txt)" '
    function val(line) { n = split(line, a, " "); return a[n] }
    function unit(line) { n = split(line, a, " "); return a[n - 1] }
    /Duration/ && !dur { dur = val($0) " " unit($0) }
    /Registers Per Thread/ { regs = val($0) }
    /Theoretical Occupancy/ { theo = val($0) }
    /Achieved Occupancy/ { ach = val($0) }
    /Compute \(SM\) Throughput/ { sm = val($0) }
    /^ *DRAM Throughput/ { dram = val($0) }
    /L1\/TEX Cache Throughput/ { l1 = val($0) }
    /local_op_ld.sum/ { ld = val($0) " " unit($0) }
    /local_op_st.sum/ { st = val($0) " " unit($0) }
    /op_dadd_pred_on|op_dmul_pred_on|op_dfma_pred_on/ { v = val($0); gsub(",", "", v); fp64 += v }
    /op_ffma_pred_on/ { ffma = val($0) }
    /per_inst_executed.ratio/ { ratio = val($0) }
    END { printf "| %s | %s | %s | %s%% / %s%% | %s%% | %s%% | %s%% | %s + %s | %s | %s | %s of 32 |\n", name, dur, regs, theo, ach, sm, dram, l1, ld, st, fp64, ffma, ratio }' "$f"
done
# Shared-memory bank conflicts, for profiles whose kernels use shared memory.
echo
echo "| profile | shared-memory load bank conflicts | store bank conflicts |"
echo "|---|---:|---:|"
for f in data/profiles/ch0*_*.txt; do
    grep -q "bank_conflicts_pipe_lsu_mem_shared_op_ld" "$f" || continue
    awk -v name="$(basename "$f" .txt)" '
    function val(line) { n = split(line, a, " "); return a[n] }
    /bank_conflicts_pipe_lsu_mem_shared_op_ld/ { ld = val($0) }
    /bank_conflicts_pipe_lsu_mem_shared_op_st/ { st = val($0) }
    END { if (ld != "0" || st != "0") printf "| %s | %s | %s |\n", name, ld, st }' "$f"
done

# The scheduler's view (the smallpt report's tables), for profiles that have it:
# warps per scheduler, and cycles between two instructions of one warp.
have=$(grep -l "Eligible Warps Per Scheduler" data/profiles/ch0*_*.txt 2>/dev/null | head -n1)
[ -n "$have" ] || exit 0
echo
echo "| profile | active warps / scheduler | eligible warps / scheduler | issued warps / scheduler | warp cycles per issued instruction | of which stalled: no instruction | wait | short scoreboard | long scoreboard | branch resolving | math pipe throttle |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in data/profiles/ch0*_*.txt; do
    grep -q "Eligible Warps Per Scheduler" "$f" || continue
    awk -v name="$(basename "$f" .txt)" '
    function val(line) { n = split(line, a, " "); return a[n] }
    /Active Warps Per Scheduler/ { act = val($0) }
    /Eligible Warps Per Scheduler/ { eli = val($0) }
    /Issued Warp Per Scheduler/ { iss = val($0) }
    /Warp Cycles Per Issued Instruction/ { cyc = val($0) }
    /issue_stalled_no_instruction_per/ { ni = val($0) }
    /issue_stalled_wait_per/ { wt = val($0) }
    /issue_stalled_short_scoreboard_per/ { ss = val($0) }
    /issue_stalled_long_scoreboard_per/ { ls = val($0) }
    /issue_stalled_branch_resolving_per/ { br = val($0) }
    /issue_stalled_math_pipe_throttle_per/ { mp = val($0) }
    END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, act, eli, iss, cyc,
          ni == "" ? "-" : ni, wt == "" ? "-" : wt, ss == "" ? "-" : ss, ls == "" ? "-" : ls, br == "" ? "-" : br, mp == "" ? "-" : mp }' "$f"
done
