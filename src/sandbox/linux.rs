//! Applying a [`Policy`] to this very process on Linux, right before `execve`: open every
//! path, set no_new_privs, drop capabilities, restrict with Landlock (filesystem, TCP and
//! scopes in one ruleset), install the seccomp filter, and check that each step holds.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope as LandlockScope,
};

use super::policy::{Policy, Rights};
use super::seccomp::{self, Insn};
use super::{Enforcement, Shortfall};

/// The Landlock ABI of the running kernel: `Err` with the reason when there is none.
pub fn landlock_abi() -> Result<i32, String> {
    // Debug builds only: tests pretend to run on an older kernel (0: none) to check that
    // sandbox-bash refuses. Release builds have no such switch.
    #[cfg(debug_assertions)]
    if let Some(v) = std::env::var_os("SANDBOX_BASH_TEST_LANDLOCK_ABI") {
        let pretend: i32 = v.to_string_lossy().parse().unwrap_or(0);
        if pretend < 1 {
            return Err("the kernel has no Landlock (pretended by SANDBOX_BASH_TEST_LANDLOCK_ABI)".into());
        }
        return Ok(pretend.min(real_landlock_abi()?));
    }
    real_landlock_abi()
}

fn real_landlock_abi() -> Result<i32, String> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call only returns the
    // ABI version (or an error); it touches no memory.
    let v = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<libc::c_void>(), 0usize, 1u32) };
    if v >= 1 {
        return Ok(v as i32);
    }
    let e = std::io::Error::last_os_error();
    Err(match e.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK)".into(),
        Some(libc::EOPNOTSUPP) => {
            "Landlock is built into the kernel but not enabled (add landlock to the lsm= boot parameter)".into()
        }
        _ => format!("Landlock is not usable: {e}"),
    })
}

/// The Landlock ABI that `policy` needs to be fully enforced: truncation rights (ABI 3)
/// whenever some scope may not write, TCP rules (ABI 4) when the network is off.
pub fn required_abi(policy: &Policy) -> (i32, &'static str) {
    if !policy.sockets {
        (4, "TCP bind and connect rules (ABI 4, Linux 6.7)")
    } else {
        (3, "the truncate right (ABI 3, Linux 6.2)")
    }
}

fn read_rights() -> BitFlags<AccessFs> {
    AccessFs::ReadFile | AccessFs::ReadDir
}

fn write_rights(abi: ABI) -> BitFlags<AccessFs> {
    // Connecting to unix sockets by path is left unhandled: it is the static layer's.
    AccessFs::from_write(abi) & !BitFlags::from(AccessFs::ResolveUnix)
}

fn landlock_rights(r: Rights, abi: ABI, directory: bool) -> BitFlags<AccessFs> {
    let mut a = BitFlags::empty();
    if r.contains(Rights::READ) {
        a |= read_rights();
    }
    if r.contains(Rights::LIST) {
        a |= AccessFs::ReadDir;
    }
    if r.contains(Rights::WRITE) {
        a |= write_rights(abi);
    }
    if r.contains(Rights::EXECUTE) {
        a |= AccessFs::Execute;
    }
    if directory { a } else { a & AccessFs::from_file(abi) }
}

/// Opens a rule's path without following a final symlink unless the rule says so. `None`
/// for paths that do not exist (or cannot be opened: a rule skipped never grants anything),
/// and for symlinks that must not be followed.
fn open_rule_path(path: &str, follow: bool) -> Option<(OwnedFd, bool)> {
    let c = CString::new(std::path::Path::new(path).as_os_str().as_bytes()).ok()?;
    let flags = libc::O_PATH | libc::O_CLOEXEC | if follow { 0 } else { libc::O_NOFOLLOW };
    // SAFETY: `c` is a valid NUL-terminated path; the returned descriptor is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), flags) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: an all-zero stat is a valid value to be overwritten by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return None;
    }
    match st.st_mode & libc::S_IFMT {
        libc::S_IFLNK => None,
        libc::S_IFDIR => Some((fd, true)),
        _ => Some((fd, false)),
    }
}

/// Everything that can be checked and prepared before the first irreversible step.
pub struct Prepared {
    abi: Option<i32>,
    ruleset: Option<landlock::RulesetCreated>,
    filter: Option<Vec<Insn>>,
    drop: Vec<u8>,
    shortfalls: Vec<Shortfall>,
}

/// What the kernel offers against what `policy` needs: the Landlock ABI, and everything it
/// cannot enforce.
pub fn shortfalls(policy: &Policy) -> (Option<i32>, Vec<Shortfall>) {
    let mut shortfalls = Vec::new();
    let abi = match landlock_abi() {
        Ok(v) => Some(v),
        Err(why) => {
            shortfalls.push(Shortfall { what: "filesystem and TCP rules (Landlock)".into(), why });
            None
        }
    };
    if let Some(v) = abi {
        let (needed, what) = required_abi(policy);
        if v < needed {
            shortfalls.push(Shortfall {
                what: what.into(),
                why: format!("the kernel offers Landlock ABI {v}, {needed} is needed"),
            });
        }
    }
    match seccomp::native() {
        None => shortfalls.push(Shortfall {
            what: "the seccomp filter".into(),
            why: format!("sandbox-bash has no system call table for {}", std::env::consts::ARCH),
        }),
        // SAFETY: PR_GET_SECCOMP takes integer arguments only.
        Some(_) if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 => shortfalls.push(Shortfall {
            what: "the seccomp filter".into(),
            why: format!("the kernel has no seccomp: {}", std::io::Error::last_os_error()),
        }),
        Some(_) => {}
    }
    (abi, shortfalls)
}

