#!/usr/bin/env bash
# make diff A=ch04 B=ch05: what changed from one chapter's sources to the next.
set -u
a=${1:-}
b=${2:-}
if [ -z "$a" ] || [ -z "$b" ]; then
    echo "usage: make diff A=chNN B=chMM   (e.g. make diff A=ch01 B=ch03)" >&2
    exit 2
fi
da=$(ls -d chapters/${a}_* 2>/dev/null | head -n1)
db=$(ls -d chapters/${b}_* 2>/dev/null | head -n1)
[ -n "$da" ] || { echo "make diff: no chapter $a under chapters/" >&2; exit 2; }
[ -n "$db" ] || { echo "make diff: no chapter $b under chapters/" >&2; exit 2; }
diff -ru --label "$a" --label "$b" "$da" "$db"
[ $? -le 1 ]
