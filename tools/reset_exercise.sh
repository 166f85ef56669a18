#!/usr/bin/env bash
# make reset EX=chNN: puts an exercise's folder back to its stubs as handed out
# (read by blob id from exercises/STUBS, so it works whatever you have
# committed since), after moving your files aside, whole, to
# saved/<folder>-<date>-<time>/. That folder is outside exercises/ (which
# holds only the exercises: the graders and the manifest's test look there)
# and outside build/ (make clean deletes build/); git shows it as untracked:
# commit it or delete it. Nothing is moved when the folder already is the stub.
# Two exercises sharing a folder (ch07, ch07gpu) are reset together, and it
# says so. Usage: reset_exercise.sh EX-TEXT EXERCISE:FOLDER...  (the registry's
# exercises, each with its folder under exercises/, as the Makefile passes them)
set -u
# --help: the comment above, as the usage text.
case ${1:-} in -h | --help) sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
tool=reset
. "$(dirname "$0")/exercise_names.sh"
text=$1
shift
declare -A folder_of
all=()
for pair in "$@"; do
    all+=("${pair%%:*}")
    folder_of[${pair%%:*}]=${pair#*:}
done
read -r -d '' -a words <<< "$text"
if [ ${#words[@]} -eq 0 ]; then echo "usage: make reset EX=<exercise> [EX=\"A B\"]   (exercises: ${all[*]})" >&2; exit 2; fi
exercise_names "$text" "${all[@]}"
new="" # the folder being laid out; removed if we stop before it is swapped in
trap 'rm -rf "${new:-}"' EXIT

list_files() { # FOLDER: the files in it, one line
    (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
}

# reset_folder DIR EXERCISE: DIR (exercises/DIR) laid out from the manifest in
# a folder beside it, then swapped in: a failure before the swap changes nothing.
reset_folder() {
    local dir=$1 ex=$2 saved stamp sharing="" e
    new=exercises/.reset-$dir.$$
    if [ -L "exercises/$dir" ]; then # moved aside, a relative link would point elsewhere; written through, the stubs would go into your folder
        echo "reset: exercises/$dir is a symbolic link (to $(readlink "exercises/$dir")): reset puts the stubs in exercises/$dir itself," \
            "so it leaves a link alone. Remove the link (rm exercises/$dir: your files stay where it points), then make reset EX=$ex" >&2
        exit 1
    fi
    for e in "${all[@]}"; do
        [ "${folder_of[$e]}" != "$dir" ] || [ "$e" = "$ex" ] || sharing+=" $e"
    done
    rm -rf "$new"
    "$(dirname "$0")/stubs_manifest.sh" extract "exercises/$dir" "$new" || { echo "reset: $ex left as it was" >&2; exit 1; }
    if [ -d "exercises/$dir" ] && diff -r -q "exercises/$dir" "$new" > /dev/null 2>&1; then
        rm -rf "$new"
        new=""
        echo "reset $ex: exercises/$dir/ already is the stub: nothing moved"
        return
    fi
    [ -z "$sharing" ] || echo "reset $ex: exercises/$dir/ also holds$sharing: reset too"
    if [ -e "exercises/$dir" ]; then
        stamp=$(date +%Y%m%d-%H%M%S)
        saved=saved/$dir-$stamp
        mkdir -p saved || exit 1
        for ((n = 2; ; n++)); do # a second reset within the same second: its own folder
            mkdir "$saved" 2> /dev/null && break
            [ "$n" -lt 100 ] || { echo "reset: cannot make a folder under saved/ for $dir" >&2; exit 1; }
            saved=saved/$dir-$stamp-$n
        done
        mv -T "exercises/$dir" "$saved" || { # the folder made for it goes: nothing was saved in it
            rmdir "$saved" 2> /dev/null; rmdir saved 2> /dev/null
            echo "reset: could not move exercises/$dir aside; left as it was" >&2; exit 1; }
        echo "reset $ex: your files moved to $saved/: $(list_files "$saved")"
    fi
    mv "$new" "exercises/$dir" || { echo "reset: the stubs are in $new; move them to exercises/$dir yourself" >&2; new=""; exit 1; }
    new=""
    echo "reset $ex: exercises/$dir/ is the stub again: $(list_files "exercises/$dir") (from exercises/STUBS)"
}

done_dirs=" "
for ex in "${names[@]}"; do
    dir=${folder_of[$ex]}
    case $done_dirs in *" $dir "*) continue ;; esac
    reset_folder "$dir" "$ex"
    done_dirs+="$dir "
done
