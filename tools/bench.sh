#!/usr/bin/env bash
# make bench: runs every chapter of the registry on its standard workload and
# records the rows in data/results/<gpu>_<cpu>.csv (one file per machine). Rows
# of chapters not run this time are kept, so `make bench CHAPTERS="ch03"`
# updates one chapter. Each chapter's printed table goes to
# data/results/<machine>/<chapter>.txt, each raytracer stage's image to
# data/images/<machine>/<chapter>-<stage>.png (.ppm without libpng; `make book`
# converts it), and the difference images a chapter registers (chNN_DIFFS,
# |a - b| x 16) beside them, their numbers in data/results/<machine>/image_diffs.txt.
# Then each stage whose row asks for further runs (./chNN --list-stages, the
# bench column: argument sets separated by ';') is run once per set, and the
# chapter's chNN_BENCH_EXTRA script, if any, runs with this script's variables
# and diff_pair at hand.
# Exit status 3 from a GPU chapter means "no GPU here": its GPU stages are
# skipped, which is not a failure of the bench.
# Nothing is written in place until the end: new rows and logs go to a scratch
# folder first, so an interrupted bench leaves the committed files as they were.
set -u
requested=${CHAPTERS:-} # from `make bench CHAPTERS=...` (or the environment): a subset
eval "$(make -s print-registry)" || { echo "bench: cannot read the chapter registry" >&2; exit 2; }
chapters=${requested:-$CHAPTERS}
machine=$MACHINE
csv=data/results/$machine.csv
logdir_final=data/results/$machine
imgdir=data/images/$machine
# BENCH_SMOKE=1 (make check-gpu): every chapter once at its small test size
# (chNN_SMALL, --repeat 1), without the further runs and extras, into
# build/bench-smoke/: the bench's path proven, the committed results untouched.
smoke=${BENCH_SMOKE:-}
if [ -n "$smoke" ]; then
    rm -rf build/bench-smoke
    csv=build/bench-smoke/$machine.csv
    logdir_final=build/bench-smoke/$machine
    imgdir=build/bench-smoke/images
fi
ext=${IMAGE_EXT:-ppm} # what the programs were built to write (--images picks the same)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; exit 130' INT TERM
new=$scratch/new.csv
logdir=$scratch/logs
mkdir -p "$logdir" "$imgdir" "$logdir_final"
diffs=$logdir/image_diffs.txt
[ -f "$logdir_final/image_diffs.txt" ] && cp "$logdir_final/image_diffs.txt" "$diffs"
status=0

# The machine should be idle: a busy one makes every number slower and noisier.
load=$(cut -d' ' -f1 /proc/loadavg)
cores=$(nproc)
if awk -v l="$load" -v c="$cores" 'BEGIN {exit !(l > c / 2)}'; then
    echo "bench: WARNING: load average $load on $cores cores at the start: this machine is busy, and the numbers will show it"
fi
echo "load average at start: $load on $cores cores ($(date -u +%Y-%m-%dT%H:%M:%SZ))" > "$logdir/load.txt"

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

# stage_runs CH: the further runs the rows of ./CH ask for, rows to $new.
stage_runs() {
    local name bench set sets
    while IFS=$'\t' read -r name _ _ bench _; do
        [ "$bench" = - ] && continue
        IFS=';' read -ra sets <<<"$bench"
        for set in "${sets[@]}"; do
            # shellcheck disable=SC2086 # a set is words
            "./$1" --stage "$name" $set --quiet --csv "$new" > /dev/null ||
                { echo "bench: $1 --stage $name $set failed"; status=1; }
        done
    done < <("./$1" --list-stages)
}

echo "bench: $machine ($cores cores): $chapters"
for ch in $chapters; do
    dir=${ch}_DIR
    [ -n "${!dir:-}" ] || { echo "bench: $ch is not a chapter (make print-chapters)"; status=1; continue; }
    [ -x "./$ch" ] || { echo "bench: ./$ch is not built (make $ch)"; status=1; continue; }
    echo "bench: $ch ..."
    out=()
    ray=${ch}_RAYTRACER
    [ "${!ray}" = yes ] && out=(--images "$imgdir" --out "$scratch/$ch.ppm")
    size=()
    small=${ch}_SMALL
    # shellcheck disable=SC2206 # the registry's arguments are words
    [ -n "$smoke" ] && size=(${!small} --repeat 1)
    "./$ch" "${size[@]}" --csv "$new" --quiet "${out[@]}" > "$logdir/$ch.txt" 2> "$logdir/$ch.err"
    rc=$?
    cat "$logdir/$ch.txt" "$logdir/$ch.err"
    case $rc in
    0) ;;
    3) echo "bench: $ch: no CUDA device here, GPU stages not run" ;;
    *) echo "bench: $ch reported a failure (exit $rc)"; status=1 ;;
    esac
    [ $rc -eq 0 ] || continue
    pairs=${ch}_DIFFS
    IFS=';' read -ra list <<<"${!pairs}"
    for p in "${list[@]}"; do
        read -r a b name <<<"$p"
        [ -n "$a" ] && diff_pair "$a" "$b" "$name"
    done
    [ -n "$smoke" ] && continue
    stage_runs "$ch"
    extra=${ch}_BENCH_EXTRA
    [ -n "${!extra}" ] && source "${!extra}"
done
{
    echo "chapter,stage,workload,threads,median_ms,value,unit,check,device,date"
    if [ -f "$csv" ]; then
        awk -F, -v ran=" $chapters " 'NR > 1 && index(ran, " " $1 " ") == 0' "$csv"
    fi
    tail -n +2 "$new" 2>/dev/null
} > "$scratch/all.csv" && mv "$scratch/all.csv" "$csv"
mv "$logdir"/* "$logdir_final"/
rm -rf "$scratch"
echo "bench: wrote $csv"
exit $status
