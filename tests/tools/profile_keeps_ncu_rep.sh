#!/usr/bin/env bash
# make profile keeps ncu's whole report, <chapter>_<stage>.ncu-rep, in the
# git-ignored mine/profiles/<machine>/ (never in the committed data/), beside
# the text report in data/profiles/<machine>/ that names it; with an ncu that
# prints nothing once it exports (the details then read back with --import),
# the text report still holds the details; a failed profile leaves no report
# file behind. Stand-ins for nvidia-smi, ncu and ch05 (no GPU needed).
set -u
[ "${1:-}" = --can-run ] && { command -v git > /dev/null || { echo "no git"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export CLANG_CUDA=
mkdir -p bin
printf '#!/bin/sh\ncase "$*" in *compute_cap*) echo 9.0 ;; *) echo "Stand-in GPU, 1.0" ;; esac\n' > bin/nvidia-smi
# ncu: the light pass lists 3 launches; the profile pass (--metrics) writes
# the --export file and, QUIET_EXPORT=1, prints no details; --import prints them.
cat > bin/ncu <<'SCRIPT'
#!/bin/bash
case " $* " in *" --version "*) echo "Version stand-in"; exit 0 ;; esac
line='  void render_kernel<23>(unsigned char *, int *, camera, int) (64, 32, 1)x(8, 16, 1), Context 1, Stream 7, Device 0, CC 9.0'
details() { echo "$line"; echo "    Registers Per Thread    register/thread    40"; }
args=("$@")
for ((i = 0; i < $#; i++)); do
    case ${args[i]} in --export) echo "stand-in report" > "${args[i + 1]}" ;; --import) details; exit 0 ;; esac
done
case " $* " in
*" --metrics "*) [ "${NO_KERNEL:-}" = 1 ] && exit 1; [ "${QUIET_EXPORT:-}" = 1 ] || details ;;
*) for i in 1 2 3; do echo "$line"; done ;;
esac
SCRIPT
printf '#!/bin/sh\nprintf "fast-math\\tgpu\\trender_kernel\\t-\\t-\\tx\\n"\n' > ch05
chmod +x bin/* ch05
export PATH=$PWD/bin:$PATH
git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm fixture || fail "git commit in the scratch copy"
machine=$(bash tools/machine.sh)
txt=data/profiles/$machine/ch05_fast-math.txt rep=mine/profiles/$machine/ch05_fast-math.ncu-rep
for quiet in 0 1; do
    rm -f "$rep"
    QUIET_EXPORT=$quiet bash tools/profile.sh ch05 fast-math > log 2>&1 || fail "profile (QUIET_EXPORT=$quiet) failed: $(tail -n 3 log)"
    [ -s "$rep" ] || fail "no $rep kept (QUIET_EXPORT=$quiet): $(cat log)"
    grep -q 'Registers Per Thread' "$txt" || fail "the text report lost the details (QUIET_EXPORT=$quiet)"
    grep -qF "# ncu report: $rep" "$txt" || fail "the text report does not name $rep"
done
[ -z "$(find data -name '*.ncu-rep')" ] || fail "a .ncu-rep was written into the committed data/: $(find data -name '*.ncu-rep')"
rm -f "$rep"
NO_KERNEL=1 bash tools/profile.sh ch05 fast-math > log 2>&1 && fail "a profile whose ncu failed succeeded"
[ -z "$(find mine -name '*.ncu-rep')" ] || fail "a failed profile left a report file: $(find mine -name '*.ncu-rep')"
echo "make profile keeps ncu's report in mine/profiles/ (named in the text report), also where ncu prints nothing once exporting"
