/* sandbox.c - runs a command that holds a student's code, so that it cannot
 * reach the grader (tools/judge.sh says where it is used).
 *
 *   sandbox [--write DIR]... [--hide DIR]... [--read DIR]... [--keep-fd N]... [--timeout S] [--] COMMAND [ARG...]
 *   sandbox --check      exit 0 where this kernel can confine (Landlock), 1 where not
 *
 * The command, and everything it starts:
 * - may write files only below the --write folders, and the null device and
 *   a GPU's device files (the only devices it may ioctl, Landlock 5 and
 *   later): Landlock, which binds root as well as anyone; TMPDIR (and TEMP,
 *   TMP) name the first --write folder; /dev/shm only with SANDBOX_SHM=1 (a
 *   file left there is a message to whatever runs after: a grader's later
 *   compile could test for it);
 * - may write below /proc only with SANDBOX_PROC=1 (a GPU exercise's runs:
 *   the CUDA driver needs it; as root such a run could then write /proc/sys,
 *   so grade GPU answers as an ordinary user or in a container of their own);
 * - has no terminal (a new session; a terminal on 0, 1 or 2 is replaced by
 *   /dev/null: no TIOCSTI into the grader's shell) and no capability (root's
 *   are dropped: no /proc/sys, no raw devices);
 * - cannot read or run any file below a --hide folder (the model answers, the
 *   wrong answers, git's objects, the build: a run that compiled the model
 *   answer and called it would pass): every other file may be read, and
 *   every folder listed (SANDBOX_HIDE, one folder a line, adds to
 *   them); a --read folder (and SANDBOX_READ's) may be read even inside a
 *   hidden one (a grading's own folder, inside the folder of all gradings);
 * - opens no socket (IPv4, IPv6, raw, local AF_UNIX: seccomp, on x86-64; a
 *   socketpair is left), so nothing it computes can come from or go to another machine
 *   or a server on this one (tmux's, an agent's); the variables that name such
 *   servers (TMUX, SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, DISPLAY, ...) are
 *   not handed on; SANDBOX_NET=1 leaves the network (MPI's ranks
 *   talk over loopback TCP), and so does SANDBOX_PROC=1 for now (a GPU run:
 *   the CUDA tools are not yet checked under the rule);
 * - cannot trace, read or write the memory of any process outside it, nor
 *   (Landlock 6 and later) signal one (Landlock's own rules);
 * - gets no descriptor of the caller's but 0, 1, 2 and the --keep-fd ones;
 * - is ended, every process of it, when the command ends or after S seconds
 *   (default 600; exit status 124 then): this program is their subreaper, so
 *   a process left behind (a daemon) cannot outlive the run.
 * Exit status: the command's (128 + the signal that ended it); 124 on the
 * time-out; 125 when the sandbox itself could not be set up. Where the kernel
 * has no Landlock (before Linux 5.13, or switched off), the command runs
 * without the write and process rules, and one line on stderr says so; where
 * it has no seccomp filter, without the network rule, said the same way. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_PATHS = 64, MAX_FDS = 8 };
#define IOCTL_DEV (1ULL << 15) /* LANDLOCK_ACCESS_FS_IOCTL_DEV (ABI 5), which older headers lack */

static void usage(void)
{
    fprintf(stderr, "usage: sandbox [--write DIR]... [--hide DIR]... [--read DIR]... [--keep-fd N]... [--timeout S] [--] COMMAND [ARG...]\n"
                    "       sandbox --check\n");
    exit(125);
}

static long landlock_abi(void)
{
    return syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
}

/* Every right that changes the file system, as far as this kernel's ABI knows them. */
static unsigned long long write_rights(long abi)
{
    unsigned long long r = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                           LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                           LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                           LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    if (abi >= 5)
        r |= IOCTL_DEV;
    return r;
}

static int allow(int ruleset, const char *path, unsigned long long rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct landlock_path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    int rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
    return rc;
}

