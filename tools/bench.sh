#!/usr/bin/env bash
# make bench: runs every chapter on its standard workload and records the rows
# in data/results/<gpu>_<cpu>.csv (one file per machine). Rows of chapters not
# run this time are kept, so `make bench CHAPTERS="ch03"` updates one chapter.
# Each chapter's printed table goes to data/results/<machine>/<chapter>.txt, and
# each raytracer chapter's image to data/images/<machine>/<chapter>.png (.ppm
# without libpng; `make book` converts it).
# Exit status 3 from a GPU chapter means "no GPU here": its GPU stages are
# skipped, which is not a failure of the bench.
set -u
chapters=${CHAPTERS:-"ch01 ch02 ch03 ch04 ch05 ch06 ch07"}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
machine=$(printf '%s_%s' "${gpu:-nogpu}" "${cpu:-cpu}" | tr -cs 'A-Za-z0-9_.' '-' | sed 's/-*$//')
csv=data/results/$machine.csv
logdir=data/results/$machine
imgdir=data/images/$machine
mkdir -p "$logdir" "$imgdir"
ext=ppm
if command -v pkg-config >/dev/null && pkg-config --exists libpng; then ext=png; fi
new=$(mktemp)
status=0
echo "bench: $machine ($(nproc) cores): $chapters"
for ch in $chapters; do
    [ -x "./$ch" ] || { echo "bench: ./$ch is not built (make $ch)"; status=1; continue; }
    echo "bench: $ch ..."
    out=()
    case $ch in ch0[1-5]) out=(--out "$imgdir/$ch.$ext") ;; esac
    "./$ch" --csv "$new" --quiet "${out[@]}" > "$logdir/$ch.txt" 2> "$logdir/$ch.err"
    rc=$?
    cat "$logdir/$ch.txt" "$logdir/$ch.err"
    case $rc in
    0) ;;
    3) echo "bench: $ch: no CUDA device here, GPU stages not run" ;;
    *) echo "bench: $ch reported a failure (exit $rc)"; status=1 ;;
    esac
    if [ "$ch" = ch05 ] && [ $rc -eq 0 ]; then
        # The whole process for the fastest stage alone: what a user of the
        # finished program waits for (context start-up included).
        one=$(mktemp)
        ./ch05 --stage bounding-box --repeat 1 --quiet --csv "$one" --out "$imgdir/ch05-fastest.$ext" > /dev/null
        awk -F, 'BEGIN {OFS = ","} $1 == "ch05" && $2 == "process" {$2 = "process-fastest-stage-only"; print}' "$one" >> "$new"
        rm -f "$one"
    fi
    if [ "$ch" = ch07 ] && [ $rc -eq 0 ]; then
        # GFLOP/s against n for the GPU stages (the book's chart); the standard
        # run above already has n = 2^17.
        for stage in gpu-naive gpu-tiled gpu-tiled-unrolled gpu-tiled-ftz gpu-atomic-symmetric; do
            for n in 1024 4096 16384 65536 262144; do
                ./ch07 --stage $stage --n $n --quiet --csv "$new" > /dev/null || { echo "bench: ch07 $stage n=$n failed"; status=1; }
            done
        done
    fi
done
{
    echo "chapter,stage,workload,threads,median_ms,value,unit,check,device,date"
    if [ -f "$csv" ]; then
        awk -F, -v ran=" $chapters " 'NR > 1 && index(ran, " " $1 " ") == 0' "$csv"
    fi
    tail -n +2 "$new"
} > "$csv.tmp" && mv "$csv.tmp" "$csv"
rm -f "$new"
echo "bench: wrote $csv"
exit $status
