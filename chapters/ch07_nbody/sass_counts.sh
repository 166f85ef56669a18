#!/usr/bin/env bash
# make ch07-sass: per kernel of an object file, from its machine code
# (cuobjdump -sass): all instructions, special-function (MUFU) instructions and
# float comparisons (FSETP), as a Markdown table. Static counts: instructions
# in the code, not executed. Needs cuobjdump (the full CUDA Toolkit).
set -u
dump=$1
obj=$2
echo "| kernel (demangled by c++filt where present) | SASS instructions | MUFU | FSETP |"
echo "|---|---:|---:|---:|"
"$dump" -sass "$obj" | awk '
/Function :/ { if (name != "") printf "%s|%d|%d|%d\n", name, all, mufu, fsetp
               name = $3; all = 0; mufu = 0; fsetp = 0; next }
/^ +\/\*[0-9a-f]+\*\// { all++; if ($0 ~ /MUFU/) mufu++; if ($0 ~ /FSETP/) fsetp++ }
END { if (name != "") printf "%s|%d|%d|%d\n", name, all, mufu, fsetp }' |
while IFS='|' read -r name all mufu fsetp; do
    pretty=$(c++filt "$name" 2>/dev/null || echo "$name")
    echo "| \`$pretty\` | $all | $mufu | $fsetp |"
done
