#!/usr/bin/env bash
# tools/evidence.py profile_summary's pipe table: a report with the pipe metrics
# (tools/profile.sh records them) gets a row with its issue slots, occupancy
# and each pipe's share, copied from the report; reports without them get no
# row. The expected row is written by hand from the numbers put in below.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (tools/evidence.py, like make book's generator, needs python3: without it, skipped, saying so)
fixture_copy "$1"
dir=data/profiles/Fixture-GPU_Fixture-CPU
mkdir -p "$dir"
cp "$fixtures"/profiles/*.txt "$dir/"
python3 tools/evidence.py profile_summary > before.md 2>&1 || fail "profile_summary failed: $(tail -n 3 before.md)"
grep -q 'issue slots busy' before.md && fail "a pipe table from reports that have no pipe metrics"
report=$(ls "$dir"/*.txt | head -n 1)
name=$(basename "$report" .txt)
cat >> "$report" <<'METRICS'
    sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active                           %            0.60
    sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active                           %           76.28
    sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active                          %               0
    sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active                           %            6.51
    sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active                            %           50.84
    sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active                %           12.25
    Issue Slots Busy               %        82.52
METRICS
python3 tools/evidence.py profile_summary > after.md 2>&1 || fail "profile_summary failed: $(tail -n 3 after.md)"
occupancy=$(awk '/Achieved Occupancy/ { v = $NF } END { print v }' "$report")
want="| $name | 82.52% | ${occupancy:+$occupancy%}${occupancy:-"-"} | 76.28% | 0.60% | 50.84% | 0% | 6.51% | 12.25% |"
grep -qxF "$want" after.md || fail "the pipe row: want '$want', got: $(grep -F "| $name | 82" after.md)"
[ "$(grep -c '| issue slots busy |' after.md)" = 1 ] || fail "not one pipe table"
echo "profile_summary: a report's pipe metrics become its row of the pipe table; reports without them have none"
