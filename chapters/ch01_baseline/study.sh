#!/usr/bin/env bash
# ch01's long study (`make studies`, run by tools/bench.sh with its variables
# at hand): the card at its full workload, 512x512 at 64 spp, once. It takes
# two minutes at -O0, so `make bench` runs 1/32 of the samples five times
# (chNN_BENCH_ARGS) and this study shows the whole, its row beside those.
./ch01 --repeat 1 --quiet --csv "$new" --out "$scratch/ch01-full.ppm" > "$logdir/ch01-full.txt" 2>&1 ||
    { echo "studies: ./ch01 at its full workload failed"; status=1; }
cat "$logdir/ch01-full.txt"
