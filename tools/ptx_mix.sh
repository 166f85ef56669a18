#!/usr/bin/env bash
# make ch07-ptx: the instructions one body-body interaction costs in ch07's
# unrolled tile loop, read from the PTX that nvcc generates (no GPU needed).
# For each unrolled kernel it finds the basic block holding the unrolled
# loop (the one with the shared-memory loads), counts each opcode in it, and
# divides by the interactions in it (shared loads, times the bodies each
# load serves). Prints a
# Markdown table. PTX is nvcc's intermediate code: ptxas may still expand an
# instruction (plain rsqrtf becomes several: compare make ch07 SASS totals).
set -u
ptx=$1
# The kernels: PTX entry name pattern, column, interactions per shared load.
kernels="tiled_float4_kernelILi3E gpu-tiled-unrolled 1
tiled_float4_kernelILi7E gpu-tiled-ftz 1
tiled_float4_kernelILi15E gpu-softening-fma 1
several_bodies_kernelILi2ELi2ELi256E gpu-two-bodies 2"
header="| instruction (PTX) |" rule="|---|"
while read -r _ name _; do header="$header $name |" rule="$rule---:|"; done <<<"$kernels"
echo "$header"
echo "$rule"
awk -v list="$kernels" '
BEGIN { k = split(list, lines, "\n"); for (i = 1; i <= k; i++) { split(lines[i], f, " "); pat[i] = f[1]; per_load[i] = f[3] } }
/^\.visible \.entry/ { kernel = 0; for (i = 1; i <= k; i++) if (index($0, pat[i])) kernel = i }
kernel && /^\$L__BB/ { n = 0; loads = 0 }
kernel && /^\t[a-z@]/ {
    op = $1 ~ /^@/ ? $2 : $1
    ops[++n] = op
    if (op ~ /^ld\.shared\.v4/) loads++
    if (op == "bra" && loads > 0) { # the end of the unrolled loop block
        for (i = 1; i <= n; i++) { count[kernel, ops[i]]++; names[ops[i]] = 1 }
        per[kernel] = loads * per_load[kernel]
        n = 0; loads = 0
    }
}
END {
    for (i = 1; i <= k; i++) if (!per[i]) { print "ptx_mix: the unrolled loop of " pat[i] " was not found" > "/dev/stderr"; exit 1 }
    for (op in names) {
        line = "| `" op "` |"
        for (i = 1; i <= k; i++) { v = count[i, op] / per[i]; line = line sprintf(" %.2f |", v); all[i] += v }
        printf "%09.2f\t%s\n", 1000 - count[1, op] / per[1], line
    }
    line = "| **all** |"
    for (i = 1; i <= k; i++) line = line sprintf(" **%.2f** |", all[i])
    printf "999999\t%s\n", line
}' "$ptx" | sort -t$'\t' -k1,1n | cut -f2
