#!/usr/bin/env bash
# make ch10-ptx: what the rules buy, without a GPU. For each kernel ch10
# generates (and the hand-written one): the operations in its step (from the
# tree) and the rewrites each rule made, then the instructions in the PTX that
# nvcc makes of the whole kernel with the options ch10 gives NVRTC (IEEE
# arithmetic, --fmad=false), by kind. Prints Markdown.
# The environment: NVCC, CUDA_ARCH, BUILD.
set -u
out=$BUILD/ch10/ptx
mkdir -p "$out"
echo "| kernel | step operations (tree) | rewrites | PTX instructions | add/sub | mul | div | sqrt | fma | special functions | branches |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for s in gpu-hand-written gpu-generated gpu-generated-simplified gpu-generated-relaxed; do
    ./ch10 --print-source "$s" > "$out/$s.cu" || { echo "ch10-ptx: ./ch10 --print-source $s failed" >&2; exit 1; }
    "$NVCC" -arch="$CUDA_ARCH" --fmad=false -ptx "$out/$s.cu" -o "$out/$s.ptx" || exit 1
    info=$(sed -n 's/^\/\* rules: .*; \([0-9]*\) operations\(; rewrites: \)\{0,1\}\(.*\) \*\/$/\1|\3/p' "$out/$s.cu")
    ops=${info%%|*} rewrites=${info#*|}
    [ -n "$info" ] || { ops="(by hand)"; rewrites="-"; }
    awk -v name="$s" -v ops="$ops" -v rw="${rewrites:--}" '
    /^\.(visible )?\.entry render/ { on = 1; next }
    on && /^\t[@a-z]/ {
        op = $1 ~ /^@/ ? $2 : $1; sub(/;$/, "", op); n++
        if (op ~ /^(add|sub)\.(rn\.)?f32/) as++
        if (op ~ /^mul\.(rn\.)?f32/) mu++
        if (op ~ /^div\./ && op ~ /f32/) dv++
        if (op ~ /^sqrt\./) sq++
        if (op ~ /^fma\./) fm++
        if (op ~ /^(ex2|lg2|sin|cos|rsqrt|rcp)\.approx/) sf++
        if (op ~ /^bra/) br++
    }
    END { printf "| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", name, ops, rw, n, as, mu, dv, sq, fm, sf, br }
    ' "$out/$s.ptx"
done
