#!/usr/bin/env bash
# SIGTERM (or SIGINT, SIGHUP) to make grade-class's script alone ends its
# gradings too (nothing lost, round 6, item 5: its grade.sh jobs kept running
# after it exited, and later printed errors about the folder it had removed).
# Each student's grading runs in a process group of its own; the trap ends
# each group and waits for it before the work folder goes: when the script
# has exited, no grading of it runs, nothing writes into GRADES_OUT, and no
# work folder is left; exit 143. With a job array's SHARD the same. The
# gradings here are stand-ins (a tools/grade.sh of the scratch copy that
# waits, and a judge_prepare that builds nothing): this is the class tool's
# signal handling, not the grader's. A grading that ignores SIGTERM gets
# SIGKILL 10 s later.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v ps > /dev/null || { echo "no ps: this test looks for the gradings' processes with it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
tool_copy "$1"
marks=$scratch/marks
mkdir "$marks" || exit 1
# every process a stand-in starts is named in marks/started: ended by this test at its end, whatever happens
trap 'for p in $(cat "$marks"/started 2> /dev/null); do kill -KILL "$p" 2> /dev/null; done; rm -rf "$scratch"' EXIT
stand_in_grading <<'SH'
# a grading that takes its time: its pid and its child's in MARKS/started; "late" once it is done
[ -z "${DEAF:-}" ] || trap '' TERM # (one that will not end for SIGTERM: its child neither)
sleep 30 &
echo "$$ $!" >> "$MARKS/started"
wait
echo "late: $$ wrote after $STUDENT's grading was to end" >> "$MARKS/late"
echo "$GRADE_OUT" > /dev/null
SH
sub=$scratch/submissions
for s in ann bob cy; do mkdir -p "$sub/$s/ch01" || exit 1; done

# alive PID: PID runs (a zombie, ended and not yet reaped by whoever inherited it, does not)
alive() { local st; st=$(ps -o stat= -p "$1") && [[ $st != Z* ]]; }
# term SIGNAL STATUS [SHARD [DEAF]]: grade-class stopped by SIGNAL while its gradings run
# (DEAF: gradings that ignore SIGTERM)
term() {
    local sig=$1 want=$2 shard=${3:-} pid rc n=0 p
    : > "$marks/started"
    rm -f "$marks/late"
    # (as a job of its own, started so: a background command of a script without one ignores SIGINT)
    set -m
    DEAF=${4:-} MARKS=$marks GRADES_OUT=$scratch/out JOBS=2 SHARD=$shard BUILD=build bash tools/grade_class.sh "$sub" '' ch01 > "$scratch/said" 2>&1 &
    pid=$!
    set +m
    while [ "$(wc -w < "$marks/started")" -lt 4 ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
    [ "$(wc -w < "$marks/started")" -ge 4 ] || fail "$sig: the two gradings did not start: $(cat "$scratch/said")"
    kill -s "$sig" "$pid" || fail "$sig: cannot signal grade-class"
    wait "$pid"
    rc=$?
    for p in $(cat "$marks/started"); do
        ! alive "$p" || fail "$sig${shard:+ (SHARD=$shard)}: a grading's process ($p) still runs after grade-class exited: $(ps -o pid,pgid,args -p "$p" | tail -n 1)"
    done
    [ $rc = "$want" ] || fail "$sig: exit $rc, not $want: $(cat "$scratch/said")"
    [ -z "$(find "$scratch/out" -mindepth 1 -maxdepth 1 -name '.grade-class.*')" ] || fail "$sig: a work folder was left: $(ls -A "$scratch/out")"
    sleep 1
    [ ! -e "$marks/late" ] || fail "$sig: a grading went on: $(cat "$marks/late")"
}
term TERM 143
grep -q 'stopped' "$scratch/said" || fail "TERM: not said: $(cat "$scratch/said")"
term INT 130
term HUP 129
term TERM 143 0/2
start=$SECONDS
term TERM 143 '' deaf
[ $((SECONDS - start)) -le 40 ] || fail "gradings that ignore SIGTERM took $((SECONDS - start)) s to end"
echo "grade-class: SIGTERM, SIGINT, SIGHUP to the script alone end its gradings' process groups (SIGKILL for one deaf to SIGTERM) and wait for them; nothing left running or left behind"
