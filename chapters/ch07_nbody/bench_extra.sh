#!/usr/bin/env bash
# ch07's part of `make bench` (run by tools/bench.sh after ./ch07, with its
# helpers sourced): a timeline of two output stages, pageable copies after
# each step and the overlapped copy, 8 steps of 4096 bodies each, traced with
# CUDA events (./ch07 --timeline) into ch07-timeline.csv beside the results;
# `make book` draws it.
{
    for stage in gpu-output-pageable gpu-output-overlap; do
        rm -f "$scratch/ch07_tl.csv"
        ./ch07 --stage $stage --n 4096 --steps 8 --repeat 1 --quiet --timeline "$scratch/ch07_tl.csv" > /dev/null ||
            { echo "bench: ch07 --timeline ($stage) failed" >&2; status=1; }
        [ -f "$scratch/ch07_tl.csv" ] && tail -n +2 "$scratch/ch07_tl.csv"
    done
} > "$scratch/ch07_tl_rows.csv"
{ echo "stage,step,lane,what,start_ms,end_ms"; cat "$scratch/ch07_tl_rows.csv"; } > "$logdir/ch07-timeline.csv"

# The thread sweep the book shows under cpu-simd-threads: the same stage at
# n = 16384 on T threads, each with the host's FMA ceiling on T threads
# measured in the same process (what the machine gives T threads of
# independent FMAs), into ch07-threads.txt (bench.sh stamps it with the run).
{
    echo "# ./ch07 --stage cpu-simd-threads --n 16384 --threads T (2 steps, median of 3), T = 1 2 4 8 12 16:"
    echo "# the stage's row and the FMA ceiling on its T threads"
    for t in 1 2 4 8 12 16; do
        ./ch07 --stage cpu-simd-threads --n 16384 --threads $t --quiet > "$scratch/ch07_sweep.txt" ||
            { echo "bench: ch07 thread sweep (--threads $t) failed" >&2; status=1; }
        grep -E '^(cpu-simd-threads|ceiling-cpu-fma) ' "$scratch/ch07_sweep.txt"
    done
    if command -v lscpu > /dev/null; then
        echo "# lscpu"
        lscpu | grep -E '^(CPU\(s\)|Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)):'
    fi
} > "$logdir/ch07-threads.txt"