enum { READ_RIGHTS = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE };

/* 1 when path is one of the n paths in list or lies inside one of them. */
static int in_any(const char *path, char **list, int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = strlen(list[i]);
        if (strncmp(path, list[i], len) == 0 && (path[len] == '\0' || path[len] == '/' || len == 1))
            return 1;
    }
    return 0;
}

/* 1 when path lies strictly above one of the n paths in list. */
static int above_any(const char *path, char **list, int n)
{
    size_t len = strlen(path);
    for (int i = 0; i < n; i++)
        if (strncmp(list[i], path, len) == 0 && (list[i][len] == '/' || len == 1) && list[i][len + (len > 1)] != '\0')
            return 1;
    return 0;
}

/* Reading: allowed below every entry of each folder above a hidden one that
 * is neither hidden nor above one (so everything but the hidden folders);
 * with nothing hidden, below /. */
static int allow_reading(int ruleset, const char *dir, char **hidden, int nh)
{
    if (nh == 0)
        return allow(ruleset, "/", READ_RIGHTS);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, e->d_name);
        struct stat st;
        /* A link is not granted: allow() would follow it, and a link beside a
         * hidden folder's parents (~/course -> ~/src/course, exercises/notes ->
         * ../solutions) would grant what it points to, the hidden folder too.
         * Its target is read where its own folder is granted, or not at all. */
        if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode))
            continue;
        /* hidden first: a hidden folder that holds another hidden one (the
         * class's folder, a student's inside it) is not walked into */
        if (in_any(path, hidden, nh))
            continue;
        if (above_any(path, hidden, nh))
            rc = allow_reading(ruleset, path, hidden, nh); /* go down towards the hidden one */
        else
            rc = allow(ruleset, path, READ_RIGHTS);
    }
    closedir(d);
    return rc;
}

/* The devices a run may write and ioctl: the null and zero devices, and every
 * /dev/nvidia* (the GPU's driver talks through them). */
static int allow_devices(int ruleset, long abi)
{
    unsigned long long use = LANDLOCK_ACCESS_FS_WRITE_FILE | READ_RIGHTS | (abi >= 5 ? IOCTL_DEV : 0);
    if (allow(ruleset, "/dev/null", use) != 0 || allow(ruleset, "/dev/zero", use) != 0)
        return -1;
    DIR *d = opendir("/dev");
    int rc = 0;
    for (struct dirent *e; d && rc == 0 && (e = readdir(d));)
        if (strncmp(e->d_name, "nvidia", 6) == 0) {
            char path[300];
            snprintf(path, sizeof path, "/dev/%s", e->d_name);
            rc = allow(ruleset, path, use);
        }
    if (d)
        closedir(d);
    return rc;
}

/* No terminal and no capability, as the top of this file says. */
static void give_up_terminal_and_privilege(void)
{
    setsid();
    for (int fd = 0; fd <= 2; fd++)
        if (isatty(fd)) {
            int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (null >= 0 && null != fd) {
                dup2(null, fd);
                close(null);
            }
        }
    for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2] = {{0, 0, 0}, {0, 0, 0}};
    syscall(SYS_capset, &head, none);
}

/* No socket of any family, and no io_uring (which can make sockets of its
 * own), for this process and what it starts: a seccomp filter, after
 * no_new_privs. Not even a local one (AF_UNIX): Landlock does not guard
 * connect() on a named socket, and a server outside the sandbox listening on
 * one (tmux's, under which a grader runs: the answer asked it to compile a
 * model answer) runs what it is asked. socketpair() stays: it reaches nothing
 * outside. A system call of another ABI (x32, i386) is refused whole. */
static int forbid_network(void)
{
#ifndef __x86_64__
    return 0; /* the filter below is x86-64's (its system call numbers) */
#else
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u /* x32 */, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#endif
}

