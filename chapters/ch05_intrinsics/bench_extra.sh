#!/usr/bin/env bash
# ch05's part of `make bench` (run by tools/bench.sh after ./ch05, with its
# helpers sourced): the stage tagged whole-process (stages.h: the fastest)
# alone as a whole process, what a user of the finished program waits for
# (context start-up included). Columns are read by name (tools/columns.sh,
# which bench.sh sources).
one=$(mktemp)
stage_columns name tags || status=1
./ch05 --stage "$(./ch05 --list-stages | awk -F'\t' "${cols[@]}" '$c_tags ~ /(^| )whole-process( |$)/ {print $c_name; exit}')" --repeat 1 --quiet --csv "$one" --out "$scratch/fastest.ppm" > /dev/null
if [ -s "$one" ]; then # (empty: the run wrote no row, none to take)
    csv_columns "$one" chapter stage &&
        awk -F, "${cols[@]}" 'BEGIN {OFS = ","} $c_chapter == "ch05" && $c_stage == "process" {$c_stage = "process-fastest-stage-only"; print}' "$one" >> "$new" ||
        status=1
fi
rm -f "$one"
