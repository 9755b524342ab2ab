//! The seccomp filter as data: a classic BPF program built from the policy, which tests run
//! through a small interpreter. It refuses what Landlock does not cover: creating sockets of
//! any family but AF_UNIX when the network is off (this is what stops UDP, MPTCP, raw and
//! packet sockets, which Landlock's TCP rules miss), io_uring (which can create sockets
//! without the socket system call), the kernel keyring when system read is off, and, in every
//! mode, pushing input into a terminal (`TIOCSTI`, and `TIOCLINUX`, which can do the same on a
//! virtual console): typed into the caller's terminal, that input would run in the caller's
//! shell, outside the sandbox, once the command ends. System calls of another architecture
//! (32-bit or x32 on a 64-bit kernel) end the process: the filter could not check them by
//! number.

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
pub const JEQ_K: u16 = 0x15;
pub const JGE_K: u16 = 0x35;
pub const RET_K: u16 = 0x06;

pub const RET_ALLOW: u32 = 0x7fff_0000;
pub const RET_ERRNO: u32 = 0x0005_0000;
pub const RET_KILL_PROCESS: u32 = 0x8000_0000;

/// Offsets in `struct seccomp_data`.
pub const OFFSET_NR: u32 = 0;
pub const OFFSET_ARCH: u32 = 4;
/// The low 32 bits of the first argument (little-endian).
pub const OFFSET_ARG0: u32 = 16;
/// The low 32 bits of the second argument (the kernel reads an ioctl request as 32 bits).
pub const OFFSET_ARG1: u32 = 24;

/// ioctl requests that push input into a terminal.
pub const TIOCSTI: u32 = 0x5412;
pub const TIOCLINUX: u32 = 0x541C;

pub const AF_UNIX: u32 = 1;
const EPERM: u32 = 1;
const ENOSYS: u32 = 38;

/// System call numbers of one architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    pub name: &'static str,
    pub audit: u32,
    /// Numbers at or above this are another ABI on the same architecture (x32), if any.
    pub foreign_from: Option<u32>,
    pub ioctl: u32,
    pub socket: u32,
    pub io_uring_setup: u32,
    pub add_key: u32,
    pub request_key: u32,
    pub keyctl: u32,
}

pub const X86_64: Arch = Arch {
    name: "x86_64",
    audit: 0xC000_003E,
    foreign_from: Some(0x4000_0000),
    ioctl: 16,
    socket: 41,
    io_uring_setup: 425,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
};

pub const AARCH64: Arch = Arch {
    name: "aarch64",
    audit: 0xC000_00B7,
    foreign_from: None,
    ioctl: 29,
    socket: 198,
    io_uring_setup: 425,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
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

/// What the filter refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Sockets of every family may be created.
    pub sockets: bool,
    /// The kernel keyring may be used.
    pub keyring: bool,
}

