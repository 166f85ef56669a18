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
