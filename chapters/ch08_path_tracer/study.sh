#!/usr/bin/env bash
# ch08's long study (`make studies`, run by tools/bench.sh with its
# helpers sourced): quality per second. Each stage tagged mse-ladder
# (stages.h) renders 1024x768 at a ladder of spp, each run a row "MSE"
# (against the converged reference) with its kernel time. The ladder doubles
# until the MSE is below 52 (the report's bar) and one rung past it (for the
# chart); then the spp between the last rung above 52 and the first below is
# bisected (geometric midpoints, multiples of 4) until the two are at most
# 1.25x apart. `make book` charts MSE against time and tabulates, per stage,
# the smallest spp measured below 52 with its time. Each run also prints the
# relative MSE of its linear radiance (before clamp and gamma) against a
# linear reference rendered first: gpu-registers (double) at 16384 spp.
# Columns are read by name (tools/columns.sh, which bench.sh sources).

linear_ref=$scratch/ch08_linear_reference.pfm
./ch08 --stage gpu-registers --spp 16384 --repeat 1 --noise-test no --quiet --out "$scratch/ch08_ref.ppm" \
    --linear-out "$linear_ref" > "$scratch/ch08_sweep.txt" 2>&1 ||
    { cat "$scratch/ch08_sweep.txt"; echo "bench: ch08's linear reference failed"; status=1; }

# ch08_mse STAGE SPP: renders, appends the rows to $new, prints the MSE (empty on failure).
ch08_mse() {
    ./ch08 --stage "$1" --spp "$2" --repeat 3 --quiet --csv "$new" --linear-reference "$linear_ref" \
        > "$scratch/ch08_sweep.txt" 2>&1 ||
        { cat "$scratch/ch08_sweep.txt" >&2; echo "bench: ch08 $1 spp=$2 failed" >&2; return 1; }
    csv_columns "$new" stage workload value unit || return 1
    awk -F, "${cols[@]}" -v s="$1" -v w="1024x768x${2}spp" '$c_stage == s && $c_workload == w && $c_unit == "MSE" {v = $c_value} END {print v}' "$new"
}
below_bar() { awk -v m="$1" 'BEGIN {exit !(m < 52)}'; }

stage_columns name tags || status=1
for stage in $(./ch08 --list-stages | awk -F'\t' "${cols[@]}" '$c_tags ~ /(^| )mse-ladder( |$)/ {print $c_name}'); do
    above=0 below=0 spp=4
    while [ $spp -le 8192 ]; do
        mse=$(ch08_mse "$stage" $spp) && [ -n "$mse" ] || { status=1; break; }
        echo "bench: ch08 $stage at $spp spp: MSE $mse"
        if below_bar "$mse"; then
            [ $below -eq 0 ] && below=$spp
        else
            above=$spp
        fi
        [ $below -ne 0 ] && [ $spp -ge $((2 * below)) ] && break
        spp=$((2 * spp))
    done
    [ $below -ne 0 ] && [ $above -ne 0 ] || continue
    while [ $((4 * below)) -gt $((5 * above)) ]; do
        mid=$(awk -v a=$above -v b=$below 'BEGIN {m = int(sqrt(a * b) / 4 + 0.5) * 4; print (m > a && m < b) ? m : 0}')
        [ "$mid" -ne 0 ] || break
        mse=$(ch08_mse "$stage" "$mid") && [ -n "$mse" ] || { status=1; break; }
        echo "bench: ch08 $stage at $mid spp (bisecting $above-$below): MSE $mse"
        if below_bar "$mse"; then below=$mid; else above=$mid; fi
    done
done
