//! Why the kernel layer could not lock this process: each step that can fail, with what the
//! kernel or the Landlock crate answered.

use std::fmt;
use std::io;

use super::seccomp::ProgramError;
#[cfg(target_os = "macos")]
use crate::mode::Mode;

/// Something that was set and is not in force when read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// no_new_privs.
    NoNewPrivs,
    /// The seccomp filter.
    Seccomp,
    /// The Landlock domain (the crate reports it partially enforced or not at all).
    Landlock,
    /// A capability that was dropped, by number.
    Capability(u8),
}

/// A failure of the kernel layer. Nothing is ever run after one: sandbox-bash exits with 125.
#[derive(Debug)]
pub enum Error {
    /// A rule's path could not be opened for want of descriptors or memory (a path that is not
    /// there only skips its rule).
    OpenRule { path: String, source: io::Error },
    /// The seccomp filter could not be built.
    SeccompProgram(ProgramError),
    /// The seccomp filter has more instructions than the kernel takes.
    FilterTooLong(usize),
    /// The Landlock ruleset could not be created.
    #[cfg(target_os = "linux")]
    Ruleset(landlock::RulesetError),
    /// One path's Landlock rule could not be added; `rights` in the mode's letters.
    #[cfg(target_os = "linux")]
    AddRule { path: String, rights: String, source: landlock::RulesetError },
    /// Landlock refused to restrict this process (other than at its layer limit).
    #[cfg(target_os = "linux")]
    Restrict(landlock::RulesetError),
    /// What must be done in the run's own view could not be.
    InView(String),
    /// Setting no_new_privs failed.
    NoNewPrivs(io::Error),
    /// Reading this thread's capability sets failed.
    ReadCapabilities(io::Error),
    /// Dropping a capability from the bounding set failed.
    BoundingSet { cap: u8, source: io::Error },
    /// Lowering the capability sets failed.
    DropCapabilities(io::Error),
    /// Installing the seccomp filter failed.
    Seccomp(io::Error),
    /// The namespace layer could not build its view.
    #[cfg(target_os = "linux")]
    Namespace(super::namespace::ViewError),
    /// A step reported success and its effect is not there.
    NotHeld(Held),
    /// The network namespace the allowlist's proxy needs cannot be had here (nothing was
    /// changed; the command gets no network instead).
    #[cfg(target_os = "linux")]
    NoNetworkNamespace(String),
    /// Seatbelt refused the profile, with its message.
    #[cfg(target_os = "macos")]
    Seatbelt(String),
    /// The Seatbelt profile contains a NUL byte.
    #[cfg(target_os = "macos")]
    ProfileNul,
    /// macOS takes one profile per process, and this one asks for more than the enclosing
    /// sandbox-bash enforces (or that is unknown).
    #[cfg(target_os = "macos")]
    AlreadySandboxed { requested: Mode, outer: Option<Mode> },
}

/// The system call error under a Landlock crate error, when there is one: its own message
/// wraps it in words of its own.
#[cfg(target_os = "linux")]
fn os_error(e: &landlock::RulesetError) -> Option<&io::Error> {
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<io::Error>() {
            return Some(io);
        }
        cause = c.source();
    }
    None
}

