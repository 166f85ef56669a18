#!/usr/bin/env bash
# tools/machine.sh --id: two VMs with an empty /etc/machine-id and the same
# host name ("vm"), one with an H100 and one with an H200, get two ids (the
# GPU's name and UUID are hashed with the host name and CPU model); a machine
# with a machine-id keeps the id make bench always gave it (the first 8 hex
# of its sha256), whatever its GPU; and the id is 8 hex digits.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch=$(mktemp -d) && trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/h100" "$scratch/h200"
for g in h100 h200; do
    printf '#!/bin/sh\necho vm\n' > "$scratch/$g/hostname"
    case $g in
    h100) echo 'echo "NVIDIA H100 80GB HBM3, GPU-1b2c3d4e-0000-1111-2222-333344445555"' ;;
    h200) echo 'echo "NVIDIA H200, GPU-9f8e7d6c-0000-1111-2222-333344445555"' ;;
    esac | { printf '#!/bin/sh\n'; cat; } > "$scratch/$g/nvidia-smi"
    chmod +x "$scratch/$g"/*
done
: > "$scratch/empty"
id_on() { PATH="$scratch/$1:$PATH" MACHINE_ID_FILE=$2 bash tools/machine.sh --id; }
a=$(id_on h100 "$scratch/empty") b=$(id_on h200 "$scratch/empty")
[[ $a =~ ^[0-9a-f]{8}$ ]] || fail "the id is not 8 hex digits: '$a'"
[ "$a" != "$b" ] || fail "an H100 VM and an H200 VM, both 'vm' without a machine-id, got one id: $a"
echo 0123456789abcdef0123456789abcdef > "$scratch/machine-id"
want=$(printf '%s' 0123456789abcdef0123456789abcdef | sha256sum | cut -c1-8)
for g in h100 h200; do
    got=$(id_on "$g" "$scratch/machine-id")
    [ "$got" = "$want" ] || fail "with a machine-id the id changed: $got, not $want (make bench's)"
done
echo "machine ids: VMs without a machine-id told apart by their GPU ($a, $b); a machine-id's id kept ($want)"
