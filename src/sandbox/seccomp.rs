//! The seccomp filter as data: a classic BPF program built from the policy, which tests run
//! through a small interpreter. It refuses what Landlock does not cover:
//!
//! - in every mode: setuid and setgid bits on files (`chmod` and its kin, and a file created
//!   with them by `open`, `creat` or `mknod`), so that no command leaves a program behind that
//!   raises the privileges of whoever runs it next; limits, priorities, scheduling and memory
//!   placement of processes other than the caller (`prlimit64`, `setpriority`,
//!   `sched_set*`, `ioprio_set`, `migrate_pages`, `move_pages`), and the real-time classes;
//!   pushing input into a terminal (`TIOCSTI`, and `TIOCLINUX`, which can do the same on a
//!   virtual console: typed into the caller's terminal, that input would run in the caller's
//!   shell, outside the sandbox, once the command ends); file leases (`fcntl(F_SETLEASE)`
//!   with anything but `F_UNLCK`: a lease makes every other process that opens the file for
//!   writing, the agent and the user's editor included, wait for the holder, and a command
//!   that takes it again at each break hangs them for good); and the two calls whose arguments lie
//!   in memory the filter cannot read, so that they could do all of the above unchecked:
//!   io_uring (files and sockets without their system calls) and `openat2`. Both answer "not
//!   supported", and programs fall back to the calls the filter checks; and `mount_setattr`,
//!   the one mount call Landlock lets through, which could make the namespace layer's
//!   read-only view writable again for a caller that keeps CAP_SYS_ADMIN;
//! - without workspace execute: running a file by descriptor (`execveat` with
//!   `AT_EMPTY_PATH`), and memory files that could be run (`memfd_create` without
//!   `MFD_NOEXEC_SEAL`, as the kernel's own `vm.memfd_noexec = 2` refuses them): Landlock
//!   checks execution by path, and a memory file has none it can check;
//! - without a network bit: sockets of any family but AF_UNIX (TCP, UDP, MPTCP, raw and
//!   packet, which Landlock's TCP rules partly miss);
//! - without system read: the kernel keyring;
//! - in a network namespace of the command's own (an allowlist in force): leaving it (`setns`,
//!   and `SIOCGSKNS`, which turns any socket made outside into a handle on the host's
//!   namespace), and socket families that no namespace bounds (vsock reaches the hypervisor,
//!   and others reach hardware): only AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK.
//!
//! System calls of another architecture (32-bit or x32 on a 64-bit kernel) end the process:
//! the filter could not check them by number.

/// One classic BPF instruction, laid out as the kernel's `struct sock_filter`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

pub const LD_W_ABS: u16 = 0x20;
pub const ALU_AND_K: u16 = 0x54;
pub const JEQ_K: u16 = 0x15;
pub const JGE_K: u16 = 0x35;
pub const JSET_K: u16 = 0x45;
pub const RET_K: u16 = 0x06;

pub const RET_ALLOW: u32 = 0x7fff_0000;
pub const RET_ERRNO: u32 = 0x0005_0000;
pub const RET_KILL_PROCESS: u32 = 0x8000_0000;

/// Offsets in `struct seccomp_data`.
pub const OFFSET_NR: u32 = 0;
pub const OFFSET_ARCH: u32 = 4;

/// The offset of the low 32 bits of argument `i` (little-endian; the kernel reads `int`
/// arguments, pids and modes among them, as these 32 bits).
pub const fn arg_low(i: u8) -> u32 {
    16 + 8 * i as u32
}

/// The offset of the high 32 bits of argument `i`.
pub const fn arg_high(i: u8) -> u32 {
    20 + 8 * i as u32
}

/// ioctl requests that push input into a terminal.
pub const TIOCSTI: u32 = 0x5412;
pub const TIOCLINUX: u32 = 0x541C;
/// The `fcntl` command that takes a file lease, and the lease type that gives one up.
pub const F_SETLEASE: u32 = 1024;
pub const F_UNLCK: u32 = 2;

pub const AF_UNIX: u32 = 1;
pub const AF_INET: u32 = 2;
pub const AF_INET6: u32 = 10;
pub const AF_NETLINK: u32 = 16;
/// The ioctl that opens the network namespace a socket belongs to.
pub const SIOCGSKNS: u32 = 0x894C;
/// `S_ISUID | S_ISGID`.
pub const SET_ID_BITS: u32 = 0o6000;
pub const AT_EMPTY_PATH: u32 = 0x1000;
pub const MFD_NOEXEC_SEAL: u32 = 0x0008;
pub const SCHED_RESET_ON_FORK: u32 = 0x4000_0000;
/// Scheduling policies that are not real-time: OTHER, BATCH, IDLE.
pub const SCHED_ORDINARY: [u32; 3] = [0, 3, 5];
pub const IOPRIO_WHO_PROCESS: u32 = 1;
/// The class field of an I/O priority, and its real-time value.
pub const IOPRIO_CLASS_MASK: u32 = 0xE000;
pub const IOPRIO_CLASS_RT: u32 = 0x2000;

pub const EPERM: u32 = 1;
pub const EACCES: u32 = 13;
pub const ENOSYS: u32 = 38;

/// System call numbers of one architecture. `None`: the architecture has no such call (the
/// `*at` form is all there is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    pub name: &'static str,
    pub audit: u32,
    /// Numbers at or above this are another ABI on the same architecture (x32), if any.
    pub foreign_from: Option<u32>,
    pub ioctl: u32,
    pub fcntl: u32,
    pub socket: u32,
    pub io_uring_setup: u32,
    pub openat2: u32,
    pub add_key: u32,
    pub request_key: u32,
    pub keyctl: u32,
    pub chmod: Option<u32>,
    pub fchmod: u32,
    pub fchmodat: u32,
    pub fchmodat2: u32,
    pub open: Option<u32>,
    pub creat: Option<u32>,
    pub openat: u32,
    pub mknod: Option<u32>,
    pub mknodat: u32,
    pub prlimit64: u32,
    pub setpriority: u32,
    pub sched_setparam: u32,
    pub sched_setscheduler: u32,
    pub sched_setaffinity: u32,
    pub sched_setattr: u32,
    pub mount_setattr: u32,
    pub ioprio_set: u32,
    pub migrate_pages: u32,
    pub move_pages: u32,
    pub execveat: u32,
    pub memfd_create: u32,
    pub setns: u32,
    /// The calls that send a signal: kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
    /// pidfd_send_signal.
    pub signals: [u32; 6],
    /// The calls that change what a path names (create, write, remove, rename, link), which
    /// the supervisor watches to tell the command what the rules refuse it.
    pub path_calls: &'static [PathCall],
}

/// One call that changes a path, as the supervisor reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathCall {
    pub nr: u32,
    pub name: &'static str,
    /// The paths it changes: each the argument of a directory descriptor it is relative to
    /// (`None`: the working directory), and the argument of the path.
    pub paths: &'static [(Option<u8>, u8)],
    /// Where its open flags are, for the calls that change a file only when they say so.
    pub flags: Flags,
}

