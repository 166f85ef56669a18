#!/usr/bin/env bash
# Can a clang compile the course's CUDA for this architecture? Not a version
# table: a trial compile of one small kernel with the flags the build uses
# (CLANG_CUDA_FLAGS from the environment). Each answer is cached in CACHE_DIR,
# keyed by the compiler's path, size and date, the architecture and the flags,
# so make asks each compiler once.
#
# Usage: clang_cuda_probe.sh CACHE_DIR CANDIDATE...
# Prints one line: "ok PATH" for the first candidate that compiles the kernel,
# else "no REASON" (why the first candidate found could not; "none found" when
# no candidate is on the PATH).
set -u
cache=$1
shift
mkdir -p "$cache" 2>/dev/null
first_reason=""
for candidate in "$@"; do
    path=$(command -v "$candidate" 2>/dev/null) || continue
    real=$(readlink -f "$path")
    key=$(printf '%s\n' "$real" "$(stat -L -c '%s %Y' "$real")" "$CLANG_CUDA_FLAGS" | cksum | cut -d' ' -f1)
    if [ -f "$cache/$key" ]; then
        answer=$(cat "$cache/$key")
    else
        dir=$(mktemp -d) || exit 1
        printf '__global__ void probe_kernel(float *x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]); }\n' > "$dir/probe.cu"
        # shellcheck disable=SC2086 # the flags are words
        if "$path" $CLANG_CUDA_FLAGS -c "$dir/probe.cu" -o "$dir/probe.o" > "$dir/log" 2>&1; then
            answer="ok $path"
        else
            why=$(grep -m1 'error:' "$dir/log" | sed 's/^.*error: *//')
            answer="no $path: ${why:-the trial compile failed}"
        fi
        rm -rf "$dir"
        printf '%s\n' "$answer" > "$cache/$key.$$.tmp" && mv "$cache/$key.$$.tmp" "$cache/$key"
    fi
    case $answer in
        ok\ *) echo "$answer"; exit 0 ;;
        *) [ -n "$first_reason" ] || first_reason=${answer#no }
    esac
done
echo "no ${first_reason:-none found (tried: $*)}"
