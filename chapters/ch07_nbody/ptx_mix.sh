#!/usr/bin/env bash
# make ch07-ptx: ptx_mix.sh PTX PROGRAM. The instructions one body-body
# interaction costs in ch07's unrolled tile loops, read from the PTX that nvcc
# generates (no GPU needed). The kernels are the stages tagged ptx-mix=K in
# PROGRAM's rows (./ch07 --list-stages): the row's kernel name, K interactions
# per shared-memory load. For each it finds the basic block holding the
# unrolled loop (the one with the shared-memory loads), counts each opcode in
# it, and divides by the interactions in it. Prints a Markdown table. PTX is
# nvcc's intermediate code: ptxas may still expand an instruction (plain rsqrtf
# becomes several: compare make ch07-sass totals).
set -u
ptx=$1 program=$2
# name<TAB>kernel<TAB>K for each tagged row.
kernels=$("$program" --list-stages | awk -F'\t' '{ if (match($5, /ptx-mix=[0-9]+/)) print $1 "\t" $3 "\t" substr($5, RSTART + 8, RLENGTH - 8) }')
[ -n "$kernels" ] || { echo "ptx_mix: no stage of $program is tagged ptx-mix" >&2; exit 1; }
header="| instruction (PTX) |" rule="|---|"
while IFS=$'\t' read -r name _ _; do header="$header $name |" rule="$rule---:|"; done <<<"$kernels"
echo "$header"
echo "$rule"
# The PTX's entry names demangled as Nsight Compute writes them (the rows'
# spelling): c++filt's <3> and false become <(int)3> and (bool)0.
entries=$(grep -o '^\.visible \.entry [A-Za-z0-9_]*' "$ptx" | awk '{print $3}')
names=$(c++filt <<<"$entries" | sed -E 's/([<,] *)(-?[0-9]+)/\1(int)\2/g; s/\btrue\b/(bool)1/g; s/\bfalse\b/(bool)0/g')
awk -v list="$kernels" -v entries="$entries" -v names="$names" '
BEGIN {
    k = split(list, lines, "\n")
    for (i = 1; i <= k; i++) { split(lines[i], f, "\t"); want[i] = f[2]; per_load[i] = f[3] }
    m = split(entries, e, "\n"); split(names, d, "\n")
    for (j = 1; j <= m; j++) for (i = 1; i <= k; i++) if (index(d[j], want[i])) kernel_of[e[j]] = i
}
/^\.visible \.entry/ { name = $3; sub(/\(.*/, "", name); kernel = (name in kernel_of) ? kernel_of[name] : 0 }
kernel && /^\$L__BB/ { n = 0; loads = 0 }
kernel && /^\t[a-z@]/ {
    op = $1 ~ /^@/ ? $2 : $1
    ops[++n] = op
    if (op ~ /^ld\.shared\.v4/) loads++
    if (op == "bra" && loads > 0) { # the end of the unrolled loop block
        for (i = 1; i <= n; i++) { count[kernel, ops[i]]++; seen[ops[i]] = 1 }
        per[kernel] = loads * per_load[kernel]
        n = 0; loads = 0
    }
}
END {
    for (i = 1; i <= k; i++) if (!per[i]) { print "ptx_mix: the unrolled loop of " want[i] " was not found" > "/dev/stderr"; exit 1 }
    for (op in seen) {
        line = "| `" op "` |"
        for (i = 1; i <= k; i++) { v = count[i, op] / per[i]; line = line sprintf(" %.2f |", v); all[i] += v }
        printf "%09.2f\t%s\n", 1000 - count[1, op] / per[1], line
    }
    line = "| **all** |"
    for (i = 1; i <= k; i++) line = line sprintf(" **%.2f** |", all[i])
    printf "999999\t%s\n", line
}' "$ptx" | sort -t$'\t' -k1,1n | cut -f2
