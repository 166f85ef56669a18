#!/usr/bin/env bash
# ch08's part of `make book` (sourced by tools/book.sh, with its variables at
# hand: csvs, gen, fmt_awk): the smallpt report's steps beside ch08's stages.
# The smallpt report's own steps (data/reference/smallpt_report_steps.csv:
# its figures at 1024x768, its machine) beside ch08's stages, as rates: its
# runs were at 1000 spp, ours at the bench's workload, so times do not compare.
: > "$gen/smallpt_report.md"
for f in "${csvs[@]}"; do
    grep -q '^ch08,.*,Msamples/s,' "$f" || continue
    awk -F, -v file="$f" "$fmt_awk"'
    FNR == NR { if (FNR > 1) { n++; step[n] = $1; t[n] = $2; spp[n] = $3; rate[n] = $4; src[n] = $5; ours[n] = $6 } next }
    FNR > 1 && $1 == "ch08" && $7 == "Msamples/s" && !(($2) in value) { value[$2] = $6; wl[$2] = $3 }
    END {
        printf "*The smallpt report\x27s figures (1024x768; its own machine unless said) beside ch08\x27s stages (`%s`):*\n\n", file
        printf "| the report\x27s step | where | its time | its Msamples/s | ch08 stage | Msamples/s |\n|---|---|---:|---:|---|---:|\n"
        for (i = 1; i <= n; i++) {
            r = rate[i] != "" ? rate[i] : (t[i] != "" && spp[i] != "" ? 1024 * 768 * spp[i] / (t[i] * 1e6) : "")
            mine = ours[i] != "" && (ours[i] in value) ? fval(value[ours[i]]) " (" wl[ours[i]] ")" : "-"
            printf "| %s | %s | %s | %s | %s | %s |\n", step[i], src[i], t[i] != "" ? ftime(t[i] * 1000) " at " spp[i] " spp" : "-",
                   r != "" ? fval(r) : "-", ours[i] != "" ? ours[i] : "(the quality table)", mine
        }
        printf "\n"
    }' data/reference/smallpt_report_steps.csv "$f" >> "$gen/smallpt_report.md" || { echo "book: the smallpt report table from $f failed" >&2; exit 1; }
done
