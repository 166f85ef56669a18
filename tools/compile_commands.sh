#!/usr/bin/env bash
# make compile_commands.json: the compilation database editors read (clangd,
# ccls, VS Code), from make's own dry run of its rules (make -n -B), so each
# entry is the command the Makefile runs, never a copy of it kept by hand.
#     tools/compile_commands.sh DIR < (make -n -B ... output) > compile_commands.json
# Every compiler call (gcc, cc, clang, nvcc, and their ++ forms) that names a
# source (.c, .cu, .cpp) gives one entry per source it names: the call's
# words up to the first shell operator, as "arguments" (no quoting to redo).
set -u
case ${1:-} in -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 1 ] || { echo "usage: tools/compile_commands.sh DIR < make-dry-run > compile_commands.json" >&2; exit 2; }
command -v python3 > /dev/null || { echo "compile_commands: python3 is not installed (apt-get install python3)" >&2; exit 1; }
exec python3 -c '
import json, os, shlex, sys
top = sys.argv[1]
compilers = ("gcc", "cc", "clang", "nvcc", "g++", "c++", "clang++")
operators = {"&&", "||", ";", "|", ">", ">>", "<", "2>", "&"}
entries, seen = [], set()
for line in sys.stdin:
    try:
        words = shlex.split(line)
    except ValueError:
        continue  # not one shell command (an echo with a quote in it)
    for start, w in enumerate(words):
        name = os.path.basename(w)
        if name in compilers or name.startswith(("gcc-", "clang-", "clang++-")):
            break
    else:
        continue
    call = []
    for w in words[start:]:
        if w in operators:
            break
        call.append(w)
    for w in call[1:]:
        if w.endswith((".c", ".cu", ".cpp")) and os.path.isfile(os.path.join(top, w)) and (w, tuple(call)) not in seen:
            seen.add((w, tuple(call)))
            entries.append({"directory": top, "arguments": call, "file": w})
json.dump(entries, sys.stdout, indent=1)
sys.stdout.write("\n")
' "$1"