/// Where a call's open flags are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flags {
    /// It always changes its path.
    None,
    /// In this argument.
    Arg(u8),
    /// In the first field of the structure this argument points at (`openat2`).
    How(u8),
    /// It runs its path (`execve`, `execveat`).
    Exec,
}

/// The open flags that ask to change a file: write, read-write, create, truncate.
pub const CHANGING_OPEN: u32 = 0o1 | 0o2 | 0o100 | 0o1000;

const fn call(nr: u32, name: &'static str, paths: &'static [(Option<u8>, u8)], flags: Flags) -> PathCall {
    PathCall { nr, name, paths, flags }
}

const CWD0: &[(Option<u8>, u8)] = &[(None, 0)];
const AT01: &[(Option<u8>, u8)] = &[(Some(0), 1)];

const X86_64_PATH_CALLS: &[PathCall] = &[
    call(2, "open", CWD0, Flags::Arg(1)),
    call(257, "openat", AT01, Flags::Arg(2)),
    call(437, "openat2", AT01, Flags::How(2)),
    call(85, "creat", CWD0, Flags::None),
    call(83, "mkdir", CWD0, Flags::None),
    call(258, "mkdirat", AT01, Flags::None),
    call(133, "mknod", CWD0, Flags::None),
    call(259, "mknodat", AT01, Flags::None),
    call(87, "unlink", CWD0, Flags::None),
    call(263, "unlinkat", AT01, Flags::None),
    call(84, "rmdir", CWD0, Flags::None),
    call(82, "rename", &[(None, 0), (None, 1)], Flags::None),
    call(264, "renameat", &[(Some(0), 1), (Some(2), 3)], Flags::None),
    call(316, "renameat2", &[(Some(0), 1), (Some(2), 3)], Flags::None),
    call(86, "link", &[(None, 1)], Flags::None),
    call(265, "linkat", &[(Some(2), 3)], Flags::None),
    call(88, "symlink", &[(None, 1)], Flags::None),
    call(266, "symlinkat", &[(Some(1), 2)], Flags::None),
    call(76, "truncate", CWD0, Flags::None),
    call(59, "execve", CWD0, Flags::Exec),
    call(322, "execveat", AT01, Flags::Exec),
];

const AARCH64_PATH_CALLS: &[PathCall] = &[
    call(56, "openat", AT01, Flags::Arg(2)),
    call(437, "openat2", AT01, Flags::How(2)),
    call(34, "mkdirat", AT01, Flags::None),
    call(33, "mknodat", AT01, Flags::None),
    call(35, "unlinkat", AT01, Flags::None),
    call(38, "renameat", &[(Some(0), 1), (Some(2), 3)], Flags::None),
    call(276, "renameat2", &[(Some(0), 1), (Some(2), 3)], Flags::None),
    call(37, "linkat", &[(Some(2), 3)], Flags::None),
    call(36, "symlinkat", &[(Some(1), 2)], Flags::None),
    call(45, "truncate", CWD0, Flags::None),
    call(221, "execve", CWD0, Flags::Exec),
    call(281, "execveat", AT01, Flags::Exec),
];

pub const X86_64: Arch = Arch {
    name: "x86_64",
    audit: 0xC000_003E,
    foreign_from: Some(0x4000_0000),
    ioctl: 16,
    fcntl: 72,
    socket: 41,
    io_uring_setup: 425,
    openat2: 437,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    chmod: Some(90),
    fchmod: 91,
    fchmodat: 268,
    fchmodat2: 452,
    open: Some(2),
    creat: Some(85),
    openat: 257,
    mknod: Some(133),
    mknodat: 259,
    prlimit64: 302,
    setpriority: 141,
    sched_setparam: 142,
    sched_setscheduler: 144,
    sched_setaffinity: 203,
    sched_setattr: 314,
    mount_setattr: 442,
    ioprio_set: 251,
    migrate_pages: 256,
    move_pages: 279,
    execveat: 322,
    memfd_create: 319,
    setns: 308,
    signals: [62, 200, 234, 129, 297, 424],
    path_calls: X86_64_PATH_CALLS,
};

pub const AARCH64: Arch = Arch {
    name: "aarch64",
    audit: 0xC000_00B7,
    foreign_from: None,
    ioctl: 29,
    fcntl: 25,
    socket: 198,
    io_uring_setup: 425,
    openat2: 437,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    chmod: None,
    fchmod: 52,
    fchmodat: 53,
    fchmodat2: 452,
    open: None,
    creat: None,
    openat: 56,
    mknod: None,
    mknodat: 33,
    prlimit64: 261,
    setpriority: 140,
    sched_setparam: 118,
    sched_setscheduler: 119,
    sched_setaffinity: 122,
    sched_setattr: 274,
    mount_setattr: 442,
    ioprio_set: 30,
    migrate_pages: 238,
    move_pages: 239,
    execveat: 281,
    memfd_create: 279,
    setns: 268,
    signals: [129, 130, 131, 138, 240, 424],
    path_calls: AARCH64_PATH_CALLS,
};

/// The architecture this binary runs on, if the filter knows its numbers.
pub fn native() -> Option<Arch> {
    if cfg!(target_arch = "x86_64") {
        Some(X86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(AARCH64)
    } else {
        None
    }
}

/// What the mode lets through the filter; everything else it refuses in every mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Sockets of every family may be created.
    pub sockets: bool,
    /// The kernel keyring may be used.
    pub keyring: bool,
    /// Code that is not a file on a path may be run: a descriptor given to `execveat`, a
    /// memory file that can be executed (workspace execute).
    pub new_code: bool,
    /// The command is in a network namespace of its own, which it may not leave.
    pub enclosed_network: bool,
}

