#!/usr/bin/env bash
# make grade [EX=chNN]: runs each exercise's test against your code in
# exercises/. PASS or FAIL per exercise, with the test's own got / want lines
# for a FAIL; a test that could run only its CPU part (no CUDA device) says
# so, never a plain PASS; SKIP where nothing could run. Each exercise is
# graded by tools/judge.sh: only its own files are taken from your folder, into
# a private folder; they must keep the answer's rules (they include nothing
# of the tests' or solutions', define only the exercise's functions, run
# nothing before main, compile the same code for the CPU and the GPU); your
# code runs in a sandbox, and the verdict comes from a second run of the test,
# built without your code, that checks what your code produced. Several
# make grade at once (in one checkout or many) never share a file.
# The last line counts each kind, e.g.
#   3 passed, 1 passed the CPU part only (GPU part not run: no CUDA device), 1 failed, of 5
# Exit status: 0 every exercise passed in full; 1 one or more failed (or did
# not compile); 3 none failed, but some part of one was not run here (a CPU
# part only, checks skipped, or SKIP); 2 a bad EX, STUDENT or GRADE_OUT, said
# before anything is graded. (make grade itself exits 2 for 1, 2 and 3,
# saying "Error 1", "Error 2" or "Error 3".)
#
# make grade GRADE_OUT=FILE STUDENT=ID also writes the result as CSV, to hand
# in (tools/collect_grades.py reads a class's files), one row per exercise:
#   student,commit,machine,gpu,date,exercise,verdict,messages,answer
# commit is the course's HEAD, with "-dirty" when a course file outside
# exercises/ differs from it (answers are expected to); machine is
# tools/machine.sh's name; gpu nvidia-smi's first GPU or "none"; date UTC;
# verdict one of passed, cpu-part-only, checks-partly-run, not-run, failed,
# does-not-compile (from the same channel as the lines printed, never from
# what the program printed); messages why, as printed: the verdict line's
# reason (a rule the answer breaks, "your code does not compile:", "the test
# did not run to its end ...", "CPU part; GPU part not run: no CUDA device"),
# then the lines printed under it (the compiler's errors, the failing
# checks' got / want), one per line; answer 16 hex digits of SHA-256 over the exercise's files as
# graded (which answer the verdict is for; empty where none could be taken).
# Every field is quoted (RFC 4180: "" inside, newlines kept),
# control characters but the newline show as '?', and a field that starts with
# = + - or @ gets a ' in front (a spreadsheet would run it as a formula).
# STUDENT: 1 to 64 of A-Z a-z 0-9 . _ @ + -, starting with a letter or a digit
# (a login, a number, an e-mail address: shown the same in every table and
# terminal, and never mistaken for a formula or a summary row). FILE, a
# file's name (not ending in /, . or ..): a new file in a folder you can
# write (its owner's write bit set, for root too; made with the mode your
# umask gives), or wholly a grade file (the header above, or the earlier
# eight columns', then only rows as this script writes them: every field
# quoted, a verdict of the six; grade_file_problem) that you can write and
# whose owner may write it (no symbolic link, no second hard link, not
# another user's in a sticky folder such as /tmp: it is replaced by a
# rename, its mode kept); anything else (your answer, the README, a grade
# file with your notes added) is refused. Both are checked first, and FILE
# again just before the rename: a file that changed meanwhile is kept and
# the result not recorded (exit 1).
# `make hint EX=chNN` when you are stuck.
# ANSWERS=FOLDER grades the answers in FOLDER (laid out as exercises/, one
# chNN folder per exercise) instead of exercises/: tools/grade_class.sh uses it.
# Usage: grade.sh EX-TEXT EXERCISE...   (the environment: BUILD, GRADE_OUT, STUDENT, ANSWERS)
set -u
# --help alone: the usage (make passes EX's text and then the exercises, so
# EX=--help is a name that is no exercise, said as such, never this text).
if [ $# -eq 1 ] && [[ $1 == -h || $1 == --help ]]; then
    sed -n '2,/^# Usage/s/^# \{0,1\}//p' "$0"; exit 0
fi
tool=grade
. "$(dirname "$0")/exercise_names.sh"
. "$(dirname "$0")/judge.sh"
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
grade_out=${GRADE_OUT:-} student=${STUDENT:-} record_tmp= answers=${ANSWERS:-exercises}
passed=0 cpu_only=0 in_part=0 not_run=0 failed=0
grade_header=student,commit,machine,gpu,date,exercise,verdict,messages,answer
# a grade file of the course's earlier eight columns may be replaced too
grade_header_8=student,commit,machine,gpu,date,exercise,verdict,messages

refuse() { echo "grade: $*" >&2; exit 2; }

# check_student: refuses an ID that would not read the same everywhere
# (student_id_ok, tools/exercise_names.sh), naming the first rule it breaks.
check_student() {
    local LC_ALL=C # bytes, and A-Z as ASCII's
    [ -n "$student" ] || refuse "GRADE_OUT needs STUDENT=<your id> (who the result is from)"
    [ ${#student} -le 64 ] || refuse "STUDENT is ${#student} bytes long: at most 64"
    ! grep -q '[[:cntrl:]]' <<<"$student" || refuse "STUDENT has a control character (a tab, a newline, an escape...)"
    case $student in
    [=+@-]*) refuse "STUDENT starts with '${student:0:1}': a spreadsheet would read it as a formula" ;;
    esac
    student_id_ok "$student" ||
        refuse "STUDENT may hold only A-Z a-z 0-9 . _ @ + -, and starts with a letter or a digit (a login, a number, an e-mail address)"
}

# check_existing_out: refuses a GRADE_OUT that is there and may not be
# replaced; run again just before the rename (it may have changed meanwhile).
check_existing_out() {
    local why
    why=$(replace_problem_common "$grade_out")
    [ -z "$why" ] || refuse "GRADE_OUT=$grade_out $why: not replaced"
    [ -e "$grade_out" ] || return 0
    [ "$(stat -c %h -- "$grade_out")" -eq 1 ] ||
        refuse "GRADE_OUT=$grade_out has other hard links, which replacing it would break"
    [ -r "$grade_out" ] || refuse "GRADE_OUT=$grade_out cannot be read to check it is a grade file: not replaced"
    # only a grade file is replaced, and only one that is nothing else: never
    # an answer, a README, a Makefile, nor a grade file with notes of yours in it
    why=$(grade_file_problem "$grade_out") ||
        refuse "GRADE_OUT=$grade_out is not a grade file ($why): not replaced"
}

# grade_file_problem FILE: fails, saying why, unless FILE is wholly of the
# kind this script writes (an empty file holds nothing, and may go too): the
# header (this one, or the earlier eight columns'), then rows of as many
# fields, each field quoted as csv_field quotes it ("" inside, newlines kept,
# no other control character), the verdict one of the six, the answer (nine
# columns) 16 hex digits or empty. One pass, a line at a time: time linear in
# the file, whatever it holds (no field is gathered across lines).
grade_file_problem() {
    [ -s "$1" ] || return 0
    if not_text "$1" || LC_ALL=C grep -q $'\r' -- "$1"; then
        echo "it holds a control character (a NUL, a tab, a CR...), which make grade never writes"; return 1
    fi
    LC_ALL=C awk -v h9="$grade_header" -v h8="$grade_header_8" '
    function bad(why) { printf "line %d %s", NR, why; failed = 1; exit 1 }
    NR == 1 {
        if ($0 == h9) want = 9; else if ($0 == h8) want = 8
        else bad("is not make grade'"'"'s header")
        verdicts["passed"]; verdicts["cpu-part-only"]; verdicts["checks-partly-run"]
        verdicts["not-run"]; verdicts["failed"]; verdicts["does-not-compile"]
        next
    }
    {
        # The line cut at its quotes (split: linear, where a regex over a long
        # line is not, in mawk): q[1] "q[2]" ... q[n]. In a field, a quote
        # followed at once by another is one quote of its text (""); any
        # other ends the field, and then comes the end of the line or ,".
        n = split($0, q, "\"")
        i = 1
        if (!inq) { # a row starts: its first field opens here
            if (n < 2 || q[1] != "") bad("is not a row of make grade'"'"'s (each of its fields is quoted)")
            inq = 1; k = 0; row = NR; i = 2; whole = 1
        } else whole = 0 # a field that began on an earlier line goes on
        for (;;) { # q[i] is text of field k + 1
            text = q[i]
            while (i + 2 <= n && q[i + 1] == "") { i += 2; whole = 0 } # "": a quote in the text
            if (i >= n) next # no closing quote (an empty line: n is 0): the field goes on, on the next line
            k++
            if (k > want) bad("has more than " want " fields")
            # the verdict and the answer are one line each, as written, and hold no quote
            if (k == 7 && !(whole && text in verdicts)) bad("has no verdict make grade writes in its 7th field")
            if (k == 9 && !(whole && (text == "" || text ~ /^[0-9a-f]+$/ && length(text) == 16)))
                bad("has no answer hash (16 hex digits) in its 9th field")
            if (i + 1 == n && q[n] == "") { # the closing quote ends the line: the row is whole
                if (k != want) bad("ends a row of " k " fields, not " want)
                inq = 0; next
            }
            if (q[i + 1] != "," || i + 2 > n) bad("has something other than a comma and a quoted field after field " k)
            i += 2; whole = 1
        }
    }
    END {
        if (failed) exit 1
        if (inq) { printf "line %d opens a quoted field that never closes", row; exit 1 }
    }' "$1"
}

# check_out: refuses a GRADE_OUT that cannot be replaced safely, and makes the
# temp file beside it (record_tmp), which the end renames over it.
check_out() {
    local dir why
    # nodir/ (tab completion's slash), x/. or ..: a folder's name, never a file's:
    # dirname would take the folder above it, and only the rename would fail
    case /$grade_out in */ | */. | */..)
        refuse "GRADE_OUT=$grade_out names a folder (it ends in '/', '.' or '..'): give the grade file's name (GRADE_OUT=folder/grades.csv)" ;;
    esac
    dir=$(dirname -- "$grade_out")
    [ -d "$dir" ] || refuse "GRADE_OUT=$grade_out: no folder '$dir'"
    check_existing_out
    why=$(folder_problem "$dir")
    [ -z "$why" ] || refuse "GRADE_OUT=$grade_out: $why"
    [ -w "$dir" ] || refuse "GRADE_OUT=$grade_out: you may not write in '$dir'"
    record_tmp=$(mktemp -- "$dir/.grade.XXXXXX.tmp" 2>/dev/null) || refuse "GRADE_OUT=$grade_out: cannot make a file in '$dir'"
    trap 'rm -f -- "$record_tmp"; judge_cleanup' EXIT
    trap 'rm -f -- "$record_tmp"; judge_cleanup; exit 130' INT TERM HUP
    echo "$grade_header" > "$record_tmp" ||
        refuse "GRADE_OUT=$grade_out: cannot write in '$dir'"
}

# csv_field TEXT: TEXT as one quoted CSV field (see the top of this file).
csv_field() {
    local t
    t=$(printf '%s' "$1" | LC_ALL=C tr '\000-\011\013-\037\177' '?')
    case $t in [=+@-]*) t="'$t" ;; esac
    printf '"%s"' "${t//\"/\"\"}"
}

# record EXERCISE VERDICT MESSAGES: its row, when GRADE_OUT asks for one.
record() {
    [ -n "$record_tmp" ] || return 0
    local f row=
    for f in "$student" "$commit" "$machine" "$gpu" "$date" "$1" "$2" "$3" "$answer_hash"; do
        row+=${row:+,}$(csv_field "$f")
    done
    printf '%s\n' "$row" >> "$record_tmp" || { echo "grade: cannot write $record_tmp"; write_failed=1; }
}

# The facts the rows share, known before the first exercise.
describe_run() {
    commit=$(git rev-parse HEAD 2>/dev/null) || commit=unknown
    # (the manifest of the stubs counts as the course's, and so does a git
    # replace ref, which would show other stubs than the commit's)
    [ "$commit" = unknown ] || { git diff --quiet HEAD -- . ':(exclude)exercises' 2>/dev/null &&
        git diff --quiet HEAD -- exercises/STUBS 2>/dev/null &&
        [ -z "$(git replace -l 2>/dev/null)" ]; } || commit+=-dirty
    machine=$("$(dirname "$0")/machine.sh")
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
    gpu=${gpu:-none}
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
}

# verdict EXERCISE KIND LINE [MESSAGES]: prints LINE and MESSAGES (indented),
# counts and records KIND. The row's messages are what the console says
# beyond the verdict: LINE's reason (after "FAIL  EX: ", or in "PASS  EX (...)"),
# then MESSAGES.
verdict() {
    echo "$3"
    [ -z "${4:-}" ] || sed 's/^/      /' <<<"$4"
    local rest=${3#*  "$1"} reason=
    case $rest in
    ': '*) reason=${rest#': '} ;;
    ' ('*')') reason=${rest#' ('} reason=${reason%')'} ;;
    esac
    case $2 in
    passed) passed=$((passed + 1)) ;;
    cpu-part-only) cpu_only=$((cpu_only + 1)) ;;
    checks-partly-run) in_part=$((in_part + 1)) ;;
    not-run) not_run=$((not_run + 1)) ;;
    *) failed=$((failed + 1)); echo "      stuck? make hint EX=$1" ;;
    esac
    [ -z "$reason" ] || [ -z "${4:-}" ] || reason+=$'\n'
    record "$1" "$2" "$reason${4:-}"
}