fn stmt(code: u16, k: u32) -> Insn {
    Insn { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

/// What the filter does with one system call number (or a run of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    Errno(u32),
    UnixSocketsOnly,
    NoTerminalInput,
}

impl Rule {
    /// The instructions that decide a call with this rule (each path ends in a return).
    fn body(self) -> Vec<Insn> {
        match self {
            Rule::Errno(errno) => vec![stmt(RET_K, RET_ERRNO | errno)],
            Rule::UnixSocketsOnly => vec![
                stmt(LD_W_ABS, OFFSET_ARG0),
                jump(JEQ_K, AF_UNIX, 0, 1),
                stmt(RET_K, RET_ALLOW),
                stmt(RET_K, RET_ERRNO | EPERM),
            ],
            Rule::NoTerminalInput => vec![
                stmt(LD_W_ABS, OFFSET_ARG1),
                jump(JEQ_K, TIOCSTI, 2, 0),
                jump(JEQ_K, TIOCLINUX, 1, 0),
                stmt(RET_K, RET_ALLOW),
                stmt(RET_K, RET_ERRNO | EPERM),
            ],
        }
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
fn offset(n: usize) -> Result<u8, String> {
    u8::try_from(n).map_err(|_| "the seccomp filter has a jump longer than 255 instructions".to_string())
}

/// Builds the filter program for `arch`.
///
/// When it installs the filter, the kernel runs it over every system call number to learn
/// which ones are always allowed (those never run it again); the calls with a rule that reads
/// an argument (ioctl, socket) run it every time. So the numbers are found by a binary search
/// over the runs of numbers with a rule: a number leaves after three to six comparisons,
/// where testing the rules one after the other took up to seventeen. (Installing the filter
/// was a tenth of start-up.)
pub fn program(arch: Arch, rules: Rules) -> Result<Vec<Insn>, String> {
    // Whatever the mode: no input pushed into a terminal.
    let mut special: Vec<(u32, Rule)> = vec![(arch.ioctl, Rule::NoTerminalInput)];
    if !rules.sockets {
        // socket(family, …): AF_UNIX only; io_uring can open sockets on its own, and "not
        // supported" makes runtimes fall back.
        special.push((arch.socket, Rule::UnixSocketsOnly));
        special.push((arch.io_uring_setup, Rule::Errno(ENOSYS)));
    }
    if !rules.keyring {
        for nr in [arch.add_key, arch.request_key, arch.keyctl] {
            special.push((nr, Rule::Errno(EPERM)));
        }
    }
    special.sort_by_key(|(nr, _)| *nr);
    // Neighbours with the same rule make one run (the three keyring calls).
    let mut spans: Vec<Span> = Vec::new();
    for (nr, rule) in special {
        match spans.last_mut() {
            Some(s) if s.rule == rule && s.last.checked_add(1) == Some(nr) => s.last = nr,
            _ => spans.push(Span { first: nr, last: nr, rule }),
        }
    }
    let mut p = vec![
        stmt(LD_W_ABS, OFFSET_ARCH),
        jump(JEQ_K, arch.audit, 1, 0),
        stmt(RET_K, RET_KILL_PROCESS),
        stmt(LD_W_ABS, OFFSET_NR),
    ];
    p.extend(search(&spans, true, arch.foreign_from)?);
    Ok(p)
}

/// The instructions that decide a number lying between the spans before `spans` and those
/// after them; `top`: no span comes after, so another ABI's numbers (`foreign_from` and up)
/// can reach here.
fn search(spans: &[Span], top: bool, foreign_from: Option<u32>) -> Result<Vec<Insn>, String> {
    if spans.len() > 1 {
        // Numbers below the middle run go left, the rest right: a leaf tests one run.
        let (left, right) = spans.split_at(spans.len() / 2);
        let Some(split) = right.first().map(|s| s.first) else { return Err("empty half of the search".into()) };
        let left = search(left, false, foreign_from)?;
        let right = search(right, top, foreign_from)?;
        let mut p = vec![jump(JGE_K, split, offset(left.len())?, 0)];
        p.extend(left);
        p.extend(right);
        return Ok(p);
    }
    let mut p = Vec::new();
    for span in spans {
        let body = span.rule.body();
        if span.first == span.last {
            p.push(jump(JEQ_K, span.first, 0, offset(body.len())?));
        } else {
            // Below the run: on to the next; above it: past the body.
            p.push(jump(JGE_K, span.first, 0, offset(body.len() + 1)?));
            let above = span.last.checked_add(1).ok_or("a system call number at the top of the range")?;
            p.push(jump(JGE_K, above, offset(body.len())?, 0));
        }
        p.extend(body);
    }
    // Above every number with a rule: another ABI's numbers (x32) end the process.
    if let (true, Some(from)) = (top, foreign_from) {
        p.push(jump(JGE_K, from, 0, 1));
        p.push(stmt(RET_K, RET_KILL_PROCESS));
    }
    p.push(stmt(RET_K, RET_ALLOW));
    Ok(p)
}

/// Runs `program` on one system call the way the kernel would, returning the action. Only
/// the instructions [`program`] emits are understood; anything else is an error.
pub fn run(program: &[Insn], arch: u32, nr: u32, arg0: u64) -> Result<u32, String> {
    run_counting(program, arch, nr, [arg0, 0]).map(|(action, _)| action)
}

/// Like [`run`] with the first two arguments, and how many instructions ran.
pub fn run_counting(program: &[Insn], arch: u32, nr: u32, args: [u64; 2]) -> Result<(u32, usize), String> {
    let mut data = [0u8; 64];
    data[0..4].copy_from_slice(&nr.to_le_bytes());
    data[4..8].copy_from_slice(&arch.to_le_bytes());
    data[16..24].copy_from_slice(&args[0].to_le_bytes());
    data[24..32].copy_from_slice(&args[1].to_le_bytes());
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
            JEQ_K | JGE_K => {
                let taken = if insn.code == JEQ_K { a == insn.k } else { a >= insn.k };
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

    const AF_INET: u64 = 2;
    const AF_INET6: u64 = 10;
    const AF_NETLINK: u64 = 16;
    const AF_PACKET: u64 = 17;
    const I386: u32 = 0x4000_0003;

    fn check(arch: Arch) {
        let off = program(arch, Rules { sockets: false, keyring: false }).unwrap();
        let on = program(arch, Rules { sockets: true, keyring: true }).unwrap();
        let run = |p: &[Insn], nr: u32, arg: u64| run(p, arch.audit, nr, arg).unwrap();
        // Network off: AF_UNIX only.
        assert_eq!(run(&off, arch.socket, 1), RET_ALLOW);
        for family in [AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, 0, 255] {
            assert_eq!(run(&off, arch.socket, family), RET_ERRNO | EPERM, "family {family}");
        }
        // The high half of the argument is not the family: the kernel reads an int.
        assert_eq!(run(&off, arch.socket, (1 << 32) | AF_INET), RET_ERRNO | EPERM);
        assert_eq!(run(&off, arch.io_uring_setup, 0), RET_ERRNO | ENOSYS);
        assert_eq!(run(&off, arch.keyctl, 0), RET_ERRNO | EPERM);
        assert_eq!(run(&off, arch.add_key, 0), RET_ERRNO | EPERM);
        // Ordinary calls pass, network on or off.
        for nr in [0, 1, 2, 3, 59, 60, 231] {
            assert_eq!(run(&off, nr, 0), RET_ALLOW);
        }
        // Network on: every family; keyring on.
        assert_eq!(run(&on, arch.socket, AF_INET), RET_ALLOW);
        assert_eq!(run(&on, arch.io_uring_setup, 0), RET_ALLOW);
        assert_eq!(run(&on, arch.keyctl, 0), RET_ALLOW);
        // Another architecture's calls end the process, whatever they are.
        for p in [&off, &on] {
            assert_eq!(super::run(p, I386, 102, 1).unwrap(), RET_KILL_PROCESS);
            assert_eq!(super::run(p, I386, 359, AF_INET).unwrap(), RET_KILL_PROCESS);
        }
    }

    #[test]
    fn x86_64_filter() {
        check(X86_64);
        let off = program(X86_64, Rules { sockets: false, keyring: false }).unwrap();
        // x32 system calls (the same architecture, numbers with bit 30) are refused outright.
        assert_eq!(run(&off, X86_64.audit, 0x4000_0000 | 41, AF_INET).unwrap(), RET_KILL_PROCESS);
        assert_eq!(run(&off, X86_64.audit, 0x4000_0000 | 41, 1).unwrap(), RET_KILL_PROCESS);
    }

    #[test]
    fn aarch64_filter() {
        check(AARCH64);
    }

    /// What the filter must answer, written plainly.
    fn spec(arch: Arch, rules: Rules, audit: u32, nr: u32, args: [u64; 2]) -> u32 {
        let arg0 = args[0];
        if audit != arch.audit || arch.foreign_from.is_some_and(|from| nr >= from) {
            return RET_KILL_PROCESS;
        }
        if nr == arch.ioctl && [TIOCSTI, TIOCLINUX].contains(&(args[1] as u32)) {
            return RET_ERRNO | EPERM;
        }
        if !rules.sockets && nr == arch.socket {
            return if arg0 as u32 == AF_UNIX { RET_ALLOW } else { RET_ERRNO | EPERM };
        }
        if !rules.sockets && nr == arch.io_uring_setup {
            return RET_ERRNO | ENOSYS;
        }
        if !rules.keyring && [arch.add_key, arch.request_key, arch.keyctl].contains(&nr) {
            return RET_ERRNO | EPERM;
        }
        RET_ALLOW
    }

    #[test]
    fn every_number_gets_what_the_rules_say() {
        for arch in [X86_64, AARCH64] {
            for sockets in [false, true] {
                for keyring in [false, true] {
                    let rules = Rules { sockets, keyring };
                    let p = program(arch, rules).unwrap();
                    let numbers = (0..1100).chain((0x4000_0000..0x4000_0400).step_by(7)).chain([u32::MAX]);
                    for nr in numbers {
                        for arg0 in [0, 1, 2, 10, (1 << 32) | 2, (1 << 32) | 1] {
                            for arg1 in [0, 0x5401, u64::from(TIOCSTI), u64::from(TIOCLINUX), (1 << 32) | 0x5412] {
                                for audit in [arch.audit, I386, 0x4000_0028] {
                                    let args = [arg0, arg1];
                                    assert_eq!(
                                        run_counting(&p, audit, nr, args).unwrap().0,
                                        spec(arch, rules, audit, nr, args),
                                        "{} sockets={sockets} keyring={keyring} audit={audit:#x} nr={nr} args={args:x?}",
                                        arch.name
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_are_decided_after_a_few_comparisons() {
        // The kernel runs the filter over every number when installing it: what counts is the
        // average over all of them (x86_64 has about 460), and the longest path.
        for arch in [X86_64, AARCH64] {
            for sockets in [false, true] {
                for keyring in [false, true] {
                    let p = program(arch, Rules { sockets, keyring }).unwrap();
                    let steps: Vec<usize> =
                        (0..463).map(|nr| run_counting(&p, arch.audit, nr, [0, 0]).unwrap().1).collect();
                    let average = steps.iter().sum::<usize>() as f64 / steps.len() as f64;
                    let longest = steps.iter().max().copied().unwrap_or(0);
                    // Three to load and check the architecture and load the number, then at
                    // most three comparisons down to one run, two to test it, the x32 check
                    // and the return.
                    assert!(average <= 7.5, "{} sockets={sockets} keyring={keyring}: {average}", arch.name);
                    assert!(longest <= 10, "{} sockets={sockets} keyring={keyring}: {longest}", arch.name);
                }
            }
        }
    }

    #[test]
    fn every_jump_lands_inside_the_program() {
        for sockets in [false, true] {
            for keyring in [false, true] {
                let p = program(X86_64, Rules { sockets, keyring }).unwrap();
                for (i, insn) in p.iter().enumerate() {
                    if insn.code == JEQ_K || insn.code == JGE_K {
                        assert!(i + 1 + usize::from(insn.jt.max(insn.jf)) < p.len());
                    }
                }
                assert_eq!(p.last().map(|i| (i.code, i.k)), Some((RET_K, RET_ALLOW)));
            }
        }
    }
}