fn stmt(code: u16, k: u32) -> Insn {
    Insn { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

pub const RET_USER_NOTIF: u32 = 0x7fc0_0000;

/// The filter that hands the supervisor outside (see [`crate::outside`]) every signal a
/// process of the run sends, which it lets the kernel's own rules judge, or sends itself to a
/// process of the same agent session; and, with `paths`, every call that changes or runs a
/// path (an open only when its flags ask to change the file, every open with `reads`), which
/// it lets go on unchanged after telling the command what the rules will refuse. An open with
/// `O_PATH` never reaches it: the kernel opens such a descriptor without asking Landlock (it
/// reads, writes and runs nothing), so the rules cannot refuse it, and a start makes hundreds
/// of them (each Landlock rule of a nested level). Installed after the main filter, which ends
/// the process on a call of another architecture.
pub fn watch_program(arch: Arch, paths: bool, reads: bool) -> Vec<Insn> {
    let mut p = vec![stmt(LD_W_ABS, OFFSET_ARCH), jump(JEQ_K, arch.audit, 1, 0), stmt(RET_K, RET_ALLOW)];
    p.push(stmt(LD_W_ABS, OFFSET_NR));
    let calls: &[PathCall] = if paths { arch.path_calls } else { &[] };
    let flagged: Vec<(u32, u8)> = calls
        .iter()
        .filter_map(|c| match c.flags {
            Flags::Arg(a) => Some((c.nr, a)),
            _ => None,
        })
        .collect();
    let always: Vec<u32> = arch
        .signals
        .iter()
        .copied()
        .chain(calls.iter().filter(|c| !flagged.iter().any(|(nr, _)| *nr == c.nr)).map(|c| c.nr))
        .collect();
    // Laid out as: the tests of `always`, those of `flagged`, "allow", one block of four per
    // flagged call (load its flags; O_PATH: "allow"; with `reads` any other open, else one
    // that asks to change the file: "notify"; "allow"), "notify".
    let tests = always.len() + flagged.len();
    let notify = 4 + tests + 1 + 4 * flagged.len();
    for (i, nr) in always.iter().enumerate() {
        let here = 4 + i;
        p.push(jump(JEQ_K, *nr, (notify - here - 1) as u8, 0));
    }
    for (j, (nr, _)) in flagged.iter().enumerate() {
        let here = 4 + always.len() + j;
        let block = 4 + tests + 1 + 4 * j;
        p.push(jump(JEQ_K, *nr, (block - here - 1) as u8, 0));
    }
    p.push(stmt(RET_K, RET_ALLOW));
    for (j, (_, arg)) in flagged.iter().enumerate() {
        let here = 4 + tests + 1 + 4 * j + 2;
        p.push(stmt(LD_W_ABS, arg_low(*arg)));
        p.push(jump(JSET_K, O_PATH, 1, 0));
        if reads {
            p.push(jump(JGE_K, 0, (notify - here - 1) as u8, (notify - here - 1) as u8));
        } else {
            p.push(jump(JSET_K, CHANGING_OPEN, (notify - here - 1) as u8, 0));
        }
        p.push(stmt(RET_K, RET_ALLOW));
    }
    p.push(stmt(RET_K, RET_USER_NOTIF));
    debug_assert_eq!(p.len(), notify + 1);
    debug_assert!(notify < 256, "a jump of the watch's filter is longer than one byte can say");
    p
}

/// The open flag for a descriptor that only names a path (the same on every architecture the
/// filters know).
pub const O_PATH: u32 = 0o10_000_000;

/// Where a test sends a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Allow,
    Refuse,
}

/// A comparison of one 32-bit word of the call's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cond {
    Eq(u32),
    Ne(u32),
    /// Some of these bits are set.
    Any(u32),
}

/// "If the word at `at` (masked by `mask`) meets `cond`, the call gets `then`."
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Test {
    at: u32,
    mask: Option<u32>,
    cond: Cond,
    then: Verdict,
}

const fn test(at: u32, cond: Cond, then: Verdict) -> Test {
    Test { at, mask: None, cond, then }
}

/// What the filter does with one system call number (or a run of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// Refused with this errno, whatever the arguments.
    Errno(u32),
    /// `socket`: AF_UNIX only.
    UnixSocketsOnly,
    /// `ioctl`: no `TIOCSTI` or `TIOCLINUX`, and with `namespace` no `SIOCGSKNS`.
    NoTerminalInput { namespace: bool },
    /// `fcntl`: no lease taken (`F_SETLEASE` only to give one up).
    NoLease,
    /// `socket`: the families a network namespace bounds.
    BoundedFamiliesOnly,
    /// The mode in argument `arg` has no setuid or setgid bit.
    NoSetId { arg: u8 },
    /// The process in argument `arg` is the caller (0).
    SelfOnly { arg: u8 },
    /// `prlimit64`: another process's limits can be read, not set.
    OwnLimits,
    /// `setpriority`: the caller's own (`PRIO_PROCESS`, 0) only.
    OwnPriority,
    /// `sched_setscheduler`: the caller only, and no real-time policy.
    OwnSchedulerNoRealtime,
    /// `ioprio_set`: the caller only, and no real-time class.
    OwnIoPriority,
    /// `execveat`: not of a descriptor (`AT_EMPTY_PATH`).
    NoExecOfDescriptor,
    /// `memfd_create`: only with `MFD_NOEXEC_SEAL`.
    SealedMemfdOnly,
}

/// At most this many tests decide one rule.
const MAX_TESTS: usize = 4;

/// A rule's tests in order, what a call that passes them all gets, and the errno of a
/// refusal. Fixed-size: the filter is built at every start, and its cost was allocation.
struct Tests {
    tests: [Test; MAX_TESTS],
    len: usize,
    otherwise: Verdict,
    errno: u32,
}

impl Tests {
    fn new(list: &[Test], otherwise: Verdict, errno: u32) -> Tests {
        let mut tests = [test(0, Cond::Eq(0), Verdict::Allow); MAX_TESTS];
        tests[..list.len()].copy_from_slice(list);
        Tests { tests, len: list.len(), otherwise, errno }
    }
}

impl Rule {
    fn tests(self) -> Tests {
        use Cond::*;
        use Verdict::*;
        match self {
            Rule::Errno(errno) => Tests::new(&[], Refuse, errno),
            Rule::UnixSocketsOnly => Tests::new(&[test(arg_low(0), Eq(AF_UNIX), Allow)], Refuse, EPERM),
            Rule::NoTerminalInput { namespace: false } => Tests::new(
                &[test(arg_low(1), Eq(TIOCSTI), Refuse), test(arg_low(1), Eq(TIOCLINUX), Refuse)],
                Allow,
                EPERM,
            ),
            Rule::NoTerminalInput { namespace: true } => Tests::new(
                &[
                    test(arg_low(1), Eq(TIOCSTI), Refuse),
                    test(arg_low(1), Eq(TIOCLINUX), Refuse),
                    test(arg_low(1), Eq(SIOCGSKNS), Refuse),
                ],
                Allow,
                EPERM,
            ),
            Rule::NoLease => Tests::new(
                &[test(arg_low(1), Ne(F_SETLEASE), Allow), test(arg_low(2), Eq(F_UNLCK), Allow)],
                Refuse,
                EPERM,
            ),
            Rule::BoundedFamiliesOnly => Tests::new(
                &[
                    test(arg_low(0), Eq(AF_UNIX), Allow),
                    test(arg_low(0), Eq(AF_INET), Allow),
                    test(arg_low(0), Eq(AF_INET6), Allow),
                    test(arg_low(0), Eq(AF_NETLINK), Allow),
                ],
                Refuse,
                EPERM,
            ),
            Rule::NoSetId { arg } => Tests::new(&[test(arg_low(arg), Any(SET_ID_BITS), Refuse)], Allow, EPERM),
            Rule::SelfOnly { arg } => Tests::new(&[test(arg_low(arg), Ne(0), Refuse)], Allow, EPERM),
            // Another process: only with no new limit (a null pointer).
            Rule::OwnLimits => Tests::new(
                &[test(arg_low(0), Eq(0), Allow), test(arg_low(2), Ne(0), Refuse), test(arg_high(2), Ne(0), Refuse)],
                Allow,
                EPERM,
            ),
            Rule::OwnPriority => {
                Tests::new(&[test(arg_low(0), Ne(0), Refuse), test(arg_low(1), Ne(0), Refuse)], Allow, EPERM)
            }
            Rule::OwnSchedulerNoRealtime => {
                let ordinary =
                    |policy| Test { at: arg_low(1), mask: Some(!SCHED_RESET_ON_FORK), cond: Eq(policy), then: Allow };
                Tests::new(
                    &[
                        test(arg_low(0), Ne(0), Refuse),
                        ordinary(SCHED_ORDINARY[0]),
                        ordinary(SCHED_ORDINARY[1]),
                        ordinary(SCHED_ORDINARY[2]),
                    ],
                    Refuse,
                    EPERM,
                )
            }
            Rule::OwnIoPriority => Tests::new(
                &[
                    test(arg_low(0), Ne(IOPRIO_WHO_PROCESS), Refuse),
                    test(arg_low(1), Ne(0), Refuse),
                    Test { at: arg_low(2), mask: Some(IOPRIO_CLASS_MASK), cond: Eq(IOPRIO_CLASS_RT), then: Refuse },
                ],
                Allow,
                EPERM,
            ),
            Rule::NoExecOfDescriptor => Tests::new(&[test(arg_low(4), Any(AT_EMPTY_PATH), Refuse)], Allow, EPERM),
            Rule::SealedMemfdOnly => Tests::new(&[test(arg_low(1), Any(MFD_NOEXEC_SEAL), Allow)], Refuse, EACCES),
        }
    }

