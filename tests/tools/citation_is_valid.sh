#!/usr/bin/env bash
# CITATION.cff is CFF 1.2.0 as GitHub and Zenodo read it: YAML with the
# required keys (cff-version 1.2.0, message, title, authors, each author a
# person's family-names or an entity's name), and its license is LICENSE's.
set -u
[ "${1:-}" = --can-run ] && { python3 -c 'import yaml' 2> /dev/null || { echo "no python3 yaml (apt-get install python3-yaml)"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
license=$(head -n 1 LICENSE | sed -n 's/^\([A-Za-z0-9.-]*\) License$/\1/p')
[ -n "$license" ] || fail "LICENSE's first line names no license: $(head -n 1 LICENSE)"
said=$(python3 - "$license" <<'PY'
import sys, yaml
c = yaml.safe_load(open("CITATION.cff"))
problems = []
if str(c.get("cff-version")) != "1.2.0": problems.append("cff-version is not 1.2.0")
for key in ("message", "title"):
    if not isinstance(c.get(key), str) or not c[key].strip(): problems.append("no " + key)
authors = c.get("authors")
if not isinstance(authors, list) or not authors: problems.append("no authors")
else:
    for a in authors:
        if not isinstance(a, dict) or not (a.get("family-names") or a.get("name")): problems.append("an author without a name: %r" % a)
if c.get("license") != sys.argv[1]: problems.append("license %r, LICENSE says %r" % (c.get("license"), sys.argv[1]))
print("; ".join(problems))
PY
) || fail "CITATION.cff is not YAML: $said"
[ -z "$said" ] || fail "CITATION.cff: $said"
echo "CITATION.cff: CFF 1.2.0 keys present, license $license as LICENSE"
