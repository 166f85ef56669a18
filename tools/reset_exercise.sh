#!/usr/bin/env bash
# make reset EX=chNN: puts an exercise's folder back to its stubs as handed out
# (read by blob id from exercises/STUBS, so it works whatever you have
# committed since), after moving your files aside, whole, to
# saved/<folder>-<date>-<time>/. That folder is outside exercises/ (which
# holds only the exercises: the graders and the manifest's test look there)
# and outside build/ (make clean deletes build/); git shows it as untracked:
# commit it or delete it. Nothing is moved when the folder already is the stub.
# Moved by a rename, whole; where saved/ is on another file system, copied,
# the copy compared (every entry: its name and type, a file's bytes, a
# link's target; a FIFO or a socket by its type, never opened), and only
# then your folder removed: a copy cut short (a full disk) leaves your
# folder as it was and nothing in saved/. What was moved is listed whole:
# files, and links, FIFOs, sockets and empty folders said as such. A folder
# written in (exercises/, saved/) whose owner's write bit is clear is
# refused first, for root too.
# Two exercises sharing a folder (ch07, ch07gpu) are reset together, and it
# says so. Usage: reset_exercise.sh EX-TEXT EXERCISE:FOLDER...  (the registry's
# exercises, each with its folder under exercises/, as the Makefile passes them)
set -u
# --help alone: the comment above, as the usage text (make passes EX's text
# and then the exercises: EX=--help is a name that is no exercise, said so).
if [ $# -eq 1 ] && [[ $1 == -h || $1 == --help ]]; then sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0; fi
tool=reset
. "$(dirname "$0")/exercise_names.sh"
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
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

# list_files FOLDER: everything in it, one line: each file, and each link,
# FIFO, socket, device and empty folder, said as such ("pipe (a FIFO)")
list_files() {
    (cd "$1" && find . -mindepth 1 \( ! -type d -o -empty \) -printf '%y %P\0' | LC_ALL=C sort -z -k 2 |
        while IFS= read -r -d '' e; do
            case ${e%% *} in
            f) printf '%s\n' "${e#* }" ;;
            d) printf '%s\n' "${e#* }/ (an empty folder)" ;;
            l) printf '%s\n' "${e#* } (a link)" ;;
            p) printf '%s\n' "${e#* } (a FIFO)" ;;
            s) printf '%s\n' "${e#* } (a socket)" ;;
            *) printf '%s\n' "${e#* } (a device file)" ;;
            esac
        done | tr '\n' ' ' | sed 's/ $//')
}

# entries FOLDER: what is in FOLDER, each entry's type (find's %y) and name,
# NUL-separated and sorted: two folders of the same entries say the same.
entries() { (cd "$1" && find . -mindepth 1 -printf '%y %P\0' | LC_ALL=C sort -z); }
# same_tree A B: true if folders A and B hold the same: the same names, each
# of the same type, a file's bytes the same, a link's target, a device's
# numbers; a FIFO or a socket is the same by its type (diff -r calls two
# FIFOs different, and a FIFO is never opened here: it could block).
same_tree() {
    local e f
    cmp -s <(entries "$1") <(entries "$2") || return 1
    while IFS= read -r -d '' e; do
        f=${e#* }
        case ${e%% *} in
        f) cmp -s -- "$1/$f" "$2/$f" || return 1 ;;
        l) [ "$(readlink -- "$1/$f")" = "$(readlink -- "$2/$f")" ] || return 1 ;;
        b | c) [ "$(stat -c %t:%T -- "$1/$f")" = "$(stat -c %t:%T -- "$2/$f")" ] || return 1 ;;
        esac
    done < <(entries "$1")
}

# move_aside FROM TO: the folder FROM moved to the empty folder TO. On one
# file system a rename: whole or not at all. Across two (saved/ a link to, or
# a mount of, another disk) mv would copy, and a copy cut short (a full disk)
# would leave part of your files in TO beside the whole in FROM: so FROM is
# copied, the copy compared with it, and FROM removed only when they are the
# same. Fails (why says why) with FROM as it was; TO is then the caller's to
# remove (it holds no file that is not also in FROM).
move_aside() {
    local err
    why=
    if [ "$(stat -c %d -- "$1")" = "$(stat -c %d -- "$2")" ]; then
        err=$(mv -T -- "$1" "$2" 2>&1) || why=$(head -n 1 <<< "$err")
    elif ! err=$(cp -a -- "$1/." "$2/" 2>&1); then # (the error in memory: the disk may be full)
        why="the copy to $2, on another file system, failed: $(head -n 1 <<< "$err")"
    elif ! same_tree "$1" "$2"; then
        why="the copy to $2, on another file system, differs from it"
    elif ! rm -rf -- "$1"; then # the copy is whole: it stays, and what is left of FROM too
        echo "reset: your files are copied whole to $2/, but $1 could not be removed after: not reset" >&2
        exit 1
    fi
    [ -z "$why" ]
}

