#!/usr/bin/env bash
# make ch02-instructions: instructions.sh PROGRAM CSV BUILD...
# The instructions each build executes to render the card, counted by
# Valgrind's callgrind inside that build's card_render alone (64x64 at 8 spp:
# 1/512 of the standard 512x512 at 64 spp; the count grows with the samples).
# A count is exact where a time on a shared machine varies by 5-10%. Beside
# it, each build's median time from this machine's bench CSV (the standard
# workload), and the rate that makes: instructions (x 512) per second.
# A build Valgrind cannot run (AVX-512 from -march=native) says so. The CSV's
# columns are read by name (tools/columns.sh); no CSV: no times.
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/../../tools/columns.sh"
program=$1 csv=$2
shift 2
timed=
if [ -f "$csv" ]; then csv_columns "$csv" chapter stage workload median_ms || exit 1; timed=1; fi
echo "| build | instructions per render, 64x64 at 8 spp | of gcc-O0's | median time, 512x512 at 64 spp | G instructions/s |"
echo "|---|---:|---:|---:|---:|"
base=
for build in "$@"; do
    out=$(mktemp)
    symbol=card_render_${build//-/_}
    if valgrind --tool=callgrind --toggle-collect="$symbol" --callgrind-out-file="$out" "$program" --stage "$build" \
        --width 64 --height 64 --spp 8 --repeat 1 --quiet --out "$out.ppm" > /dev/null 2> "$out.log"; then
        # totals over the calls of card_render (callgrind names a function once, then by its number)
        ir=$(awk -v sym="$symbol" '
            /^totals:/ { total = $2 }
            /^c?fn=/ { cur = $0; sub(/^c?fn=/, "", cur); split(cur, f, " "); id = f[1]; if (f[2] == sym) want = id }
            /^cfn=/ { next_is = (id == want) }
            /^calls=/ { if (next_is) { split($0, c, /[= ]/); calls += c[2] } }
            END { if (calls > 0) printf "%.0f", total / calls }' "$out")
    else
        ir=
    fi
    ms=
    [ -z "$timed" ] ||
        ms=$(awk -F, "${cols[@]}" -v s="$build" '$c_chapter == "ch02" && $c_stage == s && $c_workload ~ /^512x512x64/ { ms = $c_median_ms } END { print ms }' "$csv" 2>/dev/null)
    if [ -z "$ir" ]; then
        why="not counted"
        grep -q "unhandled instruction" "$out.log" && why="not counted: Valgrind cannot run one of its instructions"
        # 0x62 starts an EVEX-encoded (AVX-512) instruction
        grep -q "unhandled instruction bytes: 0x62" "$out.log" && why="$why (AVX-512, from -march=native)"
        printf '| %s | %s | - | %s | - |\n' "$build" "$why" "${ms:+$(awk -v m="$ms" 'BEGIN { printf "%.2f s", m / 1000 }')}"
    else
        [ -n "$base" ] || base=$ir
        awk -v b="$build" -v ir="$ir" -v base="$base" -v ms="$ms" 'BEGIN {
            printf "| %s | %.4g | %.2f | %s | %s |\n", b, ir, ir / base, ms ? sprintf("%.2f s", ms / 1000) : "-",
                   ms ? sprintf("%.2f", ir * 512 / (ms * 1e-3) / 1e9) : "-" }'
    fi
    rm -f "$out" "$out.ppm" "$out.log"
done
