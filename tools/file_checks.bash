# shellcheck shell=bash
# Sourced by the tools that replace a file of the user's by a rename
# (bench.sh, hint.sh, write_checked.sh): the checks every such file passes
# first, written once. Each tool adds its own check of the file's kind.
#
# replace_problem_common FILE: why FILE may not be replaced (nothing: it may,
# or it is not there): a symbolic link (a rename would not write through it,
# but the link is someone's), not a regular file, or read-only: its owner's
# write bit clear, for root too (-w alone says yes to root, whatever the mode;
# the programs decide the same way, cli.c's output_read_only).
replace_problem_common() {
    local f=$1 mode
    if [ -L "$f" ]; then echo "is a symbolic link (to '$(readlink -- "$f")'): nothing is written through a link"; return; fi
    [ -e "$f" ] || return 0
    [ -f "$f" ] || { echo "is not a regular file"; return; }
    mode=$(stat -c %a -- "$f")
    if [ ! -w "$f" ] || (( (8#$mode & 8#200) == 0 )); then echo "is read-only (mode $mode)"; fi
}
