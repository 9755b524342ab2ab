/*
 * ns-baseline: the kernel work of sandbox-bash's namespace layer, done by a small C program,
 * then execve of the given program. It is the floor the Rust implementation is measured against
 * (benches/ns-startup.sh).
 *
 *   ns-baseline WORKSPACE /bin/bash -c true
 *
 * 1. With CAP_SYS_ADMIN in the effective set: unshare(CLONE_NEWNS|CLONE_NEWIPC). Without it:
 *    unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWIPC), then /proc/self/setgroups "deny",
 *    uid_map "U U 1", gid_map "G G 1" (the caller's own ids mapped to themselves).
 * 2. open_tree(OPEN_TREE_CLONE|AT_RECURSIVE) of WORKSPACE and of /tmp, taken while they are
 *    still writable.
 * 3. One mount_setattr(AT_RECURSIVE) on /: read-only and private, the whole tree.
 * 4. move_mount of each clone back onto its path, then chdir to the cwd again: the process's cwd
 *    still names the directory of the read-only mount underneath, so without it a relative write
 *    in the cwd fails with EROFS (NS_BASELINE_NO_CHDIR=1 skips it, to show that).
 * 5. One Landlock ruleset (every filesystem right of the running ABI handled; / read+execute,
 *    WORKSPACE and /tmp everything, /dev/null read+write), PR_SET_NO_NEW_PRIVS,
 *    landlock_restrict_self.
 * 6. execve(argv[2], argv + 2, environ).
 *
 * Every call is checked; a failure prints the step and errno and exits 125, as sandbox-bash does.
 * NS_BASELINE_TIMING=1 prints to stderr how long each step took (CLOCK_MONOTONIC).
 *
 * Build: cc -O2 -o ns-baseline benches/ns-baseline.c
 *   (or musl-gcc -O2 -static: the floor without glibc's own start-up)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The kernel's headers where the C library's include path has them (musl-gcc's has not); every
 * constant used below falls back to its value in the kernel's ABI. */
#if __has_include(<linux/mount.h>)
#include <linux/mount.h>
#endif
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif

#ifndef LANDLOCK_RULE_PATH_BENEATH
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef MS_PRIVATE
#define MS_PRIVATE (1 << 18)
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* Landlock filesystem rights by ABI (the constants as numbers, so old headers build too). */
#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_ABI1 ((1ULL << 13) - 1) /* EXECUTE .. MAKE_SYM */
#define LL_REFER (1ULL << 13)      /* ABI 2 */
#define LL_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define LL_IOCTL_DEV (1ULL << 15)  /* ABI 5 */

/* The attribute structures, laid out as the kernel reads them (only their first fields). */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
};
struct __attribute__((packed)) ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
};
struct ms_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

extern char **environ;

static int timing;
static struct timespec t_last;
static const char *step_names[16];
static long step_ns[16];
static int steps;

static void fail(const char *what, const char *arg) {
    int e = errno;
    fprintf(stderr, "ns-baseline: %s%s%s: %s (errno %d)\n", what, arg ? " " : "", arg ? arg : "",
            strerror(e), e);
    exit(125);
}

static long since(const struct timespec *a, const struct timespec *b) {
    return (b->tv_sec - a->tv_sec) * 1000000000L + (b->tv_nsec - a->tv_nsec);
}

/* Records the time since the previous mark under the step's name. */
static void mark(const char *name) {
    if (!timing)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (steps < 16) {
        step_names[steps] = name;
        step_ns[steps++] = since(&t_last, &now);
    }
    t_last = now;
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        fail("open", path);
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n)
        fail("write", path);
    if (close(fd) != 0)
        fail("close", path);
}

/* capget's structures (linux/capability.h, _LINUX_CAPABILITY_VERSION_3). */
struct cap_header {
    uint32_t version;
    int32_t pid;
};
struct cap_data {
    uint32_t effective, permitted, inheritable;
};
#define CAP_VERSION_3 0x20080522
#define CAP_SYS_ADMIN_BIT 21

static int has_cap_sys_admin(void) {
    struct cap_header hdr = {CAP_VERSION_3, 0};
    struct cap_data data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &hdr, data) != 0)
        fail("capget", NULL);
    return (data[CAP_SYS_ADMIN_BIT / 32].effective >> (CAP_SYS_ADMIN_BIT % 32)) & 1;
}

