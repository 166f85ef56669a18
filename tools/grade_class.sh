#!/usr/bin/env bash
# make grade-class DIR=submissions [EX=...] [JOBS=N] [PARTS=none|half|full] [SHARD=I/N]:
# grades a class. DIR holds a folder per student, named by the student's id
# (1 to 64 of A-Z a-z 0-9 . _ @ + -, from a letter or a digit: what make grade
# allows), laid out as exercises/ is (its chNN folders: a student's
# exercises/ copied or unpacked as it is). Each student is graded by
# tools/grade.sh with ANSWERS=that folder, exactly as `make grade` grades a
# student's own checkout: every exercise in private folders of its own, the
# answer's code in the sandbox, the verdict from the judge. JOBS students at
# once (default: one per core; each grading runs one compiler or program at a
# time). Written to GRADES_OUT (default mine/grades/):
#   results/ID.csv   the student's grade file (make grade's GRADE_OUT format,
#                    with each exercise's answer hash)
#   logs/ID.log      what make grade printed for the student
# then tools/collect_grades.py over results/: the class's table, totals per
# PARTS (what a GPU part not run here counts: none, half, full), a gradebook
# CSV, Gradescope's results.json per student and the chart.
# SHARD=I/N grades only the students I, I+N, I+2N, ... (0-based, in name
# order) and collects nothing: a Slurm job array's task (tools/slurm/
# grade_class.sbatch); `make collect-grades DIR=mine/grades/results` after
# the last task makes the table.
# Exit status: 0 every student folder was graded (whatever the grades); 1 some
# folder was left out (a bad name, not a folder) or could not be graded;
# 2 a bad DIR, EX, JOBS, SHARD or PARTS, said before anything is graded.
# Usage: grade_class.sh DIR EX-TEXT EXERCISE...   (the environment: BUILD, GRADES_OUT, JOBS, PARTS, SHARD)
set -u
case ${1:-} in -h | --help)
    sed -n '2,/^# Usage/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
tool=grade-class
here=$(dirname "$0")
. "$here/exercise_names.sh"
. "$here/judge.sh"
refuse() { echo "grade-class: $*" >&2; exit 2; }

dir=${1:-}
shift || true
[ -n "$dir" ] || refuse "say which folder: make grade-class DIR=submissions (a folder per student)"
[ -d "$dir" ] || refuse "DIR=$dir is not a folder"
ex_text=${1:-}
shift || true
exercise_names "$ex_text" "$@"
out=${GRADES_OUT:-mine/grades}
jobs=${JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]{0,3}$ ]] || refuse "JOBS=$jobs: say how many students at once (1 to 9999)"
shard=${SHARD:-0/1}
[[ $shard =~ ^([0-9]+)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] ||
    refuse "SHARD=$shard: say I/N with 0 <= I < N (a job array's task and count)"
shard_i=${BASH_REMATCH[1]} shard_n=${BASH_REMATCH[2]}
case ${PARTS:-none} in none | half | full) ;; *) refuse "PARTS=$PARTS: say none, half or full (what a GPU part not run counts)" ;; esac

# The students: every folder in DIR with an id's name, in name order.
students=() left_out=0
while IFS= read -r -d '' path; do
    id=$(basename -- "$path")
    case $id in .*) continue ;; esac
    if [ -L "$path" ] || [ ! -d "$path" ]; then
        echo "grade-class: $path is not a folder (a student's is their exercises/ folder): left out" >&2
        left_out=$((left_out + 1)); continue
    fi
    if find "$path" -mindepth 1 -maxdepth 1 -type l | grep -q .; then
        echo "grade-class: $path holds a link (an exercise folder must be the student's own): left out" >&2
        left_out=$((left_out + 1)); continue
    fi
    if ! student_id_ok "$id"; then
        echo "grade-class: $(printf '%q' "$id"): not a student id (1 to 64 of A-Z a-z 0-9 . _ @ + -, from a letter or a digit): left out" >&2
        left_out=$((left_out + 1)); continue
    fi
    students+=("$id")
done < <(find "$dir" -mindepth 1 -maxdepth 1 -print0 | LC_ALL=C sort -z)
mine=()
for k in "${!students[@]}"; do
    [ $((k % shard_n)) -ne "$shard_i" ] || mine+=("${students[$k]}")
done
[ ${#mine[@]} -gt 0 ] || refuse "no student folder in $dir${SHARD:+ for shard $shard}"
mkdir -p -- "$out/results" "$out/logs" || refuse "cannot make $out/results and $out/logs"

# What every grading shares is built once, here.
judge_prepare "${names[@]}"
echo "grade-class: ${#mine[@]} students, ${#names[@]} exercises each, $jobs at once; logs in $out/logs/"

# grade_student ID EXERCISE...: one student's make grade, its result and log.
grade_student() {
    local id=$1 log=$out/logs/$1.log rc tmp
    shift
    # the log by a temp file of its own and a rename; a log that is a link, or
    # read-only, is someone's: not replaced
    if [ -L "$log" ] || { [ -e "$log" ] && { [ ! -f "$log" ] || [[ $(stat -c %A -- "$log") != ??w* ]]; }; }; then
        echo "grade-class: $id: $log is a link, not a file or read-only: not graded" >&2; return 1
    fi
    tmp=$(mktemp -- "$out/logs/.$id.XXXXXX") || return 1
    JUDGE_PREPARED=1 ANSWERS="$dir/$id" GRADE_OUT="$out/results/$id.csv" STUDENT="$id" \
        "$here/grade.sh" "$ex_text" "$@" > "$tmp" 2>&1 < /dev/null
    rc=$?
    chmod "$(printf '%o' $((0666 & ~0$(umask))))" -- "$tmp" && mv -f -- "$tmp" "$log" || return 1
    # grade.sh: 0 all passed, 1 some failed, 3 some part not run: all graded
    if [ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 3 ]; then
        echo "grade-class: $id: $(grep -E '^[0-9]+ passed' "$log" | tail -n 1)"
    else
        echo "grade-class: $id could not be graded (make grade exited $rc): $(tail -n 1 "$log")" >&2
        return 1
    fi
}

start=$SECONDS failed=0 running=0
pids=()
for id in "${mine[@]}"; do
    grade_student "$id" "$@" &
    pids+=($!)
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n || failed=$((failed + 1))
        running=$((running - 1))
    fi
done
while [ $running -gt 0 ]; do
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
done
echo "grade-class: ${#mine[@]} students graded in $((SECONDS - start)) s ($jobs at once, $(nproc) cores)$([ $failed -eq 0 ] || echo ", $failed could not be")"
status=0
[ $((failed + left_out)) -eq 0 ] || status=1
if [ "$shard_n" -gt 1 ]; then
    echo "grade-class: shard $shard done; after the last: make collect-grades DIR=$out/results"
    exit $status
fi
if ! command -v python3 > /dev/null; then
    echo "grade-class: no table: collect-grades needs python3 (apt-get install python3); the grade files are in $out/results/" >&2
    exit 2
fi
GRADES_OUT=$out "$here/collect_grades.py" "$out/results" || status=$(( $? == 2 ? 2 : status > 0 ? status : 1 ))
exit $status
