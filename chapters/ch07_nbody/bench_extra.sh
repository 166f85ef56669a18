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
