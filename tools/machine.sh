#!/usr/bin/env bash
# Prints this machine's name for results files: "<gpu>_<cpu>" with every run of
# characters other than letters, digits, '_' and '.' made one '-' ("nogpu_..."
# without a GPU). make bench, make book and make ch02-asm key their files on it.
#   tools/machine.sh --id   this machine's id instead (the results' machine_id
#                           column): 8 hex digits of a hash, no host name in the data
# The id hashes /etc/machine-id where it has one (so the ids already in the
# results stay as they were). Where it is empty (some containers and VMs) it
# hashes what tells such machines apart: the host name, every GPU's name and
# UUID (nvidia-smi) and the CPU model; two VMs both called "vm", one with an
# H100 and one with an H200, then get two ids. (MACHINE_ID_FILE: another
# file than /etc/machine-id, for the tests.)
set -u
case ${1:-} in
-h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
--id) ;;
"") ;;
*) echo "machine.sh: '$1': want --id, --help or nothing" >&2; exit 2 ;;
esac
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1)
if [ "${1:-}" = --id ]; then
    id=$(cat "${MACHINE_ID_FILE:-/etc/machine-id}" 2>/dev/null)
    [ -n "$id" ] || id="$(hostname) $(nvidia-smi --query-gpu=name,uuid --format=csv,noheader 2>/dev/null) $cpu"
    printf '%s' "$id" | sha256sum | cut -c1-8
    exit 0
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
printf '%s_%s' "${gpu:-nogpu}" "${cpu:-cpu}" | tr -cs 'A-Za-z0-9_.' '-' | sed 's/-*$//'
echo
