#!/usr/bin/env bash
# make book: regenerates every generated part of book.md and README.md from data/.
#   <!-- results:chNN --> ... <!-- end results:chNN -->   a table per machine (CSV file)
#   <!-- results:summary --> ... <!-- end results:summary -->  first vs best stage per chapter
#   <!-- include:PATH --> ... <!-- end include:PATH -->   the file PATH, verbatim
#   <!-- generated:NAME --> ... <!-- end generated:NAME -->  build/book/NAME.md (e.g. profile_summary)
# and draws the charts into data/plots (gnuplot, SVG) when gnuplot is installed.
# Nothing between the markers is typed by hand: this script overwrites it.
set -u
shopt -s nullglob
gen=build/book
mkdir -p "$gen" data/plots
csvs=(data/results/*.csv)

fmt_awk='
function ftime(ms) {
    if (ms >= 10000) return sprintf("%.1f s", ms / 1000)
    if (ms >= 1000) return sprintf("%.2f s", ms / 1000)
    if (ms >= 10) return sprintf("%.1f ms", ms)
    if (ms >= 1) return sprintf("%.2f ms", ms)
    return sprintf("%.3f ms", ms)
}
function fval(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.3g", v) }
'

# One table per chapter per CSV file.
for ch in $(awk -F, 'FNR > 1 {print $1}' "${csvs[@]}" /dev/null | sort -u); do
    out=$gen/results_$ch.md
    : > "$out"
    for f in "${csvs[@]}"; do
        grep -q "^$ch," "$f" || continue
        awk -F, -v ch="$ch" -v file="$f" "$fmt_awk"'
        FNR > 1 && $1 == ch {
            n++; stage[n] = $2; wl[n] = $3; thr[n] = $4; ms[n] = $5; val[n] = $6; unit[n] = $7; chk[n] = $8
            if (!(($9) in seen)) { seen[$9] = 1; devs = devs (devs ? "; " : "") $9 }
            date = $10
        }
        END {
            printf "*Measured on %s, %s (`%s`).*\n\n", devs, substr(date, 1, 10), file
            printf "| stage | workload | threads | time | speedup | rate | check |\n|---|---|---:|---:|---:|---:|---|\n"
            for (i = 1; i <= n; i++) {
                # rows in another unit (start-up times) have no speedup; threads 0 = a GPU stage
                sp = unit[i] == unit[1] ? sprintf("%.2fx", ms[1] / ms[i]) : "-"
                printf "| %s | %s | %s | %s | %s | %s %s | %s |\n", stage[i], wl[i], thr[i] == 0 ? "GPU" : thr[i], ftime(ms[i]), sp, fval(val[i]), unit[i], chk[i]
            }
            printf "\n"
        }' "$f" >> "$out" || { echo "book: making the $ch table from $f failed" >&2; exit 1; }
    done
done

# The summary for the README: per machine and chapter, the first and the fastest stage.
: > "$gen/results_summary.md"
for f in "${csvs[@]}"; do
    awk -F, -v file="$f" "$fmt_awk"'
    FNR > 1 {
        # the fastest row in the unit and workload of the first row (not a smaller n of a sweep)
        if (!($1 in first)) { order[++n] = $1; first[$1] = $2; firstms[$1] = $5; best[$1] = $2; bestms[$1] = $5; u[$1] = $7; wl[$1] = $3 }
        if ($7 == u[$1] && $3 == wl[$1] && $5 < bestms[$1]) { best[$1] = $2; bestms[$1] = $5 }
        if (!(($9) in seen)) { seen[$9] = 1; devs = devs (devs ? "; " : "") $9 }
        if ($8 == "FAIL") fails[$1]++
    }
    END {
        printf "*%s (`%s`)*\n\n| chapter | first stage | time | fastest stage | time | speedup | checks |\n|---|---|---:|---|---:|---:|---|\n", devs, file
        for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) if (order[k] < order[i]) { t = order[i]; order[i] = order[k]; order[k] = t }
        for (i = 1; i <= n; i++) { c = order[i]
            printf "| %s | %s | %s | %s | %s | %.1fx | %s |\n", c, first[c], ftime(firstms[c]), best[c], ftime(bestms[c]), firstms[c] / bestms[c], fails[c] ? fails[c] " FAIL" : "all ok" }
        printf "\n"
    }' "$f" >> "$gen/results_summary.md" || { echo "book: making the summary from $f failed" >&2; exit 1; }
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
for ch in ch01 ch02 ch03 ch04 ch05; do gallery $ch > "$gen/images_$ch.md"; done

# line_chart OUT CHAPTER TAG EXTRA AWK TITLE XLABEL YLABEL LOGSCALE KEY: one line
# per stage of CHAPTER in $f, its points printed by AWK (c = chapter, s = stage);
# EXTRA is one more gnuplot plot item (or empty).
line_chart() {
    local out=$1 ch=$2 tag=$3 extra=$4 prog=$5 title=$6 xlabel=$7 ylabel=$8 logscale=$9 key=${10} plot="" st
    for st in $(awk -F, -v c="$ch" '$1 == c && !seen[$2]++ {print $2}' "$f"); do
        awk -F, -v c="$ch" -v s="$st" "$prog" "$f" | sort -n > "$gen/${tag}_$st.dat"
        [ -s "$gen/${tag}_$st.dat" ] || continue
        plot="$plot${plot:+, }\"$gen/${tag}_$st.dat\" using 1:2 with linespoints lw 2 title \"$st\""
    done
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

# Charts (gnuplot, SVG), one per machine that has the data.
tools/profile_summary.sh > "$gen/profile_summary.md"
if command -v gnuplot >/dev/null; then
    for f in "${csvs[@]}"; do
        m=$(basename "$f" .csv)
        if grep -q '^ch02,' "$f"; then
            awk -F, '$1 == "ch02" {print $2, $5 / 1000}' "$f" > "$gen/ch02_$m.dat"
            bar_chart "data/plots/ch02_builds_$m.svg" "ch02: card.c, one build per bar (lower is faster)" \
                "seconds, 512x512 at 64 spp" "unset key" "\"$gen/ch02_$m.dat\" using 0:2:xtic(1) with boxes lc rgb \"#4477aa\""
        fi
        if grep -q '^ch03,' "$f"; then
            # one line per stage: threads, Msamples/s
            line_chart "data/plots/ch03_sweep_$m.svg" ch03 "ch03_$m" "" \
                '$1 == c && $2 == s {print $4, $6}' "ch03: samples per second against threads" threads \
                "Msamples/s (higher is better)" "x 2" "left top"
        fi
        if grep -q '^ch06,' "$f"; then
            awk -F, '$1 == "ch06" {print $2, $6}' "$f" > "$gen/ch06_$m.dat"
            copy=$(sed -n 's/^copy bandwidth[^:]*: \([0-9.]*\) GB\/s.*/\1/p' "data/results/$m/ch06.txt" 2>/dev/null)
            line=""
            [ -n "$copy" ] && line=", $copy with lines lw 2 dt 2 lc rgb \"#cc3311\" title \"measured copy bandwidth (read + write)\""
            bar_chart "data/plots/ch06_bandwidth_$m.svg" "ch06: reduction of 2^28 int32, GB/s of input read per stage" \
                "GB/s (log scale)" "set logscale y; set key left top" \
                "\"$gen/ch06_$m.dat\" using 0:2:xtic(1) with boxes lc rgb \"#4477aa\" title \"stage\"$line"
        fi
        if grep -q '^ch07,gpu-' "$f"; then
            # one line per GPU stage: n (from the workload), GFLOP/s; the FP32 peak
            # from a single-GPU row of the program's table: rate / (% of peak)
            peak=$(awk '/^gpu-tiled-ftz / {for (k = 1; k <= NF; k++) if ($k ~ /%$/ && $(k+1) == "of") {p = $k; sub("%", "", p); print $5 / p * 100; exit}}' "data/results/$m/ch07.txt" 2>/dev/null)
            extra=""
            [ -n "$peak" ] && extra="$peak with lines dt 2 lw 2 lc rgb \"#cc3311\" title \"FP32 peak (clocks x lanes x 2)\""
            line_chart "data/plots/ch07_gflops_$m.svg" ch07 "ch07_$m" "$extra" \
                '$1 == c && $2 == s && s ~ /^gpu-/ {split($3, w, "[= ]"); print w[2], $6}' \
                "ch07: GFLOP/s (20 flops per interaction) against the number of bodies" "bodies n" \
                "GFLOP/s (log scale)" "xy" "right bottom"
        fi
        if grep -q '^ch01,' "$f" && grep -q '^ch05,' "$f"; then
            # The through-line: the fastest time of each raytracer chapter, same
            # workload; ch05's less-work and start-up rows left out.
            awk -F, '$1 ~ /^ch0[1-5]$/ && $3 == "512x512x64spp" && $7 == "Msamples/s" && $2 != "bounding-box" {
                         if (!($1 in best) || $5 < best[$1]) { best[$1] = $5; name[$1] = $2 } }
                     END { for (c in best) print c, best[c] / 1000, c "\\n" name[c] }' "$f" | sort > "$gen/through_$m.dat"
            gnuplot <<GP
