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
