#!/usr/bin/env bash
# --help on run_tests.sh, profile.sh, profiles.sh, machine.sh,
# compile_commands.sh and every tools/slurm script: each prints its usage
# (its opening comment) on stdout, nothing on stderr, exits 0 and does
# nothing else (no profile, no download, no test run). In a scratch copy.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
before=$(find . | LC_ALL=C sort | cksum)
for tool in tools/run_tests.sh tools/profile.sh tools/profiles.sh tools/machine.sh tools/compile_commands.sh \
            tools/slurm/check_in_home.sh tools/slurm/*.sbatch; do
    bash "$tool" --help > "$scratch/out" 2> "$scratch/err"
    rc=$?
    [ $rc -eq 0 ] || fail "$tool --help exited $rc: $(cat "$scratch/err")"
    [ ! -s "$scratch/err" ] || fail "$tool --help wrote to stderr: $(cat "$scratch/err")"
    [ "$(wc -l < "$scratch/out")" -ge 3 ] || fail "$tool --help printed no usage: $(cat "$scratch/out")"
    [ "$(head -n 1 "$scratch/out")" = "$(sed -n '2s/^# \{0,1\}//p' "$tool")" ] || fail "$tool --help is not its opening comment: $(head -n 1 "$scratch/out")"
done
[ "$(find . | LC_ALL=C sort | cksum)" = "$before" ] || fail "a --help changed the checkout"
echo "run_tests, profile, profiles, machine, compile_commands and the slurm scripts answer --help"
