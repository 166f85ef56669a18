#!/usr/bin/env bash
# make's CHAPTERS (a subset for bench, profiles, sanitize) is data: checked
# against the registry, never run as make code ($(shell ...) on the command
# line or in the environment), an unknown name refused with the list.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
marker=$(mktemp -u)
make -s print-chapters CHAPTERS="\$(shell touch $marker)" > /dev/null 2>&1 && fail "a CHAPTERS of make code was accepted"
CHAPTERS="\$(shell touch $marker)" make -s print-chapters > /dev/null 2>&1 && fail "CHAPTERS from the environment as make code was accepted"
[ -e "$marker" ] && { rm -f "$marker"; fail "CHAPTERS' text was run as make code"; }
said=$(make -s print-chapters CHAPTERS='ch0%' 2>&1) && fail "CHAPTERS=ch0% (a make pattern) was accepted"
grep -q 'CHAPTERS: not a chapter: ch0%' <<<"$said" || fail "an unknown chapter's error says: $said"
got=$(make -s print-chapters CHAPTERS='ch03 ch01' | tr '\n' ' ')
[ "$got" = "ch01 ch03 " ] || fail "CHAPTERS='ch03 ch01' gave '$got', not the registry's order 'ch01 ch03 '"
all=$(make -s print-chapters | wc -l)
[ "$all" -ge 10 ] || fail "without CHAPTERS, make lists $all chapters"
echo "CHAPTERS is checked against the registry and never expanded as make code"