static int clone_tree(const char *path) {
    int fd = (int)syscall(__NR_open_tree, AT_FDCWD, path,
                          OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
    if (fd < 0)
        fail("open_tree(OPEN_TREE_CLONE|AT_RECURSIVE)", path);
    return fd;
}

static void put_back(int fd, const char *path) {
    if (syscall(__NR_move_mount, fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0)
        fail("move_mount(MOVE_MOUNT_F_EMPTY_PATH) onto", path);
    if (close(fd) != 0)
        fail("close of the clone of", path);
}

static void add_rule(int ruleset, const char *path, uint64_t access) {
    struct ll_path_beneath_attr rule;
    rule.allowed_access = access;
    rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (rule.parent_fd < 0)
        fail("open(O_PATH)", path);
    if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
        fail("landlock_add_rule", path);
    if (close(rule.parent_fd) != 0)
        fail("close", path);
}

int main(int argc, char **argv) {
    if (argc < 3 || argv[1][0] != '/') {
        fprintf(stderr, "usage: ns-baseline /ABSOLUTE/WORKSPACE PROGRAM [ARG...]\n");
        return 125;
    }
    const char *ws = argv[1];
    const char *t = getenv("NS_BASELINE_TIMING");
    timing = t && strcmp(t, "1") == 0;
    const char *nc = getenv("NS_BASELINE_NO_CHDIR");
    int rechdir = !(nc && strcmp(nc, "1") == 0);
    struct timespec t_start;
    clock_gettime(CLOCK_MONOTONIC, &t_start);
    t_last = t_start;

    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        fail("getcwd", NULL);

    /* 1. Namespaces. */
    uid_t uid = getuid();
    gid_t gid = getgid();
    int admin = has_cap_sys_admin();
    if (admin) {
        if (unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0)
            fail("unshare(CLONE_NEWNS|CLONE_NEWIPC)", NULL);
        mark("capget+unshare(NEWNS|NEWIPC)");
    } else {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC) != 0)
            fail("unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWIPC)", NULL);
        mark("capget+unshare(NEWUSER|NEWNS|NEWIPC)");
        char map[64];
        write_file("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
        write_file("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
        write_file("/proc/self/gid_map", map);
        mark("setgroups+uid_map+gid_map");
    }

    /* 2. The writable trees, cloned before the tree goes read-only. */
    int ws_fd = clone_tree(ws);
    mark("open_tree(WORKSPACE)");
    int tmp_fd = clone_tree("/tmp");
    mark("open_tree(/tmp)");

    /* 3. Everything read-only and private, in one call. */
    struct ms_attr attr = {0};
    attr.attr_set = MOUNT_ATTR_RDONLY;
    attr.propagation = MS_PRIVATE;
    if (syscall(__NR_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof attr) != 0)
        fail("mount_setattr(/, AT_RECURSIVE, RDONLY, MS_PRIVATE)", NULL);
    mark("mount_setattr(/)");

    /* 4. The writable trees back on top. */
    put_back(ws_fd, ws);
    mark("move_mount+close(WORKSPACE)");
    put_back(tmp_fd, "/tmp");
    mark("move_mount+close(/tmp)");
    if (rechdir && chdir(cwd) != 0)
        fail("chdir", cwd);
    mark("chdir(cwd)");
    struct timespec t_ns_end = t_last;
    if (!timing)
        clock_gettime(CLOCK_MONOTONIC, &t_ns_end);

    /* 5. Landlock. */
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        fail("landlock_create_ruleset(VERSION)", NULL);
    uint64_t handled = LL_ABI1;
    if (abi >= 2)
        handled |= LL_REFER;
    if (abi >= 3)
        handled |= LL_TRUNCATE;
    if (abi >= 5)
        handled |= LL_IOCTL_DEV;
    struct ll_ruleset_attr rs = {handled};
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &rs, sizeof rs, 0);
    if (ruleset < 0)
        fail("landlock_create_ruleset", NULL);
    mark("landlock_create_ruleset x2");
    add_rule(ruleset, "/", LL_READ_FILE | LL_READ_DIR | LL_EXECUTE);
    add_rule(ruleset, ws, handled);
    add_rule(ruleset, "/tmp", handled);
    add_rule(ruleset, "/dev/null", (LL_READ_FILE | LL_WRITE_FILE | LL_TRUNCATE) & handled);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail("prctl(PR_SET_NO_NEW_PRIVS)", NULL);
    mark("landlock_add_rule x4+no_new_privs");
    if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0)
        fail("landlock_restrict_self", NULL);
    if (close(ruleset) != 0)
        fail("close of the ruleset", NULL);
    mark("landlock_restrict_self+close");

    if (timing) {
        struct timespec t_end = t_last;
        fprintf(stderr, "ns-baseline: uid %u, %s, Landlock ABI %ld\n", (unsigned)uid,
                admin ? "CAP_SYS_ADMIN: no user namespace" : "no CAP_SYS_ADMIN: user namespace",
                abi);
        for (int i = 0; i < steps; i++)
            fprintf(stderr, "ns-baseline:   %-34s %8.1f us\n", step_names[i], step_ns[i] / 1e3);
        fprintf(stderr, "ns-baseline: namespace+mount part %.1f us, all before execve %.1f us\n",
                since(&t_start, &t_ns_end) / 1e3, since(&t_start, &t_end) / 1e3);
    }

    /* 6. The program. */
    execve(argv[2], argv + 2, environ);
    fail("execve", argv[2]);
    return 125;
}
