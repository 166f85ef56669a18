#!/usr/bin/env bash
# make bench: runs chapters on their standard workloads and records the rows in
# data/results/<gpu>_<cpu>.csv (one file per machine). Rows of chapters that
# were not run this time are kept, so `make bench CHAPTERS="ch03"` updates one.
# Each chapter's table also goes to data/results/<machine>/<chapter>.txt.
set -u
chapters=${CHAPTERS:-"ch01 ch02"}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
machine=$(printf '%s_%s' "${gpu:-nogpu}" "${cpu:-cpu}" | tr -cs 'A-Za-z0-9_.' '-' | sed 's/-*$//')
csv=data/results/$machine.csv
logdir=data/results/$machine
mkdir -p "$logdir" data/images
new=$(mktemp)
status=0
for ch in $chapters; do
    [ -x "./$ch" ] || { echo "bench: ./$ch is not built (make $ch)"; status=1; continue; }
    echo "bench: $ch ..."
    extra=()
    case $ch in
    ch01 | ch02) extra=(--out "data/images/$ch.png") ;;
    esac
    [ -n "$(command -v pkg-config)" ] && pkg-config --exists libpng || extra=()
    "./$ch" --csv "$new" --quiet "${extra[@]}" | tee "$logdir/$ch.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "bench: $ch reported a failure"; status=1; }
done
# Keep the old rows of chapters not run now, then add the new rows.
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