/// Checks what the kernel offers against what `policy` needs and opens every path. Nothing
/// is restricted yet.
pub fn prepare(policy: &Policy) -> Result<Prepared, String> {
    let (abi, shortfalls) = shortfalls(policy);
    let filter = seccomp::native()
        .filter(|_| !shortfalls.iter().any(|s| s.what == "the seccomp filter"))
        .map(|arch| seccomp::program(arch, seccomp::Rules { sockets: policy.sockets, keyring: policy.keyring }));
    let ruleset = match abi {
        Some(v) => {
            Some(build_ruleset(policy, ABI::from(v)).map_err(|e| format!("cannot build the Landlock rules: {e}"))?)
        }
        None => None,
    };
    Ok(Prepared { abi, ruleset, filter, drop: policy.drop_capabilities.iter().map(|c| c.number).collect(), shortfalls })
}

impl Prepared {
    /// What the kernel cannot enforce here.
    pub fn shortfalls(&self) -> &[Shortfall] {
        &self.shortfalls
    }

    /// The Landlock ABI, if there is Landlock.
    pub fn abi(&self) -> Option<i32> {
        self.abi
    }
}

fn build_ruleset(policy: &Policy, abi: ABI) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    let handled = read_rights() | write_rights(abi) | AccessFs::Execute;
    let handled = handled & AccessFs::from_all(abi);
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::BestEffort).handle_access(handled)?;
    if !policy.sockets {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    // Scoping came with ABI 6; older kernels go without it (--sandbox-info says so).
    if policy.scoped && abi >= ABI::V6 {
        ruleset = ruleset.scope(LandlockScope::AbstractUnixSocket | LandlockScope::Signal)?;
    }
    let mut created = ruleset.create()?;
    for rule in &policy.paths {
        let Some((fd, directory)) = open_rule_path(&rule.path, rule.follow) else { continue };
        let access = landlock_rights(rule.rights, abi, directory) & handled;
        if access.is_empty() {
            continue;
        }
        created = created.add_rule(PathBeneath::new(fd, access))?;
    }
    Ok(created)
}

/// The outcome of the irreversible steps.
pub enum Applied {
    /// Every step holds.
    Done(Enforcement),
    /// Landlock refused another layer (its limit is 16 nested domains); everything else holds.
    LayerLimit(Enforcement),
}

/// Applies the prepared rules to this process, in order: no_new_privs, capabilities,
/// Landlock, seccomp. Then reads back what holds. The process must be single-threaded.
pub fn apply(prepared: Prepared) -> Result<Applied, String> {
    let mut enforcement = Enforcement { landlock_abi: prepared.abi, ..Enforcement::default() };

    // SAFETY: PR_SET_NO_NEW_PRIVS takes integer arguments only.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("cannot set no_new_privs: {}", std::io::Error::last_os_error()));
    }
    drop_capabilities(&prepared.drop)?;

    let mut layer_limit = false;
    if let Some(ruleset) = prepared.ruleset {
        match ruleset.restrict_self() {
            Ok(status) => {
                enforcement.landlock = status.ruleset == RulesetStatus::FullyEnforced;
                if status.ruleset != RulesetStatus::FullyEnforced && prepared.shortfalls.is_empty() {
                    return Err(format!("Landlock enforces the rules only partly ({:?})", status.ruleset));
                }
                enforcement.landlock_partial = status.ruleset == RulesetStatus::PartiallyEnforced;
            }
            Err(landlock::RulesetError::RestrictSelf(landlock::RestrictSelfError::RestrictSelfCall {
                source, ..
            })) if source.raw_os_error() == Some(libc::E2BIG) => {
                layer_limit = true;
            }
            Err(e) => return Err(format!("cannot apply the Landlock rules: {e}")),
        }
    }
    if let Some(filter) = &prepared.filter {
        install_filter(filter)?;
    }

    // Read back what holds.
    // SAFETY: these prctl calls take integer arguments only.
    enforcement.no_new_privs = unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) } == 1;
    if !enforcement.no_new_privs {
        return Err("no_new_privs is not set after setting it".into());
    }
    // SAFETY: as above.
    enforcement.seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } == 2;
    if prepared.filter.is_some() && !enforcement.seccomp {
        return Err("the seccomp filter is not in force after installing it".into());
    }
    let caps = capabilities()?;
    for &cap in &prepared.drop {
        let bit = 1u64 << cap;
        if (caps.effective | caps.permitted | caps.inheritable) & bit != 0 {
            return Err(format!("capability {cap} is still held after dropping it"));
        }
    }
    enforcement.capabilities_dropped = prepared.drop.len();
    Ok(if layer_limit { Applied::LayerLimit(enforcement) } else { Applied::Done(enforcement) })
}

