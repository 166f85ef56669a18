#!/usr/bin/env bash
# ch08's part of `make book` (sourced by tools/book.py, with its variables at
# hand: csvs, gen, fmt_awk): the smallpt report's steps beside ch08's stages.
# The smallpt report's own steps (data/reference/smallpt_report_steps.csv:
# its figures at 1024x768, its machine) beside ch08's stages, as rates: its
# runs were at 1000 spp, ours at the bench's workload, so times do not compare.
# The results' columns are read by name (tools/columns.sh).
# shellcheck source=tools/columns.sh
. tools/columns.sh
: > "$gen/smallpt_report.md"
for f in "${csvs[@]}"; do
    csv_columns "$f" chapter stage workload value unit || exit 1
    awk -F, "${cols[@]}" 'NR > 1 && $c_chapter == "ch08" && $c_unit == "Msamples/s" { found = 1; exit } END { exit !found }' "$f" || continue
    # the original as make smallpt-vs-port ran it on this machine (its first line: size, spp, whole-process ms)
    svp=${f%.csv}/smallpt-vs-port.txt original=
    [ -f "$svp" ] && original=$(head -n1 "$svp" | sed -n 's/^# smallpt-vs-port: \([0-9]*\)x\([0-9]*\) at \([0-9]*\) spp;.* \([0-9]*\) ms$/\1 \2 \3 \4/p')
    awk -F, "${cols[@]}" -v file="$f" -v original="$original" -v svp="$svp" "$fmt_awk"'
    FNR == NR { if (FNR > 1) { n++; step[n] = $1; t[n] = $2; spp[n] = $3; rate[n] = $4; src[n] = $5; ours[n] = $6 } next }
    FNR > 1 && $c_chapter == "ch08" && $c_unit == "Msamples/s" && !(($c_stage) in value) { value[$c_stage] = $c_value; wl[$c_stage] = $c_workload }
    END {
        printf "*The smallpt report\x27s figures (1024x768; its own machine unless said) beside ch08\x27s stages (`%s`):*\n\n", file
        printf "| the report\x27s step | where | its time | its Msamples/s | ch08 stage | Msamples/s |\n|---|---|---:|---:|---|---:|\n"
        for (i = 1; i <= n; i++) {
            r = rate[i] != "" ? rate[i] : (t[i] != "" && spp[i] != "" ? 1024 * 768 * spp[i] / (t[i] * 1e6) : "")
            mine = ours[i] != "" && (ours[i] in value) ? fval(value[ours[i]]) " (" wl[ours[i]] ")" : "-"
            printf "| %s | %s | %s | %s | %s | %s |\n", step[i], src[i], t[i] != "" ? ftime(t[i] * 1000) " at " spp[i] " spp" : "-",
                   r != "" ? fval(r) : "-", ours[i] != "" ? ours[i] : "(the quality table)", mine
        }
        if (split(original, o, " ") == 4)
            printf "| Beason\x27s program, g++ -O3 -fopenmp, whole process | this machine (`%s`) | %s at %d spp (%dx%d) | %s | cpu-threads | %s |\n",
                   svp, ftime(o[4]), o[3], o[1], o[2], fval(o[1] * o[2] * o[3] / (o[4] * 1e3)),
                   ("cpu-threads" in value) ? fval(value["cpu-threads"]) " (" wl["cpu-threads"] ")" : "-"
        printf "\n"
    }' data/reference/smallpt_report_steps.csv "$f" >> "$gen/smallpt_report.md" || { echo "book: the smallpt report table from $f failed" >&2; exit 1; }
done
