"""ch02's part of `make book` (tools/book.py calls book_extra(csvs, gen)): each machine's assembly
summary of ch02's builds.

Machine-specific evidence (the assembly of ch02's builds depends on the compilers and the CPU): one
section per machine, named. Then each machine's instruction counts per build (make ch02-instructions).
"""

import os

from book import read_text, shell_glob, write_text

SECTIONS = (("asm_ch02", "ch02_summary_", "*Assembly of each build on `%s` (`make ch02-asm`, `%s`):*\n\n"),
            ("instructions_ch02", "ch02_instructions_",
             "*Instructions each build executes on `%s` (`make ch02-instructions`, `%s`; times from that "
             "machine's bench CSV):*\n\n"))


def book_extra(csvs, gen):
    for name, prefix, heading in SECTIONS:
        out = []
        for f in shell_glob("data/asm/%s*.md" % prefix):
            machine = os.path.basename(f)[len(prefix):-len(".md")]
            out += [heading % (machine, f), read_text(f), "\n"]
        write_text("%s/%s.md" % (gen, name), "".join(out))
