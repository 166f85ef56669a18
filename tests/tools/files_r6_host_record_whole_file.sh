#!/usr/bin/env bash
# make host-record replaces only a host record, keeps its mode, and makes no
# folder in a read-only one (nothing lost, round 6, item 2). tools/
# write_checked.sh replaced mine/results/<machine>/host.txt whatever it held
# (a note you added to it was lost) and always gave it mode 0644; the
# Makefile's mkdir -p made the machine's folder inside a 0555 mine/results
# as root, before write_checked.sh's folder check looked (it then saw the new,
# writable folder). Now, in a scratch copy, with a stand-in build/host_record
# (make -o: not rebuilt; it says when it ran, in place of the triad):
# host.txt holding host_record's six lines and a note after, between or in
# place of one, or CR line ends, is refused (exit 2, said, the record not
# made, the file as it was), and so is cpu-scaling.txt with a note after its
# rows; a record of host_record's form is replaced, its mode (0600) kept; a
# new one has the mode the umask gives (0640 under umask 027); and make
# host-record with mine/results 0555 (as root: the mode is all that says no)
# is refused before anything is made in it.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
export MAKEFLAGS= # not the flags of a make this runs under
registry_copy "$1"
w=tools/write_checked.sh
record='cpu: AMD EPYC
logical cpus online: 2
isa: sse4_2 avx avx2 fma avx512f avx512bw avx512vl avx512_bf16 amx_tile (no)
triad a = b + s*c, 3 arrays of 1024 MiB, 24 B per element, best of 5:
  1 thread:   30.2 GB/s
  2 threads: 50.8 GB/s'
mkdir -p build && printf '#!/bin/sh\ntouch "%s/ran"\ncat <<EOF\n%s\nEOF\n' "$scratch" "$record" > build/host_record &&
    chmod +x build/host_record || exit 1
out=mine/results/$MACHINE host=mine/results/$MACHINE/host.txt
host_record() { rm -f "$scratch/ran"; make -s -o build/host_record host-record > "$scratch/said" 2>&1; }
state() { ls -l --time-style=+ "$1" 2>&1; cat "$1" 2>&1; }

# refused WHAT FILE WANT COMMAND...: with FILE as the test made it, COMMAND exits 2 saying WANT, FILE as it was
refused() {
    local what=$1 file=$2 want=$3 before rc
    shift 3
    before=$(state "$file")
    rm -f "$scratch/ran"
    "$@" > "$scratch/said" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, not 2: $(tail -n 3 "$scratch/said")"
    grep -q -- "$want" "$scratch/said" || fail "$what: not said ($want): $(tail -n 3 "$scratch/said")"
    [ ! -e "$scratch/ran" ] || fail "$what: the record was made before the refusal"
    [ "$(state "$file")" = "$before" ] || fail "$what: $file was changed: $(state "$file")"
    [ -z "$(ls -A "$(dirname "$file")" | grep '^\.')" ] || fail "$what: left a temporary file: $(ls -A "$(dirname "$file")")"
}

(umask 027 && host_record) || fail "a first make host-record failed: $(cat "$scratch/said")"
[ "$(cat "$host")" = "$record" ] && [ -e "$scratch/ran" ] || fail "make host-record did not write the record: $(state "$host")"
[ "$(stat -c %a "$host")" = 640 ] || fail "a new record has mode $(stat -c %a "$host"), not the umask's 0640"
chmod 0600 "$host" || exit 1
host_record || fail "make host-record over its own record failed: $(cat "$scratch/said")"
[ "$(stat -c %a "$host")" = 600 ] || fail "the record's mode 0600 became $(stat -c %a "$host")"

printf '%s\n' "$record" "my note: the fan was loud" > "$host"
refused "a note after the record" "$host" "host.txt is not what build/host_record writes.*line 7" make -s -o build/host_record host-record
printf '%s\n' "$record" | sed '3a my note' > "$host"
refused "a note between its lines" "$host" "line 4 is not host_record's" make -s -o build/host_record host-record
printf '%s\n' "$record" | sed '2c my note' > "$host"
refused "a note in place of a line" "$host" "line 2 is not host_record's" make -s -o build/host_record host-record
printf '%s\n' "$record" | sed 's/$/\r/' > "$host"
refused "CR line ends" "$host" "not its text" make -s -o build/host_record host-record
printf '%s\n' "$record" | head -n 5 > "$host"
refused "a record cut short" "$host" "has 5 lines" make -s -o build/host_record host-record
printf 'my notes on this machine\n' > "$host"
refused "your own file as host.txt" "$host" "line 1 is not host_record's" make -s -o build/host_record host-record

scaling=$out/cpu-scaling.txt
printf '%s\n' "# cpu_scaling: 2 CPUs online; T threads each doing one thread's work, nothing shared; efficiency = time(1) / time(T); median of 3" \
    'kind    threads     time (s)             spread (s)  efficiency' \
    'fma           1        0.592      0.588-0.701              100%' \
    'chain         2        0.404      0.394-0.405               98%' > "$scaling"
bash "$w" "$scaling" cat "$scaling" || fail "cpu-scaling.txt of cpu_scaling's form was refused"
echo "my note" >> "$scaling"
refused "a note after cpu-scaling's rows" "$scaling" "line 5 is not a row of cpu_scaling's" bash "$w" "$scaling" sh -c "touch '$scratch/ran'"
rm -f "$scaling"

# the folder check before any folder is made: mine/results 0555, its machine's folder not there yet
rm -rf "$out" && chmod 0555 mine/results || exit 1
refused "make host-record into a 0555 mine/results" mine/results/. "'mine/results' is read-only (mode 555)" \
    make -s -o build/host_record host-record
[ ! -e "$out" ] || fail "make host-record made $out inside the 0555 mine/results"
chmod 0755 mine/results || exit 1
echo "make host-record replaced only host_record's own record (your notes refused), kept its mode, made nothing in a 0555 folder"