    /// Appends the instructions that decide a call with this rule: the tests, then the two
    /// returns, the one for a call that passes every test first. Each path ends in a return.
    fn emit(self, p: &mut Vec<Insn>) -> Result<(), ProgramError> {
        let Tests { tests, len, otherwise, errno } = self.tests();
        let ret = |v: Verdict| stmt(RET_K, if v == Verdict::Allow { RET_ALLOW } else { RET_ERRNO | errno });
        if len == 0 {
            p.push(ret(otherwise));
            return Ok(());
        }
        let start = p.len();
        // The accumulator's content: the word at this offset, unmasked.
        let mut loaded: Option<u32> = None;
        // Where each test's jump is, to point it at its return once the tests are laid out.
        let mut jumps = [0usize; MAX_TESTS];
        for (i, t) in tests[..len].iter().enumerate() {
            if loaded != Some(t.at) {
                p.push(stmt(LD_W_ABS, t.at));
                loaded = Some(t.at);
            }
            if let Some(mask) = t.mask {
                p.push(stmt(ALU_AND_K, mask));
                loaded = None;
            }
            jumps[i] = p.len();
            p.push(match t.cond {
                Cond::Eq(v) | Cond::Ne(v) => jump(JEQ_K, v, 0, 0),
                Cond::Any(bits) => jump(JSET_K, bits, 0, 0),
            });
        }
        let first = p.len();
        for (i, t) in tests[..len].iter().enumerate() {
            let to = if t.then == otherwise { first } else { first + 1 };
            let to = offset(to - (jumps[i] + 1))?;
            // Eq and Any jump when they hold; Ne jumps when equality fails.
            match t.cond {
                Cond::Eq(_) | Cond::Any(_) => p[jumps[i]].jt = to,
                Cond::Ne(_) => p[jumps[i]].jf = to,
            }
        }
        debug_assert!(p.len() > start);
        p.push(ret(otherwise));
        p.push(ret(if otherwise == Verdict::Allow { Verdict::Refuse } else { Verdict::Allow }));
        Ok(())
    }
}

/// Numbers `first..=last` that share a rule.
#[derive(Clone, Copy, Debug)]
struct Span {
    first: u32,
    last: u32,
    rule: Rule,
}

/// A jump offset, which the instruction holds in a byte.
fn offset(n: usize) -> Result<u8, ProgramError> {
    u8::try_from(n).map_err(|_| ProgramError::JumpTooLong)
}

/// The rule of every number the filter looks at, for `arch` and `rules`, sorted by number.
fn rules_for(arch: Arch, rules: Rules) -> Vec<(u32, Rule)> {
    let mut special: Vec<(u32, Rule)> = Vec::with_capacity(32);
    special.extend([
        (arch.ioctl, Rule::NoTerminalInput { namespace: rules.enclosed_network }),
        (arch.fcntl, Rule::NoLease),
        (arch.io_uring_setup, Rule::Errno(ENOSYS)),
        (arch.openat2, Rule::Errno(ENOSYS)),
        (arch.fchmod, Rule::NoSetId { arg: 1 }),
        (arch.fchmodat, Rule::NoSetId { arg: 2 }),
        (arch.fchmodat2, Rule::NoSetId { arg: 2 }),
        (arch.openat, Rule::NoSetId { arg: 3 }),
        (arch.mknodat, Rule::NoSetId { arg: 2 }),
        (arch.prlimit64, Rule::OwnLimits),
        (arch.setpriority, Rule::OwnPriority),
        (arch.sched_setparam, Rule::SelfOnly { arg: 0 }),
        (arch.sched_setscheduler, Rule::OwnSchedulerNoRealtime),
        (arch.sched_setaffinity, Rule::SelfOnly { arg: 0 }),
        // Its policy lies in a structure the filter cannot read.
        (arch.sched_setattr, Rule::Errno(EPERM)),
        // The one mount call Landlock does not refuse: a caller that keeps CAP_SYS_ADMIN would
        // make the read-only view writable again.
        (arch.mount_setattr, Rule::Errno(EPERM)),
        (arch.ioprio_set, Rule::OwnIoPriority),
        (arch.migrate_pages, Rule::SelfOnly { arg: 0 }),
        (arch.move_pages, Rule::SelfOnly { arg: 0 }),
    ]);
    for (nr, arg) in [(arch.chmod, 1), (arch.open, 2), (arch.creat, 1), (arch.mknod, 1)] {
        if let Some(nr) = nr {
            special.push((nr, Rule::NoSetId { arg }));
        }
    }
    if !rules.new_code {
        special.push((arch.execveat, Rule::NoExecOfDescriptor));
        special.push((arch.memfd_create, Rule::SealedMemfdOnly));
    }
    if !rules.sockets {
        special.push((arch.socket, Rule::UnixSocketsOnly));
    } else if rules.enclosed_network {
        special.push((arch.socket, Rule::BoundedFamiliesOnly));
    }
    if rules.enclosed_network {
        special.push((arch.setns, Rule::Errno(EPERM)));
    }
    if !rules.keyring {
        for nr in [arch.add_key, arch.request_key, arch.keyctl] {
            special.push((nr, Rule::Errno(EPERM)));
        }
    }
    special.sort_unstable_by_key(|(nr, _)| *nr);
    special
}

/// Why [`program`] could not build a filter: each is a fault in the rules or the builder, never
/// of the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramError {
    /// Two rules for one system call number.
    TwoRules,
    /// A search over no numbers.
    EmptyHalf,
    /// A run of numbers ending at the top of the range.
    NumberAtTop,
    /// A jump longer than its byte holds.
    JumpTooLong,
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProgramError::TwoRules => "two seccomp rules for one system call number",
            ProgramError::EmptyHalf => "empty half of the search",
            ProgramError::NumberAtTop => "a system call number at the top of the range",
            ProgramError::JumpTooLong => "the seccomp filter has a jump longer than 255 instructions",
        })
    }
}

