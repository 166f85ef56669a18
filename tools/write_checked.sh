#!/usr/bin/env bash
# tools/write_checked.sh DEST COMMAND...: COMMAND's output into DEST, by a
# temp file of its own (mktemp, beside DEST: never a name planted there in
# advance) and a rename, after COMMAND succeeded. DEST is not replaced when it
# is a symbolic link, not a regular file, read-only (its owner's write bit
# clear: for root too, as the programs decide) or another user's in a sticky
# folder (/tmp), nor written in a folder whose owner's write bit is clear
# (root too); a DEST of a name whose kind it knows is replaced only when it is
# wholly of that kind, judged in the whole file (kind_problem; an empty file
# holds nothing and may go): host.txt what tools/host_record.c writes, its
# six lines each of their form (cpu, logical cpus online, isa, triad and its
# two rates), nothing before, between or after them; cpu-scaling.txt what
# tools/cpu_scaling.c writes, its "# cpu_scaling:" line (and "# pairs:"),
# each under its column heads, then only its rows. Your notes in either are
# refused. All this is checked before COMMAND runs and again just before the
# rename (tools/file_checks.bash), and DEST's folder, made (mkdir -p) only
# after those checks, when it is not there yet. DEST keeps its mode; a new
# DEST has the mode your umask gives. make host-record and make cpu-scaling
# write through it.
set -u
case ${1:-} in -h | --help | '') awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; [ -n "${1:-}" ]; exit ;; esac
dest=$1
shift
[ $# -gt 0 ] || { echo "usage: write_checked.sh DEST COMMAND..." >&2; exit 2; }
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
dir=$(dirname -- "$dest")

# kind_problem FILE: fails, saying why, unless FILE (there, not empty) is
# wholly of the kind written under its name (the top of this file); a name of
# no known kind is any file.
kind_problem() {
    local num='(-?[0-9]+\.[0-9]+|-?inf|-?nan)'
    case ${1##*/} in
    host.txt | cpu-scaling.txt) ;;
    *) return 0 ;;
    esac
    [ -s "$1" ] || return 0
    [ -r "$1" ] || { echo "cannot be read to check its kind"; return 1; }
    if not_text "$1" || LC_ALL=C grep -q $'\r' -- "$1"; then echo "holds bytes that are not its text (a NUL, a CR...)"; return 1; fi
    [ -z "$(tail -c 1 -- "$1")" ] || { echo "does not end with a whole line"; return 1; }
    case ${1##*/} in
    host.txt) # tools/host_record.c's six lines
        LC_ALL=C awk -v num="$num" '
        function bad(why) { printf "line %d %s", NR, why; failed = 1; exit 1 }
        NR == 1 && !/^cpu: [^ ].*$/ { bad("is not host_record'"'"'s \"cpu: ...\"") }
        NR == 2 && !/^logical cpus online: [0-9]+$/ { bad("is not host_record'"'"'s \"logical cpus online: N\"") }
        NR == 3 && !/^isa:( [a-z0-9_]+( \(no\))?)+$/ { bad("is not host_record'"'"'s \"isa: ...\" (the flags, each maybe (no))") }
        NR == 4 && !/^triad a = b \+ s\*c, 3 arrays of [0-9]+ MiB, 24 B per element, best of [0-9]+:$/ {
            bad("is not host_record'"'"'s \"triad ...:\" line") }
        NR == 5 && $0 !~ ("^  1 thread:   " num " GB/s$") { bad("is not host_record'"'"'s 1-thread rate") }
        NR == 6 && $0 !~ ("^  [0-9]+ threads: " num " GB/s$") { bad("is not host_record'"'"'s all-threads rate") }
        NR > 6 { bad("is more than host_record writes (its six lines)") }
        END { if (!failed && NR != 6) { printf "has %d lines, not host_record'"'"'s six", NR; exit 1 } }' "$1" ;;
    cpu-scaling.txt) # tools/cpu_scaling.c: its table, then maybe the pairs table
        LC_ALL=C awk -v num="$num" '
        function bad(why) { printf "line %d %s", NR, why; failed = 1; exit 1 }
        NR == 1 { if (!/^# cpu_scaling: -?[0-9]+ CPUs online; /) bad("is not cpu_scaling'"'"'s first line (# cpu_scaling: ...)"); part = "kind"; head = 1; next }
        part == "kind" && /^# pairs: the fma loop on CPU 0 and CPU k at once; / { part = "pair"; head = 1; next }
        head {
            if (part == "kind" && !/^kind +threads +time \(s\) +spread \(s\) +efficiency$/ ||
                part == "pair" && !/^pair +cpu k +time \(s\) +spread \(s\) +efficiency$/) bad("is not cpu_scaling'"'"'s column heads")
            head = 0; next
        }
        part == "kind" && /^[a-z0-9_]+ +\(this CPU has no AVX2 and FMA: not run\)$/ { next }
        $0 !~ ("^[a-z0-9_+]+ +[0-9]+ +" num " +" num "-" num " +(-?[0-9]+|-?inf|-?nan)%$") { bad("is not a row of cpu_scaling'"'"'s") }
        END { if (!failed && head) { print "ends before its column heads"; exit 1 } }' "$1" ;;
    esac
}
# dest_problem: why DEST may not be replaced, or its folder written (root too)
dest_problem() {
    local why
    why=$(folder_problem "$dir")
    [ -z "$why" ] || { echo "$dest: $why: not written"; return; }
    why=$(replace_problem_common "$dest")
    [ -z "$why" ] || { echo "$dest $why: not replaced (move it away and run again)"; return; }
    [ -e "$dest" ] || return 0
    why=$(kind_problem "$dest") ||
        echo "$dest is not what ${1:-COMMAND} writes under its name ($why): not replaced (move it away and run again)"
}
why=$(dest_problem "$1")
[ -z "$why" ] || { echo "$why" >&2; exit 2; }
mkdir -p -- "$dir" || exit 1 # (its folder and the one above judged: folder_problem)
tmp=$(mktemp -- "$dir/.$(basename -- "$dest").XXXXXX") || exit 1
trap 'rm -f -- "$tmp"' EXIT
trap 'rm -f -- "$tmp"; exit 130' INT TERM HUP
"$@" > "$tmp" || { echo "$dest: $1 failed: not replaced" >&2; exit 1; }
why=$(dest_problem "$1")
[ -z "$why" ] || { echo "$why" >&2; exit 2; }
# the mode DEST had, or a new file's (mktemp makes it 0600)
if [ -e "$dest" ]; then
    chmod --reference="$dest" -- "$tmp" || exit 1
else
    chmod "$(printf '%o' $((0666 & ~0$(umask))))" -- "$tmp" || exit 1
fi
mv -f -T -- "$tmp" "$dest" && trap - EXIT
