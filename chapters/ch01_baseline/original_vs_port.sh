#!/usr/bin/env bash
# make original-vs-port: Kensler's original C++ program against ch01's port,
# each built at -O0 .. -O3, run alone (one process at a time), alternating, on
# this machine. Is the port as fast as the original at every level?
#
# The original prints 512x512 at 64 samples; a copy of it with the sample
# count edited (the literal 64 of its sample loop, nothing else) renders
# $SPP samples, so that a round takes seconds, not minutes. The port renders
# the same with --spp. Both images must be byte-identical (the port's claim,
# tested in full at 64 spp by tests/test_ch01.c), or the timings mean nothing.
#
# Each process is timed whole (wall clock, start to exit), $ROUNDS rounds, the
# order of the two programs alternating between rounds; the median and the
# fastest-slowest of each are printed, and their ratio. Writes the table to
# stdout and, when OUT is set, to OUT (temp file, then renamed).
set -u
original=${ORIGINAL:-../shared/reference/kensler_card.cpp}
spp=${SPP:-4}
rounds=${ROUNDS:-5}
levels=${LEVELS:-O0 O1 O2 O3}
image_diff=${IMAGE_DIFF:-build/image_diff}
if [ ! -f "$original" ]; then
    echo "original-vs-port: the original program ($original) is not here: set ORIGINAL=path/to/kensler_card.cpp"
    exit 0
fi
command -v g++ > /dev/null || { echo "original-vs-port: g++ not found (apt-get install g++)"; exit 2; }
[ -x "$image_diff" ] || { echo "original-vs-port: $image_diff not built (make $image_diff)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The original with its sample count edited, and nothing else.
grep -c '=64;r--;' "$original" | grep -qx 1 || { echo "original-vs-port: cannot find the sample loop (=64;r--;) in $original"; exit 2; }
sed "s/=64;r--;/=$spp;r--;/" "$original" > "$work/original.cpp"

for level in $levels; do
    g++ "-$level" -o "$work/original-$level" "$work/original.cpp" -lm || exit 2
    # card.c at the level, ch01's harness (problem.c and common/program.c: options, timing, writing) as ch01 builds it
    gcc -std=c11 -D_POSIX_C_SOURCE=200809L "-$level" -c chapters/ch01_baseline/card.c -o "$work/card-$level.o" &&
        gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 ${REFERENCE_DEF:-} -o "$work/port-$level" \
            chapters/ch01_baseline/problem.c "$work/card-$level.o" build/common/program.o build/libcommon.a ${PNG_LIBS:-} -lm || exit 2
    "$work/original-$level" > "$work/original-$level.ppm" || exit 2
    "$work/port-$level" --spp "$spp" --quiet --out "$work/port-$level.ppm" > /dev/null || exit 2
    same=$("$image_diff" "$work/original-$level.ppm" "$work/port-$level.ppm" "$work/diff.ppm") || exit 2
    case $same in
    *" 0 bytes differ"* | *"identical"*) ;;
    *) echo "original-vs-port: at -$level the two images differ ($same): no timing"; exit 1 ;;
    esac
done

# wall_ms COMMAND...: the command's wall time in ms (output discarded).
wall_ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1 || { echo "original-vs-port: $* failed" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
# stats: median min max of the numbers on stdin
stats() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[1], v[NR]}'; }

out=$work/table.txt
{
    echo "# original-vs-port: 512x512 at $spp spp, each program alone, $rounds rounds alternating; $(uname -m), $(g++ --version | head -n1)"
    echo "# both images byte-identical at every level (checked before timing)"
    printf "%-6s %14s %17s %14s %17s %12s\n" level "original (ms)" "fastest-slowest" "port (ms)" "fastest-slowest" "port/orig"
} > "$out"
cat "$out"
for level in $levels; do
    o=() p=()
    for r in $(seq "$rounds"); do
        if [ $((r % 2)) -eq 1 ]; then
            o+=("$(wall_ms "$work/original-$level")")
            p+=("$(wall_ms "$work/port-$level" --spp "$spp" --quiet --out "$work/p.ppm")")
        else
            p+=("$(wall_ms "$work/port-$level" --spp "$spp" --quiet --out "$work/p.ppm")")
            o+=("$(wall_ms "$work/original-$level")")
        fi
    done
    read -r om olo ohi <<<"$(printf '%s\n' "${o[@]}" | stats)"
    read -r pm plo phi <<<"$(printf '%s\n' "${p[@]}" | stats)"
    line=$(awk -v l="$level" -v om="$om" -v olo="$olo" -v ohi="$ohi" -v pm="$pm" -v plo="$plo" -v phi="$phi" \
        'BEGIN {printf "%-6s %14d %8d-%-8d %14d %8d-%-8d %11.2fx", "-" l, om, olo, ohi, pm, plo, phi, pm / om}')
    echo "$line" | tee -a "$out"
done
if [ -n "${OUT:-}" ]; then
    mv "$out" "$OUT.tmp" && mv "$OUT.tmp" "$OUT" && echo "original-vs-port: written to $OUT"
fi
