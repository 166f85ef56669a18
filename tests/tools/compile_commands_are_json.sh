#!/usr/bin/env bash
# make compile_commands.json writes a compilation database editors can read:
# valid JSON (python3 -m json.tool), a list of {directory, arguments, file},
# with the Makefile's own command for sources of each kind: a common/ C file,
# a chapter's CUDA file, a CPU and a GPU suite, a tool.
set -u
[ "${1:-}" = --can-run ] && { command -v python3 > /dev/null || { echo "no python3"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - common tests | tar -C "$repo" -xf - || fail "cannot copy the course"
cd "$repo" || exit 1
export CLANG_CUDA=
unset MAKEFLAGS MFLAGS MAKELEVEL
said=$(make -s BUILD=build compile_commands.json 2>&1) || fail "make compile_commands.json: $said"
python3 -m json.tool compile_commands.json > /dev/null || fail "compile_commands.json is not JSON"
[ -z "$(ls build 2> /dev/null | grep -v -e '^nvcc-config.txt$' -e '^clang-config.txt$' -e '^registry' -e '^\.')" ] ||
    fail "the dry run built something: $(ls build)"
python3 - "$repo" <<'PY' || fail "compile_commands.json lacks an entry (above)"
import json, sys
entries = json.load(open("compile_commands.json"))
ok = True
for e in entries:
    if sorted(e) != ["arguments", "directory", "file"] or e["directory"] != sys.argv[1] or e["file"] not in e["arguments"]:
        print("a malformed entry:", e); ok = False; break
want = {"common/measure.c": "-c", "chapters/ch08_path_tracer/render.cu": "-c", "tests/test_ch03.c": "-o",
        "tests/test_cuda_util.cu": "-o", "tools/sandbox.c": "-o"}
for f, flag in want.items():
    mine = [e for e in entries if e["file"] == f]
    if not mine or flag not in mine[0]["arguments"]:
        print("no entry compiling", f); ok = False
sys.exit(0 if ok else 1)
PY
echo "make compile_commands.json: $(grep -c '"file"' compile_commands.json) entries, valid JSON, the known sources among them"
