#!/usr/bin/env bash
# Prints this machine's name for results files: "<gpu>_<cpu>" with every run of
# characters other than letters, digits, '_' and '.' made one '-' ("nogpu_..."
# without a GPU). make bench, make book and make ch02-asm key their files on it.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1)
printf '%s_%s' "${gpu:-nogpu}" "${cpu:-cpu}" | tr -cs 'A-Za-z0-9_.' '-' | sed 's/-*$//'
echo
