#!/usr/bin/env bash
# ch02's part of `make bench` (run by tools/bench.sh after ./ch02, with its
# helpers sourced): a difference image for every build whose image is not
# byte-identical to gcc -O0's.
for f in "$imgdir"/ch02-*.p[np][gm]; do
    st=$(basename "${f%.*}")
    [ "$st" = ch02-gcc-O0 ] && continue
    grep -q "^${st#ch02-} .*byte-identical" "$logdir/ch02.txt" || diff_pair ch02-gcc-O0 "$st" "diff-$st"
done
# Three runs of every build at 1/16 of the samples: the spread, so the book
# ranks two builds only when their difference is larger than it.
./ch02 --spp 4 --repeat 3 --quiet --csv "$new" --out "$scratch/ch02-spread.ppm" > "$logdir/ch02-spread.txt" 2>&1 ||
    { echo "bench: ch02 --spp 4 --repeat 3 failed"; status=1; }
cat "$logdir/ch02-spread.txt"
