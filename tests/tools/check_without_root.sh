#!/usr/bin/env bash
# Check (libcheck) without root: tools/slurm/check_in_home.sh, run as an
# ordinary user (uid 65534, as root can make one; else as whoever runs this),
# puts it in a prefix of that user's, and with the lines it prints the
# Makefile finds it there: pkg-config's CHECK_CFLAGS and CHECK_LIBS name the
# prefix, and a Check test built with them (the header from the prefix, as
# gcc -H shows) links statically (no libsubunit.so needed) and runs.
# Skipped where it cannot download (no apt-get, offline).
set -u
if [ "${1:-}" = --can-run ]; then
    command -v apt-get > /dev/null && command -v dpkg-deb > /dev/null && command -v pkg-config > /dev/null ||
        { echo "needs apt-get, dpkg-deb and pkg-config (a Debian or Ubuntu system)"; exit 77; }
    timeout 20 apt-get download --print-uris check > /dev/null 2>&1 || { echo "apt-get cannot locate the check package (apt lists not updated?)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
chmod 0755 "$scratch" && chmod -R a+rX "$scratch"
home=$(mktemp -d "/tmp/check-home.XXXXXX") || exit 1
trap 'rm -rf "$scratch" "$home"' EXIT
as_user() { "$@"; }
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    chown 65534:65534 "$home"
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$home" "$@"; }
fi
said=$(cd "$home" && as_user HOME="$home" bash "$repo/tools/slurm/check_in_home.sh" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q 'apt-get download .* failed' <<<"$said"; then
    echo "(skipped: the download failed, offline?: $(grep -m1 -E '^(E|W):' <<<"$said"))"; exit 0
fi
[ $rc -eq 0 ] || fail "check_in_home.sh failed: $said"
prefix=$home/.local/course-deps
[ -e "$prefix/usr/include/check.h" ] || fail "no check.h in $prefix: $said"
[ -z "$(find "$prefix" -name 'libsubunit.so*')" ] || fail "a shared libsubunit was left in the prefix"
eval "$(grep '^export ' <<<"$said")"
flags=$(cd "$repo" && CLANG_CUDA= make -s --eval 'flags: ; @echo "$(CHECK_CFLAGS) | $(CHECK_LIBS)"' flags) || fail "cannot read the Makefile's Check flags"
[ "$(pkg-config --variable=prefix check)" = "$prefix/usr" ] || fail "pkg-config finds another Check: $(pkg-config --variable=prefix check)"
cat > "$home/t.c" <<'C'
#include <check.h>
START_TEST(one) { ck_assert_int_eq(1 + 1, 2); }
END_TEST
int main(void)
{
    Suite *s = suite_create("s");
    TCase *t = tcase_create("t");
    tcase_add_test(t, one);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed != 0;
}
C
# shellcheck disable=SC2086 # the flags are words
gcc -std=c11 -H ${flags%%|*} "$home/t.c" -o "$home/t" ${flags#*|} -Wl,--trace > "$home/libs" 2> "$home/headers" ||
    fail "a Check test does not build with them: $(tail -n 3 "$home/headers")"
grep -qE "^\\. $prefix/usr/include/check.h" "$home/headers" || fail "check.h was not the prefix's: $(grep check.h "$home/headers")"
grep -qE "^$prefix/usr/lib/.*/libcheck[_a-z]*\\.a" "$home/libs" || fail "libcheck was not the prefix's: $(grep libcheck "$home/libs")"
! ldd "$home/t" | grep -q libsubunit || fail "the test needs a shared libsubunit: $(ldd "$home/t")"
"$home/t" > /dev/null || fail "the Check test built with the prefix's Check fails"
echo "Check without root: unpacked into a home prefix by tools/slurm/check_in_home.sh, found by the Makefile, linked statically"
