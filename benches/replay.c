/*
 * replay: the kernel calls sandbox-bash makes to lock itself, made again from a list
 * (benches/replay-ops.py turns a trace of one run into it), then execve of the given program.
 * It is "the same kernel work" with none of the planning: every Landlock rule, mount, masking
 * filesystem, capability drop and the seccomp filter's length as the traced run had them.
 *
 *   replay OPS /bin/bash -c true
 *
 * A rule path that is not there is skipped (the traced run's descriptors 0-2 name its own files).
 * With a network allowlist the run also starts a process outside before it locks itself (the
 * proxy: forked twice, the middle one waited for), brings up the loopback of its new network
 * namespace, listens there, and hands the listeners over: "helper" forks the same way a process
 * that takes one message and then waits for this one's descriptors to close at the execve.
 * The seccomp filter is one of the same length that allows every call (the traced filter's
 * instructions are not in the trace). The list is read whole before the first call.
 *
 * Build: cc -O2 -o replay benches/replay.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/mount.h>)
#include <linux/mount.h>
#endif

struct landlock_ruleset_attr_v {
    uint64_t handled_access_fs, handled_access_net, scoped;
};
struct landlock_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));
struct mount_attr_v {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static void die(const char *what, const char *arg) {
    fprintf(stderr, "replay: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    exit(125);
}

static void die_early(const char *what) { die(what, NULL); }

static int slot[65536];
static int helper = -1;

/* The process outside: forked twice (the middle one waited for), it takes one message, then
 * waits until the other end is closed (at the execve: the end is close-on-exec). */
static void start_helper(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) die_early("socketpair");
    pid_t mid = fork();
    if (mid < 0) die_early("fork");
    if (mid == 0) {
        if (fork() == 0) {
            close(sv[0]);
            char buf[600], ctl[256];
            struct iovec io = {buf, sizeof buf};
            struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
            while (recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC) > 0) {
                m.msg_controllen = sizeof ctl;
            }
            _exit(0);
        }
        _exit(0);
    }
    waitpid(mid, NULL, 0);
    close(sv[1]);
    helper = sv[0];
}

static int fd_of(long traced) {
    if (traced == -100) return AT_FDCWD;
    return slot[traced & 0xffff];
}


int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: replay OPS PROGRAM [ARG...]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) die("open", argv[1]);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *field[8] = {0};
        int k = 0;
        for (char *p = line; p && k < 8;) {
            field[k++] = p;
            p = strchr(p, '\t');
            if (p) *p++ = 0;
        }
        const char *op = field[0];
