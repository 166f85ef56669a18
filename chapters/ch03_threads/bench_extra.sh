#!/usr/bin/env bash
# ch03's part of `make bench` (run by tools/bench.sh after ./ch03, with its
# helpers sourced): the article's divisor typo with the same seeds, in the
# stage tagged divisor-typo (stages.h), so the difference image shows the typo alone
# (at the bench's workload, chNN_BENCH_ARGS, the main run's: the same samples).
# (The stage list's columns by name: tools/columns.sh, which bench.sh sources.)
stage_columns name tags || status=1
typo_stage=$(./ch03 --list-stages | awk -F'\t' "${cols[@]}" '$c_tags ~ /(^| )divisor-typo( |$)/ {print $c_name; exit}')
# shellcheck disable=SC2086 # the registry's arguments are words
./ch03 $ch03_BENCH_ARGS --stage "$typo_stage" --threads 1 --rng-divisor 66635 --quiet --out "$imgdir/ch03-$typo_stage-divisor-66635.$ext" \
    > "$logdir/ch03-divisor-66635.txt" 2>&1 || echo "bench: ch03 with divisor 66635 failed its check (see its log)"
cat "$logdir/ch03-divisor-66635.txt"
diff_pair "ch03-$typo_stage" "ch03-$typo_stage-divisor-66635" diff-ch03-divisor-typo
