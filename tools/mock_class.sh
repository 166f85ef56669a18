#!/usr/bin/env bash
# make mock-class N=60 DIR=folder: a class of N made-up submissions of mixed
# quality, to rehearse grading before the real one (make grade-class
# DIR=folder) and to time it. Student k (s001, s002, ...) hands in, for every
# exercise, in turn: the model answer, the stub as handed out, or one of the
# committed wrong answers (tests/wrong/, applied to the model answer), so a
# class holds every kind of result the graders give. Student k's pick, for an
# exercise with W wrong answers, is (k - 1) mod (W + 2): 0 the model answer, 1
# the stub, 2.. the wrong answers in their names' order; a class larger than
# W + 2 gets them again in that turn (said for each such exercise), a smaller
# one only the first (said too).
# The answer key, DIR/.answer-key.csv (hidden: grade-class reads every other
# name in DIR as a student's folder), says what each student was given, to
# check the grader's verdicts against: a header, then a row per student and
# exercise, every field quoted:
#   student,exercise,given,expect
# given "model answer", "stub" or "wrong answer NAME" (tests/wrong/EX/NAME.patch);
# expect "pass" (a model answer; "CPU part" where no GPU runs its GPU part)
# or "fail" (failed or does-not-compile). The last line names the key.
# Not in a student release (it needs solutions/).
# Usage: mock_class.sh N DIR EXERCISE...
set -u
case ${1:-} in -h | --help)
    sed -n '2,/^# Usage/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
n=${1:-} dir=${2:-}
shift 2 || { echo "mock-class: say N=how many and DIR=where" >&2; exit 2; }
[[ $n =~ ^[1-9][0-9]{0,3}$ ]] || { echo "mock-class: N=$n: say how many students (1 to 9999)" >&2; exit 2; }
[ -n "$dir" ] && [ ! -e "$dir" ] || { echo "mock-class: DIR=$dir: name a folder that does not exist yet" >&2; exit 2; }
[ -d solutions ] || { echo "mock-class: no solutions/ here (a student release)" >&2; exit 2; }
command -v patch > /dev/null || { echo "mock-class: patch is not installed" >&2; exit 2; }
eval "$(make -s --no-print-directory print-registry)"
mkdir -p -- "$dir" || exit 2
key=$dir/.answer-key.csv
echo student,exercise,given,expect > "$key" || exit 2
# the wrong answers of each exercise, in name order, and what N gives of them
declare -A wrongs=()
unused=() most=0
for e in "$@"; do
    wrongs[$e]=$(LC_ALL=C ls tests/wrong/"$e"/*.patch 2>/dev/null)
    mapfile -t wrong < <(printf '%s' "${wrongs[$e]}")
    period=$((${#wrong[@]} + 2))
    [ "$period" -le "$most" ] || most=$period
    if [ ${#wrong[@]} -eq 0 ]; then
        echo "mock-class: $e has no committed wrong answer: its students hand in the model answer and the stub in turn"
    elif [ "$n" -gt "$period" ]; then
        # the first few students past the turn, and what each is given
        later=()
        for k in $(seq $((period + 1)) "$(( n < period + 3 ? n : period + 3 ))"); do
            p=$(( (k - 1) % period ))
            case $p in 0) w="the model answer" ;; 1) w="the stub" ;; *) w="wrong answer $(basename "${wrong[$((p - 2))]}" .patch)" ;; esac
            later+=("$(printf 's%03d' "$k") $w")
        done
        [ "$n" -le $((period + 3)) ] || later+=("...")
        if [ "$n" -eq $((period + 1)) ]; then who="student $(printf 's%03d' "$n") is"
        else who="students $(printf 's%03d' $((period + 1))) to $(printf 's%03d' "$n") are"; fi
        echo "mock-class: $e has ${#wrong[@]} wrong answers: $who given the same turn again: $(printf '%s, ' "${later[@]}" | sed 's/, $//')"
    elif [ "$n" -lt "$period" ]; then
        unused+=("$e ($((n > 2 ? n - 2 : 0)) of ${#wrong[@]})")
    fi
done
[ ${#unused[@]} -eq 0 ] ||
    echo "mock-class: $n students are given only some of the wrong answers of $(printf '%s, ' "${unused[@]}" | sed 's/, $//') (N=$most gives every one)"
# q TEXT...: the fields as one CSV row, each quoted
q() { local f row=; for f in "$@"; do row+=${row:+,}\"${f//\"/\"\"}\"; done; printf '%s\n' "$row"; }
for k in $(seq "$n"); do
    id=$(printf 's%03d' "$k")
    for e in "$@"; do
        v="ex_${e}_DIR" && d=${!v:-$e}
        mkdir -p -- "$dir/$id" || exit 2
        [ -d "$dir/$id/$d" ] || cp -r "solutions/$d" "$dir/$id/" || exit 2 # (ch07 and ch07gpu share one)
        mapfile -t wrong < <(printf '%s' "${wrongs[$e]}")
        pick=$(( (k - 1) % (${#wrong[@]} + 2) ))
        if [ "$pick" -eq 0 ]; then
            q "$id" "$e" "model answer" pass >> "$key" || exit 2
        elif [ "$pick" -eq 1 ]; then # the stub as handed out: the files this exercise's wrong answers touch (every file where none)
            q "$id" "$e" stub fail >> "$key" || exit 2
            if [ ${#wrong[@]} -gt 0 ]; then
                own=$(sed -n 's|^+++ b/||p' "${wrong[@]}" | sort -u)
            else
                own=$(sed -n "s|^[0-9a-f]* exercises/$d/||p" exercises/STUBS)
            fi
            sed -n "s|^\([0-9a-f]*\) exercises/$d/\(.*\)|\1 \2|p" exercises/STUBS |
                while read -r blob file; do
                    grep -qxF "$file" <<<"$own" || continue
                    git cat-file blob "$blob" > "$dir/$id/$d/$file" || exit 2
                done
        else # a wrong answer
            q "$id" "$e" "wrong answer $(basename "${wrong[$((pick - 2))]}" .patch)" fail >> "$key" || exit 2
            patch -s -p1 -d "$dir/$id/$d" < "${wrong[$((pick - 2))]}" || exit 2
        fi
    done
done
echo "mock-class: $n students in $dir ($*): model answers, stubs and the committed wrong answers in turn; the answer key (who was given what): $key"
