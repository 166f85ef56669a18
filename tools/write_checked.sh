#!/usr/bin/env bash
# tools/write_checked.sh DEST COMMAND...: COMMAND's output into DEST, by a
# temp file of its own (mktemp, beside DEST: never a name planted there in
# advance) and a rename, after COMMAND succeeded. DEST is not replaced when it
# is a symbolic link, not a regular file, read-only (its owner's write bit
# clear: for root too, as the programs decide) or another user's in a sticky
# folder (/tmp), nor written in a folder whose owner's write bit is clear
# (root too); all checked before COMMAND runs and again just before the
# rename (tools/file_checks.bash). make host-record and make
# cpu-scaling write through it.
set -u
case ${1:-} in -h | --help | '') awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; [ -n "${1:-}" ]; exit ;; esac
dest=$1
shift
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
# dest_problem: why DEST may not be replaced, or its folder written (root too)
dest_problem() {
    local why
    why=$(folder_problem "$(dirname -- "$dest")")
    [ -z "$why" ] || { echo "$dest: $why: not written"; return; }
    why=$(replace_problem_common "$dest")
    [ -z "$why" ] || echo "$dest $why: not replaced (move it away and run again)"
}
why=$(dest_problem)
[ -z "$why" ] || { echo "$why" >&2; exit 2; }
tmp=$(mktemp -- "$(dirname -- "$dest")/.$(basename -- "$dest").XXXXXX") || exit 1
trap 'rm -f -- "$tmp"' EXIT
"$@" > "$tmp" || { echo "$dest: $1 failed: not replaced" >&2; exit 1; }
why=$(dest_problem)
[ -z "$why" ] || { echo "$why" >&2; exit 2; }
chmod 0644 -- "$tmp" && mv -f -- "$tmp" "$dest" && trap - EXIT
