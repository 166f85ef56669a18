# shellcheck shell=bash
# Sourced by the tools that replace a file of the user's by a rename
# (bench.sh, grade.sh, hint.sh, write_checked.sh): the checks every such file
# passes first, written once. Each tool adds its own check of the file's kind.
#
# replace_problem_common FILE: why FILE may not be replaced (nothing: it may,
# or it is not there): a symbolic link (a rename would not write through it,
# but the link is someone's), not a regular file, read-only: its owner's
# write bit clear, for root too (-w alone says yes to root, whatever the mode;
# the programs decide the same way, cli.c's output_read_only), or another
# user's in a folder with the sticky bit (/tmp): there only its owner (or the
# folder's, or root) may rename over it, and -w does not say so: the rename
# would fail after all the work.
replace_problem_common() {
    local f=$1 mode dir
    if [ -L "$f" ]; then echo "is a symbolic link (to '$(readlink -- "$f")'): nothing is written through a link"; return; fi
    [ -e "$f" ] || return 0
    [ -f "$f" ] || { echo "is not a regular file"; return; }
    mode=$(stat -c %a -- "$f")
    if [ ! -w "$f" ] || (( (8#$mode & 8#200) == 0 )); then echo "is read-only (mode $mode)"; return; fi
    dir=$(dirname -- "$f")
    if [ -k "$dir" ] && [ "$(id -u)" != 0 ] && [ ! -O "$f" ] && [ ! -O "$dir" ]; then
        echo "belongs to $(stat -c %U -- "$f") in '$dir', a folder with the sticky bit (like /tmp): only its owner may replace it"
    fi
}

# folder_problem DIR: why nothing may be written in folder DIR (nothing: it
# may). A folder not there yet is judged by the nearest one above it that is
# (mkdir -p makes the rest in it). Not a folder, or read-only: its owner's
# write bit clear, for root too, as for files (root may write in a 0555
# folder, whatever its mode says: the mode is the owner's "keep this as it is").
folder_problem() {
    local d=$1 mode
    while [ ! -e "$d" ] && [ ! -L "$d" ]; do
        case $d in */*) d=$(dirname -- "$d") ;; *) d=. ;; esac
    done
    [ -d "$d" ] || { echo "'$d' is not a folder"; return; }
    mode=$(stat -L -c %a -- "$d")
    if [ ! -w "$d" ] || (( (8#$mode & 8#200) == 0 )); then echo "'$d' is read-only (mode $mode): nothing is written in it"; fi
}

# not_text FILE: true if FILE holds a byte no text of the course's has: a NUL
# or a control character other than a tab, a newline or a CR (one pass).
not_text() {
    ! LC_ALL=C tr -d '\000-\010\013\014\016-\037\177' < "$1" | cmp -s - "$1"
}

# others_folder_problem DIR: why a grading may not be written in folder DIR
# (the nearest one there, as folder_problem): DIR or a folder above it that
# another user could write, now or later: one whose owner is neither you nor
# root (whatever its mode: an owner may change it), one its group may write
# where the group holds another user, one anyone may write without the
# sticky bit, or one with an access list (ACL: it may grant anyone). They
# could replace the grades once written, or swap a folder while a class is
# graded (collect_grades.py's others_folder says the same).
others_folder_problem() {
    local d=$1 me mode owner group
    while [ ! -e "$d" ] && [ ! -L "$d" ]; do
        case $d in */*) d=$(dirname -- "$d") ;; *) d=. ;; esac
    done
    d=$(realpath -- "$d") || return 0
    me=$(id -u)
    while :; do
        read -r mode owner group < <(stat -c '%a %u %g' -- "$d")
        if [ "$owner" != "$me" ] && [ "$owner" != 0 ]; then
            echo "'$d' belongs to $(stat -c %U -- "$d"), who could replace the grades written in it: give a folder of your own"; return
        fi
        if (( (8#$mode & 8#020) != 0 && (8#$mode & 8#1000) == 0 )) && group_has_others "$group" "$me"; then
            echo "'$d' may be written by its group $(stat -c %G -- "$d"), which holds other users (mode $mode): give a folder of your own"; return
        fi
        if (( (8#$mode & 8#002) != 0 && (8#$mode & 8#1000) == 0 )); then
            echo "'$d' may be written by anyone (mode $mode, no sticky bit): give a folder of your own"; return
        fi
        if [ "$(ls -ld -- "$d" | cut -c11)" = + ]; then
            echo "'$d' has an access list (ACL), which may let others write it: give a folder without one"; return
        fi
        [ "$d" != / ] || return 0
        d=$(dirname -- "$d")
    done
}

# group_has_others GID UID: true if a user other than UID is in group GID
# (named in it, or it is their first group).
group_has_others() {
    local members
    members=$(getent group "$1" | cut -d: -f4)
    getent passwd | awk -F: -v g="$1" -v me="$2" -v named=",$members," '
        $3 != me && ($4 == g || index(named, "," $1 ",")) { found = 1 } END { exit !found }'
}
