#!/usr/bin/env bash
# ch02's part of `make book` (sourced by tools/book.py, with its variables at
# hand: csvs, gen, fmt_awk): each machine's assembly summary of ch02's builds.
# Machine-specific evidence (the assembly of ch02's builds depends on the
# compilers and the CPU): one section per machine, named.
: > "$gen/asm_ch02.md"
for f in data/asm/ch02_summary_*.md; do
    m=$(basename "$f" .md)
    printf '*Assembly of each build on `%s` (`make ch02-asm`, `%s`):*\n\n' "${m#ch02_summary_}" "$f" >> "$gen/asm_ch02.md"
    cat "$f" >> "$gen/asm_ch02.md"
    echo >> "$gen/asm_ch02.md"
done
# Each machine's instruction counts per build (make ch02-instructions).
: > "$gen/instructions_ch02.md"
for f in data/asm/ch02_instructions_*.md; do
    m=$(basename "$f" .md)
    printf '*Instructions each build executes on `%s` (`make ch02-instructions`, `%s`; times from that machine'"'"'s bench CSV):*\n\n' \
        "${m#ch02_instructions_}" "$f" >> "$gen/instructions_ch02.md"
    cat "$f" >> "$gen/instructions_ch02.md"
    echo >> "$gen/instructions_ch02.md"
done
