#!/usr/bin/env bash
# make smallpt-vs-port: Kevin Beason's smallpt against ch08's cpu-threads
# stage, at one size and spp. Do they render the same picture?
#
# smallpt renders 1024x768; a copy of it with its size edited (the line
# "int w=1024, h=768", nothing else) renders $SIZE, built as its header says
# (g++ -O3 -fopenmp). ch08 renders the same size and spp twice, with
# independent random streams (--seed 1 and 3), and smallpt_agree compares:
# the original against the port must differ as the port against itself does
# (by noise alone), overall, in the top rows and in 16 regions.
#
# If clang++ is here, the original is built with it too and its top row is
# printed beside g++'s: smallpt's camera line, Ray(cam.o+d*140, d.norm()),
# depends on the order a compiler evaluates arguments in (path.h's
# camera_ray says how); the port renders g++'s picture.
#
# Writes the comparison to stdout and, when OUT is set, to OUT (temp file,
# then renamed, only if the two agree). Exit 1 if they do not.
set -u
original=${ORIGINAL:-../shared/reference/smallpt.cpp}
size=${SIZE:-256x192}
spp=${SPP:-256}
agree=${AGREE:-build/ch08/smallpt_agree}
if [ ! -f "$original" ]; then
    echo "smallpt-vs-port: the original program ($original) is not here: set ORIGINAL=path/to/smallpt.cpp"
    exit 0
fi
# Checked as text before any arithmetic: bash evaluates $((...)) operands as code.
[[ $size =~ ^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$ ]] || { echo "smallpt-vs-port: SIZE=$size: want WIDTHxHEIGHT"; exit 2; }
width=${size%x*} height=${size#*x}
[[ $spp =~ ^[1-9][0-9]{0,6}$ ]] && [ $((spp % 4)) -eq 0 ] ||
    { echo "smallpt-vs-port: SPP=$spp: want a multiple of 4"; exit 2; }
command -v g++ > /dev/null || { echo "smallpt-vs-port: g++ not found (apt-get install g++)"; exit 2; }
[ -x "$agree" ] && [ -x ./ch08 ] || { echo "smallpt-vs-port: build ./ch08 and $agree first (make ch08 $agree)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

grep -c 'int w=1024, h=768' "$original" | grep -qx 1 ||
    { echo "smallpt-vs-port: cannot find 'int w=1024, h=768' in $original"; exit 2; }
sed "s/int w=1024, h=768/int w=$width, h=$height/" "$original" > "$work/smallpt.cpp"
g++ -O3 -fopenmp "$work/smallpt.cpp" -o "$work/smallpt-g++" 2> "$work/build.log" ||
    { cat "$work/build.log"; echo "smallpt-vs-port: g++ failed on the original"; exit 2; }

# original_render BUILD OUT: renders $spp in a folder of its own (smallpt
# writes image.ppm where it runs); prints the wall time in ms.
original_render() {
    local dir="$work/run-$(basename "$1")" t0 t1
    mkdir -p "$dir"
    t0=$(date +%s%N)
    (cd "$dir" && "$1" "$spp" 2> /dev/null) || { echo "smallpt-vs-port: $1 failed" >&2; exit 2; }
    t1=$(date +%s%N)
    mv "$dir/image.ppm" "$2" || exit 2
    echo $(((t1 - t0) / 1000000))
}
port_render() { # SEED OUT
    ./ch08 --stage cpu-threads --width "$width" --height "$height" --spp "$spp" --seed "$1" --noise-test no \
        --quiet --out "$2" > "$work/port-$1.txt" || { cat "$work/port-$1.txt"; echo "smallpt-vs-port: ch08 failed"; exit 2; }
}

out=$work/table.txt
ms=$(original_render "$work/smallpt-g++" "$work/original.ppm") || exit 2
port_render 1 "$work/port-a.ppm"
port_render 3 "$work/port-b.ppm"
{
    echo "# smallpt-vs-port: ${width}x${height} at $spp spp; original: $(basename "$original") (md5 $(md5sum < "$original" | cut -c1-8)), size edited, $(g++ --version | head -n1) -O3 -fopenmp, $ms ms"
    echo "# port: ./ch08 --stage cpu-threads, seeds 1 and 3 (two renders each; the first of each compared)"
    "$agree" "$work/original.ppm" "$work/port-a.ppm" "$work/port-b.ppm"
} > "$out"
status=$?
if command -v clang++ > /dev/null &&
    clang++ -O3 -Wno-c++11-narrowing "$work/smallpt.cpp" -o "$work/smallpt-clang++" 2> /dev/null; then
    original_render "$work/smallpt-clang++" "$work/original-clang.ppm" > /dev/null || exit 2
    {
        echo
        echo "# the original built by $(clang++ --version | head -n1) (arguments evaluated left to right):"
        "$agree" "$work/original-clang.ppm" "$work/port-a.ppm" "$work/port-b.ppm" | grep -E '^(MSE|row 0|agree|DIFFER)'
    } >> "$out"
fi
cat "$out"
if [ $status -ne 0 ]; then
    echo "smallpt-vs-port: the port does not render the original's picture"
    exit 1
fi
if [ -n "${OUT:-}" ]; then
    mv "$out" "$OUT.tmp" && mv "$OUT.tmp" "$OUT" && echo "smallpt-vs-port: written to $OUT"
fi
