#!/usr/bin/env bash
# ch01's part of `make bench` (run by tools/bench.sh after ./ch01, with its
# variables at hand): five runs at 1/16 of the samples, for the spread of the
# timing (the standard workload runs once: it takes 100 s).
./ch01 --spp 4 --repeat 5 --quiet --csv "$new" --out "$scratch/ch01-spread.ppm" > "$logdir/ch01-spread.txt" 2>&1 ||
    { echo "bench: ch01 --spp 4 --repeat 5 failed"; status=1; }
cat "$logdir/ch01-spread.txt"
