#!/usr/bin/env bash
# make ch02-asm: reads each build's assembly (build/ch02-asm/<build>.s) and prints
# a Markdown summary: which of card.c's functions are still separate functions,
# and what kind of instructions the code is made of. Writes, beside the .s files,
# side-by-side listings of vec_dot and of trace for the builds that keep them.
set -u
dir=$1
shift
funcs="vec_make vec_add vec_scale vec_dot vec_cross vec_normalize random_unit trace sample make_camera render_pixel card_render"

body() { # file function: the lines of one function's body
    awk -v f="$2" '$0 ~ "^"f":" {on=1; next} on && /^\t\.size/ {exit} on' "$1"
}

count() { grep -cE "$2" "$1" 2>/dev/null || true; }

echo "| build | functions left | instructions | stack loads/stores | scalar SSE float ops | packed ops | FMA | calls to pow | calls to sqrtf |"
echo "|---|---|---|---|---|---|---|---|---|"
for b in "$@"; do
    s=$dir/$b.s
    left=""
    for f in $funcs; do grep -qE "^$f(\.[a-z0-9.]+)?:" "$s" && left="$left $f"; done
    ninsn=$(grep -cE '^\s+[a-z]' "$s")
    stack=$(grep -E '^\s+[a-z]' "$s" | grep -cE '\((%rbp|%rsp)\)')
    sse=$(count "$s" '^\s+v?(add|sub|mul|div|sqrt|max|min)ss\b')
    packed=$(count "$s" '^\s+v?(add|sub|mul|div|shuf|unpck|movhl|movlh|insert|extract)p[sd]\b|^\s+vfmadd[0-9]*ps')
    fma=$(count "$s" '^\s+vf(n?m(add|sub))[0-9]+[sp]s')
    pow=$(count "$s" 'callq?\s+(pow|__pow)')
    sqrt=$(count "$s" 'callq?\s+sqrtf')
    n=$(wc -w <<<"$left")
    echo "| $b | $n:$(sed 's/ /, /g; s/^, //' <<<"$left") | $ninsn | $stack | $sse | $packed | $fma | $pow | $sqrt |"
done
echo
echo "Counts are static (instructions in the file, not executed). Stack loads/stores: operands"
echo "addressed off %rbp or %rsp, i.e. values kept in memory rather than registers."

for f in vec_dot trace; do
    out=$dir/side_by_side_$f.txt
    cols=()
    for b in "$@"; do
        t=$(mktemp)
        { echo "== $b =="; if grep -q "^$f:" "$dir/$b.s"; then body "$dir/$b.s" "$f" | grep -E '^\s+[a-z]' | sed 's/^\s*//'; else echo "(inlined: no $f)"; fi; } > "$t"
        cols+=("$t")
    done
    pr -m -t -w 400 -"${#cols[@]}" "${cols[@]}" > "$out" 2>/dev/null || paste "${cols[@]}" > "$out"
    rm -f "${cols[@]}"
done
