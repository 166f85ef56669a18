#!/usr/bin/env bash
# make ch07-ptx: the instructions one body-body interaction costs in ch07's
# unrolled tile loop, read from the PTX that nvcc generates (no GPU needed).
# For each tiled-unrolled kernel it finds the basic block holding the unrolled
# loop (the one with the shared-memory loads), counts each opcode in it, and
# divides by the number of shared loads in it (one per interaction). Prints a
# Markdown table. PTX is nvcc's intermediate code: ptxas may still expand an
# instruction (plain rsqrtf becomes several: compare make ch07 SASS totals).
set -u
ptx=$1
echo "| instruction (PTX) | gpu-tiled-unrolled | gpu-tiled-ftz |"
echo "|---|---:|---:|"
rows=$(awk '
/^\.visible \.entry/ { kernel = $0 ~ /tiled_float4_kernelILi7E/ ? "ftz" : $0 ~ /tiled_float4_kernelILi3E/ ? "plain" : "" }
kernel != "" && /^\$L__BB/ { n = 0; loads = 0 }
kernel != "" && /^\t[a-z@]/ {
    op = $1 ~ /^@/ ? $2 : $1
    ops[++n] = op
    if (op ~ /^ld\.shared\.v4/) loads++
    if (op == "bra" && loads > 0) { # the end of the unrolled loop block
        for (i = 1; i <= n; i++) { count[kernel, ops[i]]++; names[ops[i]] = 1 }
        per[kernel] = loads
        n = 0; loads = 0
    }
}
END {
    if (!per["plain"] || !per["ftz"]) { print "ptx_mix: the unrolled loops were not found" > "/dev/stderr"; exit 1 }
    for (op in names) printf "%.2f|%.2f|%s\n", count["plain", op] / per["plain"], count["ftz", op] / per["ftz"], op
}' "$ptx") || exit 1
sort -t'|' -k1,1nr -k3 <<<"$rows" | awk -F'|' '{ printf "| `%s` | %.2f | %.2f |\n", $3, $1, $2; a += $1; b += $2 }
    END { printf "| **all** | **%.2f** | **%.2f** |\n", a, b }'