fail() { # exercise: the test's failure lines, or why the run does not count
    local lines
    lines=$(grep -E ':[EF]:' <<<"$out" | sed 's/^[^:]*:[0-9]*:[EF]:[^:]*:[^:]*:[0-9]*: //' | head -n 10
        grep -A1 'did not run to .* end' <<<"$out" | head -n 4)
    verdict "$1" failed "FAIL  $1${why:+: $why}" "$lines"
}

part() { # exercise: passed, but some of its test did not run here
    if [ "$(verdict_count passed)" -eq 0 ]; then
        verdict "$1" not-run "SKIP  $1 (its test needs a CUDA device)"
    elif [ -f "tests/test_ex_$1.cu" ]; then
        verdict "$1" cpu-part-only "PASS  $1 (CPU part; GPU part not run: no CUDA device)"
    else
        verdict "$1" checks-partly-run "PASS  $1 (the checks run here; $(verdict_count skipped) not run: the test's output says why)"
    fi
}

grade_one() { # exercise: graded by tools/judge.sh (a private folder, the rules, the probe and the judge)
    why='' out='' # (never the last exercise's, whatever step stops)
    judge_run "$1" "$answers/$(judge_dir "$1")"
    case $stage:$verdict in
    compile:*) verdict "$1" does-not-compile "FAIL  $1: ${why:-your code does not compile:}" "$out" ;;
    lay:* | rules:*) verdict "$1" failed "FAIL  $1: $why" "$out" ;;
    *:pass) verdict "$1" passed "PASS  $1" "$notes" ;;
    *:part) part "$1" ;;
    *) fail "$1" ;;
    esac
}