/* What the environment says: NAME=1. */
static int env_is_one(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* Confines this process (and what it will start) as the top of this file says. */
static int confine(char **writable, int count, char **hidden, int nh, char **readable, int nr)
{
    long abi = landlock_abi();
    if (abi < 1) {
        fprintf(stderr, "sandbox: this kernel has no Landlock: the command runs unconfined\n");
        return 0;
    }
    unsigned long long rights = write_rights(abi) | READ_RIGHTS;
    /* The ruleset's attributes as ABI 6 has them (older headers lack the
     * last two; an older kernel reads only the first). */
    struct {
        unsigned long long handled_access_fs, handled_access_net, scoped;
    } attr = {rights, 0, 0};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 6) {
        attr.scoped = 1ULL << 0 /* abstract unix sockets */ | 1ULL << 1 /* signals */;
        size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0)
        return -1;
    for (int i = 0; i < count; i++)
        if (allow(ruleset, writable[i], rights) != 0) {
            fprintf(stderr, "sandbox: %s: %s\n", writable[i], strerror(errno));
            return -1;
        }
    const char *shm = getenv("SANDBOX_SHM");
    if (allow_devices(ruleset, abi) != 0 || (shm && strcmp(shm, "1") == 0 && allow(ruleset, "/dev/shm", rights) != 0) ||
        allow_reading(ruleset, "/", hidden, nh) != 0)
        return -1;
    for (int i = 0; i < nr; i++)
        if (allow(ruleset, readable[i], READ_RIGHTS) != 0)
            return -1;
    /* The CUDA driver fails to start ("OS call failed") unless it may write
     * below /proc, so a GPU run (SANDBOX_PROC=1) may: measured on the H200. */
    if (getenv("SANDBOX_PROC") && strcmp(getenv("SANDBOX_PROC"), "1") == 0 && allow(ruleset, "/proc", rights) != 0)
        return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
        return -1;
    if (!env_is_one("SANDBOX_NET") && !env_is_one("SANDBOX_PROC") && forbid_network() != 0) {
        if (errno != EINVAL && errno != ENOSYS) {
            fprintf(stderr, "sandbox: the network rule (seccomp): %s\n", strerror(errno));
            return -1;
        }
        /* a kernel built without seccomp filters: said, as a missing Landlock is */
        fprintf(stderr, "sandbox: this kernel has no seccomp filter: the command may use the network\n");
    }
    close(ruleset);
    return 0;
}

static void close_other_fds(const int *keep, int kept)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int self = dirfd(d), fds[1024], n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 1024;) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd > 2 && fd != self)
            fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < kept && keep[k] != fds[i])
            k++;
        if (k == kept)
            close(fds[i]);
    }
}

/* SIGKILLs every process whose parent is this one but the one still awaited
 * (none: -1), and reaps them, until none is left (orphans of the command come
 * to this process, its subreaper). */
static void end_all(pid_t spare)
{
    for (int round = 0; round < 200; round++) {
        int found = 0;
        DIR *d = opendir("/proc");
        for (struct dirent *e; d && (e = readdir(d));) {
            pid_t pid = (pid_t)atoi(e->d_name);
            char path[64], text[512];
            if (pid <= 0 || pid == spare)
                continue;
            snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            size_t n = fread(text, 1, sizeof text - 1, f);
            fclose(f);
            text[n] = '\0';
            char *close_paren = strrchr(text, ')');
            int ppid = 0;
            if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 && ppid == getpid()) {
                kill(pid, SIGKILL);
                found = 1;
            }
        }
        if (d)
            closedir(d);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            found = 1;
        if (!found)
            return;
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
}

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

