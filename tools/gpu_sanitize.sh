#!/usr/bin/env bash
# The GPU half of `make sanitize`: compute-sanitizer's memcheck, racecheck,
# synccheck and initcheck over every GPU stage at small, odd sizes.
# Every stage must be clean, except ch06's warp-unrolled-volatile, which
# racecheck must flag (its race is the lesson): if racecheck finds nothing
# there, that is a failure too. Logs go to build/sanitize/.
set -u
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$cs" ]; then echo "gpu-sanitize: compute-sanitizer not found (it comes with the full CUDA Toolkit): GPU checks skipped"; exit 0; fi
if ! nvidia-smi -L >/dev/null 2>&1; then echo "gpu-sanitize: no GPU: GPU checks skipped"; exit 0; fi
mkdir -p build/sanitize
failures=0 runs=0

stages_of() { ./"$1" --help | awk '/^stages/ {on = 1; next} on && NF == 0 {exit} on {print $1}'; }

run() { # tool chapter stage args...
    local tool=$1 ch=$2 stage=$3
    shift 3
    local log=build/sanitize/${tool}_${ch}_${stage}$(printf '_%s' "$@" | tr -c 'A-Za-z0-9_.-' '_').log
    "$cs" --tool "$tool" --error-exitcode 99 ./"$ch" --stage "$stage" --repeat 1 --quiet "$@" > "$log" 2>&1
    local status=$? hazards
    runs=$((runs + 1))
    hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | head -n1)
    if [ "$tool" = racecheck ] && [ "$stage" = warp-unrolled-volatile ]; then
        if [ "${hazards:-0}" -gt 0 ]; then
            echo "  ok    racecheck flags $ch $stage: $hazards hazards, as it must"
        else
            echo "  FAIL  racecheck found no race in $ch $stage (log: $log)"; failures=$((failures + 1))
        fi
        return
    fi
    if [ $status -eq 0 ] && [ "${hazards:-0}" -eq 0 ]; then
        echo "  ok    $tool $ch $stage"
    else
        echo "  FAIL  $tool $ch $stage (exit $status, log: $log)"; grep -m 5 -E '=====' "$log"; failures=$((failures + 1))
    fi
}

chapters=${CHAPTERS:-"ch04 ch05 ch06 ch07"}
for tool in memcheck racecheck synccheck initcheck; do
    for ch in $chapters; do
        for s in $(stages_of $ch); do
            case $ch in
            ch04 | ch05) run $tool $ch "$s" --width 33 --height 31 --spp 2 --out build/sanitize/$ch.ppm ;;
            ch06)
                case $s in cpu-*) continue ;; esac
                for n in 1 1025; do run $tool ch06 "$s" --n $n; done
                ;;
            ch07)
                case $s in cpu-*) continue ;; esac
                for n in 1 1025; do run $tool ch07 "$s" --n $n --steps 1; done
                ;;
            esac
        done
    done
done
echo "gpu-sanitize: $runs runs, $failures failures"
[ $failures -eq 0 ]