# The closing line: every kind with a count, passed and failed always.
summary() {
    local line="$passed passed"
    [ "$cpu_only" -eq 0 ] || line+=", $cpu_only passed the CPU part only (GPU part not run: no CUDA device)"
    [ "$in_part" -eq 0 ] || line+=", $in_part passed the checks that could run here (some not run: see above)"
    [ "$not_run" -eq 0 ] || line+=", $not_run not run (needs a CUDA device)"
    echo "$line, $failed failed, of ${#names[@]}"
}

# Everything the user typed is checked before any exercise is built.
exercise_names "$@"
[ -d "$answers" ] || refuse "ANSWERS=$answers is not a folder"
if [ -n "$grade_out" ]; then
    check_student
    check_out
    describe_run
elif [ -n "$student" ]; then
    echo "grade: STUDENT is written only with GRADE_OUT=FILE (nothing is written this time)"
fi
write_failed=0
[ -n "$record_tmp" ] || { trap 'judge_cleanup' EXIT; trap 'judge_cleanup; exit 130' INT TERM HUP; }
# (grade_class.sh prepares once for all its gradings)
[ -n "${JUDGE_PREPARED:-}" ] || judge_prepare "${names[@]}"
for e in "${names[@]}"; do
    grade_one "$e"
done
summary
if [ -n "$record_tmp" ]; then
    # The mode the file had, or a new file's (mktemp makes it 0600)
    if [ -e "$grade_out" ]; then
        chmod --reference="$grade_out" -- "$record_tmp" || write_failed=1
    else
        chmod "$(printf '%o' $((0666 & ~0$(umask))))" -- "$record_tmp" || write_failed=1
    fi
    # again: a file that became read-only or another kind while grading (notes
    # added to it) is kept, and the result is not recorded (exit 1: graded, not written)
    if ! why=$( (check_existing_out) 2>&1); then
        echo "$why; the result above is not recorded"; exit 1
    fi
    if [ "$write_failed" -eq 0 ] && mv -f -- "$record_tmp" "$grade_out"; then
        echo "grade: wrote $grade_out (student $student)"
    else
        echo "grade: could not write $grade_out: the result above is not recorded"; exit 1
    fi
fi
if [ "$failed" -gt 0 ]; then exit 1; fi
if [ $((cpu_only + in_part + not_run)) -gt 0 ]; then exit 3; fi
exit 0
