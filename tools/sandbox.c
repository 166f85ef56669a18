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
 *   them), at every path it is mounted at (hide_other_mounts); a --read folder (and SANDBOX_READ's) may be read even inside a
 *   hidden one (a grading's own folder, inside the folder of all gradings);
 * - opens no socket (IPv4, IPv6, raw, local AF_UNIX: seccomp, on x86-64; a
 *   socketpair is left), uses no System V IPC object, POSIX message queue
 *   or key ring, and takes no lock on a file (the call succeeds, locking
 *   nothing), so nothing it computes can come from or go to another machine
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
 *   a process left behind (a daemon) cannot outlive the run; all are stopped
 *   before any is killed, so none can fork again as another dies (end_all).
 * Exit status: the command's (128 + the signal that ended it); 124 on the
 * time-out; 125 when the sandbox itself could not be set up, or could not end
 * every process of the command (said on stderr). Where the kernel
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

/* mountinfo's escapes (\040 for a space, \011, \012, \134) undone, in place. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++)
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else
            *out++ = *s;
    *out = '\0';
}

/* The rest of path below prefix ("" when equal), or NULL when path is not
 * prefix or below it. */
static const char *below_prefix(const char *path, const char *prefix)
{
    size_t len = strcmp(prefix, "/") == 0 ? 0 : strlen(prefix);
    if (strncmp(path, prefix, len) != 0 || (path[len] != '\0' && path[len] != '/'))
        return NULL;
    return path + len;
}

/* Hides ALIAS, another path HIDDEN shows at, unless it is hidden already:
 * -1 when the list is full. */
static int hide_alias(const char *alias, char **hidden, int *nh)
{
    char *real = realpath(alias, NULL);
    if (!real || in_any(real, hidden, *nh)) {
        free(real);
        return 0;
    }
    if (*nh == MAX_PATHS) {
        free(real);
        return -1;
    }
    hidden[(*nh)++] = real;
    return 0;
}

/* Where a path FROM (a folder the file system shows at TO) shows HIDDEN:
 * TO plus HIDDEN's rest below FROM; or TO whole where FROM lies inside
 * HIDDEN (a part of it shown); else nothing (0). */
static int aliased(const char *hidden, const char *from, const char *to, char *alias, size_t size)
{
    const char *rest = below_prefix(hidden, from);
    if (rest)
        snprintf(alias, size, "%s%s", strcmp(to, "/") == 0 && rest[0] ? "" : to, rest);
    else if (below_prefix(from, hidden))
        snprintf(alias, size, "%s", to);
    else
        return 0;
    return 1;
}

/* One line of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS
 * [TAGS...] - FSTYPE SOURCE SUPEROPTS", its fields split in place. */
struct mount_entry {
    char *dev, *root, *point, *fstype, *superopts;
};

static int parse_mount(char *line, struct mount_entry *m)
{
    char *field[64];
    int n = 0;
    for (char *save, *f = strtok_r(line, " \n", &save); f && n < 64; f = strtok_r(NULL, " \n", &save))
        field[n++] = f;
    int dash = 6;
    while (dash < n && strcmp(field[dash], "-") != 0)
        dash++;
    if (n < 6 || dash + 3 > n)
        return 0;
    *m = (struct mount_entry){field[2], field[3], field[4], field[dash + 1], field[dash + 3]};
    unescape(m->root);
    unescape(m->point);
    return 1;
}

/* An overlay's folders (lowerdir=A:B, upperdir=U in its options) that show
 * HIDDEN at its mount point are aliases too: another file system showing
 * the same files. -1 when the list is full. */
static int hide_overlay_aliases(const struct mount_entry *m, const char *hidden, char **list, int *nh)
{
    if (strcmp(m->fstype, "overlay") != 0)
        return 0;
    char opts[8192];
    snprintf(opts, sizeof opts, "%s", m->superopts);
    for (char *save, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
        int lower = strncmp(o, "lowerdir=", 9) == 0, upper = strncmp(o, "upperdir=", 9) == 0;
        if (!lower && !upper)
            continue;
        for (char *save2, *dir = strtok_r(o + 9, ":", &save2); dir; dir = strtok_r(NULL, ":", &save2)) {
            char alias[8192];
            unescape(dir);
            if (aliased(hidden, dir, m->point, alias, sizeof alias) && hide_alias(alias, list, nh) != 0)
                return -1;
        }
    }
    return 0;
}

/* Every other path a hidden folder is seen at, hidden too: the same file
 * system mounted twice (a bind mount, a container's volume, a CI runner's
 * second mount point), or an overlay over a folder holding it, shows the
 * model answers at a second path, which a rule by path would grant
 * (Landlock checks the path walked). From /proc/self/mountinfo, read whole:
 * the mount a hidden folder lies in gives its path inside its file system;
 * every mount of that file system whose root holds that path shows it again
 * (one whose root lies inside it shows a part of it: its whole mount point
 * is hidden). -1 when more than MAX_PATHS, or mountinfo cannot be read whole. */
static int hide_other_mounts(char **hidden, int *nh)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return 0; /* no /proc: no mount to see either */
    struct mount_entry *mounts = NULL;
    char **lines = NULL;
    size_t nm = 0, cap = 0, len = 0;
    char *line = NULL;
    int rc = 0;
    while (getline(&line, &len, f) >= 0) {
        if (nm == cap) {
            cap = cap * 2 + 64;
            struct mount_entry *more = realloc(mounts, cap * sizeof *mounts);
            char **more_lines = realloc(lines, cap * sizeof *lines);
            if (more)
                mounts = more;
            if (more_lines)
                lines = more_lines;
            if (!more || !more_lines) {
                rc = -1;
                break;
            }
        }
        lines[nm] = line;
        line = NULL;
        len = 0;
        if (!parse_mount(lines[nm], &mounts[nm])) {
            free(lines[nm]);
            rc = -1; /* a line not understood: a mount that might show them, unseen */
            break;
        }
        nm++;
    }
    free(line);
    if (ferror(f))
        rc = -1;
    fclose(f);
    for (int h = 0, first = *nh; rc == 0 && h < first; h++) {
        int in = -1; /* the mount the hidden folder lies in: the longest mount point above it */
        for (size_t i = 0; i < nm; i++) {
            if (below_prefix(hidden[h], mounts[i].point) &&
                (in < 0 || strlen(mounts[i].point) >= strlen(mounts[in].point)))
                in = (int)i;
            if (hide_overlay_aliases(&mounts[i], hidden[h], hidden, nh) != 0)
                rc = -1;
        }
        if (in < 0)
            continue;
        char inside[8192]; /* its path inside its file system */
        snprintf(inside, sizeof inside, "%s%s", strcmp(mounts[in].root, "/") == 0 ? "" : mounts[in].root,
                 below_prefix(hidden[h], mounts[in].point));
        if (!inside[0])
            strcpy(inside, "/");
        for (size_t i = 0; rc == 0 && i < nm; i++) {
            char alias[8192];
            if ((int)i != in && strcmp(mounts[i].dev, mounts[in].dev) == 0 &&
                aliased(inside, mounts[i].root, mounts[i].point, alias, sizeof alias))
                rc = hide_alias(alias, hidden, nh);
        }
    }
    for (size_t i = 0; i < nm; i++)
        free(lines[i]);
    free(lines);
    free(mounts);
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
#define IPC_REFUSED(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES)
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
        /* System V IPC and POSIX message queues: a server outside reached
         * through an IPC object as through a socket (the IPC namespace is
         * the machine's). A queue by id needs no get, so each use is refused. */
        IPC_REFUSED(SYS_shmget), IPC_REFUSED(SYS_shmat), IPC_REFUSED(SYS_shmctl),
        IPC_REFUSED(SYS_msgget), IPC_REFUSED(SYS_msgsnd), IPC_REFUSED(SYS_msgrcv), IPC_REFUSED(SYS_msgctl),
        IPC_REFUSED(SYS_semget), IPC_REFUSED(SYS_semop), IPC_REFUSED(SYS_semtimedop), IPC_REFUSED(SYS_semctl),
        IPC_REFUSED(SYS_mq_open), IPC_REFUSED(SYS_mq_timedsend), IPC_REFUSED(SYS_mq_timedreceive),
        /* the kernel's key rings: a store in memory another process of the user reads and writes */
        IPC_REFUSED(SYS_add_key), IPC_REFUSED(SYS_request_key), IPC_REFUSED(SYS_keyctl),
        /* A lock, even on a file opened only to read, is seen by a process
         * outside (a request it answers): flock() and fcntl()'s record locks
         * succeed without locking, for nothing in a grading locks a file
         * another of its processes shares. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_flock, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fcntl, 0, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETLK, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETLKW, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_OFD_SETLK, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_OFD_SETLKW, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
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

/* One process as /proc/PID/stat says: its state letter, its parent and the
 * clock tick it started at (a pid and its start are one process: a pid reused
 * by another has another start). */
struct proc_entry {
    pid_t pid, ppid;
    char state;
    unsigned long long start;
};

/* /proc/PID/stat's state, parent and start; 0 when it cannot be read. The
 * name before them, in parentheses, may hold anything: read past its last ')'. */
static int read_stat(pid_t pid, struct proc_entry *p)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = '\0';
    char *close_paren = strrchr(text, ')');
    int ppid;
    if (!close_paren || sscanf(close_paren + 1, " %c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                               &p->state, &ppid, &p->start) != 3)
        return 0;
    p->pid = pid;
    p->ppid = (pid_t)ppid;
    return 1;
}

/* A zombie's state as its threads say: a leader that called pthread_exit()
 * reads Z while its other threads run. 'Z' only where no other thread is. */
static char threads_state(pid_t pid)
{
    char path[64], state = 'Z';
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        char file[96], text[512];
        if (tid <= 0 || tid == pid)
            continue;
        snprintf(file, sizeof file, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
        FILE *f = fopen(file, "r");
        size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[got] = '\0';
        char *close_paren = strrchr(text, ')');
        char s = close_paren ? close_paren[2] : 'Z';
        if (s != 'Z' && s != 'X' && (state == 'Z' || state == 'T' || state == 't'))
            state = s; /* running beats stopped beats gone */
    }
    if (d)
        closedir(d);
    return state;
}

/* Every process below this one (the command's, and the orphans that came to
 * this process, their subreaper), into *list (grown as needed): their count,
 * -1 when /proc cannot be read. A child's parent is marked before or after
 * it in /proc's order, so the marking is repeated until nothing changes
 * (a pass per generation). */
static int descendants(struct proc_entry **list, int *cap)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        struct proc_entry p;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || !read_stat(pid, &p))
            continue;
        if (n == *cap) {
            struct proc_entry *more = realloc(*list, sizeof **list * (size_t)(*cap = *cap * 2 + 256));
            if (!more) {
                closedir(d);
                return -1;
            }
            *list = more;
        }
        (*list)[n++] = p;
    }
    closedir(d);
    /* mark (by pid: a pid is below 2^22, Linux's largest pid_max) */
    enum { PID_LIMIT = 1 << 22 };
    unsigned char *below = calloc(PID_LIMIT, 1);
    if (!below)
        return -1;
    pid_t self = getpid();
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            struct proc_entry *p = &(*list)[i];
            if (p->pid < PID_LIMIT && !below[p->pid] &&
                (p->ppid == self || (p->ppid > 0 && p->ppid < PID_LIMIT && below[p->ppid])))
                below[p->pid] = changed = 1;
        }
    }
    int kept = 0;
    for (int i = 0; i < n; i++)
        if ((*list)[i].pid < PID_LIMIT && below[(*list)[i].pid])
            (*list)[kept++] = (*list)[i];
    free(below);
    return kept;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Sends SIG to the process P found, never to another that took its pid
 * since: through a pidfd, after its start is read again and found the same
 * (kill() by pid where the kernel has no pidfd, before Linux 5.3). */
