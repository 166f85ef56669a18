#!/usr/bin/env bash
# The roofline of each profiled chapter, per device (data/profiles/<machine>/), from
# counters only: a profiled stage is a point at x = FP32 operations per DRAM
# byte (FADD + FMUL + 2 FFMA over dram__bytes_read + dram__bytes_write, as
# Nsight Compute counted them) and y = those operations over the kernel's
# duration. The roof: the device's DRAM read ceiling (ch06's
# ceiling-read-stream row) and its FP32 ceiling (ch07's ceiling-fp32-peak row),
# both measured on that device and read from data/results/<machine>.csv (the
# best row of each one's newest run: tools/best_ceiling.sh); a
# machine without both gets no roofline. A stage whose FP64 operations
# outnumber its FP32 ones is listed but not drawn: this roof is FP32's.
# A third ceiling is the kernel's own: issue slots. A scheduler issues one warp
# instruction a cycle, so a kernel whose warp instructions carry k FP32
# operations (counted: the FP32 operations over smsp__inst_executed.sum) can
# reach at most k x 4 schedulers x SMs x the SM clock (both in its report),
# however much arithmetic the FP32 pipes could do: where that is lower, it is
# the roof there (instruction-bound: ch05's sphere tests, ch07's loop).
# Prints Markdown; draws data/plots/roofline_<chapter>_<machine>.svg (gnuplot).
set -u
shopt -s nullglob
gen=${1:-build/book}
# run_words RUN_ID: ", run RUN_ID", or nothing for rows older than run ids ("-")
run_words() { [ "${1:--}" = - ] || printf ', run %s' "$1"; }
for dir in data/profiles/*/; do
    machine=$(basename "$dir")
    csv=data/results/$machine.csv
    # each the best row of its newest run (tools/best_ceiling.sh), not a file's last row
    peak='' bw='' peak_run='' bw_run=''
    [ -f "$csv" ] && read -r peak peak_run < <("$(dirname "$0")"/best_ceiling.sh "$csv" ceiling-fp32-peak)
    [ -f "$csv" ] && read -r bw bw_run < <("$(dirname "$0")"/best_ceiling.sh "$csv" ceiling-read-stream ch06)
    reports=("$dir"ch[0-9][0-9]_*.txt)
    [ ${#reports[@]} -gt 0 ] || continue
    device=$(sed -n '1s/^# device: \([^,]*\),.*/\1/p' "${reports[@]}" | sort -u | head -n1)
    if [ -z "$peak" ] || [ -z "$bw" ]; then
        printf '\n*No roofline for `%s`: its results lack the FP32 or the DRAM read ceiling.*\n' "$machine"
        continue
    fi
    printf '\n*Rooflines on the %s (`%s`): FP32 ceiling %.0f GFLOP/s (ch07%s), DRAM read ceiling %.0f GB/s (ch06%s), both measured on it, each the best row of its run; ridge at %.1f FP32 operations per byte.*\n' \
        "$device" "${dir%/}" "$peak" "$(run_words "$peak_run")" "$bw" "$(run_words "$bw_run")" \
        "$(awk -v p="$peak" -v b="$bw" 'BEGIN {print p / b}')"
    # the chapters profiled on this device, from the reports' names (no list of chapters here)
    for ch in $(for f in "${reports[@]}"; do basename "$f" | cut -d_ -f1; done | sort -u); do
        rows=("$dir$ch"_*.txt)
        [ ${#rows[@]} -gt 0 ] || continue
        dat=$gen/roofline_${ch}_$machine.dat
        : > "$dat"
        printf '\n| %s profile | FP32 operations | FP64 operations | DRAM bytes | FP32 ops per byte | GFLOP/s counted | DRAM GB/s counted | issue-slot ceiling, GFLOP/s | the roof there | of the roof | the roof there set by |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n' "$ch"
        for f in "${rows[@]}"; do
            awk -v name="$(basename "$f" .txt)" -v peak="$peak" -v bw="$bw" -v dat="$dat" '
            function num(s) { gsub(",", "", s); return s + 0 }
            function last(line) { n = split(line, a, " "); return num(a[n]) }
            function bytes(line) { n = split(line, a, " "); u = a[n - 1]; v = num(a[n])
                return v * (u == "Tbyte" ? 1e12 : u == "Gbyte" ? 1e9 : u == "Mbyte" ? 1e6 : u == "Kbyte" ? 1e3 : 1) }
            /op_fadd_pred_on.sum/ { fp32 += last($0); have++ }
            /op_fmul_pred_on.sum/ { fp32 += last($0); have++ }
            /op_ffma_pred_on.sum/ { fp32 += 2 * last($0); have++ }
            /op_dadd_pred_on.sum/ || /op_dmul_pred_on.sum/ { fp64 += last($0) }
            /op_dfma_pred_on.sum/ { fp64 += 2 * last($0) }
            /dram__bytes_read.sum/ || /dram__bytes_write.sum/ { dram += bytes($0); haved++ }
            /smsp__inst_executed.sum / { warp_inst = last($0) }
            /^ *# SMs / { sms = last($0) }
            /^ *SM Frequency/ { n = split($0, a, " "); u = a[n - 1]; clock = num(a[n]) * (u == "Ghz" ? 1e9 : u == "Mhz" ? 1e6 : 1) }
            /^ *Duration/ && !dur { n = split($0, a, " "); u = a[n - 1]; dur = num(a[n]) * (u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "s" ? 1 : 1e-9) }
            END {
                if (have < 3 || haved < 2 || !dur || dram <= 0) exit
                ai = fp32 / dram; g = fp32 / dur * 1e-9; gbs = dram / dur * 1e-9
                roof = ai * bw < peak ? ai * bw : peak
                if (fp32 == 0 && fp64 == 0) { # integer work (ch06): only the memory roof applies
                    printf "| %s | 0 | 0 | %.3g | - | - | %.0f | - | %.0f GB/s | %.1f%% | memory (no floating point) |\n",
                           name, dram, gbs, bw, 100 * gbs / bw
                    exit
                }
                bound = (fp64 > fp32) ? "FP64: not on this roof" : (ai * bw < peak) ? "memory" : "arithmetic"
                issue = (warp_inst > 0 && sms > 0 && clock > 0) ? fp32 / warp_inst * 4 * sms * clock * 1e-9 : 0
                if (issue > 0 && issue < roof && fp64 <= fp32) { roof = issue; bound = "issue slots" }
                on_roof = fp64 <= fp32
                printf "| %s | %.3g | %.3g | %.3g | %.3g | %.0f | %.0f | %s | %s | %s | %s |\n", name, fp32, fp64, dram, ai, g, gbs,
                       (issue > 0 ? sprintf("%.0f", issue) : "-"), (on_roof ? sprintf("%.0f", roof) : "-"),
                       (on_roof ? sprintf("%.1f%%", 100 * g / roof) : "-"), bound
                if (fp64 <= fp32 && fp32 > 0) { sub(/^ch[0-9]+_/, "", name); printf "%g %g %s\n", ai, g, name >> dat }
            }' "$f"
        done
        svg=data/plots/roofline_${ch}_$machine.svg
        # drawn where gnuplot is; linked wherever the chart is (committed), so
        # the book does not depend on this machine's tools
        if command -v gnuplot > /dev/null && [ -s "$dat" ]; then
            names=$(awk '{printf "%s ", $3}' "$dat")
            xmax=$(awk 'BEGIN {m = 1000} $1 * 10 > m {m = $1 * 10} END {print m}' "$dat")
            gnuplot <<GP || { echo "roofline: the $ch chart failed" >&2; exit 1; }
set terminal svg size 1000,520 font "sans,11" background rgb "white"
# the Okabe-Ito colours: told apart with any colour vision
set colorsequence podo
set output "$svg"
set title "$ch: roofline on the $device (counted FP32 operations and DRAM bytes; ceilings measured on it)"
set xlabel "FP32 operations per DRAM byte (log scale)"
set ylabel "GFLOP/s counted (log scale)"
set logscale xy
set grid
peak = $peak; bw = $bw
roof(x) = x * bw < peak ? x * bw : peak
set xrange [0.01:$xmax]
set yrange [1:peak * 2]
set key outside right top font "sans,9"
names = "$names"
plot roof(x) title sprintf("roof: DRAM %.0f GB/s, FP32 %.0f GFLOP/s", bw, peak) lw 2 lc rgb "#444444", \
     for [i=1:words(names)] "$dat" every ::(i-1)::(i-1) using 1:2 title word(names, i) with points pt 7 ps 1.2
GP
        fi
        if [ -s "$dat" ] && [ -f "$svg" ]; then printf '\n![%s roofline](%s)\n' "$ch" "$svg"; fi
    done
done
