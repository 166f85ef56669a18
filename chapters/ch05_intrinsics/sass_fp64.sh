#!/usr/bin/env bash
# make ch05-sass: counts FP64 instructions in each kernel's SASS (cuobjdump -sass).
# Prints a Markdown table: object, kernel (its stage flags), FP64 instructions, all instructions.
set -u
dump=$1
shift
echo "| object | kernel (stage flags) | FP64 instructions | instructions |"
echo "|---|---|---:|---:|"
for obj in "$@"; do
    "$dump" -sass "$obj" | awk -v obj="$(basename "$obj")" '
    /Function :/ { if (name != "") printf "| %s | %s | %d | %d |\n", obj, name, fp64, all
                   name = $3; fp64 = 0; all = 0; next }
    /^ +\/\*[0-9a-f]+\*\// { all++; if ($0 ~ /[^A-Z](DADD|DMUL|DFMA|DSETP|DMNMX|F2F\.F64|F2F\.F32\.F64|I2F\.F64|F2I\.F64|DEPBAR_NEVER)/) fp64++ }
    END { if (name != "") printf "| %s | %s | %d | %d |\n", obj, name, fp64, all }'
done