fn install_filter(filter: &[Insn]) -> Result<(), String> {
    #[repr(C)]
    struct SockFprog {
        len: libc::c_ushort,
        filter: *const Insn,
    }
    let len = libc::c_ushort::try_from(filter.len()).map_err(|_| "the seccomp filter is too long".to_string())?;
    let prog = SockFprog { len, filter: filter.as_ptr() };
    // SAFETY: `prog` points at `len` valid instructions laid out as struct sock_filter, alive
    // for the duration of the call; the kernel copies them.
    let rc = unsafe {
        libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER as libc::c_ulong, &prog as *const SockFprog, 0, 0)
    };
    if rc != 0 {
        return Err(format!("cannot install the seccomp filter: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// This thread's capability sets, 64 bits each.
pub struct CapSets {
    pub effective: u64,
    pub permitted: u64,
    pub inheritable: u64,
}

fn capabilities() -> Result<CapSets, String> {
    let mut header = CapHeader { version: CAPABILITY_VERSION_3, pid: 0 };
    let mut data = [CapData::default(); 2];
    // SAFETY: header and a two-element data array, as version 3 requires.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &mut header as *mut CapHeader, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(format!("cannot read the capabilities: {}", std::io::Error::last_os_error()));
    }
    let join = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    Ok(CapSets {
        effective: join(data[0].effective, data[1].effective),
        permitted: join(data[0].permitted, data[1].permitted),
        inheritable: join(data[0].inheritable, data[1].inheritable),
    })
}

/// Drops `caps` from the bounding and ambient sets and from the effective, permitted and
/// inheritable sets of this thread.
fn drop_capabilities(caps: &[u8]) -> Result<(), String> {
    if caps.is_empty() {
        return Ok(());
    }
    let now = capabilities()?;
    const CAP_SETPCAP: u64 = 1 << 8;
    for &cap in caps {
        // The bounding set bounds what any later exec can gain; changing it needs
        // CAP_SETPCAP. Without it, no_new_privs already stops every gain.
        if now.effective & CAP_SETPCAP != 0 {
            // SAFETY: integer arguments only.
            let rc = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, libc::c_ulong::from(cap), 0, 0, 0) };
            if rc != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
                return Err(format!(
                    "cannot drop capability {cap} from the bounding set: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
        // SAFETY: integer arguments only. EINVAL means the kernel does not know the
        // capability, so nobody holds it.
        let rc = unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_LOWER as libc::c_ulong,
                libc::c_ulong::from(cap),
                0,
                0,
            )
        };
        if rc != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
            return Err(format!("cannot lower ambient capability {cap}: {}", std::io::Error::last_os_error()));
        }
    }
    let mask: u64 = caps.iter().fold(0, |m, &c| m | (1u64 << c));
    let keep = |set: u64| set & !mask;
    let split = |set: u64| ((set & 0xffff_ffff) as u32, (set >> 32) as u32);
    let (e0, e1) = split(keep(now.effective));
    let (p0, p1) = split(keep(now.permitted));
    let (i0, i1) = split(keep(now.inheritable));
    let mut header = CapHeader { version: CAPABILITY_VERSION_3, pid: 0 };
    let data = [
        CapData { effective: e0, permitted: p0, inheritable: i0 },
        CapData { effective: e1, permitted: p1, inheritable: i1 },
    ];
    // SAFETY: header and a two-element data array, as version 3 requires; lowering sets is
    // always permitted.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut CapHeader, data.as_ptr()) };
    if rc != 0 {
        return Err(format!("cannot drop capabilities: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_is_read_file_and_read_dir_only() {
        let r = landlock_rights(Rights::READ, ABI::V7, true);
        assert_eq!(r, AccessFs::ReadFile | AccessFs::ReadDir);
        assert!(!r.contains(AccessFs::Execute));
    }

    #[test]
    fn write_is_the_write_class() {
        let w = landlock_rights(Rights::WRITE, ABI::V7, true);
        for a in [
            AccessFs::WriteFile,
            AccessFs::MakeReg,
            AccessFs::MakeDir,
            AccessFs::MakeSym,
            AccessFs::RemoveFile,
            AccessFs::RemoveDir,
            AccessFs::Refer,
            AccessFs::Truncate,
            AccessFs::IoctlDev,
        ] {
            assert!(w.contains(a), "{a:?}");
        }
        assert!(!w.contains(AccessFs::ReadFile) && !w.contains(AccessFs::Execute));
        assert!(!landlock_rights(Rights::WRITE, ABI::V2, true).contains(AccessFs::Truncate));
    }

    #[test]
    fn files_carry_file_rights_only() {
        let f = landlock_rights(Rights::ALL, ABI::V7, false);
        assert_eq!(f, AccessFs::from_file(ABI::V7) & landlock_rights(Rights::ALL, ABI::V7, true));
        assert!(!f.contains(AccessFs::ReadDir) && !f.contains(AccessFs::MakeReg));
        assert!(f.contains(AccessFs::Truncate) && f.contains(AccessFs::WriteFile));
    }
}
