#!/usr/bin/env bash
# make ch09-ptx writes this machine's PTX table and compile times to
# build/ch09/ch09_ptx.md and says so, leaving the book's committed
# data/asm/ch09_ptx.md alone (a reader's run changed it, and make check's
# book_without_tools.sh then failed); only COURSE_DATA=1, the maintainer's
# opt-in (as make bench's), writes data/asm/. Read from make -n, so no
# compiler runs; in a scratch copy.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - common | tar -C "$repo" -xf - || fail "cannot copy common/"
cd "$repo" || exit 1
export MAKEFLAGS= CLANG_CUDA=
make -n ch09-ptx > "$scratch/plain" 2>&1 || fail "make -n ch09-ptx failed: $(tail -n 3 "$scratch/plain")"
grep -q 'ptx_table.sh' "$scratch/plain" || fail "make -n ch09-ptx runs no ptx_table.sh: $(tail -n 3 "$scratch/plain")"
grep -q '> data/asm/ch09_ptx\|mv .* data/asm/ch09_ptx' "$scratch/plain" && fail "make ch09-ptx writes the committed data/asm/ch09_ptx.md: $(grep -m1 'data/asm' "$scratch/plain")"
grep -q '> build/ch09/ch09_ptx.md.tmp' "$scratch/plain" || fail "make ch09-ptx does not write build/ch09/ch09_ptx.md"
grep -q 'written to build/ch09/ch09_ptx.md' "$scratch/plain" || fail "make ch09-ptx does not say where it wrote"
make -n ch09-ptx COURSE_DATA=1 > "$scratch/course" 2>&1 || fail "make -n ch09-ptx COURSE_DATA=1 failed"
grep -q '> data/asm/ch09_ptx.md.tmp' "$scratch/course" || fail "COURSE_DATA=1 does not write data/asm/ch09_ptx.md"
make help | grep -q 'ch09-ptx .*build/ch09/ch09_ptx.md' || fail "make help does not say where ch09-ptx writes"
echo "make ch09-ptx writes build/ch09/ch09_ptx.md; COURSE_DATA=1 alone writes the committed data/asm/ch09_ptx.md"
