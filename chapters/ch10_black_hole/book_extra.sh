#!/usr/bin/env bash
# ch10's part of `make book` (sourced by tools/book.py, with csvs, gen and
# fmt_awk at hand): the source text's table of math configurations, measured.
# Rows: the hand-written step, the unsimplified tree, the relaxed tree; columns:
# the arithmetic NVRTC compiled them with (kernels.h's MATH_*). strict is each
# stage's own row, fast its -fast-math twin, the rest `make bench`'s runs of
# the strict stages with --math (workload "WxH math=NAME"). Each cell: kernel
# time, and the image's PSNR against the CPU's double-precision reference.
# The results' columns are read by name (tools/columns.sh).
# shellcheck source=tools/columns.sh
. tools/columns.sh
: > "$gen/math_ablation_ch10.md"
for f in "${csvs[@]}"; do
    csv_columns "$f" chapter stage workload threads median_ms value unit || exit 1
    awk -F, "${cols[@]}" 'NR > 1 && $c_chapter == "ch10" && $c_workload ~ /math=/ { found = 1; exit } END { exit !found }' "$f" || continue
    awk -F, "${cols[@]}" -v file="$f" "$fmt_awk"'
    FNR > 1 && $c_chapter == "ch10" && $c_threads == 0 && ($c_unit == "Mrays/s" || $c_unit == "dB vs CPU") {
        stage = $c_stage; math = "strict"
        if (split($c_workload, w, " math=") == 2) math = w[2]
        if (sub(/-fast-math$/, "", stage)) math = "fast"
        if ($c_unit == "Mrays/s") ms[stage, math] = $c_median_ms; else db[stage, math] = $c_value
    }
    END {
        printf "*The source text\x27s math configurations, measured: kernel time and PSNR against the CPU\x27s image (`%s`):*\n\n", file
        n = split("strict fma approx fma-approx fast", col, " ")
        printf "| step |"; for (i = 1; i <= n; i++) printf " %s |", col[i]; printf "\n|---|"
        for (i = 1; i <= n; i++) printf "---:|"; printf "\n"
        split("gpu-hand-written gpu-generated gpu-generated-relaxed", row, " ")
        for (j = 1; j <= 3; j++) {
            printf "| %s |", row[j]
            for (i = 1; i <= n; i++) {
                k = row[j] SUBSEP col[i]
                printf " %s |", (k in ms) ? ftime(ms[k]) " (" sprintf("%.1f", db[k]) " dB)" : "-"
            }
            printf "\n"
        }
        printf "\n"
    }' "$f" >> "$gen/math_ablation_ch10.md" || { echo "book: the ch10 math table from $f failed" >&2; exit 1; }
done
