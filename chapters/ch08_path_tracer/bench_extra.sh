#!/usr/bin/env bash
# ch08's part of `make bench` (run by tools/bench.sh after ./ch08, with its
# helpers sourced): quality per second. Each stage renders 1024x768 at a
# ladder of spp, each run a row "MSE" (against the converged reference) with
# its kernel time; the ladder stops two rungs after the MSE drops below 52
# (the report's bar). `make book` charts MSE against time and tabulates the
# first rung below 52 per stage. The stages: those tagged mse-ladder (stages.h).
for stage in $(./ch08 --list-stages | awk -F'\t' '$5 ~ /(^| )mse-ladder( |$)/ {print $1}'); do
    below=0
    for spp in 4 8 16 32 64 128 256 512 1024 2048 4096; do
        ./ch08 --stage $stage --spp $spp --repeat 3 --quiet --csv "$new" > "$scratch/ch08_sweep.txt" 2>&1 ||
            { cat "$scratch/ch08_sweep.txt"; echo "bench: ch08 $stage spp=$spp failed"; status=1; break; }
        mse=$(awk -F, -v s=$stage -v w="1024x768x${spp}spp" '$2 == s && $3 == w && $7 == "MSE" {v = $6} END {print v}' "$new")
        echo "bench: ch08 $stage at $spp spp: MSE ${mse:-?}"
        [ -n "$mse" ] || break
        awk -v m="$mse" 'BEGIN {exit !(m < 52)}' && below=$((below + 1))
        [ $below -ge 2 ] && break
    done
done
