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

# The math configurations (--math M), on gpu-generated: how division and
# square root are compiled under each, with the options each is compiled with
# read from the kernel's own first line (./ch10 --print-source S --math M), so
# the table cannot drift from what NVRTC is given.
echo
echo "*gpu-generated's PTX under each math configuration (nvcc -ptx with the NVRTC options ./ch10 prints for it):*"
echo
echo "| --math | options | PTX instructions | div.rn | div.full | div.approx | sqrt.rn | sqrt.approx | sin/cos.approx | .ftz |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in strict fma approx fma-approx fast; do
    src=$out/gpu-generated-$m.cu
    ./ch10 --print-source gpu-generated --math "$m" > "$src" || { echo "ch10-ptx: --math $m failed" >&2; exit 1; }
    opts=$(sed -n '1s/^\/\* NVRTC options: \(.*\) \*\/$/\1/p' "$src" | tr ' ' '\n' | grep -E '^--(fmad|prec-div|prec-sqrt|ftz|use_fast_math)' | tr '\n' ' ')
    [ -n "$opts" ] || { echo "ch10-ptx: no NVRTC options on the first line of $src" >&2; exit 1; }
    # shellcheck disable=SC2086
    "$NVCC" -arch="$CUDA_ARCH" $opts -ptx "$src" -o "${src%.cu}.ptx" || exit 1
    awk -v m="$m" -v opts="${opts% }" '
    /^\.(visible )?\.entry render/ { on = 1; next }
    on && /^\t[@a-z]/ {
        op = $1 ~ /^@/ ? $2 : $1; sub(/;$/, "", op); n++
        if (op ~ /^div\.rn\..*f32/) drn++
        if (op ~ /^div\.full\..*f32/) dfull++
        if (op ~ /^div\.approx\..*f32/) dapp++
        if (op ~ /^sqrt\.rn\..*f32/) srn++
        if (op ~ /^sqrt\.approx\..*f32/) sapp++
        if (op ~ /^(sin|cos)\.approx/) sc++
        if (op ~ /\.ftz/) ftz++
    }
    END { printf "| %s | `%s` | %d | %d | %d | %d | %d | %d | %d | %d |\n", m, opts, n, drn, dfull, dapp, srn, sapp, sc, ftz }
    ' "${src%.cu}.ptx"
done
