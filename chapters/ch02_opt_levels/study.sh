#!/usr/bin/env bash
# ch02's long study (`make studies`, run by tools/bench.sh with its variables
# at hand): every build at the full workload, 512x512 at 64 spp, once (four
# minutes, the -O0 build half of it); `make bench` runs 1/32 of the samples
# five times (chNN_BENCH_ARGS).
./ch02 --repeat 1 --quiet --csv "$new" --out "$scratch/ch02-full.ppm" > "$logdir/ch02-full.txt" 2>&1 ||
    { echo "studies: ./ch02 at its full workload failed"; status=1; }
cat "$logdir/ch02-full.txt"
