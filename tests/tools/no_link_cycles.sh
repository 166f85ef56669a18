#!/usr/bin/env bash
# No two files of common/ or of one chapter need each other: a file's object
# needs another's when it uses a symbol the other defines (nm), and tsort
# (coreutils) names the files of any cycle. Read from the built objects
# (build/common/*.o, build/chNN/*.o: make check builds them first), so a
# cycle through a shared header's declarations counts, not only #includes.
# Proven on a made-up pair first (a.o calls b.o's function and b.o a.o's),
# so it cannot pass by reading nothing.
set -u
build=${BUILD:-build}
if [ "${1:-}" = --can-run ]; then
    command -v nm > /dev/null && command -v tsort > /dev/null || { echo "no nm or tsort"; exit 77; }
    ls "$build"/common/*.o > /dev/null 2>&1 || { echo "nothing built yet ($build/common/*.o)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$1
# loops DIR: the files of the cycles among DIR's objects
loops() {
    { nm -A -P --defined-only -g "$1"/*.o 2>/dev/null | sed 's/^/D /'; nm -A -P -u "$1"/*.o 2>/dev/null | sed 's/^/U /'; } |
        awk '{ file = $2; sub(/:$/, "", file); n = split(file, p, "/"); file = p[n]
               if ($1 == "D") owner[$3] = file; else { uses[++k] = file; sym[k] = $3 } }
             END { for (i = 1; i <= k; i++) if ((sym[i] in owner) && owner[sym[i]] != uses[i]) print uses[i], owner[sym[i]]
                   print "_ _" }' |
        sort -u | tsort 2>&1 > /dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop'
}
demo=$(mktemp -d) && trap 'rm -rf "$demo"' EXIT
printf 'void b(void);\nvoid a(void) { b(); }\n' > "$demo/a.c"
printf 'void a(void);\nvoid b(void) { a(); }\n' > "$demo/b.c"
(cd "$demo" && cc -c a.c b.c) || fail "cannot compile the made-up pair"
[ -n "$(loops "$demo")" ] || fail "the check does not see a made-up cycle (a.o calls b, b.o calls a)"
found=
for dir in "$root/$build"/common "$root/$build"/ch[0-9][0-9]; do
    ls "$dir"/*.o > /dev/null 2>&1 || continue
    l=$(loops "$dir")
    [ -z "$l" ] || found="$found ${dir#"$root/$build"/}: $(echo $l)."
done
[ -z "$found" ] || fail "files that need each other:$found"
echo "no cycles between the objects of common/ or of any chapter"
