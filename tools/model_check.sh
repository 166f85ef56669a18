#!/usr/bin/env bash
# The programs' work models against the counters, per device (data/profiles/<machine>/).
# A program prints a rate from a model of the work it did: ch06 the bytes of
# its input (GB/s), ch07 20 flops per interaction (GFLOP/s). Each profile holds
# the program's own row from the profiled run, so the model's work is that
# row's rate times its time (whatever the profiler's overhead did to the time,
# the product is the modelled work); the counter is what Nsight Compute counted
# in the same run: DRAM bytes read for GB/s, FP32 operations (FADD + FMUL +
# 2 FFMA) for GFLOP/s. No list of chapters: every profiled stage whose row is in
# GB/s or GFLOP/s is checked. Within TOLERANCE the model holds; outside it the
# row says so, and the counted figure is the one the book reads.
# Prints Markdown; with --check, exits 1 if a report in one of the two units
# lacks its counter or its row (a table that silently skipped it would pass).
# A GFLOP/s row whose kernel kept the tensor pipe busy (over 1%) is left out:
# its multiply-adds are tensor-core instructions, which no FP32 counter counts.
set -u
shopt -s nullglob
TOLERANCE=0.05
check=no
[ "${1:-}" = --check ] && check=yes
missing=0
for dir in data/profiles/*/; do
    reports=("$dir"ch[0-9][0-9]_*.txt)
    [ ${#reports[@]} -gt 0 ] || continue
    device=$(sed -n '1s/^# device: \([^,]*\),.*/\1/p' "${reports[@]}" | sort -u | head -n1)
    table=""
    for f in "${reports[@]}"; do
        line=$(awk -v name="$(basename "$f" .txt)" -v tol="$TOLERANCE" '
        function num(s) { gsub(",", "", s); return s + 0 }
        function last(line,   k, a) { k = split(line, a, " "); return num(a[k]) }
        function bytes(line,   k, a, u) { k = split(line, a, " "); u = a[k - 1]
            return num(a[k]) * (u == "Tbyte" ? 1e12 : u == "Gbyte" ? 1e9 : u == "Mbyte" ? 1e6 : u == "Kbyte" ? 1e3 : 1) }
        BEGIN { stage = name; sub(/^ch[0-9]+_/, "", stage) }
        /op_fadd_pred_on.sum/ || /op_fmul_pred_on.sum/ { fp32 += last($0); nf++ }
        /op_ffma_pred_on.sum/ { fp32 += 2 * last($0); nf++ }
        /dram__bytes_read.sum/ { dram = bytes($0); nd++ }
        /pipe_tensor_op_hmma_cycles_active/ { tensor = last($0) }
        $1 == stage && !row { # the program'"'"'s own row: stage threads time spread (1 or 2 fields) speedup value unit check
            for (k = 6; k <= 8; k++) if (($k == "GB/s" || $k == "GFLOP/s") && $(k + 1) ~ /^(ok|FAIL)$/) {
                unit = $k; model = $3 * 1e-3 * $(k - 1) * 1e9; row = 1 }
        }
        END {
            if (!row) exit
            if (unit == "GFLOP/s" && tensor > 1) exit # multiply-adds on the tensor cores: no FP32 counter counts them
            if (unit == "GB/s" && nd) { counted = dram; what = "DRAM bytes read" }
            else if (unit == "GFLOP/s" && nf == 3) { counted = fp32; what = "FP32 operations" }
            else { print "MISSING " name; exit }
            r = counted / model
            printf "| %s | %s | %.4g | %.4g | %.2f | %s |\n", name, what, model, counted, r,
                   (r >= 1 - tol && r <= 1 + tol) ? "the model holds" : (r > 1 ? "more than the model: read the counter" : "less than the model: read the counter")
        }' "$f")
        case $line in
            MISSING*) echo "model_check: ${line#MISSING } has a rate but not its counter" >&2; missing=1 ;;
            ?*) table="$table$line"$'\n' ;;
        esac
    done
    [ -n "$table" ] || continue
    printf '\n*The programs'"'"' work models against Nsight Compute'"'"'s counts on the %s (`%s`): the model is the row'"'"'s rate times its time in the profiled run; within %.0f%% it holds.*\n\n' \
        "$device" "${dir%/}" "$(awk -v t=$TOLERANCE 'BEGIN {print 100 * t}')"
    echo "| profile | counted | model | counted | counted / model | verdict |"
    echo "|---|---|---:|---:|---:|---|"
    printf '%s' "$table"
done
[ $check = yes ] && [ $missing = 1 ] && exit 1
exit 0
