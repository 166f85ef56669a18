#!/usr/bin/env bash
# ch03's long study (`make studies`, run by tools/bench.sh with its variables
# at hand): the whole thread sweep at the full workload, 512x512 at 64 spp,
# once (four minutes); `make bench` runs it at 1/16 of the samples, three
# times (chNN_BENCH_ARGS).
./ch03 --repeat 1 --quiet --csv "$new" --out "$scratch/ch03-full.ppm" > "$logdir/ch03-full.txt" 2>&1 ||
    { echo "studies: ./ch03 at its full workload failed"; status=1; }
cat "$logdir/ch03-full.txt"
