#!/usr/bin/env bash
# ch01's part of `make book` (sourced by tools/book.py, with its variables at
# hand: csvs, gen, fmt_awk): the source article's steps beside the course's stages.
# The source article's own steps (data/reference/article_steps.csv: its
# figures, its machine, its clocks) beside this course's corresponding stage,
# per results file that has them, at the standard workload. Threads "max": the
# stage's row with the most threads. The results' columns are read by name
# (tools/columns.sh).
# shellcheck source=tools/columns.sh
. tools/columns.sh
: > "$gen/article_steps.md"
for f in "${csvs[@]}"; do
    csv_columns "$f" chapter stage workload threads median_ms unit || exit 1
    awk -F, "${cols[@]}" 'NR > 1 { has[$c_chapter] = 1 } END { exit !(has["ch05"] && has["ch01"]) }' "$f" || continue
    awk -F, "${cols[@]}" -v file="$f" "$fmt_awk"'
    FNR == NR { if (FNR > 1) { n++; step[n] = $1; ams[n] = $2; aclock[n] = $3; ch[n] = $4; st[n] = $5; th[n] = $6 } next }
    FNR > 1 && ($c_workload == "512x512x64spp" || $c_stage ~ /^process/) {
        key = $c_chapter SUBSEP $c_stage
        if ($c_threads > maxthr[key] || !(key in ms0)) maxthr[key] = $c_threads
        ms[key, $c_threads] = $c_median_ms; ms0[key] = 1
        clock[key] = $c_threads == 0 ? ($c_unit == "ms" ? "whole process (wall)" : "kernel (events)") : "wall time of the render"
    }
    END {
        printf "*The article (its Ryzen 5 2600 and GTX 1050 Ti) and this course (`%s`):*\n\n", file
        printf "| the article\x27s step | its time | its clock | this course\x27s stage | time | clock |\n|---|---:|---|---|---:|---|\n"
        for (i = 1; i <= n; i++) {
            key = ch[i] SUBSEP st[i]; t = th[i] == "max" ? maxthr[key] : th[i]
            ours = (key, t) in ms ? ftime(ms[key, t]) : "-"
            printf "| %s | %s | %s | %s %s%s | %s | %s |\n", step[i], ftime(ams[i]), aclock[i], ch[i], st[i],
                   th[i] == "max" ? " (" t " threads)" : "", ours, (key in clock) ? clock[key] : "-"
        }
        printf "\n"
    }' data/reference/article_steps.csv "$f" >> "$gen/article_steps.md" || { echo "book: the article table from $f failed" >&2; exit 1; }
done
