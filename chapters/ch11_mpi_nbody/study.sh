#!/usr/bin/env bash
# ch11's long study (`make studies`, run by tools/bench.sh with its
# helpers sourced): strong scaling (n fixed) and weak scaling (n / P fixed) at
# P = 1 .. the GPUs here (one rank each), every stage, each step split into
# wait, exchange and compute (./ch11 --phases); then, for the exchange
# pattern and the checks, CPU ranks at P = 4 and 8 (no GPU visible). Rows to
# ch11-scaling.csv beside the results; `make book` draws it with the model.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ch11_run() { # kind P n [env...]: one mpirun, its phases as rows "kind,..."
    local kind=$1 P=$2 n=$3
    shift 3
    rm -f "$scratch/ch11_phases.csv"
    env "$@" mpirun -np "$P" ./ch11 --n "$n" --repeat 5 --quiet --phases "$scratch/ch11_phases.csv" > /dev/null ||
        { echo "bench: ch11 $kind at P=$P, n=$n failed" >&2; status=1; return; }
    tail -n +2 "$scratch/ch11_phases.csv" | sed "s/^/$kind,/"
}
{
    echo "kind,stage,ranks,n,on,ms_per_step,wait_ms,exchange_ms,compute_ms,mb_per_step,device"
    if [ "$gpus" -gt 0 ]; then
        for P in $(seq 1 "$gpus"); do
            ch11_run strong "$P" 262144
            ch11_run weak "$P" $((P * 131072))
        done
    fi
    for P in 1 2 4 8; do
        ch11_run cpu-strong "$P" 16384 CUDA_VISIBLE_DEVICES=
    done
} > "$logdir/ch11-scaling.csv"
