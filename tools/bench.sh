#!/usr/bin/env bash
# make bench: runs every chapter on its standard workload and records the rows
# in data/results/<gpu>_<cpu>.csv (one file per machine). Rows of chapters not
# run this time are kept, so `make bench CHAPTERS="ch03"` updates one chapter.
# Each chapter's printed table goes to data/results/<machine>/<chapter>.txt, and
# each raytracer stage's image to data/images/<machine>/<chapter>-<stage>.png
# (.ppm without libpng; `make book` converts it). Difference images (diff-*.png:
# |a - b| x 16) show what fast math, FP32 and the article's divisor typo change;
# their numbers go to data/results/<machine>/image_diffs.txt.
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
ext=${IMAGE_EXT:-ppm} # what the programs were built to write (--images picks the same)
new=$(mktemp)
scratch=$(mktemp -d)
diffs=$logdir/image_diffs.txt
status=0

# diff_pair A B NAME: the difference image of two stage images (names without
# extension) as $imgdir/NAME, and one line "NAME|A|B|numbers" in $diffs.
diff_pair() {
    local a b line
    a=$(ls "$imgdir/$1".p[np][gm] 2>/dev/null | head -n1)
    b=$(ls "$imgdir/$2".p[np][gm] 2>/dev/null | head -n1)
    [ -n "$a" ] && [ -n "$b" ] || { echo "bench: no images for $1 / $2"; return; }
    grep -v "^$3|" "$diffs" > "$diffs.tmp" 2>/dev/null; mv "$diffs.tmp" "$diffs"
    if line=$("${IMAGE_DIFF:-build/image_diff}" "$a" "$b" "$imgdir/$3.$ext"); then
        echo "$3|$1|$2|$line" >> "$diffs"
        echo "bench: $3: $line"
    else
        echo "bench: image_diff $a $b failed"; status=1
    fi
}

# The difference images each chapter's lesson calls for.
difference_images() {
    local st
    case $1 in
    ch02) # every build whose image is not gcc -O0's
        for f in "$imgdir"/ch02-*.p[np][gm]; do
            st=$(basename "${f%.*}")
            [ "$st" = ch02-gcc-O0 ] && continue
            grep -q "^${st#ch02-} .*byte-identical" "$logdir/ch02.txt" || diff_pair ch02-gcc-O0 "$st" "diff-$st"
        done ;;
    ch04) diff_pair ch04-recursive ch04-loop diff-ch04-loop ;;
    ch05) diff_pair ch05-loop ch05-float-only diff-ch05-float-only
          diff_pair ch05-sphere-list ch05-fast-math diff-ch05-fast-math ;;
    esac
}
echo "bench: $machine ($(nproc) cores): $chapters"
for ch in $chapters; do
    [ -x "./$ch" ] || { echo "bench: ./$ch is not built (make $ch)"; status=1; continue; }
    echo "bench: $ch ..."
    out=()
    case $ch in ch0[1-5]) out=(--images "$imgdir" --out "$scratch/$ch.ppm") ;; esac
    "./$ch" --csv "$new" --quiet "${out[@]}" > "$logdir/$ch.txt" 2> "$logdir/$ch.err"
    rc=$?
    cat "$logdir/$ch.txt" "$logdir/$ch.err"
    case $rc in
    0) ;;
    3) echo "bench: $ch: no CUDA device here, GPU stages not run" ;;
    *) echo "bench: $ch reported a failure (exit $rc)"; status=1 ;;
    esac
    [ $rc -eq 0 ] && difference_images "$ch"
    if [ "$ch" = ch03 ] && [ $rc -eq 0 ]; then
        # The article's divisor typo, same seeds: only the divisor differs.
        ./ch03 --stage rng-local --threads 1 --rng-divisor 66635 --quiet --out "$imgdir/ch03-rng-local-divisor-66635.$ext" \
            > "$logdir/ch03-divisor-66635.txt" 2>&1 || echo "bench: ch03 with divisor 66635 failed its check (see its log)"
        cat "$logdir/ch03-divisor-66635.txt"
        diff_pair ch03-rng-local ch03-rng-local-divisor-66635 diff-ch03-divisor-typo
    fi
    if [ "$ch" = ch05 ] && [ $rc -eq 0 ]; then
        # The whole process for the fastest stage alone: what a user of the
        # finished program waits for (context start-up included).
        one=$(mktemp)
        ./ch05 --stage bounding-box --repeat 1 --quiet --csv "$one" --out "$scratch/fastest.ppm" > /dev/null
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
rm -rf "$new" "$scratch"
echo "bench: wrote $csv"
exit $status