# only_copies TO FROM: true if each file in TO is in FROM too, the same or cut
# short (its bytes the first of FROM's), and each link, FIFO, socket or device
# file is in FROM too, of the same type (a link to the same target): TO holds
# nothing that FROM has not, and removing it loses nothing.
only_copies() {
    local e f size
    while IFS= read -r -d '' e; do
        f=${e#* }
        case ${e%% *} in
        f) [ -f "$2/$f" ] && [ ! -L "$2/$f" ] && size=$(stat -c %s -- "$1/$f") && [ "$size" -le "$(stat -c %s -- "$2/$f")" ] &&
            cmp -s -n "$size" -- "$1/$f" "$2/$f" || return 1 ;;
        l) [ -L "$2/$f" ] && [ "$(readlink -- "$1/$f")" = "$(readlink -- "$2/$f")" ] || return 1 ;;
        *) [ ! -L "$2/$f" ] && [ -e "$2/$f" ] && [ "$(stat -c %F -- "$1/$f")" = "$(stat -c %F -- "$2/$f")" ] || return 1 ;;
        esac
    done < <(cd "$1" && find . ! -type d -printf '%y %P\0')
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
    # the folders written in (the stubs laid out beside yours, yours moved to
    # saved/): one its owner made read-only stays so, for root too
    why=$(folder_problem exercises)
    [ -z "$why" ] || { echo "reset: $ex left as it was: $why" >&2; exit 1; }
    rm -rf "$new"
    "$(dirname "$0")/stubs_manifest.sh" extract "exercises/$dir" "$new" || { echo "reset: $ex left as it was" >&2; exit 1; }
    if [ -d "exercises/$dir" ] && same_tree "exercises/$dir" "$new"; then
        rm -rf "$new"
        new=""
        echo "reset $ex: exercises/$dir/ already is the stub: nothing moved"
        return
    fi
    [ -z "$sharing" ] || echo "reset $ex: exercises/$dir/ also holds$sharing: reset too"
    if [ -e "exercises/$dir" ]; then
        stamp=$(date +%Y%m%d-%H%M%S)
        saved=saved/$dir-$stamp
        local made_saved=
        why=$(folder_problem saved) # (the stubs laid out so far go with the EXIT trap)
        [ -z "$why" ] || { echo "reset: $ex left as it was: $why" >&2; exit 1; }
        [ -e saved ] || [ -L saved ] || made_saved=1
        mkdir -p saved || exit 1
        for ((n = 2; ; n++)); do # a second reset within the same second: its own folder
            mkdir "$saved" 2> /dev/null && break
            # (not there: mkdir failed for another reason than its name, a full disk)
            [ "$n" -lt 100 ] && [ -e "$saved" ] || { [ -z "$made_saved" ] || rmdir saved 2> /dev/null
                echo "reset: cannot make a folder under saved/ for $dir (a full disk?): exercises/$dir left as it was" >&2; exit 1; }
            saved=saved/$dir-$stamp-$n
        done
        if ! move_aside "exercises/$dir" "$saved"; then
            if only_copies "$saved" "exercises/$dir"; then # the folder made for it goes: nothing is kept there
                rm -rf -- "$saved"; [ -z "$made_saved" ] || rmdir saved 2> /dev/null
                echo "reset: could not move exercises/$dir aside${why:+ ($why)}; left as it was, nothing kept in saved/" >&2
            else # (a move cut short that took files away: never seen, never removed)
                echo "reset: could not move exercises/$dir aside${why:+ ($why)}: your files are in $saved/ and exercises/$dir/, between them; nothing removed" >&2
            fi
            exit 1
        fi
        echo "reset $ex: your files moved to $saved/: $(list_files "$saved")"
    fi
    mv -T "$new" "exercises/$dir" || { echo "reset: the stubs are in $new; move them to exercises/$dir yourself" >&2; new=""; exit 1; }
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
