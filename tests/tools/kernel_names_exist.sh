#!/usr/bin/env bash
# Every stage row's kernel field (./chNN --list-stages, its kernel column: the
# kernel make profile asks Nsight Compute for, as Nsight writes it,
# "tiled_float4_kernel<(int)3>", or a part of it) names a kernel that is
# really in ./chNN's device code, for every GPU chapter of the registry
# (chNN_GPU != none). A typo then fails make check here, with no GPU, rather
# than `make profile` on a GPU machine profiling nothing.
#
# The kernels are read from the binary itself: the device code nvcc and clang
# embed (the fat binary) keeps each kernel's name in its machine code's
# section names (.nv.constant0.<name>: the kernel's parameter bank, which only
# kernels have) and in its PTX (.entry <name>). c++filt (binutils) demangles
# them; Nsight's spelling of template arguments ("(int)3", "(bool)1") is
# rewritten as c++filt's ("3", "true") before the two are compared.
#
# Rule for kernels no binary can hold: a row tagged kernel=run-time names a
# kernel its program compiles while it runs (ch10's NVRTC kernels), one tagged
# kernel=library a kernel of a shared library it calls (ch12's cuBLAS rows:
# the kernels are in libcublas, not in ./ch12); each is skipped, and counted
# as skipped in the last line.
set -u
. "$(dirname "$0")/lib.bash"
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/../../tools/columns.sh" # (the stage list's columns by name)

# The registry's chapters with a GPU part.
gpu_chapters() {
    eval "$(make -s print-registry)" || return 1
    local c v
    for c in $CHAPTERS; do
        v=${c}_GPU
        [ "${!v:-none}" != none ] && echo "$c"
    done
    return 0
}

if [ "${1:-}" = --can-run ]; then
    command -v c++filt > /dev/null || { echo "no c++filt (binutils) to demangle kernel names"; exit 77; }
    chapters=$(gpu_chapters) || { echo "make print-registry failed"; exit 77; }
    missing=$(for c in $chapters; do [ -x "./$c" ] || printf ' ./%s' "$c"; done)
    [ -z "$missing" ] || { echo "not built:$missing (make check builds them)"; exit 77; }
    exit 0
fi

# kernels_in FILE: the demangled names of the kernels in FILE's device code, one a line.
kernels_in() {
    LC_ALL=C grep -aoE '\.nv\.constant0\.[A-Za-z0-9_$]+|\.entry[[:space:]]+[A-Za-z0-9_$]+' "$1" |
        sed -E 's/^\.nv\.constant0\.//; s/^\.entry[[:space:]]+//' | sort -u | c++filt
}

# cxxfilt_spelling FIELD: Nsight Compute's template arguments as c++filt writes them.
cxxfilt_spelling() {
    sed -E 's/\(int\)(-?[0-9]+)/\1/g; s/\(unsigned int\)([0-9]+)/\1u/g; s/\(bool\)1/true/g; s/\(bool\)0/false/g' <<<"$1"
}

# kernel_named FIELD LIST: whether FIELD names (a part of) a kernel of LIST
# (kernels_in's output), as make profile's `ncu --kernel-name` would find it.
kernel_named() {
    grep -qF -- "$(cxxfilt_spelling "$1")" "$2"
}

scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

# The matcher first, on device code made up here: right names (Nsight's
# spelling, a part of a name) found, misspelt ones and template arguments
# never instantiated not, so the check below can fail.
printf 'junk .nv.constant0.%s junk\n' _Z13render_kernelILi23EEvPhPi6camerai _Z16symmetric_kernelILb1ELb0EEvPfi \
    _ZN14ch09_ch05_nvcc13render_kernelILi0EEEvPhi > "$scratch/fake.bin"
printf '.visible .entry %s(\n' _Z12naive_kernelPKfPfi >> "$scratch/fake.bin"
kernels_in "$scratch/fake.bin" > "$scratch/fake.kernels"
for name in 'render_kernel<(int)23>' 'symmetric_kernel<(bool)1, (bool)0>' 'ch09_ch05_nvcc::render_kernel<(int)0>' \
    render_kernel naive_kernel; do
    kernel_named "$name" "$scratch/fake.kernels" ||
        fail "the matcher missed \"$name\" among: $(tr '\n' ';' < "$scratch/fake.kernels")"
done
for name in 'render_kernle<(int)23>' 'render_kernel<(int)24>' 'symmetric_kernel<(bool)0, (bool)1>' \
    'ch09_ch05_clang::render_kernel<(int)0>' naive_kernel2; do
    kernel_named "$name" "$scratch/fake.kernels" && fail "the matcher found the misspelt \"$name\""
done

chapters=$(gpu_chapters) || fail "make print-registry failed"
[ -n "$chapters" ] || fail "the registry has no GPU chapter"
checked=0 skipped=0 wrong=0 first_kernel='' first_list=''
for c in $chapters; do
    list=$scratch/$c.kernels
    kernels_in "./$c" > "$list"
    kernels="its kernels: $(sed -E 's/^void //; s/\(.*//' "$list" | sort -u | tr '\n' ' ')"
    # (None at all: none built, or a fat binary compressed, -Xfatbin -compress-all, which hides the names.)
    [ -s "$list" ] || kernels="it holds no kernel name (compressed?)"
    "./$c" --list-stages > "$scratch/$c.stages" || fail "./$c --list-stages failed"
    while IFS=$'\t' read -r name where kernel tags; do
        [ "$kernel" != - ] || continue
        case " $tags " in *" kernel=run-time "* | *" kernel=library "*) skipped=$((skipped + 1)); continue ;; esac
        checked=$((checked + 1))
        [ -n "$first_kernel" ] || { first_kernel=$kernel first_list=$list; }
        kernel_named "$kernel" "$list" && continue
        wrong=$((wrong + 1))
        echo "$c: stage $name ($where): kernel \"$kernel\" is not in ./$c's device code; $kernels"
    done < <(stage_fields name where kernel tags < "$scratch/$c.stages")
done
[ "$checked" -gt 0 ] || fail "no stage row names a kernel: nothing was checked"
# And on a real binary: the first row checked, its name misspelt, is refused.
typo=$(sed -E 's/^([A-Za-z0-9_:]*[A-Za-z0-9_])/\1x/' <<<"$first_kernel")
kernel_named "$typo" "$first_list" && fail "the misspelt \"$typo\" was found in $first_list"
[ "$wrong" -eq 0 ] || fail "$wrong stage rows name a kernel their binary does not have (above)"
echo "$checked stage rows of $(wc -w <<<"$chapters") GPU chapters name a kernel in their binary;" \
    "$skipped rows tagged kernel=run-time or kernel=library (made while the program runs, or a library's) skipped"
