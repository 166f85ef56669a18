#!/usr/bin/env bash
# ch03's part of `make bench` (run by tools/bench.sh after ./ch03, with its
# helpers sourced): the article's divisor typo with the same seeds, in the
# stage tagged divisor-typo (stages.h), so the difference image shows the typo alone.
typo_stage=$(./ch03 --list-stages | awk -F'\t' '$5 ~ /(^| )divisor-typo( |$)/ {print $1; exit}')
./ch03 --stage "$typo_stage" --threads 1 --rng-divisor 66635 --quiet --out "$imgdir/ch03-$typo_stage-divisor-66635.$ext" \
    > "$logdir/ch03-divisor-66635.txt" 2>&1 || echo "bench: ch03 with divisor 66635 failed its check (see its log)"
cat "$logdir/ch03-divisor-66635.txt"
diff_pair "ch03-$typo_stage" "ch03-$typo_stage-divisor-66635" diff-ch03-divisor-typo
# Three runs of every point of the sweep at 1/8 of the samples: the spread.
./ch03 --spp 8 --repeat 3 --quiet --csv "$new" --out "$scratch/ch03-spread.ppm" > "$logdir/ch03-spread.txt" 2>&1 ||
    { echo "bench: ch03 --spp 8 --repeat 3 failed"; status=1; }
cat "$logdir/ch03-spread.txt"
