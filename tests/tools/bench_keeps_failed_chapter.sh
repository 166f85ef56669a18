#!/usr/bin/env bash
# make bench takes in only the chapters that succeeded. Stand-ins for two
# chapters run in a scratch copy: ch04 writes one row and an image, then is
# killed (kill -9, as an OOM kill would); ch06 succeeds. ch04's committed rows,
# log and image must stay as they were, ch06's rows be replaced, another
# chapter's rows kept, and bench must exit non-zero. (The committed data, so
# a maintainer's bench: COURSE_DATA=1; bench_student_results.sh: without it.)
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export CLANG_CUDA= # no clang probe: the registry is all this needs
eval "$(make -s print-registry)" || fail "cannot read the registry"
csv=data/results/$MACHINE.csv
mkdir -p "data/results/$MACHINE" "data/images/$MACHINE"
header=chapter,stage,workload,threads,median_ms,value,unit,check,device,date
printf '%s\n' "$header" "ch04,recursive,old,1,1,1,ms,ok,d,x" "ch04,loop,old,1,1,1,ms,ok,d,x" \
    "ch05,loop,old,1,1,1,ms,ok,d,x" "ch06,cub,old,1,1,1,ms,ok,d,x" > "$csv"
echo "old log" > "data/results/$MACHINE/ch04.txt"
echo "old image" > "data/images/$MACHINE/ch04-loop.ppm"
stand_in() { # NAME BODY: ./NAME appends a new row to its --csv, writes an image to --images, then BODY
    cat > "$1" <<SCRIPT
#!/usr/bin/env bash
[ "\$1" = --list-stages ] && exit 0
csv= images=
while [ \$# -gt 0 ]; do case \$1 in --csv) csv=\$2; shift ;; --images) images=\$2; shift ;; esac; shift; done
[ -f "\$csv" ] || echo "$header" > "\$csv"
echo "$1,loop,new,1,1,1,ms,ok,d,x" >> "\$csv"
[ -z "\$images" ] || echo "new image" > "\$images/$1-loop.ppm"
$2
SCRIPT
    chmod +x "$1"
}
stand_in ch04 'kill -9 $$'
stand_in ch06 'exit 0'
CHAPTERS="ch04 ch06" COURSE_DATA=1 bash tools/bench.sh > bench.log 2>&1 && fail "bench exited 0 although ch04 was killed"
grep -q '^ch04,recursive,old' "$csv" && grep -q '^ch04,loop,old' "$csv" || fail "ch04's committed rows were dropped: $(cat "$csv")"
grep -q '^ch04,loop,new' "$csv" && fail "the killed ch04's partial row was taken in"
grep -q '^ch06,loop,new' "$csv" || fail "ch06's new row is missing"
grep -q '^ch06,cub,old' "$csv" && fail "ch06's old row was kept beside its new one"
grep -q '^ch05,loop,old' "$csv" || fail "ch05's row (not run) was dropped"
[ "$(cat "data/results/$MACHINE/ch04.txt")" = "old log" ] || fail "ch04's committed log was replaced"
[ "$(cat "data/images/$MACHINE/ch04-loop.ppm")" = "old image" ] || fail "ch04's committed image was replaced"
echo "bench kept the failed chapter's rows, log and image, and took in the chapter that succeeded"
