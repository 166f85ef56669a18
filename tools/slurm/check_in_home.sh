#!/usr/bin/env bash
# Check (libcheck, the tests' framework) without root: the Debian packages
# fetched with `apt-get download` (no root needed), unpacked with
# `dpkg-deb -x` into a prefix of your own, default $HOME/.local/course-deps.
#     tools/slurm/check_in_home.sh [PREFIX]
# then add the lines it prints to ~/.bashrc (or run them in this shell):
# PKG_CONFIG_PATH lets the Makefile's `pkg-config check` find it; where
# pkg-config is missing, CPATH and LIBRARY_PATH let gcc find it.
# Only the static libraries are kept (Debian's check has no other; the .so
# link of libsubunit-dev is removed), so the tests built with them need no
# LD_LIBRARY_PATH, on the login node or in a job.
# Where apt-get is missing (a RHEL-family cluster), it says how to build
# Check from source instead.
set -u
usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}
case ${1:-} in -h | --help) usage; exit 0 ;; -*) usage >&2; exit 2 ;; esac
prefix=${1:-$HOME/.local/course-deps}
case $prefix in /*) ;; *) prefix=$PWD/$prefix ;; esac
packages=(check libsubunit-dev)

if ! command -v apt-get > /dev/null || ! command -v dpkg-deb > /dev/null; then
    cat >&2 <<EOF
check_in_home: no apt-get/dpkg-deb here (not a Debian or Ubuntu system). Build Check from source into the prefix:
    curl -LO https://github.com/libcheck/check/releases/download/0.15.2/check-0.15.2.tar.gz
    tar xzf check-0.15.2.tar.gz && cd check-0.15.2
    ./configure --prefix="$prefix/usr" --disable-shared && make -j && make install
then set PKG_CONFIG_PATH="$prefix/usr/lib/pkgconfig" (and CPATH, LIBRARY_PATH as below).
EOF
    exit 1
fi
# Each package's Debian architecture folder (x86_64-linux-gnu, aarch64-linux-gnu).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || gcc -print-multiarch 2> /dev/null || echo "$(uname -m)-linux-gnu")
fetch=$(mktemp -d) || exit 1
trap 'rm -rf "$fetch"' EXIT
(cd "$fetch" && apt-get download "${packages[@]}") > "$fetch/log" 2>&1 ||
    { cat "$fetch/log" >&2; echo "check_in_home: apt-get download ${packages[*]} failed (offline? apt lists not updated?)" >&2; exit 1; }
mkdir -p "$prefix" || exit 1
for deb in "$fetch"/*.deb; do
    dpkg-deb -x "$deb" "$prefix" || { echo "check_in_home: dpkg-deb -x $deb failed" >&2; exit 1; }
done
lib=$prefix/usr/lib/$multiarch
[ -e "$prefix/usr/include/check.h" ] && [ -e "$lib/pkgconfig/check.pc" ] ||
    { echo "check_in_home: the packages did not hold usr/include/check.h and $lib/pkgconfig/check.pc" >&2; exit 1; }
# Static only: a shared libsubunit in the prefix would need LD_LIBRARY_PATH at every run.
rm -f "$lib"/libsubunit.so*
# The packages' .pc files say prefix=/usr: point them at this prefix.
sed -i "s|^prefix=.*|prefix=$prefix/usr|" "$lib"/pkgconfig/check.pc "$lib"/pkgconfig/libsubunit.pc || exit 1
echo "Check is in $prefix. For the Makefile to find it, add to ~/.bashrc (or run here):"
echo "export PKG_CONFIG_PATH=\"$lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\""
# Only where pkg-config is missing (pkgconf leaves out the -I and -L of
# folders these name, and gcc then searches /usr's libraries first).
command -v pkg-config > /dev/null && echo "# only without pkg-config:" && c='# ' || c=
echo "${c}export CPATH=\"$prefix/usr/include\${CPATH:+:\$CPATH}\""
echo "${c}export LIBRARY_PATH=\"$lib\${LIBRARY_PATH:+:\$LIBRARY_PATH}\""
