#!/usr/bin/env bash
# Part of `make sanitize`: tools/image_diff and tools/ppm2png, built with
# AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included), on
# good input and on every error path: missing files, a header claiming a huge
# image, images of different sizes, an unwritable output.
set -u
san=${SAN:-build-san}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
expect() { # status command...
    local want=$1 got
    shift
    "$@" > "$d/out.txt" 2>&1
    got=$?
    if [ $got -eq "$want" ] && ! grep -q 'Sanitizer' "$d/out.txt"; then
        echo "  ok    $(basename "$1") ${*:2}: exit $got"
    else
        echo "  FAIL  $(basename "$1") ${*:2}: exit $got, expected $want"; sed 's/^/        /' "$d/out.txt" | head -n 20
        failures=$((failures + 1))
    fi
}
printf 'P6\n3 2\n255\n' > "$d/a.ppm"; head -c 18 /dev/urandom >> "$d/a.ppm"
printf 'P6\n3 2\n255\n' > "$d/b.ppm"; head -c 18 /dev/urandom >> "$d/b.ppm"
printf 'P6\n4 2\n255\n' > "$d/c.ppm"; head -c 24 /dev/urandom >> "$d/c.ppm"
printf 'P6\n16384 16384\n255\n' > "$d/huge.ppm"; head -c 1000 /dev/zero >> "$d/huge.ppm"
expect 0 "$san/image_diff" "$d/a.ppm" "$d/b.ppm" "$d/diff.ppm"
expect 1 "$san/image_diff" "$d/a.ppm" "$d/c.ppm" "$d/diff.ppm"
expect 1 "$san/image_diff" "$d/a.ppm" "$d/huge.ppm" "$d/diff.ppm"
expect 1 "$san/image_diff" "$d/a.ppm" "$d/missing.ppm" "$d/diff.ppm"
expect 2 "$san/image_diff" "$d/a.ppm" "$d/b.ppm" "$d/no/such/diff.ppm" # refused before reading
expect 2 "$san/image_diff" "$d/a.ppm" "$d/b.ppm"
expect 1 "$san/ppm2png" "$d/huge.ppm" "$d/x.png"
expect 1 "$san/ppm2png" "$d/missing.ppm" "$d/x.png"
echo "sanitize-tools: $failures failures"
[ $failures -eq 0 ]
