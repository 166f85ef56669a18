#!/usr/bin/env bash
# make mock-class N=60 DIR=folder: a class of N made-up submissions of mixed
# quality, to rehearse grading before the real one (make grade-class
# DIR=folder) and to time it. Student k (s001, s002, ...) hands in, for every
# exercise, in turn: the model answer, the stub as handed out, or one of the
# committed wrong answers (tests/wrong/, applied to the model answer), so a
# class holds every kind of result the graders give. Not in a student release
# (it needs solutions/).
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
for k in $(seq "$n"); do
    id=$(printf 's%03d' "$k")
    for e in "$@"; do
        v="ex_${e}_DIR" && d=${!v:-$e}
        mkdir -p -- "$dir/$id" || exit 2
        [ -d "$dir/$id/$d" ] || cp -r "solutions/$d" "$dir/$id/" || exit 2 # (ch07 and ch07gpu share one)
        mapfile -t wrong < <(ls tests/wrong/"$e"/*.patch 2>/dev/null)
        pick=$(( (k - 1) % (${#wrong[@]} + 2) ))
        if [ "$pick" -eq 1 ]; then # the stub as handed out: the files this exercise's wrong answers touch
            own=$(sed -n 's|^+++ b/||p' "${wrong[@]}" | sort -u)
            sed -n "s|^\([0-9a-f]*\) exercises/$d/\(.*\)|\1 \2|p" exercises/STUBS |
                while read -r blob file; do
                    grep -qxF "$file" <<<"$own" || continue
                    git cat-file blob "$blob" > "$dir/$id/$d/$file" || exit 2
                done
        elif [ "$pick" -ge 2 ]; then # a wrong answer
            patch -s -p1 -d "$dir/$id/$d" < "${wrong[$((pick - 2))]}" || exit 2
        fi
    done
done
echo "mock-class: $n students in $dir ($*): model answers, stubs and the committed wrong answers in turn"