int main(int argc, char **argv)
{
    char *writable[MAX_PATHS], *hidden[MAX_PATHS], *readable[MAX_PATHS];
    int keep[MAX_FDS], nw = 0, nh = 0, nr = 0, nk = 0, i = 1;
    long timeout = 600;
    if (argc == 2 && strcmp(argv[1], "--check") == 0)
        return landlock_abi() >= 1 ? 0 : 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (i + 1 >= argc)
            usage();
        char *end;
        if (strcmp(argv[i], "--write") == 0 && nw < MAX_PATHS && argv[i + 1][0] == '/')
            writable[nw++] = argv[++i];
        else if (strcmp(argv[i], "--hide") == 0 && nh < MAX_PATHS) {
            if (!(hidden[nh] = realpath(argv[++i], NULL)))
                continue; /* nothing there to hide */
            nh++;
        } else if (strcmp(argv[i], "--read") == 0 && nr < MAX_PATHS && argv[i + 1][0] == '/')
            readable[nr++] = argv[++i];
        else if (strcmp(argv[i], "--keep-fd") == 0 && nk < MAX_FDS)
            keep[nk++] = (int)strtol(argv[++i], &end, 10);
        else if (strcmp(argv[i], "--timeout") == 0 && (timeout = strtol(argv[++i], &end, 10)) > 0 && !*end)
            continue;
        else
            usage();
    }
    if (i >= argc)
        usage();
    /* and the folders SANDBOX_HIDE names, one a line (a path may hold a colon):
     * what a grader hides from every run; SANDBOX_READ's likewise. One more
     * than this holds is refused, never dropped: a folder left unhidden is a
     * model answer read. */
    char *more = getenv("SANDBOX_HIDE") ? strdup(getenv("SANDBOX_HIDE")) : NULL;
    for (char *p = more ? strtok(more, "\n") : NULL; p; p = strtok(NULL, "\n")) {
        if (nh == MAX_PATHS) {
            fprintf(stderr, "sandbox: SANDBOX_HIDE names more than %d folders\n", MAX_PATHS);
            return 125;
        }
        if ((hidden[nh] = realpath(p, NULL)))
            nh++;
    }
    char *also = getenv("SANDBOX_READ") ? strdup(getenv("SANDBOX_READ")) : NULL;
    for (char *p = also ? strtok(also, "\n") : NULL; p; p = strtok(NULL, "\n")) {
        if (nr == MAX_PATHS) {
            fprintf(stderr, "sandbox: SANDBOX_READ names more than %d folders\n", MAX_PATHS);
            return 125;
        }
        if (p[0] == '/')
            readable[nr++] = p;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        perror("sandbox: PR_SET_CHILD_SUBREAPER");
        return 125;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    pid_t child = fork();
    if (child < 0) {
        perror("sandbox: fork");
        return 125;
    }
    if (child == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        close_other_fds(keep, nk);
        /* (no name of a server outside: the MPI and GPU runs, which keep sockets, least of all) */
        static const char *const servers[] = {"TMUX", "TMUX_PANE", "STY", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
                                              "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY",
                                              "XDG_RUNTIME_DIR", "GPG_AGENT_INFO", "DOCKER_HOST"};
        for (size_t k = 0; k < sizeof servers / sizeof servers[0]; k++)
            unsetenv(servers[k]);
        if (nw > 0) { /* temporary files go where they may be written (Check reads TEMP) */
            setenv("TMPDIR", writable[0], 1);
            setenv("TEMP", writable[0], 1);
            setenv("TMP", writable[0], 1);
        }
        give_up_terminal_and_privilege();
        if (confine(writable, nw, hidden, nh, readable, nr) != 0) {
            fprintf(stderr, "sandbox: could not confine the command: %s\n", strerror(errno));
            _exit(125);
        }
        execvp(argv[i], argv + i);
        fprintf(stderr, "sandbox: %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    alarm((unsigned)timeout);
    int status = 0;
    pid_t got;
    while ((got = waitpid(child, &status, 0)) < 0 && errno == EINTR && !stop_signal)
        ;
    int timed_out = stop_signal == SIGALRM;
    if (got != child) { /* a time-out or a signal: the command goes first */
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    end_all(-1);
    if (timed_out) {
        fprintf(stderr, "sandbox: the command ran past %ld s and was ended\n", timeout);
        return 124;
    }
    if (stop_signal)
        return 128 + stop_signal;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
