#!/usr/bin/env bash
# make grade-class and make collect-grades write nothing in a GRADES_OUT that
# another user may write (it is theirs, or anyone's without the sticky bit),
# nor below such a folder: its owner could replace the gradebook once it is
# written, or swap a folder while the class is graded (round 11 of the
# attacks: the owner of GRADES_OUT rewrote a student's mark after the
# grading). Refused before anything is graded, naming the folder. The part
# about another user's folder needs root (chown); a folder anyone may write
# is tried by anyone. Round 12: another user's folder is refused whatever
# its mode, so is one its group may write where the group holds another
# user, and one with an access list.
set -u
[ "${1:-}" != --can-run ] || { command -v python3 > /dev/null || { echo "python3 is not installed"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
cd "$1" || exit 1
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
chmod 755 "$t" && mkdir -p "$t/class/ann" "$t/open" && cp -r exercises/ch01 "$t/class/ann/" || exit 1
chmod 777 "$t/open"
refused() { # GRADES_OUT WHAT: both targets refuse it, naming the folder, and write nothing there
    local said
    said=$(make -s --no-print-directory grade-class DIR="$t/class" EX=ch01 GRADES_OUT="$1" 2>&1) &&
        fail "grade-class took a GRADES_OUT $2: $said"
    grep -Eq "GRADES_OUT: '.*' .*give a folder (of your own|without one): nothing graded" <<< "$said" || fail "grade-class, GRADES_OUT $2: $said"
    said=$(make -s --no-print-directory collect-grades DIR="$t/class" GRADES_OUT="$1" 2>&1) &&
        fail "collect-grades took a GRADES_OUT $2: $said"
    grep -Eq "GRADES_OUT: '.*' .*give a folder (of your own|without one)" <<< "$said" || fail "collect-grades, GRADES_OUT $2: $said"
    [ -z "$(find "$t/open" -mindepth 1 -print -quit)" ] || fail "something was written in a GRADES_OUT $2: $(ls -A "$t/open")"
}
refused "$t/open" "that anyone may write"
refused "$t/open/grades" "inside a folder anyone may write"
chmod 1777 "$t/open"
said=$(make -s --no-print-directory collect-grades DIR="$t/class" GRADES_OUT="$t/open/grades" 2>&1)
grep -q "give a folder of your own" <<< "$said" && fail "a folder with the sticky bit (like /tmp) was refused: $said"
rm -rf "$t/open"/* && chmod 777 "$t/open" || exit 1
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
    chmod 755 "$t/open" && chown nobody "$t/open" || exit 1
    refused "$t/open" "of another user's"
    refused "$t/open/grades" "inside another user's folder"
    # round 12: theirs though they may not write it now (its owner may change
    # its mode), a group holding another user, an access list
    chmod 555 "$t/open" && refused "$t/open" "of another user's, read-only (mode 555)"
    chown root "$t/open" && chmod 755 "$t/open" || exit 1
    if getent group nogroup > /dev/null && [ "$(id -g nobody)" = "$(getent group nogroup | cut -d: -f3)" ]; then
        chgrp nogroup "$t/open" && chmod 775 "$t/open" && refused "$t/open" "its group (nobody's) may write"
        chgrp root "$t/open" && chmod 755 "$t/open" || exit 1
    fi
    # (the access list as setfacl -m u:nobody:rwx writes it: the xattr's version 2 entries)
    if python3 -c 'import os, struct, sys
e = [(1, 7, 0xffffffff), (2, 7, int(sys.argv[2])), (4, 5, 0xffffffff), (0x10, 7, 0xffffffff), (0x20, 5, 0xffffffff)]
os.setxattr(sys.argv[1], "system.posix_acl_access", struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in e))' \
        "$t/open" "$(id -u nobody)" 2> /dev/null; then
        refused "$t/open" "with an access list granting another user"
        python3 -c 'import os, sys; os.removexattr(sys.argv[1], "system.posix_acl_access")' "$t/open"
    else
        echo "left out: the access-list case (no setfacl, or no ACLs on this file system)"
    fi
else
    echo "left out: another user's folder (it needs root to give one away)"
fi
echo "a GRADES_OUT another user may write is refused before anything is graded"
