#!/usr/bin/env bash
# ch02's part of `make bench` (run by tools/bench.sh after ./ch02, with its
# helpers sourced): a difference image for every build whose image is not
# byte-identical to gcc -O0's.
for f in "$imgdir"/ch02-*.p[np][gm]; do
    st=$(basename "${f%.*}")
    [ "$st" = ch02-gcc-O0 ] && continue
    grep -q "^${st#ch02-} .*byte-identical" "$logdir/ch02.txt" || diff_pair ch02-gcc-O0 "$st" "diff-$st"
done
