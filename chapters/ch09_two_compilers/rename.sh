#!/usr/bin/env bash
# ch09's objects: rename.sh IN OUT SUFFIX "API..." "KEEP..."
# Renames each API function to <function>_<SUFFIX> and keeps it global; keeps
# the KEEP functions global as they are; makes every other strong global
# definition local, so two compilers' builds of one source link into one
# program. Weak definitions (inline functions of shared headers, which the
# linker merges by COMDAT group) are left alone; the chapter's own templates
# and kernels cannot collide, since ch09 compiles each source inside a
# namespace of its own (chapter.mk).
set -eu
in=$1 out=$2 suffix=$3 api=$4 keep=$5
args=()
for f in $api; do args+=(--redefine-sym "$f=${f}_$suffix"); done
for s in $(nm --defined-only -g "$in" | awk '$2 ~ /^[TDBR]$/ {print $3}'); do
    case " $api $keep " in *" $s "*) continue ;; esac
    args+=(--localize-symbol "$s")
done
objcopy "${args[@]}" "$in" "$out"
