#!/usr/bin/env bash
# make book: regenerates every generated part of book.md and README.md from data/.
#   <!-- results:chNN --> ... <!-- end results:chNN -->   a table per CSV file, of one machine (refused otherwise)
#   <!-- generated:quality_chNN --> ...                  time to MSE < 52 per stage (rows in unit "MSE")
#   <!-- results:summary --> ... <!-- end results:summary -->  first vs best stage per chapter, a table per machine
#   <!-- generated:provenance --> ...                    each CSV file's machines, runs, commits, dates, chapters
#   <!-- include:PATH --> ... <!-- end include:PATH -->   the file PATH, verbatim (missing or empty: an error)
#   <!-- generated:NAME --> ... <!-- end generated:NAME -->  build/book/NAME.md (e.g. profile_summary;
#                                                          toc: the contents, from book.md's headings)
# and draws the charts into data/plots (gnuplot, SVG) when gnuplot is installed.
# Every table's heading names the machine and the runs its rows come from, and
# a row measured before its chapter's code last changed is marked stale: read
# from the rows' provenance columns (tools/provenance.sh), never typed by hand.
# The book links every chart that is in data/plots, drawn now or committed:
# the same committed data make the same book.md and README.md on any machine
# (tests/tools/book_without_tools.sh: without gnuplot and clang).
# Nothing between the markers is typed by hand: this script overwrites it.
# Which chapters exist, which are raytracers and which chart each wants come
# from the chapter registry; every number comes from the CSV files, where a
# ceiling or a start-up time is a row of its own with check "n/a".
set -u
export LC_ALL=C # the same book on every machine: globs and sorts in byte order, whatever the locale
shopt -s nullglob
eval "$(make -s print-registry)" || { echo "book: cannot read the chapter registry" >&2; exit 2; }
# Every chapter of the course, those this machine cannot build too (ch11
# without an MPI): the book is made from the committed data, not from the build.
CHAPTERS=$COURSE_CHAPTERS EXERCISES=$COURSE_EXERCISES
gen=build/book
mkdir -p "$gen" data/plots
csvs=(data/results/*.csv)

# Where each row came from (tools/provenance.sh): which rows are stale, the
# provenance block, the headings that name machine and runs.
# shellcheck source=tools/provenance.sh
source tools/provenance.sh || { echo "book: cannot read tools/provenance.sh" >&2; exit 2; }
prov_stale_map "${csvs[@]}" > "$gen/stale.txt" || { echo "book: cannot tell which rows are stale (tools/provenance.sh)" >&2; exit 1; }
prov_block "$gen/stale.txt" "${csvs[@]}" > "$gen/provenance.md" || { echo "book: making the provenance block failed" >&2; exit 1; }

# What work each stage does: its row's tag work=LABEL (common/stage.h), one
# line "chapter stage label" per tagged stage in $gen/work_<machine>.txt. A
# speedup compares rows of one work only; untagged rows do the chapter's first
# stage's work. The tags are read from the stage lists make bench keeps beside
# each machine's rows (data/results/<machine>/chNN-stages.tsv: the program's
# --list-stages at that run), never from the programs built here: a build may
# lack stages the data has (ch09 without clang has no *-clang stages), and the
# book must be the same from the same committed data on any machine. A chapter
# benched before bench kept its list falls back to the program built here, and
# says so.
work_tags() { # MACHINE
    local m=$1 ch list stages
    for ch in $(awk -F, 'FNR > 1 {print $1}' "data/results/$m.csv" | sort -u); do
        list=data/results/$m/$ch-stages.tsv stages=
        if [ -f "$list" ]; then
            stages=$(cat "$list") || return 1
        elif [ -x "./$ch" ]; then
            echo "book: no $list (make bench keeps it): $ch's work= tags taken from ./$ch as built here" >&2
            stages=$("./$ch" --list-stages) || { echo "book: ./$ch --list-stages failed" >&2; return 1; }
        else
            echo "book: no $list (make bench keeps it) and ./$ch is not built: $ch's stages taken as untagged" >&2
        fi
        printf '%s\n' "$stages" | awk -F'\t' -v ch="$ch" 'match($5, /(^| )work=[^ ]+/) {
            label = substr($5, RSTART, RLENGTH); sub(/^ ?work=/, "", label); print ch, $1, label }' || return 1
    done
}
for f in "${csvs[@]}"; do
    m=$(basename "$f" .csv)
    work_tags "$m" > "$gen/work_$m.txt" || exit 1
done

fmt_awk='
function load_work(path,   line, f) { # work[chapter, stage] = the label of a tagged stage
    while ((getline line < path) > 0) { split(line, f, " "); work[f[1], f[2]] = f[3] }
    close(path)
}
function ftime(ms) {
    if (ms >= 10000) return sprintf("%.1f s", ms / 1000)
    if (ms >= 1000) return sprintf("%.2f s", ms / 1000)
    if (ms >= 10) return sprintf("%.1f ms", ms)
    if (ms >= 1) return sprintf("%.2f ms", ms)
    return sprintf("%.3f ms", ms)
}
function fval(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.3g", v) }
'"$prov_awk"

# line_chart OUT CHAPTER TAG EXTRA AWK TITLE XLABEL YLABEL LOGSCALE KEY: one line
# per stage of CHAPTER in $f, its points printed by AWK (c = chapter, s = stage);
# EXTRA is one more gnuplot plot item (or empty).
line_chart() {
    local out=$1 ch=$2 tag=$3 extra=$4 prog=$5 title=$6 xlabel=$7 ylabel=$8 logscale=$9 key=${10} plot="" st
    for st in $(awk -F, -v c="$ch" '$1 == c && !seen[$2]++ {print $2}' "$f"); do
        awk -F, -v c="$ch" -v s="$st" -v w="${wl:-}" "$prog" "$f" | sort -n > "$gen/${tag}_$st.dat"
        [ -s "$gen/${tag}_$st.dat" ] || continue
        plot="$plot${plot:+, }\"$gen/${tag}_$st.dat\" using 1:2 with linespoints lw 2 title \"$st\""
    done
    [ -n "$plot" ] || return 0 # no stage of this kind on this machine
    [ -n "$extra" ] && plot="$plot, $extra"
    gnuplot <<GP
set terminal svg size 800,450 font "sans,11" background rgb "white"
set output "$out"
set title "$title"
set xlabel "$xlabel"
set ylabel "$ylabel"
set logscale $logscale
set grid
set key $key
plot $plot
GP
}

# bar_chart OUT TITLE YLABEL SETTINGS PLOT: one bar per stage, names slanted below.
bar_chart() {
    gnuplot <<GP
set terminal svg size 900,450 font "sans,11" background rgb "white"
set output "$1"
set title "$2"
set ylabel "$3"
set style fill solid 0.8
set boxwidth 0.7
set xtics rotate by -40 left
set grid ytics
$4
plot $5
GP
}

# reference_lines CHAPTER UNIT: gnuplot plot items, one dashed line per
# reference row (check n/a) of CHAPTER in UNIT in $f, at its value, named.
reference_lines() {
    awk -F, -v c="$1" -v u="$2" '$1 == c && $8 == "n/a" && $7 == u && !seen[$2]++ {
        printf ", %s with lines dt 2 lw 2 title \"%s (%s)\"", $6, $2, $3 }' "$f"
}

# chart CHAPTER: the chart the chapter registers (chNN_CHART), for $f.
chart() {
    local ch=$1 kind title ylabel out unit
    kind=${ch}_CHART title=${ch}_CHART_TITLE ylabel=${ch}_CHART_YLABEL
    out=data/plots/${ch}_$m.svg
    unit=$(awk -F, -v c="$ch" '$1 == c && $8 != "n/a" {print $7; exit}' "$f")
    # the chart shows the standard workload: the first row's (spread runs at a smaller one stay in the table)
    wl=$(awk -F, -v c="$ch" '$1 == c && $8 != "n/a" {print $3; exit}' "$f")
    case ${!kind} in
    bar | bar-log)
        local value='$5 / 1000' settings="unset key"
        [ "${!kind}" = bar-log ] && value='$6' settings="set logscale y; set key left top"
        awk -F, -v c="$ch" -v w="$wl" "\$1 == c && \$3 == w && \$8 != \"n/a\" {print \$2, $value}" "$f" > "$gen/${ch}_$m.dat"
        bar_chart "$out" "${!title}" "${!ylabel}" "$settings" \
            "\"$gen/${ch}_$m.dat\" using 0:2:xtic(1) with boxes lc rgb \"#4477aa\" title \"stage\"$(reference_lines "$ch" "$unit")" ;;
    lines-threads)
        line_chart "$out" "$ch" "${ch}_$m" "" '$1 == c && $2 == s && $3 == w && $8 != "n/a" {print $4, $6}' \
            "${!title}" threads "${!ylabel}" "x 2" "left top" ;;
    lines-quality)
        line_chart "$out" "$ch" "${ch}_$m" "52 with lines dt 2 lw 2 title \"MSE 52 (the report's bar)\"" \
            '$1 == c && $2 == s && $7 == "MSE" && $3 ~ /^1024x768x/ {print $5 / 1000, $6}' \
            "${!title}" "kernel time, s (log scale)" "${!ylabel}" "xy" "right top" ;;
    lines-n)
        local refs
        refs=$(reference_lines "$ch" "$unit")
        line_chart "$out" "$ch" "${ch}_$m" "${refs#, }" \
            '$1 == c && $2 == s && s !~ /^cpu-/ && $8 != "n/a" {split($3, part, "[= ]"); print part[2], $6}' \
            "${!title}" "bodies n" "${!ylabel}" "xy" "right bottom" ;;
    esac
}

# Charts (gnuplot, SVG), one per machine that has the data, drawn before the
# tables: the book links each chart that is in data/plots, drawn now or
# committed, so a machine without gnuplot writes the same book.
charts="charts redrawn"
if command -v gnuplot >/dev/null; then
    for f in "${csvs[@]}"; do
        m=$(basename "$f" .csv)
        for ch in $CHAPTERS; do
            kind=${ch}_CHART
            [ -n "${!kind}" ] && grep -q "^$ch," "$f" && chart "$ch"
        done
        # The through-line: the fastest stage of each raytracer chapter at the
        # standard workload, one series per clock (CPU wall time, GPU kernel
        # time, and the whole process of the fastest GPU stage), never mixed.
        awk -F, -v ray=" $(for c in $CHAPTERS; do v=${c}_RAYTRACER; [ "${!v}" = yes ] && printf '%s ' "$c"; done)" '
            index(ray, " " $1 " ") && $3 == "512x512x64spp" && $7 == "Msamples/s" && $2 != "bounding-box" && $8 == "ok" {
                clock = $4 == 0 ? "kernel" : "wall"
                if (!(($1, clock) in best) || $5 < best[$1, clock]) { best[$1, clock] = $5; name[$1, clock] = $2 } }
            END { for (k in best) { split(k, p, SUBSEP); print p[1] "-" p[2], best[k] / 1000, p[1] "\\n" name[k] } }' \
            "$f" | sort > "$gen/through_$m.dat"
        if [ -s "$gen/through_$m.dat" ]; then
            awk -F, '$2 == "process-fastest-stage-only" {print $1 "-process", $5 / 1000, $1 "\\nwhole-process"}' "$f" >> "$gen/through_$m.dat"
            plot="" offset=0
            for series in "wall:#228833:CPU: wall time of the render" "kernel:#4477aa:GPU: kernel time (events)" \
                "process:#cc6677:GPU: whole process, start-up included"; do
                IFS=: read -r clock colour label <<<"$series"
                awk -v c="-$clock" '$1 ~ c "$"' "$gen/through_$m.dat" > "$gen/through_${clock}_$m.dat"
                [ -s "$gen/through_${clock}_$m.dat" ] || continue
                plot="$plot${plot:+, }\"$gen/through_${clock}_$m.dat\" using (\$0 + $offset):2:xtic(3) with boxes lc rgb \"$colour\" title \"$label\""
                offset=$((offset + $(wc -l < "$gen/through_${clock}_$m.dat")))
            done
            gnuplot <<GP
set terminal svg size 900,450 font "sans,11" background rgb "white"
set output "data/plots/through_line_$m.svg"
set title "The card, 512x512 at 64 spp: fastest stage of each chapter, by clock"
set bmargin 6
set ylabel "seconds (log scale)"
set logscale y
set style fill solid 0.8
set boxwidth 0.6
set grid ytics
set key top right
plot $plot
GP
        fi
    done
else
    charts="charts NOT redrawn: gnuplot is not installed (apt-get install gnuplot-nox)"
fi

# chart_link CHAPTER MACHINE: the chapter's chart on that machine, if it is in
# data/plots (drawn above, or committed), as a Markdown image. (Its words come
# from the arguments only: a chapter the registry lacks here, ch11 without an
# MPI, gets the same line.)
chart_link() {
    local svg=data/plots/${1}_$2.svg
    if [ -f "$svg" ]; then printf '![%s chart, %s](%s)\n\n' "$1" "$2" "$svg"; fi
}
# The through-line charts, one per machine: build/book/through_line.md.
: > "$gen/through_line.md"
for f in "${csvs[@]}"; do
    m=$(basename "$f" .csv)
    if [ -f "data/plots/through_line_$m.svg" ]; then
        printf '*On `%s` (`%s`):*\n\n![through-line, %s](data/plots/through_line_%s.svg)\n\n' "$m" "$f" "$m" "$m" >> "$gen/through_line.md"
    fi
done

# One table per chapter per CSV file.
for ch in $(awk -F, 'FNR > 1 {print $1}' "${csvs[@]}" /dev/null | sort -u); do
    out=$gen/results_$ch.md
    : > "$out"
    for f in "${csvs[@]}"; do
        grep -q "^$ch," "$f" || continue
        # headed by its machine and runs (one machine only: refused otherwise), stale rows marked
        awk -F, -v ch="$ch" -v file="$f" -v worklist="$gen/work_$(basename "$f" .csv).txt" -v stalemap="$gen/stale.txt" "$fmt_awk"'
        BEGIN { load_work(worklist); prov_load(stalemap) }
        FNR > 1 && $1 == ch { prov_add() }
        FNR > 1 && $1 == ch && $7 != "MSE" && $7 != "relMSE" {
            n++; mark[n] = prov_mark(ch); stage[n] = $2; wl[n] = $3; thr[n] = $4; ms[n] = $5; val[n] = $6; unit[n] = $7; chk[n] = $8
            if (!(($9) in seen)) { seen[$9] = 1; devs = devs (devs ? "; " : "") $9 }
        }
        END {
            prov_refuse_mixed(file, ch)
            printf "*Measured on %s, %s; %s (`%s`).*\n\n", devs, prov_days(), prov_ids(), file
            printf "| stage | workload | threads | time | speedup | rate | check |\n|---|---|---:|---:|---:|---:|---|\n"
            for (i = 1; i <= n; i++) {
                # a speedup compares rows of one workload, unit and work: against the first such row
                # ("of LABEL" where the work is not that of the first stage); references (check n/a:
                # ceilings, start-up times) have none; threads 0 = a GPU stage
                w = ((ch, stage[i]) in work) ? work[ch, stage[i]] : ""
                if (i == 1) w1 = w
                key = wl[i] SUBSEP unit[i] SUBSEP w
                if (chk[i] != "n/a" && !(key in base)) base[key] = ms[i]
                sp = chk[i] != "n/a" && (key in base) ? sprintf("%.2fx%s", base[key] / ms[i], w != w1 ? " of " w : "") : "-"
                if (w != w1 && chk[i] != "n/a") others = 1
                printf "| %s | %s | %s | %s | %s | %s %s | %s |\n", stage[i] mark[i], wl[i], thr[i] == 0 ? "GPU" : thr[i], ftime(ms[i]), sp, fval(val[i]), unit[i], chk[i]
            }
            if (others)
                printf "\n*\"of LABEL\": that row does other work than the first stage (its row is tagged work=LABEL: another precision or estimator, or less work), so its speedup is against the first row of its own work; across works compare the rates.*\n"
            printf "%s", prov_notes()
            printf "\n"
        }' "$f" >> "$out" || { echo "book: making the $ch table from $f failed" >&2; exit 1; }
        # the chart under its machine's table (ch08's under its quality table)
        kind=${ch}_CHART
        [ "${!kind:-}" = lines-quality ] || chart_link "$ch" "$(basename "$f" .csv)" >> "$out"
    done
done

# Quality per second (rows in the unit "MSE": ch08's sweep), one table per
# chapter per file: for each stage, the first (lowest-spp) run whose MSE is
# below 52 (the smallpt report's bar) and the runs of the sweep.
for ch in $(awk -F, 'FNR > 1 && $7 == "MSE" {print $1}' "${csvs[@]}" /dev/null | sort -u); do
    out=$gen/quality_$ch.md
    : > "$out"
    for f in "${csvs[@]}"; do
        grep -q "^$ch,.*,MSE," "$f" || continue
        awk -F, -v ch="$ch" -v file="$f" -v stalemap="$gen/stale.txt" "$fmt_awk"'
        BEGIN { prov_load(stalemap) }
        FNR > 1 && $1 == ch { prov_add() }
        FNR > 1 && $1 == ch && ($7 == "MSE" || $7 == "relMSE") && $3 ~ /^1024x768x/ {
            if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2; mark[$2] = prov_mark(ch) }
            spp = $3; sub(/^1024x768x/, "", spp); sub(/spp$/, "", spp); spp += 0
            k = $2 SUBSEP spp
            if (!(k in ms)) { cnt[$2]++; sp[$2, cnt[$2]] = spp }
            if ($7 == "relMSE") rel[k] = $6; else { ms[k] = $5; mse[k] = $6 }
        }
        END {
            prov_refuse_mixed(file, ch " (quality)")
            printf "*Time to MSE < 52 at 1024x768 (kernel time at the smallest spp measured below it: the sweep doubles, then bisects until its bracket is at most 1.25x wide; relative MSE of the unclamped linear radiance, mean of (a - ref)^2 / (ref^2 + 0.01), against a double render at 16384 spp, whose own noise it includes; %s; `%s`):*\n\n", prov_ids(), file
            printf "| stage | spp | kernel time | MSE | relative MSE, linear | sweep (spp: MSE) |\n|---|---:|---:|---:|---:|---|\n"
            for (i = 1; i <= n; i++) {
                s = order[i]; m = cnt[s]
                for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (sp[s, b] < sp[s, a]) { t = sp[s, a]; sp[s, a] = sp[s, b]; sp[s, b] = t }
                hit = 0; list = ""
                for (a = 1; a <= m; a++) {
                    k = s SUBSEP sp[s, a]; list = list (a > 1 ? ", " : "") sp[s, a] ": " sprintf("%.0f", mse[k])
                    if (!hit && mse[k] < 52) hit = a
                }
                if (m < 2) continue
                if (hit) { k = s SUBSEP sp[s, hit]; printf "| %s | %d | %s | %.1f | %s | %s |\n", s mark[s], sp[s, hit], ftime(ms[k]), mse[k], (k in rel) ? sprintf("%.4f", rel[k]) : "-", list }
                else printf "| %s | - | not reached | - | - | %s |\n", s mark[s], list
            }
            printf "%s\n", prov_notes()
        }' "$f" >> "$out" || { echo "book: making the $ch quality table from $f failed" >&2; exit 1; }
        kind=${ch}_CHART
        [ "${!kind:-}" != lines-quality ] || chart_link "$ch" "$(basename "$f" .csv)" >> "$out"
    done
done

# The summary for the README: per machine and chapter, the first and the fastest stage.
# One table per machine (prov_groups: two machines of one name, or rows whose
# provenance is not recorded from two days, are two tables), headed by its runs.
# summary_of FILE GROUP: the summary table of GROUP, one machine's rows of FILE (prov_groups).
summary_of() {
    awk -F, -v file="$1" -v worklist="$gen/work_$(basename "$1" .csv).txt" -v stalemap="$gen/stale.txt" "$fmt_awk"'
    BEGIN { load_work(worklist); prov_load(stalemap) }
    # first pass: the GPUs (the device of every row with threads 0), so a row
    # on several GPUs (threads = the GPU count) is not taken for a CPU row
    FNR == NR { if (FNR > 1 && $4 == 0) gpu_device[$9] = 1; next }
    FNR > 1 { prov_add(); if (!($1 in chmark)) chmark[$1] = prov_mark($1) }
    FNR > 1 && $8 != "n/a" && $7 != "MSE" && $7 != "relMSE" {
        # the fastest row of the workload, unit and work of the first row (not a smaller n of a sweep,
        # not a stage doing other work); and per (workload, unit, work) the fastest CPU row (on no
        # GPU) and the fastest GPU row, for the like-for-like pair
        w = (($1, $2) in work) ? work[$1, $2] : ""
        if (!($1 in first)) { order[++n] = $1; first[$1] = $2; firstms[$1] = $5; best[$1] = $2; bestms[$1] = $5; u[$1] = $7; wl[$1] = $3; fw[$1] = w }
        if ($7 == u[$1] && $3 == wl[$1] && w == fw[$1] && $5 < bestms[$1]) { best[$1] = $2; bestms[$1] = $5 }
        k = $1 SUBSEP $3 SUBSEP $7 SUBSEP w
        if ($9 in gpu_device) { if (!(k in gms) || $5 < gms[k]) { gms[k] = $5; gname[k] = $2 }; gpu_rows[$1, $3]++ }
        else if (!(k in cms) || $5 < cms[k]) { cms[k] = $5; cname[k] = $2 }
        if (!(k in seenk)) { seenk[k] = 1; kch[++nk] = $1; kwl[nk] = $3; kw[nk] = w; kkey[nk] = k }
        if (!(($9) in seen)) { seen[$9] = 1; devs = devs (devs ? "; " : "") $9 }
        if ($8 == "FAIL") fails[$1]++
    }
    END {
        # the like-for-like pair of a chapter: at its GPU workload (the one most of its GPU rows ran:
        # the size the chapter fills the GPU with, not a point of a sweep), of the works with both
        # a CPU and a GPU row there, the one with the fastest GPU row, against its fastest CPU row
        for (j = 1; j <= nk; j++) { c = kch[j]
            if (!(c in main_wl) || gpu_rows[c, kwl[j]] > gpu_rows[c, main_wl[c]]) main_wl[c] = kwl[j] }
        for (j = 1; j <= nk; j++) { k = kkey[j]; c = kch[j]; pwl[k] = kwl[j]; pw[k] = kw[j]
            if (kwl[j] == main_wl[c] && (k in cms) && (k in gms) && (!(c in pair) || gms[k] < gms[pair[c]])) pair[c] = k }
        printf "*%s, %s; %s (`%s`)*\n\n| chapter | workload | first stage | time | fastest stage, same work | time | speedup | GPU against CPU, like for like | checks |\n|---|---|---|---:|---|---:|---:|---|---|\n", devs, prov_days(), prov_ids(), file
        for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) if (order[k] < order[i]) { t = order[i]; order[i] = order[k]; order[k] = t }
        for (i = 1; i <= n; i++) { c = order[i]; vs = "-"
            if (c in pair) { k = pair[c]; vs = sprintf("%.1fx: %s against %s, %s%s", cms[k] / gms[k], gname[k], cname[k], pwl[k], pw[k] != "" ? ", work " pw[k] : "") }
            printf "| %s | %s | %s | %s | %s | %s | %.1fx | %s | %s |\n", c chmark[c], wl[c], first[c], ftime(firstms[c]), best[c], ftime(bestms[c]), firstms[c] / bestms[c], vs, fails[c] ? fails[c] " FAIL" : "all ok" }
        printf "%s\n", prov_notes()
    }' "$2" "$2"
}
: > "$gen/results_summary.md"
for f in "${csvs[@]}"; do
    m=$(basename "$f" .csv)
    groups=$(prov_groups "$f" "$gen/groups_$m") || { echo "book: splitting $f by machine failed" >&2; exit 1; }
    for g in $groups; do
        summary_of "$f" "$g" >> "$gen/results_summary.md" || { echo "book: making the summary from $f ($g) failed" >&2; exit 1; }
    done
done

# Images: PPMs from a bench without libpng become PNGs (then the PPM goes).
for ppm in data/images/*/*.ppm; do
    png=${ppm%.ppm}.png
    if [ -n "${PPM2PNG:-}" ] && "$PPM2PNG" "$ppm" "$png" 2>/dev/null; then rm -f "$ppm"; fi
done

# Galleries: build/book/images_chNN.md. The stages of chNN in the order of the
# CSV, from the machine with the most images of chNN (the same code renders the
# same picture anywhere, so one machine is enough); then every difference image
# that bench.sh made on any machine (data/results/<machine>/image_diffs.txt),
# with its numbers, once per distinct result.
cell() { # IMAGE CAPTION WIDTH
    printf '<td align="center"><a href="%s"><img src="%s" width="%s" alt="%s"></a><br><sub>%s</sub></td>\n' "$1" "$1" "$3" "$2" "$2"
}
gallery() {
    local ch=$1 d m st n best="" most=0 name a b numbers seen=""
    for d in data/images/*/; do
        m=$(basename "$d")
        n=$(ls "$d" | grep -c "^$ch-")
        [ -f "data/results/$m.csv" ] && [ "$n" -gt "$most" ] && { most=$n; best=$m; }
    done
    if [ -n "$best" ]; then
        d=data/images/$best/
        n=0
        printf '*Each stage as `make bench` rendered it on `%s` (click for full size):*\n\n<table><tr>\n' "$best"
        for st in $(awk -F, -v c="$ch" '$1 == c && !seen[$2]++ {print $2}' "data/results/$best.csv"); do
            [ -f "$d$ch-$st.png" ] || continue
            [ $n -gt 0 ] && [ $((n % 4)) -eq 0 ] && printf '</tr><tr>\n'
            cell "$d$ch-$st.png" "$st" 160
            n=$((n + 1))
        done
        printf '</tr></table>\n\n'
    fi
    for d in data/images/*/; do
        m=$(basename "$d")
        [ -f "data/results/$m/image_diffs.txt" ] || continue
        while IFS='|' read -r name a b numbers; do
            case $name in diff-$ch-*) ;; *) continue ;; esac
            [ -f "$d$name.png" ] || continue
            numbers=${numbers% (x16 in *}
            case $seen in *"|$name $numbers|"*) continue ;; esac
            seen="$seen|$name $numbers|"
            printf '*`%s` against `%s` on `%s`: %s. Right: |difference| x 16, black where equal.*\n\n<table><tr>\n' \
                "$b" "$a" "$m" "$numbers"
            cell "$d$a.png" "$a" 220
            cell "$d$b.png" "$b" 220
            cell "$d$name.png" "difference x 16" 220
            printf '</tr></table>\n\n'
        done < "data/results/$m/image_diffs.txt"
    done
}
for ch in $CHAPTERS; do
    ray=${ch}_RAYTRACER
    [ "${!ray}" = yes ] && gallery "$ch" > "$gen/images_$ch.md"
