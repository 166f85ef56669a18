#!/usr/bin/env bash
# tools/write_checked.sh DEST COMMAND...: COMMAND's output into DEST, by a
# temp file of its own (mktemp, beside DEST: never a name planted there in
# advance) and a rename, after COMMAND succeeded. DEST is not replaced when it
# is a symbolic link, not a regular file, or read-only (its owner's write bit
# clear: for root too, as the programs decide); it is checked again just
# before the rename (tools/file_checks.bash). make host-record and make
# cpu-scaling write through it.
set -u
case ${1:-} in -h | --help | '') awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; [ -n "${1:-}" ]; exit ;; esac
dest=$1
shift
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
why=$(replace_problem_common "$dest")
[ -z "$why" ] || { echo "$dest $why: not replaced (move it away and run again)" >&2; exit 2; }
tmp=$(mktemp -- "$(dirname -- "$dest")/.$(basename -- "$dest").XXXXXX") || exit 1
trap 'rm -f -- "$tmp"' EXIT
"$@" > "$tmp" || { echo "$dest: $1 failed: not replaced" >&2; exit 1; }
why=$(replace_problem_common "$dest")
[ -z "$why" ] || { echo "$dest $why: not replaced (move it away and run again)" >&2; exit 2; }
chmod 0644 -- "$tmp" && mv -f -- "$tmp" "$dest" && trap - EXIT
