#!/usr/bin/env bash
# ch07's part of `make bench` (run by tools/bench.sh after ./ch07, with its
# helpers sourced): GFLOP/s against n for the GPU stages (the book's chart);
# the standard run already has n = 2^17.
for stage in gpu-naive gpu-tiled gpu-tiled-unrolled gpu-tiled-ftz gpu-two-bodies gpu-symmetric-balanced; do
    for n in 1024 4096 16384 65536 262144; do
        ./ch07 --stage $stage --n $n --quiet --csv "$new" > /dev/null || { echo "bench: ch07 $stage n=$n failed"; status=1; }
    done
done
