#!/usr/bin/env bash
# make ch09-ptx: what each compiler made of ch09's kernels, without a GPU.
# For each kernel and compiler: the registers ptxas gives it, and its PTX's
# instruction mix (static counts over the kernel's body, everything inlined
# into it): all instructions, fused multiply-adds, loads by memory space,
# special-function instructions (MUFU: ex2, lg2, sin, cos, rsqrt, rcp, and
# approximate sqrt), branches, calls, FP64 arithmetic, over the kernel and
# every function it calls (each counted once: static code), and how many
# such functions there are; then each object's
# compile time (the Makefile's, from building ./ch09). Prints Markdown.
# The environment (from the Makefile): NVCC, CLANG_CUDA, CLANG_CUDA_FLAGS,
# CUDA_ARCH, NVCC_FAST_MATH, CLANG_FAST_MATH, BUILD.
set -u
out=$BUILD/ch09/ptx
mkdir -p "$out"
compilers="nvcc"
[ -n "${CLANG_CUDA:-}" ] && compilers="nvcc clang"

# part|source|kernel label|entry pattern (mangled name)
kernels='ch05|chapters/ch05_intrinsics/render.cu|ch05-loop|_Z13render_kernelILi0EE
ch05|chapters/ch05_intrinsics/render.cu|ch05-sphere-list|_Z13render_kernelILi23EE
ch05fast|chapters/ch05_intrinsics/render_fast.cu|ch05-fast-math|_Z13render_kernelILi23EE
ch05fast|chapters/ch05_intrinsics/render_fast.cu|ch05-bounding-box|_Z13render_kernelILi31EE
ch06|chapters/ch06_reduction/reduce_gpu.cu|ch06-sequential|_Z17sequential_kernel
ch06|chapters/ch06_reduction/reduce_gpu.cu|ch06-vector-shuffle|_Z21vector_shuffle_kernel
ch07|chapters/ch07_nbody/gpu_tiled.cu|ch07-naive|_Z12naive_kernel
ch07|chapters/ch07_nbody/gpu_tiled.cu|ch07-tiled|_Z12tiled_kernel
ch07|chapters/ch07_nbody/gpu_tiled.cu|ch07-tiled-ftz|_Z19tiled_float4_kernelILi7EE'

# PTX and ptxas's register report of one source, once per part and compiler.
compile() { # part source compiler
    local part=$1 src=$2 c=$3 flags=""
    [ -f "$out/$part-$c.ptx" ] && return 0
    if [ "$c" = nvcc ]; then
        [ "$part" = ch05fast ] && flags="$NVCC_FAST_MATH"
        # shellcheck disable=SC2086
        "$NVCC" -O3 -std=c++17 -arch="$CUDA_ARCH" $flags -ptx "$src" -o "$out/$part-$c.ptx" &&
            "$NVCC" -O3 -std=c++17 -arch="$CUDA_ARCH" $flags -Xptxas -v -c "$src" -o /dev/null 2> "$out/$part-$c.regs"
    else
        [ "$part" = ch05fast ] && flags="$CLANG_FAST_MATH"
        # shellcheck disable=SC2086
        "$CLANG_CUDA" $CLANG_CUDA_FLAGS $flags --cuda-device-only -S "$src" -o "$out/$part-$c.ptx" &&
            "$CLANG_CUDA" $CLANG_CUDA_FLAGS $flags --cuda-device-only -Xcuda-ptxas -v -c "$src" -o /dev/null \
                2> "$out/$part-$c.regs"
    fi
}

echo "| kernel | compiler | registers | PTX instructions | FMA | loads global / shared / local | special functions | branches | calls | FP64 | functions it calls |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
while IFS='|' read -r part src label entry; do
    for c in $compilers; do
        compile "$part" "$src" "$c" || { echo "ch09-ptx: $c failed on $src" >&2; exit 1; }
        regs=$(awk -v e="$entry" '/Compiling entry function/ { on = index($0, e) > 0 } on && /Used [0-9]+ registers/ {
            for (i = 1; i <= NF; i++) if ($i == "Used") { print $(i + 1); exit } }' "$out/$part-$c.regs")
        awk -v e="$entry" -v label="$label" -v c="$c" -v regs="${regs:--}" '
        # The kernel and every function it calls, each body counted once
        # (nvcc inlines nearly everything; clang keeps some functions apart).
        /^\.(visible |weak |extern )*\.(entry|func) / {
            line = $0; sub(/^.*\.(entry|func)[ \t]+/, "", line); sub(/^\([^)]*\)[ \t]*/, "", line)
            match(line, /^[A-Za-z_$][A-Za-z0-9_$]*/); cur = substr(line, RSTART, RLENGTH)
            if ($0 ~ /\.entry / && index(cur, e) == 1) kernel = cur
            next
        }
        cur != "" && /^\t[@a-z]/ {
            op = $1 ~ /^@/ ? $2 : $1
            sub(/;$/, "", op)
            k[cur, "n"]++
            if (op ~ /^fma\./) k[cur, "fma"]++
            if (op ~ /^ld\.global|^ldu\.global/) k[cur, "gl"]++
            if (op ~ /^ld\.shared/) k[cur, "sh"]++
            if (op ~ /^ld\.local/) k[cur, "lo"]++
            if (op ~ /^(ex2|lg2|sin|cos|rsqrt|rcp)\.approx|^sqrt\.approx/) k[cur, "sf"]++
            if (op ~ /^bra/) k[cur, "br"]++
            if (op ~ /\.f64$/ && op !~ /^(ld|st|mov|cvt)/) k[cur, "f64"]++
            if (op ~ /^call/) {
                k[cur, "ca"]++
                line = $0; sub(/^[^c]*call[.a-z]*[ \t]+/, "", line); sub(/^\([^)]*\),[ \t]*/, "", line)
                match(line, /^[A-Za-z_$][A-Za-z0-9_$]*/); callee = substr(line, RSTART, RLENGTH)
                if (!((cur, callee) in edge)) { edge[cur, callee] = 1; calls[cur] = calls[cur] " " callee }
            }
        }
        function visit(f,    list, m, i) { # adds f and, once each, what it calls
            if (f in seen) return
            seen[f] = 1; funcs++
            for (i = 1; i <= 9; i++) total[cat[i]] += k[f, cat[i]]
            m = split(calls[f], list, " ")
            for (i = 1; i <= m; i++) visit(list[i])
        }
        END {
            split("n fma gl sh lo sf br ca f64", cat, " ")
            if (kernel == "") { print "ch09-ptx: no entry " e " in the PTX" > "/dev/stderr"; exit 1 }
            visit(kernel)
            printf "| %s | %s | %s | %d | %d | %d / %d / %d | %d | %d | %d | %d | %d |\n", label, c, regs, total["n"], total["fma"],
                   total["gl"], total["sh"], total["lo"], total["sf"], total["br"], total["ca"], total["f64"], funcs - 1
        }
        ' "$out/$part-$c.ptx"
    done
done <<<"$kernels"

echo
echo "Compile time of each object of ./ch09 (one source, one compiler, host and device code, ms):"
echo
echo "| object | ms |"
echo "|---|---:|"
for f in "$BUILD"/ch09/*.ms; do
    [ -f "$f" ] && awk '{ printf "| %s %s | %s |\n", $1, $2, $3 }' "$f"
done