static void signal_process(const struct proc_entry *p, int sig)
{
    int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
    if (fd < 0) {
        if (errno == ENOSYS)
            kill(p->pid, sig);
        return; /* (ESRCH: gone) */
    }
    struct proc_entry now;
    if (read_stat(p->pid, &now) && now.start == p->start)
        syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
    close(fd);
}

/* Ends every process below this one, and reaps those that are its children:
 * 0 when none is left, -1 when some still were after 20 s (then each is
 * killed all the same). Stopped first, all of them, and only then killed:
 * a process killed while another runs lets that one fork again (one that
 * forks when its parent dies, by PR_SET_PDEATHSIG, regrew faster than a pass
 * of kills could end it); a stopped one cannot fork, and a SIGCONT can only
 * come from one still running, which the next pass stops. One blocked in
 * the kernel (state D: a vfork()'s parent) cannot be stopped, nor can it
 * fork until it wakes: it counts as stopped, and SIGKILL ends it. */
static int end_all(void)
{
    struct proc_entry *list = NULL;
    int cap = 0, late = 0;
    struct timespec start, now, pause = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        int n = descendants(&list, &cap), live = 0, running = 0;
        for (int i = 0; i < n; i++) {
            if (list[i].state == 'Z')
                list[i].state = threads_state(list[i].pid);
            if (list[i].state != 'Z' && list[i].state != 'X') {
                list[live++] = list[i];
                running += !strchr("TtD", list[i].state);
            }
        }
        if (n < 0 || live == 0) {
            while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
            free(list);
            return n < 0 || late ? -1 : 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 30) { /* not even SIGKILL ended them: said, left */
            fprintf(stderr, "sandbox: %d process%s of the command could not be ended\n", live, live == 1 ? "" : "es");
            free(list);
            return -1;
        }
        if (!late && now.tv_sec - start.tv_sec > 20) {
            fprintf(stderr, "sandbox: %d process%s of the command would not stop: killed as they are\n", live,
                    live == 1 ? "" : "es");
            late = 1;
        }
        for (int i = 0; i < live; i++)
            signal_process(&list[i], running && !late ? SIGSTOP : SIGKILL);
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
    if (hide_other_mounts(hidden, &nh) != 0) {
        fprintf(stderr, "sandbox: the hidden folders' other mounts cannot all be hidden (more than %d folders, "
                        "or /proc/self/mountinfo not read whole)\n", MAX_PATHS);
        return 125;
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
    int left_behind = end_all() != 0;
    if (timed_out) {
        fprintf(stderr, "sandbox: the command ran past %ld s and was ended\n", timeout);
        return 124;
    }
    if (stop_signal)
        return 128 + stop_signal;
    if (left_behind)
        return 125;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
