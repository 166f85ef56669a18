#!/usr/bin/env bash
# tools/sandbox.c, which every run of an answer goes through: outside its
# --write folder it writes nothing, a --hide folder it cannot read, and it
# opens no socket (IPv4 or IPv6: an answer could fetch its values from a
# server; nor a local one: tmux's server outside would run what it is asked),
# a socketpair still works, and the variables that name servers are not handed
# on; SANDBOX_NET=1 (MPI's ranks) leaves the network. Where the kernel has no Landlock the file rules are
# not there to test (skipped, saying so).
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "python3 is not installed (the socket checks use it)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
cd "$1" || exit 1
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
"${CC:-gcc}" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 tools/sandbox.c -o "$t/sandbox" || fail "the sandbox does not build"
mkdir -p "$t/w" "$t/hidden" "$t/out" && echo secret > "$t/hidden/f" || exit 1
run() { "$t/sandbox" --write "$t/w" --hide "$t/hidden" --timeout 60 -- "$@"; }
sock='import socket, sys
try:
    socket.socket(getattr(socket, sys.argv[1]), socket.SOCK_STREAM).close(); print("open")
except OSError as e:
    print("refused", e.errno)'
if [ "$(uname -m)" = x86_64 ] && ! run true 2>&1 | grep -q 'no seccomp filter'; then
    [ "$(run python3 -c "$sock" AF_INET)" = "refused 13" ] || fail "an IPv4 socket opened in the sandbox: $(run python3 -c "$sock" AF_INET)"
    [ "$(run python3 -c "$sock" AF_INET6)" = "refused 13" ] || fail "an IPv6 socket opened in the sandbox"
    [ "$(SANDBOX_NET=1 run python3 -c "$sock" AF_INET)" = open ] || fail "SANDBOX_NET=1 did not leave the network"
    # nor a local one: a server outside listening on a named socket (tmux's) would run what it is asked
    [ "$(run python3 -c "$sock" AF_UNIX)" = "refused 13" ] || fail "a local socket (AF_UNIX) opened in the sandbox"
    [ "$(SANDBOX_NET=1 run python3 -c "$sock" AF_UNIX)" = open ] || fail "SANDBOX_NET=1 refused a local socket (MPI's ranks need one)"
    run python3 -c 'import socket; socket.socketpair()' || fail "a socketpair (it reaches nothing outside) was refused"
fi
# the names of servers outside are not handed on
[ -z "$(TMUX=/tmp/tmux-0/default,1,0 SSH_AUTH_SOCK=/tmp/agent DISPLAY=:0 run sh -c 'echo "$TMUX$SSH_AUTH_SOCK$DISPLAY"')" ] ||
    fail "a server's name (TMUX, SSH_AUTH_SOCK, DISPLAY) reached the sandboxed command"
if "$t/sandbox" --check; then
    run sh -c "echo x > '$t/out/f'" 2> /dev/null; [ ! -e "$t/out/f" ] || fail "the sandbox wrote outside its --write folder"
    run sh -c "echo x > '$t/w/f'" && [ -s "$t/w/f" ] || fail "the sandbox could not write its own folder"
    run cat "$t/hidden/f" > "$t/seen" 2> /dev/null; grep -q secret "$t/seen" && fail "a --hide folder was read"
    # A hidden folder under a path with a colon (SANDBOX_HIDE is one folder a
    # line), and links that point at a hidden folder or above it: one beside
    # the folders above it (~/course -> ~/src/course), one inside them
    # (exercises/notes -> ../solutions). None may read the secret.
    mkdir -p "$t/grading:2025/course/solutions" "$t/grading:2025/course/exercises" &&
        echo secret > "$t/grading:2025/course/solutions/f" &&
        ln -s "$t/grading:2025/course" "$t/course-current" && ln -s ../solutions "$t/grading:2025/course/exercises/notes" || exit 1
    for path in "$t/grading:2025/course/solutions/f" "$t/course-current/solutions/f" "$t/grading:2025/course/exercises/notes/f"; do
        SANDBOX_HIDE="$t/elsewhere"$'\n'"$t/grading:2025/course/solutions" "$t/sandbox" --write "$t/w" --timeout 60 -- \
            cat "$path" > "$t/seen" 2> /dev/null
        grep -q secret "$t/seen" && fail "a hidden folder was read as $path"
    done
    # A hidden folder holding another hidden one, the inner named first (a
    # class's folder and the student's own inside it): a classmate's file stays hidden.
    mkdir -p "$t/class/ann/ch01" "$t/class/bob/ch01" && echo secret > "$t/class/bob/ch01/vec.c" || exit 1
    SANDBOX_HIDE="$t/class/ann/ch01"$'\n'"$t/class" "$t/sandbox" --write "$t/w" --timeout 60 -- cat "$t/class/bob/ch01/vec.c" \
        > "$t/seen" 2> /dev/null
    grep -q secret "$t/seen" && fail "a hidden folder holding another hidden one was read (a classmate's answer)"
    SANDBOX_HIDE="$t/grading:2025/course/solutions" "$t/sandbox" --write "$t/w" --timeout 60 -- cat "$t/hidden/f" > "$t/seen" 2> /dev/null
    grep -q secret "$t/seen" || fail "a folder not hidden could not be read (the rule hides too much)"
    # More folders to hide than the sandbox holds: refused, none dropped.
    SANDBOX_HIDE=$(for i in $(seq 70); do echo "$t/hidden"; done) "$t/sandbox" --write "$t/w" -- true 2> "$t/err" &&
        fail "70 folders to hide were taken (some would be dropped unhidden)"
    grep -q 'SANDBOX_HIDE names more than' "$t/err" || fail "too many folders to hide, but not said: $(cat "$t/err")"
    echo "the sandbox: no socket (a socketpair works), no write outside its folder, no read of a hidden one (a colon in its path, a link to it or above it, one hidden inside another), too many to hide refused"
else
    echo "the sandbox: no socket (a socketpair works); this kernel has no Landlock, so the file rules were not tested"
fi
