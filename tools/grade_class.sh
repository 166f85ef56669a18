#!/usr/bin/env bash
# make grade-class DIR=submissions [EX=...] [JOBS=N] [PARTS=none|half|full] [SHARD=I/N]:
# grades a class. DIR holds a folder per student, named by the student's id
# (1 to 64 of A-Z a-z 0-9 . _ @ + -, from a letter or a digit: what make grade
# allows), laid out as exercises/ is (its chNN folders: a student's
# exercises/ copied or unpacked as it is): DIR/ann/ch01/vec.c. A folder one
# level deeper, DIR/ann/exercises/ch01/vec.c (the exercises/ folder itself,
# or a whole checkout, unpacked into ann/), is graded from ann/exercises/ and
# said so: only the exercises' own files are ever read, as in the first
# layout. A student folder with neither (no exercise folder at its top nor in
# its exercises/), or with both, is named with what it holds and left out
# before anything is graded. Each student is graded by
# tools/grade.sh with ANSWERS=that folder, exactly as `make grade` grades a
# student's own checkout: every exercise in private folders of its own, the
# answer's code in the sandbox, the verdict from the judge. JOBS students at
# once (default: one per core; each grading runs one compiler or program at a
# time). Written to GRADES_OUT (default mine/grades/):
#   results/ID.csv   the student's grade file (make grade's GRADE_OUT format,
#                    with each exercise's answer hash)
#   logs/ID.log      what make grade printed for the student, under a first
#                    line that says whose it is, where the answers were, and
#                    the SHA-256 of the text under it
# then tools/collect_grades.py over results/: the class's table, totals per
# PARTS (what a GPU part not run here counts: none, half, full), a gradebook
# CSV, Gradescope's results.json per student and the chart; grades.md ends
# with "Left out", each student folder with no row and why (a folder whose
# name is not an id only counted: it is named on the console).
# The first line, before anything is built, says where each student's log
# appears when done and where it is in progress; then a line per student, as
# each is done, with the score and the log.
# A grading replaces the last one in GRADES_OUT as a whole, never mixes with
# it: results/ and logs/ are written into a fresh hidden folder there and
# renamed into place when every student is graded (an interrupted grading
# leaves the last one as it was), and collect-grades replaces its own
# outputs the same way; a line says what was replaced. Only files a grading
# wrote are removed, each judged whole: a link, a read-only file, a result
# that is not wholly a grade file, a log whose first line is not its stamp or
# whose text is not the one the stamp's hash is of (notes added; a log of an
# older grade-class, which had no stamp: move it away once), another user's
# file in a GRADES_OUT with the sticky bit, or any other file there stops it
# (so does a GRADES_OUT, or a folder above it, that another user may write:
# they could replace the grades once written)
# before anything is graded (exit 2); so does an output collect-grades may not
# replace (collect_grades.py --check-out: a table not as the last collection
# wrote it, by grades.sha256), where the table is to be made.
# Ctrl-C, SIGTERM or SIGHUP, to this script alone too: every student's
# grading (each in a process group of its own) is ended and waited for, then
# it exits (130, 143, 129), the last grading in GRADES_OUT as it was and no
# work folder left.
# SHARD=I/N grades only the students I, I+N, I+2N, ... (0-based, in name
# order) and collects nothing: a Slurm job array's task (tools/slurm/
# grade_class.sbatch); `make collect-grades DIR=mine/grades/results
# GRADES_OUT=mine/grades` after the last task makes the table (each task's
# last line prints that command with the GRADES_OUT and PARTS it was given). Tasks share results/ and logs/, so each
# first removes the last grading's files of its own students and of any
# student no longer in DIR (checked as above; the student of results/ID.csv
# and logs/ID.log is ID, whatever it ends with: bob.log's result is
# results/bob.log.csv): when the last task ends, results/ holds this
# grading's files only.
# Exit status: 0 every student folder was graded (whatever the grades); 1 some
# folder was left out (a bad name, not a folder, no exercise folder) or could
# not be graded; 2 a bad DIR, EX, JOBS, SHARD or PARTS, or a file in
# GRADES_OUT that is not a grading's, said before anything is graded.
# Usage: grade_class.sh DIR EX-TEXT EXERCISE...   (the environment: BUILD, GRADES_OUT, JOBS, PARTS, SHARD)
set -u
case ${1:-} in -h | --help)
    sed -n '2,/^# Usage/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
