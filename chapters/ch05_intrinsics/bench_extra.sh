#!/usr/bin/env bash
# ch05's part of `make bench` (run by tools/bench.sh after ./ch05, with its
# helpers sourced): the stage tagged whole-process (stages.h: the fastest)
# alone as a whole process, what a user of the finished program waits for
# (context start-up included).
one=$(mktemp)
./ch05 --stage "$(./ch05 --list-stages | awk -F'\t' '$5 ~ /(^| )whole-process( |$)/ {print $1; exit}')" --repeat 1 --quiet --csv "$one" --out "$scratch/fastest.ppm" > /dev/null
awk -F, 'BEGIN {OFS = ","} $1 == "ch05" && $2 == "process" {$2 = "process-fastest-stage-only"; print}' "$one" >> "$new"
rm -f "$one"
