#!/usr/bin/env bash
# FP32 work as Nsight Compute counts it, per profiled GPU stage, one table per
# device (data/profiles/<machine>/): FADD + FMUL + 2 x FFMA thread-level
# instructions executed, over the kernel's duration in the same report, and
# that rate as a share of the device's FP32 ceiling (the best ceiling-fp32-peak
# row of the newest run in data/results/<machine>.csv, measured by ch07 on that
# device: tools/best_ceiling.sh; "-" without one).
# Counted operations, not a model of the algorithm: what the compiled code did.
set -u
shopt -s nullglob
for dir in data/profiles/*/; do
    machine=$(basename "$dir")
    reports=("$dir"ch[0-9][0-9]_*.txt)
    [ ${#reports[@]} -gt 0 ] || continue
    device=$(sed -n '1s/^# device: \([^,]*\),.*/\1/p' "${reports[@]}" | sort -u | head -n1)
    # the best row of the newest run (tools/best_ceiling.sh), not the file's last row
    peak='' run=''
    [ -f "data/results/$machine.csv" ] && read -r peak run < <("$(dirname "$0")"/best_ceiling.sh "data/results/$machine.csv" ceiling-fp32-peak)
    printf '\n*FP32 operations counted by Nsight Compute on the %s (`%s`; ceiling %s GFLOP/s, the best ch07 ceiling row of %s):*\n\n' \
        "$device" "${dir%/}" "${peak:--}" "$([ "${run:--}" = - ] && echo "its results" || echo "run $run")"
    echo "| profile | FADD | FMUL | FFMA | FP32 operations (FADD + FMUL + 2 FFMA) | kernel time | GFLOP/s counted | of the FP32 ceiling |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for f in "${reports[@]}"; do
        awk -v name="$(basename "$f" .txt)" -v peak="${peak:-0}" '
        function num(s) { gsub(",", "", s); return s + 0 }
        function last(line) { n = split(line, a, " "); return num(a[n]) }
        /op_fadd_pred_on.sum/ { fadd = last($0); have++ }
        /op_fmul_pred_on.sum/ { fmul = last($0); have++ }
        /op_ffma_pred_on.sum/ { ffma = last($0); have++ }
        /^ *Duration/ && !dur { n = split($0, a, " "); u = a[n - 1]; dur = num(a[n]) * (u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "s" ? 1 : 1e-9) }
        END {
            if (have < 3 || !dur) exit
            ops = fadd + fmul + 2 * ffma; g = ops / dur * 1e-9
            share = peak > 0 ? sprintf("%.1f%%", 100 * g / peak) : "-"
            printf "| %s | %.3g | %.3g | %.3g | %.4g | %.3g ms | %.0f | %s |\n", name, fadd, fmul, ffma, ops, dur * 1e3, g, share
        }' "$f"
    done
done