set terminal svg size 800,450 font "sans,11" background rgb "white"
set output "data/plots/through_line_$m.svg"
set title "The card, 512x512 at 64 spp: fastest stage of each chapter"
set bmargin 5
set ylabel "seconds (log scale)"
set logscale y
set style fill solid 0.8
set boxwidth 0.6
set grid ytics
unset key
plot "$gen/through_$m.dat" using 0:2:xtic(3) with boxes lc rgb "#228833", "" using 0:(\$2*1.3):(sprintf("%.3g s", \$2)) with labels
GP
        fi
    done
else
    echo "book: gnuplot not installed: charts not redrawn (apt-get install gnuplot-nox)"
fi

# Splice generated text between the markers.
splice() {
    local file=$1 tmp
    tmp=$(mktemp)
    awk -v gen="$gen" '
    function emit(path,   line) { while ((getline line < path) > 0) print line; close(path) }
    match($0, /<!-- (results|include|generated):[^ ]+ -->/) {
        print
        split(substr($0, RSTART + 5, RLENGTH - 9), kv, ":")
        path = kv[1] == "results" ? gen "/results_" kv[2] ".md" : kv[1] == "generated" ? gen "/" kv[2] ".md" : kv[2]
        fence = path ~ /\.txt$/
        if ((getline probe < path) > 0) { close(path); if (fence) print "```"; emit(path); if (fence) print "```" }
        else print "*(no data yet: run `make bench`, then `make book`)*"
        skipping = 1; endmark = "<!-- end " kv[1] ":" kv[2] " -->"
        next
    }
    skipping && index($0, endmark) { skipping = 0; print; next }
    !skipping { print }
    ' "$file" > "$tmp" && mv "$tmp" "$file"
}
for doc in book.md README.md; do
    [ -f "$doc" ] && splice "$doc"
done
echo "book: tables, includes and charts regenerated from ${#csvs[@]} results file(s)"