#define N(i) strtoll(field[i], NULL, 0)
#define S(i) (strcmp(field[i], "-") ? field[i] : "")
        long r = 0;
        if (!strcmp(op, "ruleset")) {
            struct landlock_ruleset_attr_v a = {(uint64_t)N(2), 0, 3};
            r = syscall(SYS_landlock_create_ruleset, &a, sizeof a, 0);
            if (r < 0) die("landlock_create_ruleset", NULL);
            slot[N(1)] = (int)r;
        } else if (!strcmp(op, "dup")) {
            r = fcntl(fd_of(N(2)), F_DUPFD_CLOEXEC, 3);
            slot[N(1)] = (int)r;
        } else if (!strcmp(op, "openat")) {
            /* The run's own descriptors 0-2 may name other files in another run: a path that is
             * not there is skipped, as sandbox-bash skips it. */
            r = syscall(SYS_openat, fd_of(N(2)), field[3], (int)N(4), 0);
            if (N(1) >= 0) slot[N(1)] = (int)r;
        } else if (!strcmp(op, "addrule")) {
            struct landlock_path_beneath b = {(uint64_t)N(2), fd_of(N(3))};
            if (b.parent_fd >= 0 && syscall(SYS_landlock_add_rule, fd_of(N(1)), 1, &b, 0) != 0) die("landlock_add_rule", NULL);
        } else if (!strcmp(op, "close")) {
            close(fd_of(N(1)));
        } else if (!strcmp(op, "unshare")) {
            if (unshare((int)N(1)) != 0) die("unshare", NULL);
        } else if (!strcmp(op, "mount_private")) {
            if (mount(NULL, field[1], NULL, (unsigned long)N(2), NULL) != 0) die("mount", field[1]);
        } else if (!strcmp(op, "open_tree")) {
            r = syscall(SYS_open_tree, fd_of(N(2)), field[3], (unsigned)N(4));
            if (r < 0) die("open_tree", field[3]);
            slot[N(1)] = (int)r;
        } else if (!strcmp(op, "fsopen")) {
            r = syscall(SYS_fsopen, field[2], (unsigned)N(3));
            if (r < 0) die("fsopen", field[2]);
            slot[N(1)] = (int)r;
        } else if (!strcmp(op, "fsconfig")) {
            unsigned cmd = (unsigned)N(2);
            const char *key = cmd == 1 ? S(3) : NULL, *val = cmd == 1 ? S(4) : NULL;
            if (syscall(SYS_fsconfig, fd_of(N(1)), cmd, key, val, 0) != 0) die("fsconfig", key);
        } else if (!strcmp(op, "fsmount")) {
            r = syscall(SYS_fsmount, fd_of(N(2)), (unsigned)N(3), (unsigned)N(4));
            if (r < 0) die("fsmount", NULL);
            slot[N(1)] = (int)r;
        } else if (!strcmp(op, "mount_setattr")) {
            struct mount_attr_v a = {(uint64_t)N(4), (uint64_t)N(5), 0, 0};
            if (syscall(SYS_mount_setattr, fd_of(N(1)), S(2), (unsigned)N(3), &a, sizeof a) != 0)
                die("mount_setattr", field[2]);
        } else if (!strcmp(op, "mknodat")) {
            if (mknodat(fd_of(N(1)), field[2], (mode_t)strtol(field[3], NULL, 8), 0) != 0) die("mknodat", field[2]);
        } else if (!strcmp(op, "mkdirat")) {
            if (mkdirat(fd_of(N(1)), field[2], (mode_t)strtol(field[3], NULL, 8)) != 0) die("mkdirat", field[2]);
        } else if (!strcmp(op, "move_mount")) {
            if (syscall(SYS_move_mount, fd_of(N(1)), "", AT_FDCWD, field[2], 4) != 0) die("move_mount", field[2]);
        } else if (!strcmp(op, "chdir")) {
            if (chdir(field[1]) != 0) die("chdir", field[1]);
        } else if (!strcmp(op, "stat")) {
            struct stat st;
            lstat(field[1], &st);
        } else if (!strcmp(op, "fstat")) {
            struct stat st;
            fstat(fd_of(N(1)), &st);
        } else if (!strcmp(op, "nnp")) {
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs", NULL);
        } else if (!strcmp(op, "capdrop")) {
            prctl(PR_CAPBSET_DROP, N(1), 0, 0, 0);
        } else if (!strcmp(op, "capset")) {
            struct { uint32_t version; int pid; } h = {0x20080522, 0};
            struct { uint32_t eff, perm, inh; } d[2] = {{(uint32_t)N(1), (uint32_t)N(1), 0}, {(uint32_t)N(2), (uint32_t)N(2), 0}};
            if (syscall(SYS_capset, &h, d) != 0) die("capset", NULL);
        } else if (!strcmp(op, "restrict")) {
            if (syscall(SYS_landlock_restrict_self, fd_of(N(1)), 0) != 0) die("landlock_restrict_self", NULL);
        } else if (!strcmp(op, "helper")) {
            start_helper();
        } else if (!strcmp(op, "socket")) {
            r = socket((int)N(2), (int)N(3), (int)N(4));
            if (r < 0) die("socket", NULL);
            slot[N(1)] = (int)r;
        } else if (!strcmp(op, "ifflags")) {
            struct ifreq ifr = {0};
            snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", field[3]);
            ifr.ifr_flags = (short)N(4);
            if (ioctl(fd_of(N(1)), (unsigned long)N(2), &ifr) != 0) die("ioctl", field[3]);
        } else if (!strcmp(op, "setsockopt")) {
            int v = (int)N(4);
            if (setsockopt(fd_of(N(1)), (int)N(2), (int)N(3), &v, sizeof v) != 0) die("setsockopt", NULL);
        } else if (!strcmp(op, "bind4")) {
            struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)N(2))};
            inet_pton(AF_INET, field[3], &a.sin_addr);
            if (bind(fd_of(N(1)), (struct sockaddr *)&a, sizeof a) != 0) die("bind", field[3]);
        } else if (!strcmp(op, "listen")) {
            if (listen(fd_of(N(1)), (int)N(2)) != 0) die("listen", NULL);
        } else if (!strcmp(op, "handover")) {
            /* The traced descriptors, as slots; one this run never made or has closed is its standard
             * input. */
            int fds[8], nfds = 0;
            for (char *p = field[1]; p && *p && nfds < 8;) {
                int fd = fd_of(strtol(p, &p, 10));
                fds[nfds++] = fcntl(fd, F_GETFD) < 0 ? 0 : fd;
                if (*p == ',') p++;
            }
            char ctl[CMSG_SPACE(sizeof fds)] = {0};
            struct iovec io = {"P\0\0", 3};
            struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
                               .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds)};
            struct cmsghdr *c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
            memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
            if (helper < 0 || sendmsg(helper, &m, 0) < 0) die("sendmsg", NULL);
        } else if (!strcmp(op, "seccomp")) {
            int len = (int)N(1);
            struct sock_filter *prog = calloc((size_t)len, sizeof *prog);
            for (int i = 0; i + 1 < len; i++) prog[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
            prog[len - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
            struct sock_fprog fp = {(unsigned short)len, prog};
            if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) != 0) die("seccomp", NULL);
        }
    }
    execv(argv[2], argv + 2);
    die("execve", argv[2]);
}