done

# The README's chapter and exercise tables, from the registry.
{
    echo "| ch | program | what it shows |"
    echo "|----|---------|---------------|"
    for ch in $CHAPTERS; do
        t=${ch}_TITLE d=${ch}_SUMMARY
        echo "| ${ch#ch} | \`./$ch\` ${!t} | ${!d} |"
    done
} > "$gen/chapters.md"
{
    echo "| exercise | what you write | checked on |"
    echo "|---|---|---|"
    for e in $EXERCISES; do
        w=ex_${e}_WHAT o=ex_${e}_ON
        echo "| $e | ${!w} | ${!o} |"
    done
} > "$gen/exercises.md"

# Each chapter's own part of the book (chNN_BOOK_EXTRA: a script sourced
# here, with csvs, gen and fmt_awk at hand), which writes $gen/<name>.md for
# a <!-- generated:name --> section.
for ch in $CHAPTERS; do
    extra=${ch}_BOOK_EXTRA
    if [ -n "${!extra:-}" ]; then
        # shellcheck disable=SC1090 # the chapter's script
        source "${!extra}" || { echo "book: ${!extra} failed" >&2; exit 1; }
    fi
done

# The profiles' tables and the rooflines, the models checked, the host records.
tools/profile_summary.sh > "$gen/profile_summary.md"
tools/decomposition.sh > "$gen/decomposition.md"
tools/counted_flops.sh > "$gen/counted_flops.md"
tools/model_check.sh --check > "$gen/model_check.md" || { echo "book: a profile lacks the counter its rate needs (tools/model_check.sh)" >&2; exit 1; }
tools/roofline.sh "$gen" > "$gen/roofline.md" || { echo "book: the rooflines failed" >&2; exit 1; }
# Each machine's host record (make host-record), named.
: > "$gen/host_record.md"
for f in data/results/*/host.txt; do
    printf '*The host of `%s` (`%s`):*\n\n```\n' "$(basename "$(dirname "$f")")" "$f" >> "$gen/host_record.md"
    cat "$f" >> "$gen/host_record.md"
    printf '```\n\n' >> "$gen/host_record.md"
done
# The book's table of contents: a link to each chapter (##) and section (###),
# outside code fences, with the anchors Markdown renderers give headings
# (lower case, punctuation dropped, spaces as dashes, -1, -2 ... on repeats).
awk '
/^```/ { fence = !fence; next }
fence || !/^###? / || $0 == "## Contents" { next }
{
    level = index($0, " ") - 1
    title = substr($0, level + 2)
    slug = tolower(title)
    gsub(/[^a-z0-9 _-]/, "", slug)
    gsub(/ /, "-", slug)
    n = seen[slug]++
    printf "%s- [%s](#%s%s)\n", level == 3 ? "  " : "", title, slug, n ? "-" n : ""
}' book.md > "$gen/toc.md"

# Splice generated text between the markers, into DOC.new (prints its name).
# An include of a file that is missing or has no text is an error (DOC:LINE):
# the book would print nothing, or a stale placeholder, where it promises evidence.
splice() {
    local file=$1 tmp
    tmp=$(mktemp "$file.XXXXXX") && chmod --reference="$file" "$tmp" || return 1
    awk -v gen="$gen" -v doc="$file" '
    function emit(path,   line) { while ((getline line < path) > 0) print line; close(path) }
    function has_text(path,   line, rc) { # 1: a line with a non-blank character; 0: none; -1: unreadable
        while ((rc = (getline line < path)) > 0) if (line ~ /[^ \t\r]/) { close(path); return 1 }
        close(path)
        return rc < 0 ? -1 : 0
    }
    match($0, /<!-- (results|include|generated):[^ ]+ -->/) {
        print
        split(substr($0, RSTART + 5, RLENGTH - 9), kv, ":")
        path = kv[1] == "results" ? gen "/results_" kv[2] ".md" : kv[1] == "generated" ? gen "/" kv[2] ".md" : kv[2]
        fence = path ~ /\.(txt|log|err)$/ # plain text (a report, a log): shown as a code block
        text = has_text(path)
        if (kv[1] == "include" && text != 1) {
            printf "book: %s:%d: <!-- include:%s -->: %s, so the book would show nothing there (remove the include, or make the file)\n", doc, FNR, path, text < 0 ? "no such file" : "the file is empty" > "/dev/stderr"
            failed = 1; exit 1
        }
        if (text == 1) { if (fence) print "```"; emit(path); if (fence) print "```" }
        else print "*(no data yet: run `make bench`, then `make book`)*"
        skipping = 1; endmark = "<!-- end " kv[1] ":" kv[2] " -->"
        next
    }
    skipping && index($0, endmark) { skipping = 0; print; next }
    !skipping { print }
    ' "$file" > "$tmp" && echo "$tmp" || { rm -f "$tmp"; return 1; }
}
# Both documents are spliced before either is replaced: an error leaves both as they were.
news=()
for doc in book.md README.md; do
    [ -f "$doc" ] || continue
    new=$(splice "$doc") || { rm -f "${news[@]%%:*}"; echo "book: $doc not written (the error above)" >&2; exit 1; }
    news+=("$new:$doc")
done
for pair in "${news[@]}"; do
    mv "${pair%%:*}" "${pair#*:}" || exit 1
done
echo "book: tables and includes regenerated from ${#csvs[@]} results file(s); $charts"