tool=grade-class
here=$(dirname "$0")
. "$here/exercise_names.sh"
. "$here/judge.sh"
# shellcheck source=tools/file_checks.bash
. "$here/file_checks.bash"
refuse() { echo "grade-class: $*" >&2; exit 2; }
# count N THING [THINGS]: "1 student", "3 students"
count() { if [ "$1" -eq 1 ]; then echo "$1 $2"; else echo "$1 ${3:-${2}s}"; fi; }
# list NAME...: the first five, then how many more
list() { local more=$(($# - 5)); echo "${*:1:5}$([ "$more" -le 0 ] || echo " and $more more")"; }

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

# The folders an answer may hand in: every exercise's of the registry (ch07
# and ch07gpu share ch07/), whichever EX grades.
judge_registry
exercise_dirs=()
for e in "$@"; do
    d=$(judge_dir "$e")
    [[ " ${exercise_dirs[*]} " == *" $d "* ]] || exercise_dirs+=("$d")
done
# has_exercise FOLDER: FOLDER holds an exercise folder (a folder, not a link).
has_exercise() {
    local d
    for d in "${exercise_dirs[@]}"; do [ -d "$1/$d" ] && [ ! -L "$1/$d" ] && return 0; done
    return 1
}
# holds FOLDER: what FOLDER holds, its first few names (folders with a /).
holds() {
    local names
    names=$(find "$1" -mindepth 1 -maxdepth 1 -printf '%f%y\n' 2> /dev/null | LC_ALL=C sort | sed 's|d$|/|; t; s|.$||' | head -n 6 |
        LC_ALL=C tr -c '[:print:]\n' '?' | paste -sd ' ')
    echo "${names:-nothing}"
}
layout="a student's folder is laid out as exercises/ is: $dir/ID/${exercise_dirs[0]}/..., one folder per exercise (${exercise_dirs[*]})"

# The students: every folder in DIR with an id's name, in name order; where
# each one's answers are (answers[ID]: the folder, or its exercises/). Each
# one left out is a line of notes, "ID<tab>REASON", the ID empty where it is
# not a student id (named on the console only): the table's "Left out".
students=() left_out=0 deeper=() notes=()
note() { # ID REASON: a folder left out
    local id=$1
    student_id_ok "$id" || id=''
    notes+=("$id"$'\t'"$(printf '%s' "$2" | LC_ALL=C tr -c '[:print:]' '?')")
    left_out=$((left_out + 1))
}
declare -A answers=()
while IFS= read -r -d '' path; do
    id=$(basename -- "$path")
    case $id in .*) continue ;; esac
    if [ -L "$path" ] || [ ! -d "$path" ]; then
        echo "grade-class: $path is not a folder (a student's is their exercises/ folder): left out" >&2
        note "$id" "not a folder (a link or a file)"; continue
    fi
    if find "$path" -mindepth 1 -maxdepth 1 -type l | grep -q .; then
        echo "grade-class: $path holds a link (an exercise folder must be the student's own): left out" >&2
        note "$id" "its folder holds a link"; continue
    fi
    if ! student_id_ok "$id"; then
        echo "grade-class: $(printf '%q' "$id"): not a student id (1 to 64 of A-Z a-z 0-9 . _ @ + -, from a letter or a digit): left out" >&2
        note "$id" "not a student id"; continue
    fi
    # The layout, before anything is graded (a wrong one once showed only in
    # each exercise's FAIL inside the student's log).
    answers[$id]=$path
    if has_exercise "$path" && [ -d "$path/exercises" ]; then
        echo "grade-class: $path holds exercise folders and an exercises/ folder too: which is the answer? Left out ($layout)" >&2
        note "$id" "its folder holds exercise folders and an exercises/ folder too"; continue
    elif ! has_exercise "$path"; then
        if [ -d "$path/exercises" ] && has_exercise "$path/exercises"; then
            if find "$path/exercises" -mindepth 1 -maxdepth 1 -type l | grep -q .; then
                echo "grade-class: $path/exercises holds a link (an exercise folder must be the student's own): left out" >&2
                note "$id" "its exercises/ folder holds a link"; continue
            fi
            answers[$id]=$path/exercises deeper+=("$id")
        else
            echo "grade-class: $path holds no exercise folder, at its top or in an exercises/ folder: left out; $layout (it holds: $(holds "$path"))" >&2
            note "$id" "no exercise folder at its top or in its exercises/ (it holds: $(holds "$path"))"; continue
        fi
    fi
    students+=("$id")
done < <(find "$dir" -mindepth 1 -maxdepth 1 -print0 | LC_ALL=C sort -z)
[ ${#deeper[@]} -eq 0 ] ||
    echo "grade-class: $(count ${#deeper[@]} "student's folder holds" "students' folders hold") exercises/ one level down, graded from there: $(list "${deeper[@]}")"
mine=()
for k in "${!students[@]}"; do
    [ $((k % shard_n)) -ne "$shard_i" ] || mine+=("${students[$k]}")
done
[ ${#mine[@]} -gt 0 ] || refuse "no student folder in $dir${SHARD:+ for shard $shard}"

# What a grading leaves in GRADES_OUT, and how each file is known, whole, as
# one a grading wrote: a result is wholly a grade file (collect_grades.py
# --check reads it as the table does: make grade's header, then only its rows;
# without python3, by the header alone); a log's first line is this tool's
# stamp, which ends with the SHA-256 of every line under it, and those lines
# are exactly that text (a log with a teacher's notes added is not the tool's;
# nor is one written before logs had a stamp: move such a logs/ away once).
log_stamp() { # ID ANSWERS LOG-TEXT-FILE: the stamp line
    echo "grade-class: the log of $1, sha256 $(sha256sum < "$3" | cut -c1-64) of the lines below; its answers in $2/"
}
log_problem() { # LOG: why it is not a log this tool wrote, or nothing
    local first hash
    first=$(head -c 400 -- "$1" | head -n 1)
    [[ $first =~ ^grade-class:\ the\ log\ of\ [^\ ]+,\ sha256\ ([0-9a-f]{64})\ of\ the\ lines\ below ]] ||
        { echo "$1 is not a log grade-class wrote (its first line is not its stamp: a log of an older grade-class, or another file)"; return; }
    hash=$(tail -n +2 -- "$1" | sha256sum | cut -c1-64)
    [ "$hash" = "${BASH_REMATCH[1]}" ] || echo "$1 is not as grade-class wrote it (its text is not the one its stamp's hash is of: notes added?)"
}
result_headers=$'student,commit,machine,gpu,date,exercise,verdict,messages,answer\nstudent,commit,machine,gpu,date,exercise,verdict,messages'
# problems FOLDER KIND: why the files of FOLDER (results/ or logs/) are not all
# files a grading wrote, which may be replaced or removed: one line for each
# that is not (a link, not a regular file, read-only, another kind, a name
# grade-class never writes there); nothing when all are.
problems() {
    local folder=$1 kind=$2 f why name results=()
    if [ -L "$folder" ] || { [ -e "$folder" ] && [ ! -d "$folder" ]; }; then echo "$folder is a link or not a folder"; return; fi
    [ -d "$folder" ] || return 0
    while IFS= read -r -d '' f; do
        name=${f##*/}
        why=$(replace_problem_common "$f")
        if [ -n "$why" ]; then echo "$f $why"; continue; fi
        [ -e "$f" ] || continue # gone meanwhile (a job array's task renamed its temp file)
        case $kind:$name in
        results:.grade.*.tmp | logs:.*.??????) ;; # the temp file of a grading that was interrupted
        results:*.csv) results+=("$f") ;;
        logs:*.log) log_problem "$f" ;;
        *) echo "$f is not a file grade-class writes there" ;;
        esac
    done < <(find "$folder" -mindepth 1 -maxdepth 1 -print0)
    [ ${#results[@]} -gt 0 ] || return 0
    if command -v python3 > /dev/null; then
        python3 "$here/collect_grades.py" --check "${results[@]}" | sed 's/$/: not a grade file grade-class wrote/'
    else
        for f in "${results[@]}"; do
            grep -qxF -- "$(head -c 200 -- "$f" | head -n 1)" <<<"$result_headers" ||
                echo "$f does not start with make grade's header: not a grade file grade-class wrote"
        done
    fi
}
# student_of FILE: the student a result (results/ID.csv) or a log (logs/ID.log)
# is of: only its folder's suffix goes (bob.log's result is results/bob.log.csv).
student_of() {
    local n=${1##*/} d=${1%/*}
    case ${d##*/} in results | results.last) echo "${n%.csv}" ;; *) echo "${n%.log}" ;; esac
}
check_out() { # the files of the last grading in GRADES_OUT, all of them the tool's own: or stop
    local why
    [ ! -L "$out" ] || refuse "GRADES_OUT=$out is a symbolic link: give the folder it points to"
    why=$(problems "$out/results" results; problems "$out/logs" logs)
    [ -z "$why" ] || refuse "$(head -n 5 <<<"$why" | paste -sd ';' | sed 's/;/; /g'): nothing graded (move it, or give another GRADES_OUT)"
    # the collection's outputs too (a job array's task collects nothing): a
    # table of the teacher's there would stop the collection after the grading
    if [ "$shard_n" -eq 1 ] && command -v python3 > /dev/null; then
        why=$(GRADES_OUT=$out python3 "$here/collect_grades.py" --check-out) ||
            refuse "$(head -n 5 <<<"$why" | paste -sd ';' | sed 's/;/; /g'): nothing graded (collect-grades could not put its table there: move it, or give another GRADES_OUT)"
    fi
}
# (a folder another user may write, or one above it: they could replace the grades)
why=$(others_folder_problem "$out")
[ -z "$why" ] || refuse "GRADES_OUT: $why: nothing graded"
mkdir -p -- "$out" || refuse "cannot make $out"
# again, made: a name not there yet (in /tmp) another user could have made first
why=$(others_folder_problem "$out")
[ -z "$why" ] || refuse "GRADES_OUT: $why: nothing graded"
check_out

if [ "$shard_n" -gt 1 ]; then
    # A task of a job array: the other tasks write results/ and logs/ now, so
    # it cannot be replaced whole. The last grading's files of this task's
    # students and of students no longer in DIR go first (none of the others'
    # tasks write those); the tasks together replace the rest.
    grading=$out
    mkdir -p -- "$out/results" "$out/logs" || refuse "cannot make $out/results and $out/logs"
    declare -A in_dir=() in_mine=()
    for id in "${students[@]}"; do in_dir[$id]=1; done
    for id in "${mine[@]}"; do in_mine[$id]=1; done
    removed=() gone=0
    while IFS= read -r -d '' f; do
        case ${f##*/} in .*) continue ;; esac # another task's grading in progress
        id=$(student_of "$f")
        [ -z "${in_dir[$id]:-}" ] || [ -n "${in_mine[$id]:-}" ] || continue
        [[ " ${removed[*]} " == *" $id "* ]] || { removed+=("$id"); [ -n "${in_dir[$id]:-}" ] || gone=$((gone + 1)); }
        rm -f -- "$f" || refuse "cannot remove $f"
    done < <(find "$out/results" "$out/logs" -mindepth 1 -maxdepth 1 -type f -print0)
    [ ${#removed[@]} -eq 0 ] ||
        echo "grade-class: removed the last grading's files of $(count ${#removed[@]} student) ($gone no longer in $dir): this grading replaces them, not mixes with them"
else
    # The whole class: graded into a fresh folder, put in place at the end.
    grading=$(mktemp -d -- "$out/.grade-class.XXXXXX") || refuse "cannot make a folder in $out"
    trap 'rm -rf -- "$grading"' EXIT
    chmod "$(printf '%o' $((0777 & ~0$(umask))))" -- "$grading" || refuse "cannot set $grading's mode"
    mkdir -- "$grading/results" "$grading/logs" || refuse "cannot make $grading/results and logs"
fi

# Ctrl-C, SIGTERM, SIGHUP, to this script alone too (a job's scheduler, a
# kill): every grading's process group ended and waited for, then this one
# ends (and, for the whole class, its work folder goes: the last grading
# stays as it was). Only the gradings still running are signalled: each is
# the leader of its group, a child of this script not yet waited for. SIGTERM
# first (grade.sh and the sandbox end what they started); a group still there
# 10 s later gets SIGKILL.
pids=()
# running_groups PGID...: those whose process group has a process that runs (a
# zombie, ended and not reaped by whoever inherited it, does not)
running_groups() {
    local p
    if command -v ps > /dev/null; then
        ps -e -o pgid=,stat= 2> /dev/null | awk -v want=" $* " '$2 !~ /^Z/ && index(want, " " $1 " ") { print $1 }'
    else
        for p; do ! kill -0 -- "-$p" 2> /dev/null || echo "$p"; done
    fi
}
stop() { # SIGNAL STATUS
    trap '' INT TERM HUP
    local p live=() tries=0
    for p in $(jobs -p); do [[ " ${pids[*]} " != *" $p "* ]] || live+=("$p"); done
    for p in ${live[@]+"${live[@]}"}; do kill -TERM -- "-$p" 2> /dev/null; done
    while [ "$tries" -lt 100 ] && [ ${#live[@]} -gt 0 ] && [ -n "$(running_groups "${live[@]}")" ]; do
        sleep 0.1; tries=$((tries + 1))
    done
    if [ ${#live[@]} -gt 0 ]; then
        for p in $(running_groups "${live[@]}"); do kill -KILL -- "-$p" 2> /dev/null; done
        for p in "${live[@]}"; do wait "$p" 2> /dev/null; done
    fi
    if [ "$shard_n" -gt 1 ]; then
        echo "grade-class: stopped (SIG$1): every grading ended; this task's students graded so far are in $out/results/" >&2
    else
        echo "grade-class: stopped (SIG$1): every grading ended, nothing put in place: the last grading in $out is as it was" >&2
    fi
    exit "$2"
}
trap 'stop INT 130' INT
trap 'stop TERM 143' TERM
trap 'stop HUP 129' HUP

# Where the logs are, before anything is built: a grading of the whole class
# writes them in its work folder, each one's in place when it is done, all put
# in $out/logs/ at the end; a job array's task writes them in $out/logs/.
if [ "$shard_n" -gt 1 ]; then
    echo "grade-class: grading $(count ${#mine[@]} student), $jobs at a time; each one's log appears in $out/logs/ID.log when done (in progress: $out/logs/.ID.XXXXXX)"
else
    echo "grade-class: grading $(count ${#mine[@]} student), $jobs at a time; each one's log appears in $grading/logs/ID.log when done (in progress: $grading/logs/.ID.XXXXXX), and all in $out/logs/ when every student is graded"
fi
# The sandbox hides the model answers from the answers, not from the other
# users of this machine: one who can read them could hand them to an answer
# through the kernel (a shared mapping's futex, a FIFO opened to read).
for hidden in solutions .git "${BUILD:-build}"; do
    [ -e "$hidden" ] && (( (8#$(stat -c %a -- "$hidden") & 8#004) != 0 )) &&
        echo "grade-class: warning: $hidden/ may be read by every user of this machine (mode $(stat -c %a -- "$hidden")): chmod -R go-rwx solutions .git ${BUILD:-build}, or grade where no one else logs in (TEACHING.md)" >&2
done
# What every grading shares is built once, here.
judge_prepare "${names[@]}"
echo "grade-class: $(count ${#mine[@]} student), $(count ${#names[@]} exercise) each, $jobs at once: what they share is built; a line per student as each is done"

# grade_student ID ANSWERS EXERCISE...: one student's make grade, its result and
# log; run by its own bash (start_grading), its temp files removed however it ends.
grade_student() {
    local id=$1 from=$2 log=$grading/logs/$1.log rc
    tmp='' text=''
    trap 'rm -f -- ${tmp:+"$tmp"} ${text:+"$text"}' EXIT
    trap 'exit 143' TERM INT HUP
    shift 2
    # the log by a temp file of its own and a rename; a log that is a link, or
    # read-only, is someone's: not replaced
    if [ -L "$log" ] || { [ -e "$log" ] && { [ ! -f "$log" ] || [[ $(stat -c %A -- "$log") != ??w* ]]; }; }; then
        echo "grade-class: $id: $log is a link, not a file or read-only: not graded" >&2; return 1
    fi
    tmp=$(mktemp -- "$grading/logs/.$id.XXXXXX") && text=$(mktemp -- "$grading/logs/.$id.XXXXXX") || return 1
    # (every submission hidden from every run of an answer: no answer reads a
    # classmate's; class_dir is the start_grading's argument, never empty)
    [ -n "${class_dir:-}" ] || { echo "grade-class: $id: no class folder to hide: not graded" >&2; return 1; }
    JUDGE_PREPARED=1 JUDGE_HIDE=$class_dir ANSWERS="$from" GRADE_OUT="$grading/results/$id.csv" STUDENT="$id" \
        "$here/grade.sh" "$ex_text" "$@" > "$text" 2>&1 < /dev/null
    rc=$?
    # the stamp first: what the log is, and the hash of the text under it
    { log_stamp "$id" "$from" "$text" && cat -- "$text"; } > "$tmp" && rm -f -- "$text" || return 1
    chmod "$(printf '%o' $((0666 & ~0$(umask))))" -- "$tmp" && mv -f -- "$tmp" "$log" || return 1
    tmp='' text=''
    # grade.sh: 0 all passed, 1 some failed, 3 some part not run: all graded
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 3 ]; then
        echo "grade-class: $id: $(grep -E '^[0-9]+ passed' "$log" | tail -n 1) (log: $log)"
    else
        echo "grade-class: $id could not be graded (make grade exited $rc): $(tail -n 1 "$log")" >&2
        return 1
    fi
}

# start_grading ID EXERCISE...: grade_student in the background, in a process
# group of its own: a session (setsid), so no terminal stops it for writing
# (stty tostop) and Ctrl-C reaches it through stop only; without setsid, a
# job of its own group (set -m). Its pid, its group's id, goes in pids.
# (The functions reach it by the environment, taken out of it at once, and
# what they read by arguments: grade.sh inherits none of it.)
export -f grade_student log_stamp
# shellcheck disable=SC2016 # the words are the child's to expand
one_grading='export -nf grade_student log_stamp; grading=$1 here=$2 ex_text=$3 class_dir=$4; shift 4; grade_student "$@"'
class_dir=$(realpath -m -- "$dir") && [ -n "$class_dir" ] || { echo "grade-class: $dir: no path to hide it by" >&2; exit 2; }
start_grading() {
    local id=$1
    shift
    if command -v setsid > /dev/null; then
        setsid bash -c "$one_grading" grade-class "$grading" "$here" "$ex_text" "$class_dir" "$id" "${answers[$id]}" "$@" &
    else
        set -m
        bash -c "$one_grading" grade-class "$grading" "$here" "$ex_text" "$class_dir" "$id" "${answers[$id]}" "$@" &
        set +m
    fi
    pids+=($!)
}
start=$SECONDS failed=0 running=0
for id in "${mine[@]}"; do
    start_grading "$id" "$@"
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
echo "grade-class: $(count ${#mine[@]} student) graded in $((SECONDS - start)) s ($jobs at once, $(count "$(nproc)" core))$([ $failed -eq 0 ] || echo ", $failed could not be")"
status=0
[ $((failed + left_out)) -eq 0 ] || status=1
if [ "$shard_n" -eq 1 ]; then
    # This grading in place of the last, results/ and logs/ each by a rename;
    # the last one's files checked again (one made meanwhile is kept: then the
    # new grading stays where it is, and says so).
    why=$(problems "$out/results" results; problems "$out/logs" logs)
    if [ -n "$why" ]; then
        trap - EXIT
        echo "grade-class: $(head -n 1 <<<"$why") (made while grading): this grading is in $grading/, not put in place" >&2
        exit 2
    fi
    last=$(find "$out/results" -mindepth 1 -maxdepth 1 -name '*.csv' -type f 2> /dev/null | wc -l)
    gone=0
    if [ "$last" -gt 0 ]; then
        while IFS= read -r -d '' f; do
            [ -e "$grading/results/${f##*/}" ] || [ -e "$grading/logs/$(student_of "$f").log" ] || gone=$((gone + 1))
        done < <(find "$out/results" -mindepth 1 -maxdepth 1 -name '*.csv' -type f -print0)
    fi
    for part in results logs; do
        if [ -e "$out/$part" ]; then mv -T -- "$out/$part" "$grading/$part.last" || exit 1; fi
        mv -T -- "$grading/$part" "$out/$part" || { echo "grade-class: could not put $out/$part in place: this grading is in $grading/" >&2; trap - EXIT; exit 1; }
    done
    # the last grading's files, checked again: a file named in a problem
    # (one made meanwhile) stays, the others go
    kept=()
    for part in results logs; do
        [ -d "$grading/$part.last" ] || continue
        why=$(problems "$grading/$part.last" "$part")
        while IFS= read -r -d '' f; do
            if [ -d "$f" ] || grep -qF -- "$f" <<<"$why"; then kept+=("$f"); else rm -f -- "$f"; fi
        done < <(find "$grading/$part.last" -mindepth 1 -maxdepth 1 -print0)
        rmdir -- "$grading/$part.last" 2> /dev/null
    done
    trap - EXIT
    if [ ${#kept[@]} -eq 0 ]; then rmdir -- "$grading"; else
        echo "grade-class: kept $(list "${kept[@]}") in $grading/: not a grading's file (made while grading)" >&2
    fi
    [ "$last" -eq 0 ] ||
        echo "grade-class: the last grading in $out ($(count "$last" "student's result" "students' results"), $gone not in this one) replaced as a whole, not mixed with this one"
fi
if [ "$shard_n" -gt 1 ]; then
    # the command as it must be run: the GRADES_OUT and PARTS given, each a
    # shell word (GRADES_OUT reaches collect-grades through make's
    # environment, which expands a $: doubled; DIR is read as it is)
    hint="make collect-grades DIR=$(printf '%q' "$out/results") GRADES_OUT=$(printf '%q' "${out//\$/\$\$}")"
    [ -z "${PARTS:-}" ] || hint+=" PARTS=$PARTS"
    echo "grade-class: shard $shard done; after the last: $hint"
    exit $status
fi
if ! command -v python3 > /dev/null; then
    echo "grade-class: no table: collect-grades needs python3 (apt-get install python3); the grade files are in $out/results/" >&2
    exit 2
fi
# the students of DIR with no result (left out, or not graded): the table's
# "Left out", with why
for id in "${mine[@]}"; do
    [ -f "$out/results/$id.csv" ] || notes+=("$id"$'\t'"make grade wrote no result (see $out/logs/$id.log)")
done
left=()
if [ ${#notes[@]} -gt 0 ]; then
    notes_file=$(mktemp) || exit 1
    trap 'rm -f -- "$notes_file"' EXIT
    printf '%s\n' "${notes[@]}" > "$notes_file" || exit 1
    left=(--left-out "$notes_file")
fi
GRADES_OUT=$out "$here/collect_grades.py" ${left[@]+"${left[@]}"} "$out/results" || status=$(( $? == 2 ? 2 : status > 0 ? status : 1 ))
exit $status
