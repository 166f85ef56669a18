#!/usr/bin/env bash
# tools/evidence.py decomposition prints, for each stage over the one before, the
# product of its four factors (the elapsed-cycle ratio), the speedup the bench
# measured (median times in the results file, at the workload the report's own
# table names), the residual between them, "approximate" where it is over 1%,
# and the two launches' SM clocks. Fixtures: tests/fixtures/profiles/ch05_*.txt
# and tests/fixtures/results_*.csv; expected rows worked out by hand:
#   block-shape after fast-math: instructions 20e9/20e9 = 1, lanes
#   (20e9/750e6)/(20e9/800e6) = 1.07, issue (750e6/2.5e6)/(800e6/3.2e6) = 1.20,
#   SM-active (2.5/3.125)/(3.2/4) = 1.00; product 4/3.125 = 1.28; ncu times
#   2.00/1.60 = 1.25; measured 2.0/1.5 = 1.33; residual 1.3333/1.28 - 1 = +4.2%;
#   samples-across-lanes after block-shape: instructions 2, the rest 1,
#   product 2.00, measured 1.5/0.7515 = 2.00 (1.996), residual -0.2%, its
#   clock 1.75 GHz.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (tools/evidence.py, like make book's generator, needs python3: without it, skipped, saying so)
fixture_copy "$1"
machine=Fixture-GPU_Fixture-CPU
mkdir -p "data/profiles/$machine" data/results
cp "$fixtures"/profiles/ch05_*.txt "data/profiles/$machine/"
cp "$fixtures/results_two_runs.csv" "data/results/$machine.csv"
python3 tools/evidence.py decomposition > table.md 2>&1 || fail "decomposition failed: $(tail -n 3 table.md)"
want='| ch05 | block-shape (after fast-math) | 1.33 | 1.25 | 1.28 | 1.00 | 1.07 | 1.20 | 1.00 | approximate: +4.2% | 1980, 1980 | issue rate |'
grep -qxF "$want" table.md || fail "want the row $want, got: $(grep block-shape table.md)"
want='| ch05 | samples-across-lanes (after block-shape) | 2.00 | 2.00 | 2.00 | 2.00 | 1.00 | 1.00 | 1.00 | -0.2% | 1980, 1750 | instructions |'
grep -qxF "$want" table.md || fail "want the row $want, got: $(grep samples-across table.md)"
grep -q 'residual' table.md && grep -q 'approximate' table.md || fail "the caption or header does not say what the residual is"
# the bench ran no row at the profiles' workload: nothing measured, and the row says so
cp "$fixtures/results_no_run_id.csv" "data/results/$machine.csv"
printf 'ch05,fast-math,256x256x64spp,0,2.0,8000,Msamples/s,ok,Fixture GPU,2026-11-24T10:00:00Z\n' >> "data/results/$machine.csv"
printf 'ch05,block-shape,256x256x64spp,0,1.5,8000,Msamples/s,ok,Fixture GPU,2026-11-24T10:00:00Z\n' >> "data/results/$machine.csv"
python3 tools/evidence.py decomposition > table.md 2>&1 || fail "decomposition failed: $(tail -n 3 table.md)"
want='| ch05 | block-shape (after fast-math) | - | 1.25 | 1.28 | 1.00 | 1.07 | 1.20 | 1.00 | no bench time at 512x512x64spp | 1980, 1980 | issue rate |'
grep -qxF "$want" table.md || fail "want the row $want, got: $(grep block-shape table.md)"
echo "decomposition: product, measured speedup, residual (approximate over 1%) and clocks, by hand"
