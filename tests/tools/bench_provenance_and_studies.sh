#!/usr/bin/env bash
# make bench's provenance and make studies' share of the file. In a scratch
# copy that is a git repository, stand-ins for ch04 and ch06 write each a row
# carrying what the programs take from the environment (BENCH_COMMIT,
# BENCH_RUN_ID, BENCH_MACHINE_ID: report.c writes them). Then:
# - one bench: both chapters' rows carry the same run id, the commit as git
#   names it (with -dirty once a tracked file changes), an 8-hex machine id;
#   each chapter's log starts with "# run <id> commit <c> ..."; bench-run.txt
#   names the run and each chapter's seconds; load.txt each chapter's steal
#   time, a share of the CPUs' time;
# - COURSE_COMMIT names the commit of a copied tree (its -dirty mark still its own);
# - a study (ch06 given a stand-in study script): its rows go in under a run
#   id "study-...", the bench's rows of ch06 stay; a second bench replaces its
#   own rows and keeps the study's.
set -u
[ "${1:-}" = --can-run ] && { command -v git > /dev/null || { echo "no git"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export CLANG_CUDA= # no clang probe: the registry is all this needs
printf "%s\n" build/ data/ > .gitignore
git init -q . && git add -A && git -c user.email=t@example.com -c user.name=t commit -qm scratch || fail "git init"
want_commit=$(git rev-parse --short=7 HEAD)
eval "$(make -s print-registry)" || fail "cannot read the registry"
csv=data/results/$MACHINE.csv
header=chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end
for ch in ch04 ch06; do
    cat > "$ch" <<SCRIPT
#!/usr/bin/env bash
[ "\$1" = --list-stages ] && exit 0
csv=
while [ \$# -gt 0 ]; do case \$1 in --csv) csv=\$2; shift ;; esac; shift; done
[ -f "\$csv" ] || echo "$header" > "\$csv"
echo "$ch,loop,w,1,1,1,ms,ok,d,x,\$BENCH_COMMIT,\$BENCH_RUN_ID,\$BENCH_MACHINE_ID,-,-,-,-,-,-" >> "\$csv"
echo "$ch's table"
SCRIPT
    chmod +x "$ch"
done
echo 'echo "ch06,ladder,w,0,1,1,MSE,ok,d,x,$BENCH_COMMIT,$BENCH_RUN_ID,$BENCH_MACHINE_ID,-,-,-,-,-,-" >> "$new"' > study_ch06.sh
echo 'ch06_STUDY := study_ch06.sh' >> chapters/ch06_reduction/chapter.mk
git add -A && git -c user.email=t@example.com -c user.name=t commit -qm stand-ins || fail "git commit"
want_commit=$(git rev-parse --short=7 HEAD)

CHAPTERS="ch04 ch06" COURSE_DATA=1 bash tools/bench.sh > bench.log 2>&1 || fail "bench failed: $(tail -n 3 bench.log)"
# (the columns by name, as the tools read them)
. tools/columns.sh
csv_columns "$csv" commit run_id machine_id || fail "the results lack a provenance column: $(head -n 1 "$csv")"
runs=$(awk -F, "${cols[@]}" 'NR > 1 {print $c_run_id}' "$csv" | sort -u)
[ "$(wc -l <<<"$runs")" = 1 ] || fail "one bench, more than one run id: $runs"
[[ $runs =~ ^[0-9]{8}T[0-9]{4}Z-[0-9a-f]{4}$ ]] || fail "run id not as report.h says: $runs"
[ "$(awk -F, "${cols[@]}" 'NR > 1 {print $c_commit}' "$csv" | sort -u)" = "$want_commit" ] || fail "commit column is not $want_commit: $(cat "$csv")"
for id in $(awk -F, "${cols[@]}" 'NR > 1 {print $c_machine_id}' "$csv"); do
    [[ $id =~ ^[0-9a-f]{8}$ ]] || fail "machine id not 8 hex: $id"
done
[ "$(head -n 1 "$csv")" = "$header" ] || fail "header is not the programs' own: $(head -n 1 "$csv")"
first=$(head -n 1 "data/results/$MACHINE/ch04.txt")
[[ $first == "# run $runs commit $want_commit machine "* ]] || fail "ch04's log does not start with its run: $first"
grep -q "^run_id: $runs$" "data/results/$MACHINE/bench-run.txt" && grep -q '^ch06_s: [0-9]' "data/results/$MACHINE/bench-run.txt" ||
    fail "bench-run.txt lacks the run or a chapter's time: $(cat "data/results/$MACHINE/bench-run.txt")"
for ch in ch04 ch06; do # load.txt: each chapter's steal time, a share in [0, 100], where /proc/stat has it
    line=$(grep "^$ch: steal" "data/results/$MACHINE/load.txt") || fail "load.txt has no steal line for $ch: $(cat "data/results/$MACHINE/load.txt")"
    [ -r /proc/stat ] || continue
    share=$(sed -n 's/^[a-z0-9]*: steal \([0-9.]*\)% of the CPUs. time while it ran.*/\1/p' <<<"$line")
    awk -v s="$share" 'BEGIN { exit !(s != "" && s >= 0 && s <= 100) }' || fail "$ch's steal line: $line"
done

CHAPTERS="ch04 ch06" STUDY=1 COURSE_DATA=1 bash tools/bench.sh > study.log 2>&1 || fail "studies failed: $(tail -n 3 study.log)"
grep -q "^ch06,ladder,.*,study-" "$csv" || fail "the study's row is missing: $(cat "$csv")"
grep -q "^ch06,loop,.*,$runs," "$csv" || fail "the study dropped the bench's ch06 row: $(cat "$csv")"
grep -q "^ch04,loop,.*,$runs," "$csv" || fail "the study dropped ch04, which has no study: $(cat "$csv")"
grep -q 'studies: .*ch04' study.log && fail "the study ran ch04, which has none: $(cat study.log)"

echo "# touched" >> chapters/ch04_gpu_loop/chapter.mk # a tracked file changed: the next rows say -dirty
CHAPTERS="ch06" COURSE_DATA=1 bash tools/bench.sh > bench2.log 2>&1 || fail "second bench failed: $(tail -n 3 bench2.log)"
grep -q "^ch06,loop,.*,$want_commit-dirty," "$csv" || fail "a dirty tree's rows do not say -dirty: $(cat "$csv")"
[ "$(grep -c '^ch06,loop' "$csv")" = 1 ] || fail "the second bench kept its old ch06 row: $(cat "$csv")"
grep -q "^ch06,ladder,.*,study-" "$csv" || fail "the second bench dropped the study's row: $(cat "$csv")"
COURSE_COMMIT=feedbee CHAPTERS="ch04" COURSE_DATA=1 bash tools/bench.sh > bench3.log 2>&1 || fail "third bench failed: $(tail -n 3 bench3.log)"
grep -q "^ch04,loop,.*,feedbee-dirty," "$csv" || fail "COURSE_COMMIT (a copied tree's commit) was not taken: $(cat "$csv")"
echo "bench rows carry one run id, the commit (and -dirty), the machine; logs start with their run; studies keep their own rows"