/// Writes `e` as the system call error under it, or as the crate says it when there is none.
#[cfg(target_os = "linux")]
fn landlock_cause(f: &mut fmt::Formatter<'_>, e: &landlock::RulesetError) -> fmt::Result {
    match os_error(e) {
        Some(io) => write!(f, "{io}"),
        None => write!(f, "{e}"),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OpenRule { path, source } => {
                write!(f, "cannot open {path} to add its rule: {source}")?;
                if matches!(source.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
                    write!(f, " (raise the limit of open files: ulimit -n)")?;
                }
                Ok(())
            }
            Error::SeccompProgram(e) => write!(f, "{e}"),
            Error::FilterTooLong(_) => write!(f, "the seccomp filter is too long"),
            #[cfg(target_os = "linux")]
            Error::Ruleset(e) => {
                write!(f, "cannot create the Landlock ruleset: ")?;
                landlock_cause(f, e)
            }
            #[cfg(target_os = "linux")]
            Error::AddRule { path, rights, source } => {
                write!(f, "cannot add the Landlock rule for {path} ({rights}): ")?;
                landlock_cause(f, source)
            }
            #[cfg(target_os = "linux")]
            Error::Restrict(e) => {
                write!(f, "cannot apply the Landlock rules: ")?;
                landlock_cause(f, e)
            }
            Error::InView(why) => write!(f, "the disk limit cannot be enforced: {why}"),
            Error::NoNewPrivs(e) => write!(f, "cannot set no_new_privs: {e}"),
            Error::ReadCapabilities(e) => write!(f, "cannot read the capabilities: {e}"),
            Error::BoundingSet { cap, source } => {
                write!(f, "cannot drop capability {cap} from the bounding set: {source}")
            }
            Error::DropCapabilities(e) => write!(f, "cannot drop capabilities: {e}"),
            Error::Seccomp(e) => write!(f, "cannot install the seccomp filter: {e}"),
            #[cfg(target_os = "linux")]
            Error::Namespace(why) => write!(f, "{why}"),
            Error::NotHeld(Held::NoNewPrivs) => write!(f, "no_new_privs is not set after setting it"),
            Error::NotHeld(Held::Seccomp) => write!(f, "the seccomp filter is not in force after installing it"),
            Error::NotHeld(Held::Landlock) => {
                write!(f, "the Landlock rules are not fully in force after applying them")
            }
            Error::NotHeld(Held::Capability(cap)) => write!(f, "capability {cap} is still held after dropping it"),
            #[cfg(target_os = "linux")]
            Error::NoNetworkNamespace(why) => write!(f, "no network namespace can be had here: {why}"),
            #[cfg(target_os = "macos")]
            Error::Seatbelt(message) => write!(f, "Seatbelt refused the profile: {message}"),
            #[cfg(target_os = "macos")]
            Error::ProfileNul => write!(f, "the profile contains a NUL byte"),
            #[cfg(target_os = "macos")]
            Error::AlreadySandboxed { requested, outer } => write!(
                f,
                "this process is already sandboxed and macOS takes no second profile; mode {requested} asks for \
                 more than the enclosing sandbox-bash enforces ({})",
                outer.map_or_else(|| "unknown".to_string(), |o| o.to_string())
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::OpenRule { source, .. }
            | Error::BoundingSet { source, .. }
            | Error::NoNewPrivs(source)
            | Error::ReadCapabilities(source)
            | Error::DropCapabilities(source)
            | Error::Seccomp(source) => Some(source),
            Error::SeccompProgram(e) => Some(e),
            #[cfg(target_os = "linux")]
            Error::Ruleset(e) | Error::Restrict(e) | Error::AddRule { source: e, .. } => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_failed_and_why() {
        let open = Error::OpenRule { path: "/srv/x".into(), source: io::Error::from_raw_os_error(libc::EMFILE) };
        let text = open.to_string();
        assert!(text.starts_with("cannot open /srv/x to add its rule: "), "{text}");
        assert!(text.ends_with(" (raise the limit of open files: ulimit -n)"), "{text}");
        let memory = Error::OpenRule { path: "/srv/x".into(), source: io::Error::from_raw_os_error(libc::ENOMEM) };
        assert!(!memory.to_string().contains("ulimit"));
        assert_eq!(Error::NotHeld(Held::Capability(21)).to_string(), "capability 21 is still held after dropping it");
        assert_eq!(
            Error::BoundingSet { cap: 8, source: io::Error::from_raw_os_error(libc::EPERM) }.to_string(),
            format!("cannot drop capability 8 from the bounding set: {}", io::Error::from_raw_os_error(libc::EPERM))
        );
        assert_eq!(
            Error::SeccompProgram(ProgramError::JumpTooLong).to_string(),
            "the seccomp filter has a jump longer than 255 instructions"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn landlock_errors_show_the_system_call_error() {
        use landlock::{Compatible, RulesetAttr, RulesetCreatedAttr, RulesetError};
        // The crate's errors are not built outside it: these come from calls that fail.
        let e = landlock::Ruleset::default()
            .set_compatibility(landlock::CompatLevel::HardRequirement)
            .create()
            .map(|_| ())
            .expect_err("a ruleset that handles nothing is refused");
        assert!(matches!(e, RulesetError::CreateRuleset(_)), "{e:?}");
        assert_eq!(Error::Ruleset(e).to_string(), "cannot create the Landlock ruleset: missing access");
        // Without Landlock the crate refuses in its own words; with it, the rule for a descriptor
        // that is no directory, with a directory right, is refused by the kernel or the crate.
        let ruleset = landlock::Ruleset::default().handle_access(landlock::AccessFs::ReadDir).and_then(|r| r.create());
        if let Ok(mut ruleset) = ruleset {
            let file = std::fs::File::open("/proc/self/exe").unwrap();
            let rule = landlock::PathBeneath::new(file, landlock::AccessFs::ReadDir)
                .set_compatibility(landlock::CompatLevel::HardRequirement);
            let e = (&mut ruleset).add_rule(rule).map(|_| ()).expect_err("directory rights on a file");
            let text = Error::AddRule { path: "/x".into(), rights: "l".into(), source: e }.to_string();
            assert!(text.starts_with("cannot add the Landlock rule for /x (l): "), "{text}");
        }
    }
}
