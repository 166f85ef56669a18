#!/usr/bin/env bash
# A student's make bench (no COURSE_DATA) writes its own results, in mine/
# (data/'s layout), and leaves the course's committed data/ byte for byte as
# it was, even on a machine named like the course's: a stand-in chapter runs in
# a scratch copy whose data/results already holds this machine's rows, logs
# and images. COURSE_DATA=1 (a maintainer) writes data/; any other value is
# refused before anything runs, by bench.sh and by make (host-record, the
# bench's first step, writes where the bench does).
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - common | tar -C "$repo" -xf - || fail "cannot copy common/ (host-record's source needs it)"
cd "$repo" || exit 1
export CLANG_CUDA= # no clang probe: the registry is all this needs
eval "$(make -s print-registry)" || fail "cannot read the registry"
header=chapter,stage,workload,threads,median_ms,value,unit,check,device,date
mkdir -p "data/results/$MACHINE" "data/images/$MACHINE" data/plots
printf '%s\n' "$header" "ch06,cub,course,1,1,1,ms,ok,d,x" > "data/results/$MACHINE.csv"
echo "course log" > "data/results/$MACHINE/ch06.txt"
echo "course image" > "data/images/$MACHINE/ch06-loop.ppm"
echo "course chart" > data/plots/ch06.svg
snapshot() { find data -type f -exec md5sum {} + | sort; find data | sort; }
before=$(snapshot)
cat > ch06 <<SCRIPT
#!/usr/bin/env bash
[ "\$1" = --list-stages ] && exit 0
csv=
while [ \$# -gt 0 ]; do case \$1 in --csv) csv=\$2; shift ;; esac; shift; done
[ -f "\$csv" ] || echo "$header" > "\$csv"
echo "ch06,loop,mine,1,1,1,ms,ok,d,x" >> "\$csv"
echo "a table"
SCRIPT
chmod +x ch06

CHAPTERS=ch06 bash tools/bench.sh > bench.log 2>&1 || fail "a student's bench failed: $(tail -n 5 bench.log)"
[ "$(snapshot)" = "$before" ] || fail "a student's bench changed data/: $(diff <(echo "$before") <(snapshot))"
mine=mine/results/$MACHINE.csv
[ "$(cat "$mine" 2>/dev/null)" = "$header
ch06,loop,mine,1,1,1,ms,ok,d,x" ] || fail "the student's results in $mine are: $(cat "$mine" 2>&1)"
[ "$(tail -n +2 "mine/results/$MACHINE/ch06.txt")" = "a table" ] && head -n 1 "mine/results/$MACHINE/ch06.txt" | grep -q "^# run " ||
    fail "the student's log (after its run line) is not in mine/results/$MACHINE/"
grep -q "bench: your results are in mine/" bench.log || fail "bench does not say where the results went: $(tail -n 3 bench.log)"
git -C "$1" check-ignore -q mine/results/x.csv || fail "mine/ is not git-ignored"

COURSE_DATA=yes CHAPTERS=ch06 bash tools/bench.sh > bench.log 2>&1
[ $? = 2 ] || fail "COURSE_DATA=yes was not refused with exit 2: $(cat bench.log)"
grep -q 'COURSE_DATA is 1' bench.log || fail "COURSE_DATA=yes said: $(cat bench.log)"
make -s print-chapters COURSE_DATA=yes > make.log 2>&1 && fail "make with COURSE_DATA=yes did not stop"
grep -q 'COURSE_DATA is 1' make.log || fail "make with COURSE_DATA=yes said: $(cat make.log)"
[ "$(snapshot)" = "$before" ] || fail "a refused bench changed data/"
make -n host-record | grep -q "write_checked.sh mine/results/$MACHINE/host.txt " || fail "host-record writes: $(make -n host-record | tail -n 2)"
make -n host-record COURSE_DATA=1 | grep -q "write_checked.sh data/results/$MACHINE/host.txt " || fail "host-record with COURSE_DATA=1 writes elsewhere"

COURSE_DATA=1 CHAPTERS=ch06 bash tools/bench.sh > bench.log 2>&1 || fail "the maintainer's bench failed: $(tail -n 5 bench.log)"
grep -q '^ch06,loop,mine,' "data/results/$MACHINE.csv" && ! grep -q '^ch06,cub,course' "data/results/$MACHINE.csv" ||
    fail "COURSE_DATA=1 did not replace ch06's committed rows: $(cat "data/results/$MACHINE.csv")"
echo "a student's bench wrote mine/ and left data/ as it was; COURSE_DATA=1 wrote data/; other values refused"