impl std::error::Error for ProgramError {}

/// Builds the filter program for `arch`.
///
/// When it installs the filter, the kernel runs it over every system call number to learn
/// which ones are always allowed (those never run it again); the calls with a rule that reads
/// an argument run it every time. So the numbers are found by a binary search over the runs
/// of numbers with a rule: a number leaves after a handful of comparisons, where testing the
/// rules one after the other would take one for each rule. (Installing the filter was a
/// tenth of start-up.) The program is written into one buffer, each jump filled in once what
/// it jumps over is laid out.
pub fn program(arch: Arch, rules: Rules) -> Result<Vec<Insn>, ProgramError> {
    let special = rules_for(arch, rules);
    if special.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(ProgramError::TwoRules);
    }
    // Neighbours with the same rule make one run (the three keyring calls).
    let mut spans: Vec<Span> = Vec::with_capacity(special.len());
    for (nr, rule) in special {
        match spans.last_mut() {
            Some(s) if s.rule == rule && s.last.checked_add(1) == Some(nr) => s.last = nr,
            _ => spans.push(Span { first: nr, last: nr, rule }),
        }
    }
    let mut p = Vec::with_capacity(256);
    p.extend([
        stmt(LD_W_ABS, OFFSET_ARCH),
        jump(JEQ_K, arch.audit, 1, 0),
        stmt(RET_K, RET_KILL_PROCESS),
        stmt(LD_W_ABS, OFFSET_NR),
    ]);
    search(&spans, true, arch.foreign_from, &mut p)?;
    Ok(p)
}

/// Appends the instructions that decide a number lying between the spans before `spans` and
/// those after them; `top`: no span comes after, so another ABI's numbers (`foreign_from` and
/// up) can reach here. The number is in the accumulator on entry (a body may load an
/// argument, but every body ends in a return).
fn search(spans: &[Span], top: bool, foreign_from: Option<u32>, p: &mut Vec<Insn>) -> Result<(), ProgramError> {
    if spans.len() > 1 {
        // Numbers below the middle run go left, the rest right: a leaf tests one run.
        let (left, right) = spans.split_at(spans.len() / 2);
        let Some(split) = right.first().map(|s| s.first) else { return Err(ProgramError::EmptyHalf) };
        let at = p.len();
        p.push(jump(JGE_K, split, 0, 0));
        search(left, false, foreign_from, p)?;
        p[at].jt = offset(p.len() - at - 1)?;
        return search(right, top, foreign_from, p);
    }
    for span in spans {
        let at = p.len();
        if span.first == span.last {
            p.push(jump(JEQ_K, span.first, 0, 0));
            span.rule.emit(p)?;
            p[at].jf = offset(p.len() - at - 1)?;
        } else {
            // Below the run: on to the next; above it: past the body.
            let above = span.last.checked_add(1).ok_or(ProgramError::NumberAtTop)?;
            p.push(jump(JGE_K, span.first, 0, 0));
            p.push(jump(JGE_K, above, 0, 0));
            span.rule.emit(p)?;
            let end = p.len();
            p[at].jf = offset(end - at - 1)?;
            p[at + 1].jt = offset(end - at - 2)?;
        }
    }
    // Above every number with a rule: another ABI's numbers (x32) end the process.
    if let (true, Some(from)) = (top, foreign_from) {
        p.push(jump(JGE_K, from, 0, 1));
        p.push(stmt(RET_K, RET_KILL_PROCESS));
    }
    p.push(stmt(RET_K, RET_ALLOW));
    Ok(())
}

/// Runs `program` on one system call the way the kernel would, returning the action. Only
/// the instructions [`program`] emits are understood; anything else is an error.
pub fn run(program: &[Insn], arch: u32, nr: u32, args: [u64; 6]) -> Result<u32, String> {
    run_counting(program, arch, nr, args).map(|(action, _)| action)
}

