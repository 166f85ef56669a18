#!/usr/bin/env bash
# make book's conversion of a bench's PPMs to PNGs (tools/book.py,
# convert_images) touches only the bench's own files (issue 65). With a
# converter as careless as any (a stand-in that writes whatever it is
# given): a folder under data/images that is a symbolic link to your photos
# is left alone (its PPMs were deleted and its PNGs replaced, saying so),
# and so are a PPM that is a link to a photo and a PPM whose PNG is a link to
# one; a real folder's own PPM is converted and then removed. With the course's
# converter (build/ppm2png, where it is built with libpng), a PNG that holds
# your notes is refused (the PPM kept), and a PPM with no PNG yet converted.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "no python3: make book's generator, tools/book.py, needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
mkdir -p data/images/M photos || exit 1
printf '#!/bin/sh\necho converted > "$2"\n' > careless && chmod +x careless || exit 1
ppm() { printf 'P6\n1 1\n255\nabc' > "$1"; }
echo "my photo" > photos/holiday.ppm && echo "my png" > photos/holiday.png && ln -s ../../photos data/images/L &&
    ppm data/images/M/ch01-a.ppm && ln -s ../../../photos/holiday.ppm data/images/M/ch01-b.ppm &&
    ppm data/images/M/ch01-c.ppm && ln -s ../../../photos/holiday.png data/images/M/ch01-c.png || exit 1
convert() { PPM2PNG=$1 python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import book; book.convert_images()' \
    "$2/tools" > out 2> err || fail "convert_images failed: $(cat err)"; }
convert "$scratch/careless" "$1"
[ "$(cat photos/holiday.ppm photos/holiday.png)" = "my photo
my png" ] || fail "your photos were changed: $(ls -l photos)"
[ -L data/images/L ] && [ -L data/images/M/ch01-b.ppm ] && [ -L data/images/M/ch01-c.png ] || fail "a link was replaced"
[ ! -e data/images/M/ch01-b.png ] || fail "the PPM that is a link to a photo was converted"
[ -f data/images/M/ch01-c.ppm ] || fail "the PPM whose PNG is a link was removed"
grep -q 'data/images/L is a symbolic link' err || fail "the linked folder was not named: $(cat err)"
[ "$(cat data/images/M/ch01-a.png 2> /dev/null)" = converted ] && [ ! -e data/images/M/ch01-a.ppm ] ||
    fail "the bench's own PPM was not converted and removed: $(ls -l data/images/M)"

# data/images itself a link (round 5): nothing under it is converted
mkdir -p album/M && ppm album/M/ch01-f.ppm && mv data/images images.real && ln -s ../album data/images || exit 1
convert "$scratch/careless" "$1"
[ -f album/M/ch01-f.ppm ] && [ ! -e album/M/ch01-f.png ] || fail "a PPM under a linked data/images was converted"
grep -q 'data/images is a symbolic link' err || fail "the linked data/images was not named: $(cat err)"
rm data/images && mv images.real data/images || exit 1

ppm2png=$1/build/ppm2png
if [ -x "$ppm2png" ] && "$ppm2png" data/images/M/ch01-c.ppm "$scratch/probe.png" 2> /dev/null; then
    rm -f data/images/M/ch01-* && ppm data/images/M/ch01-d.ppm && echo "my notes" > data/images/M/ch01-d.png &&
        ppm data/images/M/ch01-e.ppm || exit 1
    convert "$ppm2png" "$1"
    [ "$(cat data/images/M/ch01-d.png)" = "my notes" ] && [ -f data/images/M/ch01-d.ppm ] ||
        fail "ppm2png replaced a PNG that holds your notes, or its PPM went: $(ls -l data/images/M)"
    [ "$(head -c 4 data/images/M/ch01-e.png | tail -c 3)" = PNG ] && [ ! -e data/images/M/ch01-e.ppm ] ||
        fail "ppm2png did not convert a PPM with no PNG: $(ls -l data/images/M)"
fi
echo "convert_images left linked folders and files alone and converted the bench's own PPMs"
