#!/usr/bin/env bash
# ch07's part of `make book` (sourced by tools/book.py, with gen at hand): the
# output stages' timeline (bench_extra.sh's ch07-timeline.csv, per machine)
# drawn with gnuplot as one bar per operation: the compute stream, the copy
# stream and the host's reads, for gpu-output-pageable above
# gpu-output-overlap, on one time axis each.
: > "$gen/timeline_ch07.md"
for tl in data/results/*/ch07-timeline.csv; do
    [ -f "$tl" ] || continue
    m=$(basename "$(dirname "$tl")")
    svg=data/plots/ch07_timeline_$m.svg
    if command -v gnuplot > /dev/null; then
        # one row per operation: x centre, y, half width, half height, colour
        awk -F, 'NR > 1 {
            base = $1 == "gpu-output-pageable" ? 4 : 0
            y = base + (2 - $3)
            c = $4 == "forces" ? 1 : $4 == "integrate" ? 2 : $4 == "snapshot" ? 3 : $4 == "copy" ? 4 : $4 == "read" ? 5 : 6
            printf "%.5f %d %.5f 0.35 %d\n", ($5 + $6) / 2, y, ($6 - $5) / 2, c
        }' "$tl" > "$gen/ch07_timeline.dat"
        gnuplot <<GP || { echo "book: the ch07 timeline failed" >&2; exit 1; }
set terminal svg size 900,360 font "sans,11" background rgb "white"
set colorsequence podo
set output "$svg"
set title "ch07: 8 steps of 4096 bodies with each step's positions read by the host ($m)"
set xlabel "time from the first step's start (ms; CUDA events on the GPU, the host's clock for its reads)"
set ytics ("overlap: host" 0, "overlap: copy stream" 1, "overlap: compute" 2, "pageable: host" 4, "pageable: compute" 6)
set yrange [-0.8:6.8]
set grid xtics
set style fill solid 0.85 noborder
set palette defined (1 "#4477aa", 2 "#66ccee", 3 "#228833", 4 "#ee6677", 5 "#aa3377", 6 "#bbbbbb")
set cbrange [1:6]
unset colorbox
set key off
set label 1 "blue: forces  light blue: integrate  green: snapshot  red: copy to the host  purple: the host reads" at graph 0.01, graph -0.22 font "sans,10"
set bmargin 5
plot "$gen/ch07_timeline.dat" using 1:2:3:4:5 with boxxyerror lc palette
GP
    fi
    {
        echo "*The output stages' timeline on \`$m\` (\`$tl\`, from \`make bench\`):*"
        echo
        # (linked only where the chart is: drawn here, or committed)
        if [ -f "$svg" ]; then printf '![ch07 output timeline](%s)\n\n' "$svg"; fi
    } >> "$gen/timeline_ch07.md"
done
# The issue-slot ceiling in the target's units, per profiled stage, for the
# chapter's limit argument (issue_slots.sh says how it is computed).
"$(dirname "${BASH_SOURCE[0]}")/issue_slots.sh" > "$gen/issue_slots_ch07.md" ||
    { echo "book: chapters/ch07_nbody/issue_slots.sh failed" >&2; exit 1; }