/// Like [`run`], and how many instructions ran.
pub fn run_counting(program: &[Insn], arch: u32, nr: u32, args: [u64; 6]) -> Result<(u32, usize), String> {
    let mut data = [0u8; 64];
    data[0..4].copy_from_slice(&nr.to_le_bytes());
    data[4..8].copy_from_slice(&arch.to_le_bytes());
    for (i, a) in args.iter().enumerate() {
        data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_le_bytes());
    }
    let mut a: u32 = 0;
    let mut pc = 0usize;
    let mut executed = 0;
    while let Some(insn) = program.get(pc) {
        executed += 1;
        match insn.code {
            LD_W_ABS => {
                let at = insn.k as usize;
                let bytes = data.get(at..at + 4).ok_or_else(|| format!("load out of range at {pc}"))?;
                a = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                pc += 1;
            }
            ALU_AND_K => {
                a &= insn.k;
                pc += 1;
            }
            JEQ_K | JGE_K | JSET_K => {
                let taken = match insn.code {
                    JEQ_K => a == insn.k,
                    JGE_K => a >= insn.k,
                    _ => a & insn.k != 0,
                };
                pc += 1 + usize::from(if taken { insn.jt } else { insn.jf });
            }
            RET_K => return Ok((insn.k, executed)),
            other => return Err(format!("unknown instruction {other:#x} at {pc}")),
        }
    }
    Err("the program ran off its end".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signal_goes_to_the_supervisor_and_nothing_else() {
        for arch in [X86_64, AARCH64] {
            let p = watch_program(arch, false, false);
            for nr in arch.signals {
                assert_eq!(run(&p, arch.audit, nr, [0; 6]), Ok(RET_USER_NOTIF), "{} {nr}", arch.name);
            }
            for nr in [0, 1, 59, arch.setns, arch.openat] {
                assert_eq!(run(&p, arch.audit, nr, [0; 6]), Ok(RET_ALLOW), "{} {nr}", arch.name);
            }
            // Another architecture is the main filter's to end.
            assert_eq!(run(&p, 0x4000_0003, arch.signals[0], [0; 6]), Ok(RET_ALLOW));
        }
    }

    #[test]
    fn with_paths_every_call_that_changes_a_path_goes_to_the_supervisor_and_reads_do_not() {
        for arch in [X86_64, AARCH64] {
            let p = watch_program(arch, true, false);
            for nr in arch.signals {
                assert_eq!(run(&p, arch.audit, nr, [0; 6]), Ok(RET_USER_NOTIF), "{} {nr}", arch.name);
            }
            for c in arch.path_calls {
                let Flags::Arg(at) = c.flags else {
                    assert_eq!(run(&p, arch.audit, c.nr, [0; 6]), Ok(RET_USER_NOTIF), "{} {}", arch.name, c.name);
                    continue;
                };
                let with = |flags: u64| {
                    let mut args = [0u64; 6];
                    args[at as usize] = flags;
                    run(&p, arch.audit, c.nr, args)
                };
                // Read only, also as a directory, close-on-exec, without following a link.
                for flags in [0, 0o200000 | 0o2000000, 0o400000, 0o4000] {
                    assert_eq!(with(flags), Ok(RET_ALLOW), "{} {} {flags:o}", arch.name, c.name);
                }
                // Write, read-write, create, truncate, a temporary file.
                for flags in [0o1, 0o2, 0o100, 0o1000, 0o20200002, 0o2000101] {
                    assert_eq!(with(flags), Ok(RET_USER_NOTIF), "{} {} {flags:o}", arch.name, c.name);
                }
                // A descriptor that only names the path (the kernel ignores the other flags).
                for flags in [0o10000000, 0o10200000 | 0o400000, 0o10000000 | 0o1102] {
                    assert_eq!(with(flags), Ok(RET_ALLOW), "{} {} {flags:o}", arch.name, c.name);
                }
            }
            for nr in [0, 1, arch.setns, arch.fcntl] {
                assert_eq!(run(&p, arch.audit, nr, [0; 6]), Ok(RET_ALLOW), "{} {nr}", arch.name);
            }
            // Without paths, an open that writes is not the supervisor's.
            assert_eq!(
                run(&watch_program(arch, false, false), arch.audit, arch.openat, [0, 0, 1, 0, 0, 0]),
                Ok(RET_ALLOW)
            );
        }
    }

    #[test]
    fn with_reads_every_open_goes_to_the_supervisor_but_one_that_only_names_a_path() {
        for arch in [X86_64, AARCH64] {
            let p = watch_program(arch, true, true);
            for c in arch.path_calls {
                let Flags::Arg(at) = c.flags else {
                    assert_eq!(run(&p, arch.audit, c.nr, [0; 6]), Ok(RET_USER_NOTIF), "{} {}", arch.name, c.name);
                    continue;
                };
                let with = |flags: u64| {
                    let mut args = [0u64; 6];
                    args[at as usize] = flags;
                    run(&p, arch.audit, c.nr, args)
                };
                for flags in [0, 0o200000 | 0o2000000, 0o400000, 0o1, 0o2, 0o100, 0o1000, 0o20200002] {
                    assert_eq!(with(flags), Ok(RET_USER_NOTIF), "{} {} {flags:o}", arch.name, c.name);
                }
                for flags in [0o10000000, 0o10200000 | 0o2000000, 0o10000000 | 0o1102] {
                    assert_eq!(with(flags), Ok(RET_ALLOW), "{} {} {flags:o}", arch.name, c.name);
                }
            }
            // `openat2` carries its flags in a structure the filter cannot read: every one goes.
            assert_eq!(run(&p, arch.audit, arch.openat2, [0; 6]), Ok(RET_USER_NOTIF), "{}", arch.name);
            for nr in arch.signals {
                assert_eq!(run(&p, arch.audit, nr, [0; 6]), Ok(RET_USER_NOTIF), "{} {nr}", arch.name);
            }
            for nr in [0, 1, arch.setns, arch.fcntl] {
                assert_eq!(run(&p, arch.audit, nr, [0; 6]), Ok(RET_ALLOW), "{} {nr}", arch.name);
            }
        }
    }

    const AF_INET: u64 = super::AF_INET as u64;
    const AF_INET6: u64 = super::AF_INET6 as u64;
    const AF_NETLINK: u64 = super::AF_NETLINK as u64;
    const AF_PACKET: u64 = 17;
    const AF_VSOCK: u64 = 40;
    const I386: u32 = 0x4000_0003;

    const ALL_RULES: [Rules; 16] = {
        let mut all = [Rules { sockets: false, keyring: false, new_code: false, enclosed_network: false }; 16];
        let mut i = 0;
        while i < 16 {
            all[i] =
                Rules { sockets: i & 1 != 0, keyring: i & 2 != 0, new_code: i & 4 != 0, enclosed_network: i & 8 != 0 };
            i += 1;
        }
        all
    };

    fn args(a: &[u64]) -> [u64; 6] {
        let mut out = [0u64; 6];
        out[..a.len()].copy_from_slice(a);
        out
    }

    /// What the filter must answer, written plainly from the module's documentation.
    fn spec(arch: Arch, rules: Rules, audit: u32, nr: u32, a: [u64; 6]) -> u32 {
        let low = |i: usize| a[i] as u32;
        let refuse = RET_ERRNO | EPERM;
        let verdict = |ok: bool| if ok { RET_ALLOW } else { refuse };
        if audit != arch.audit || arch.foreign_from.is_some_and(|from| nr >= from) {
            return RET_KILL_PROCESS;
        }
        let no_set_id = |i: usize| verdict(low(i) & 0o6000 == 0);
        let is = |n: Option<u32>| n == Some(nr);
        if nr == arch.ioctl {
            let namespace = rules.enclosed_network && low(1) == SIOCGSKNS;
            return verdict(![TIOCSTI, TIOCLINUX].contains(&low(1)) && !namespace);
        }
        if rules.enclosed_network && nr == arch.setns {
            return refuse;
        }
        if nr == arch.fcntl {
            return verdict(low(1) != 1024 || low(2) == 2);
        }
        if nr == arch.io_uring_setup || nr == arch.openat2 {
            return RET_ERRNO | ENOSYS;
        }
        if is(arch.chmod) || nr == arch.fchmod || is(arch.creat) || is(arch.mknod) {
            return no_set_id(1);
        }
        if nr == arch.fchmodat || nr == arch.fchmodat2 || is(arch.open) || nr == arch.mknodat {
            return no_set_id(2);
        }
        if nr == arch.openat {
            return no_set_id(3);
        }
        if nr == arch.prlimit64 {
            return verdict(low(0) == 0 || a[2] == 0);
        }
        if nr == arch.setpriority {
            return verdict(low(0) == 0 && low(1) == 0);
        }
        if [arch.sched_setparam, arch.sched_setaffinity, arch.migrate_pages, arch.move_pages].contains(&nr) {
            return verdict(low(0) == 0);
        }
        if nr == arch.sched_setscheduler {
            return verdict(low(0) == 0 && [0, 3, 5].contains(&(low(1) & !0x4000_0000)));
        }
        if nr == arch.sched_setattr || nr == arch.mount_setattr {
            return refuse;
        }
        if nr == arch.ioprio_set {
            return verdict(low(0) == 1 && low(1) == 0 && (low(2) >> 13) & 7 != 1);
        }
        if !rules.new_code && nr == arch.execveat {
            return verdict(low(4) & 0x1000 == 0);
        }
        if !rules.new_code && nr == arch.memfd_create {
            return if low(1) & 0x8 != 0 { RET_ALLOW } else { RET_ERRNO | EACCES };
        }
        if !rules.sockets && nr == arch.socket {
            return verdict(low(0) == AF_UNIX);
        }
        if rules.enclosed_network && nr == arch.socket {
            return verdict([AF_UNIX, super::AF_INET, super::AF_INET6, super::AF_NETLINK].contains(&low(0)));
        }
        if !rules.keyring && [arch.add_key, arch.request_key, arch.keyctl].contains(&nr) {
            return refuse;
        }
        RET_ALLOW
    }

    /// Arguments that reach every branch of every rule: each position takes values around
    /// the ones the rules compare with, and the high halves that must not matter (or must).
    fn argument_sets() -> Vec<[u64; 6]> {
        let values: [u64; 20] = [
            0,
            1,
            2,
            3,
            5,
            6,
            10,
            0o755,
            0o4755,
            0o2755,
            0x1000,
            0x0008,
            0x0010 | 0x0001,
            0x2000 | 4,
            0x4000_0001,
            (1 << 32) | 0x5412,
            1024,
            0x894C,
            40,
            16,
        ];
        let mut sets = vec![[0; 6]];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..600 {
            let mut s = [0u64; 6];
            for v in &mut s {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *v = values[(x % values.len() as u64) as usize];
            }
            sets.push(s);
        }
        // Each value alone in each position.
        for i in 0..6 {
            for v in values {
                let mut s = [0; 6];
                s[i] = v;
                sets.push(s);
            }
        }
        sets.push(args(&[0, 0, 1 << 32]));
        sets.push(args(&[7, 0, 1 << 32]));
        sets
    }

    #[test]
    fn every_number_gets_what_the_rules_say() {
        let sets = argument_sets();
        for arch in [X86_64, AARCH64] {
            for rules in ALL_RULES {
                let p = program(arch, rules).unwrap();
                let numbers = (0..470).chain((0x4000_0000..0x4000_0400).step_by(97)).chain([u32::MAX]);
                for nr in numbers {
                    let audits: &[u32] = if nr < 470 { &[arch.audit, I386] } else { &[arch.audit] };
                    for &audit in audits {
                        for a in &sets {
                            assert_eq!(
                                run(&p, audit, nr, *a).unwrap(),
                                spec(arch, rules, audit, nr, *a),
                                "{} {rules:?} audit={audit:#x} nr={nr} args={a:x?}",
                                arch.name
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_examples_of_each_rule() {
        let arch = X86_64;
        let off =
            program(arch, Rules { sockets: false, keyring: false, new_code: false, enclosed_network: false }).unwrap();
        let on =
            program(arch, Rules { sockets: true, keyring: true, new_code: true, enclosed_network: false }).unwrap();
        let enclosed =
            program(arch, Rules { sockets: true, keyring: true, new_code: true, enclosed_network: true }).unwrap();
        let go = |p: &[Insn], nr: u32, a: &[u64]| run(p, arch.audit, nr, args(a)).unwrap();
        let eperm = RET_ERRNO | EPERM;
        for p in [&off, &on] {
            // chmod u+s, g+s; a plain chmod; a file created setuid.
            assert_eq!(go(p, 90, &[0, 0o4755]), eperm);
            assert_eq!(go(p, 91, &[3, 0o2775]), eperm);
            assert_eq!(go(p, 268, &[0, 0, 0o6755]), eperm);
            assert_eq!(go(p, 452, &[0, 0, 0o4700, 0]), eperm);
            assert_eq!(go(p, 268, &[0, 0, 0o1777]), RET_ALLOW);
            assert_eq!(go(p, 90, &[0, 0o755]), RET_ALLOW);
            assert_eq!(go(p, 257, &[0, 0, 0o101, 0o4755]), eperm);
            assert_eq!(go(p, 257, &[0, 0, 0o101, 0o644]), RET_ALLOW);
            assert_eq!(go(p, 133, &[0, 0o104755, 0]), eperm);
            // Limits: the caller's own, set or read; another's only read.
            assert_eq!(go(p, 302, &[0, 7, 0x7ffd_0000, 0]), RET_ALLOW);
            assert_eq!(go(p, 302, &[1234, 7, 0, 0x7ffd_0000]), RET_ALLOW);
            assert_eq!(go(p, 302, &[1234, 7, 0x7ffd_0000, 0]), eperm);
            // nice: PRIO_PROCESS of the caller only.
            assert_eq!(go(p, 141, &[0, 0, 10]), RET_ALLOW);
            assert_eq!(go(p, 141, &[0, 1234, 10]), eperm);
            assert_eq!(go(p, 141, &[2, 0, 10]), eperm);
            // Scheduling: the caller, not real-time.
            assert_eq!(go(p, 144, &[0, 3, 0]), RET_ALLOW);
            assert_eq!(go(p, 144, &[0, 0x4000_0005, 0]), RET_ALLOW);
            assert_eq!(go(p, 144, &[0, 1, 0]), eperm);
            assert_eq!(go(p, 144, &[0, 0x4000_0002, 0]), eperm);
            assert_eq!(go(p, 144, &[0, 6, 0]), eperm);
            assert_eq!(go(p, 144, &[99, 0, 0]), eperm);
            assert_eq!(go(p, 203, &[0, 8, 0]), RET_ALLOW);
            assert_eq!(go(p, 203, &[99, 8, 0]), eperm);
            assert_eq!(go(p, 314, &[0, 0, 0]), eperm);
            assert_eq!(go(p, 251, &[1, 0, 0x4004]), RET_ALLOW);
            assert_eq!(go(p, 251, &[1, 0, 0x2004]), eperm);
            assert_eq!(go(p, 251, &[1, 99, 0x4004]), eperm);
            assert_eq!(go(p, 251, &[3, 0, 0x4004]), eperm);
            // The calls the filter cannot see into.
            assert_eq!(go(p, 425, &[]), RET_ERRNO | ENOSYS);
            assert_eq!(go(p, 437, &[]), RET_ERRNO | ENOSYS);
            // Leases: none taken, one given up; other fcntl commands as they are.
            assert_eq!(go(p, 72, &[3, 1024, 0]), eperm, "F_RDLCK lease");
            assert_eq!(go(p, 72, &[3, 1024, 1]), eperm, "F_WRLCK lease");
            assert_eq!(go(p, 72, &[3, 1024, 2]), RET_ALLOW, "F_UNLCK");
            assert_eq!(go(p, 72, &[3, 1025, 0]), RET_ALLOW, "F_GETLEASE");
            assert_eq!(go(p, 72, &[3, 2, 1]), RET_ALLOW, "F_SETFD");
            // Terminal input.
            assert_eq!(go(p, 16, &[0, u64::from(TIOCSTI)]), eperm);
            assert_eq!(go(p, 16, &[0, 0x5401]), RET_ALLOW);
        }
        // Without workspace execute: no execution by descriptor, no executable memory file.
        assert_eq!(go(&off, 322, &[3, 0, 0, 0, 0x1000]), eperm);
        assert_eq!(go(&off, 322, &[3, 0, 0, 0, 0x100]), RET_ALLOW);
        assert_eq!(go(&off, 319, &[0, 1]), RET_ERRNO | EACCES);
        assert_eq!(go(&off, 319, &[0, 0x10]), RET_ERRNO | EACCES);
        assert_eq!(go(&off, 319, &[0, 0x9]), RET_ALLOW);
        assert_eq!(go(&on, 322, &[3, 0, 0, 0, 0x1000]), RET_ALLOW);
        assert_eq!(go(&on, 319, &[0, 1]), RET_ALLOW);
        // Network off: AF_UNIX only; the high half of the argument is not the family.
        assert_eq!(go(&off, 41, &[1]), RET_ALLOW);
        for family in [AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, 0, 255, (1 << 32) | AF_INET] {
            assert_eq!(go(&off, 41, &[family]), eperm, "family {family}");
        }
        assert_eq!(go(&on, 41, &[AF_INET]), RET_ALLOW);
        assert_eq!(go(&on, 41, &[AF_VSOCK]), RET_ALLOW);
        // In a network namespace of its own: no way out of it, and no family it does not bound.
        for family in [AF_INET, AF_INET6, AF_NETLINK, u64::from(AF_UNIX)] {
            assert_eq!(go(&enclosed, 41, &[family]), RET_ALLOW, "{family}");
        }
        assert_eq!(go(&enclosed, 41, &[AF_VSOCK]), RET_ERRNO | EPERM);
        assert_eq!(go(&enclosed, 41, &[AF_PACKET]), RET_ERRNO | EPERM);
        assert_eq!(go(&enclosed, 308, &[3, 0x4000_0000]), RET_ERRNO | EPERM, "setns");
        assert_eq!(go(&on, 308, &[3, 0x4000_0000]), RET_ALLOW);
        assert_eq!(go(&enclosed, 16, &[0, u64::from(SIOCGSKNS)]), RET_ERRNO | EPERM);
        assert_eq!(go(&on, 16, &[0, u64::from(SIOCGSKNS)]), RET_ALLOW);
        assert_eq!(go(&off, 250, &[]), eperm);
        assert_eq!(go(&on, 250, &[]), RET_ALLOW);
        // Another architecture's calls end the process, whatever they are; so do x32 calls.
        for p in [&off, &on] {
            assert_eq!(run(p, I386, 102, args(&[1])).unwrap(), RET_KILL_PROCESS);
            assert_eq!(run(p, arch.audit, 0x4000_0000 | 41, args(&[1])).unwrap(), RET_KILL_PROCESS);
        }
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn the_numbers_are_this_kernels() {
        check_numbers(X86_64);
        let a = X86_64;
        for (ours, theirs) in [
            (a.chmod, libc::SYS_chmod),
            (a.open, libc::SYS_open),
            (a.creat, libc::SYS_creat),
            (a.mknod, libc::SYS_mknod),
        ] {
            assert_eq!(ours, Some(theirs as u32));
        }
        use libc::*;
        for c in a.path_calls {
            let theirs = match c.name {
                "open" => SYS_open,
                "openat" => SYS_openat,
                "openat2" => SYS_openat2,
                "creat" => SYS_creat,
                "mkdir" => SYS_mkdir,
                "mkdirat" => SYS_mkdirat,
                "mknod" => SYS_mknod,
                "mknodat" => SYS_mknodat,
                "unlink" => SYS_unlink,
                "unlinkat" => SYS_unlinkat,
                "rmdir" => SYS_rmdir,
                "rename" => SYS_rename,
                "renameat" => SYS_renameat,
                "renameat2" => SYS_renameat2,
                "link" => SYS_link,
                "linkat" => SYS_linkat,
                "symlink" => SYS_symlink,
                "symlinkat" => SYS_symlinkat,
                "truncate" => SYS_truncate,
                "execve" => SYS_execve,
                "execveat" => SYS_execveat,
                other => panic!("no number known for {other}"),
            };
            assert_eq!(c.nr, theirs as u32, "{}", c.name);
        }
    }

    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    #[test]
    fn the_numbers_are_this_kernels() {
        check_numbers(AARCH64);
    }

    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    fn check_numbers(a: Arch) {
        use libc::*;
        for (ours, theirs) in [
            (a.ioctl, SYS_ioctl),
            (a.fcntl, SYS_fcntl),
            (a.socket, SYS_socket),
            (a.io_uring_setup, SYS_io_uring_setup),
            (a.openat2, SYS_openat2),
            (a.add_key, SYS_add_key),
            (a.request_key, SYS_request_key),
            (a.keyctl, SYS_keyctl),
            (a.fchmod, SYS_fchmod),
            (a.fchmodat, SYS_fchmodat),
            (a.fchmodat2, 452),
            (a.openat, SYS_openat),
            (a.mknodat, SYS_mknodat),
            (a.prlimit64, SYS_prlimit64),
            (a.setpriority, SYS_setpriority),
            (a.sched_setparam, SYS_sched_setparam),
            (a.sched_setscheduler, SYS_sched_setscheduler),
            (a.sched_setaffinity, SYS_sched_setaffinity),
            (a.sched_setattr, SYS_sched_setattr),
            (a.mount_setattr, SYS_mount_setattr),
            (a.ioprio_set, SYS_ioprio_set),
            (a.migrate_pages, SYS_migrate_pages),
            (a.move_pages, SYS_move_pages),
            (a.execveat, SYS_execveat),
            (a.memfd_create, SYS_memfd_create),
            (a.setns, SYS_setns),
        ] {
            assert_eq!(i64::from(ours), theirs);
        }
    }

    #[test]
    fn numbers_are_decided_after_a_few_comparisons() {
        // The kernel runs the filter over every number when installing it: what counts is the
        // average over all of them (x86_64 has about 460), and the longest path to a number
        // without a rule.
        for arch in [X86_64, AARCH64] {
            for rules in ALL_RULES {
                let p = program(arch, rules).unwrap();
                let plain: std::collections::HashSet<u32> = rules_for(arch, rules).iter().map(|(nr, _)| *nr).collect();
                let steps: Vec<usize> = (0..463)
                    .filter(|nr| !plain.contains(nr))
                    .map(|nr| run_counting(&p, arch.audit, nr, [0; 6]).unwrap().1)
                    .collect();
                let average = steps.iter().sum::<usize>() as f64 / steps.len() as f64;
                let longest = steps.iter().max().copied().unwrap_or(0);
                // Three to load and check the architecture and load the number, then about
                // log2(runs) comparisons down to one run, its test, the x32 check and the
                // return. The enclosed network's `setns` rule splits one more run.
                assert!(average <= 10.25, "{} {rules:?}: {average}", arch.name);
                assert!(longest <= 12, "{} {rules:?}: {longest}", arch.name);
            }
        }
    }

    #[test]
    fn every_jump_lands_inside_the_program() {
        for arch in [X86_64, AARCH64] {
            for rules in ALL_RULES {
                let p = program(arch, rules).unwrap();
                for (i, insn) in p.iter().enumerate() {
                    if matches!(insn.code, JEQ_K | JGE_K | JSET_K) {
                        assert!(i + 1 + usize::from(insn.jt.max(insn.jf)) < p.len());
                    }
                }
                assert_eq!(p.last().map(|i| (i.code, i.k)), Some((RET_K, RET_ALLOW)));
            }
        }
    }
}
