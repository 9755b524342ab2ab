//! The enforcement marker: what a level tells the levels it starts about the rules it holds,
//! in [`super::ENFORCED_VAR`] (`MODE[+ns][+net=FINGERPRINTS]:WORKSPACE`). It is read once, by
//! the settings of a run, and written once, into the command's environment.
//!
//! A command may change it; nothing it says widens anything. A mode that is not one reads as
//! the most restrictive mode. The namespace mark is read only by a level that finds itself
//! unable to mount (inside the enclosing Landlock domain), the network mark only by a nested
//! level whose namespace in fact has nothing but loopback, and the workspace only as where a
//! nested level works: the enclosing level's kernel rules bind whatever it says.

use std::ffi::{OsStr, OsString};

use crate::mode::Mode;

/// What the mode part carries when the level holds the namespace layer.
const NAMESPACE_MARK: &str = "ns";

/// What the mode part carries, before the allowlist's fingerprints, when the level holds the
/// network by host.
const NETWORK_MARK: &str = "net=";

/// What the mode part carries, before the limits' exact text, when limits hold the level.
const LIMITS_MARK: &str = "lim=";

/// One marker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marker {
    /// The mode the level enforces.
    pub mode: Mode,
    /// It holds the namespace layer (or an enclosing one does).
    pub namespaces: bool,
    /// The fingerprints of the allowlists its proxy holds (dot-separated), when it holds one.
    pub network: Option<String>,
    /// The workspace it works in.
    pub workspace: Option<OsString>,
    /// The resource limits that hold it (its own and the enclosing levels').
    pub limits: crate::limits::Limits,
}

impl Marker {
    /// Reads a marker's value.
    pub fn parse(value: &OsStr) -> Marker {
        let value = value.to_string_lossy();
        let (head, workspace) = match value.split_once(':') {
            Some((head, w)) => (head, Some(w).filter(|w| !w.is_empty()).map(OsString::from)),
            None => (&*value, None),
        };
        let mut parts = head.split('+');
        let mode = Mode::parse(parts.next().unwrap_or_default()).unwrap_or(Mode::NONE);
        let (mut namespaces, mut network, mut limits) = (false, None, crate::limits::Limits::NONE);
        for mark in parts {
            if mark == NAMESPACE_MARK {
                namespaces = true;
            } else if let Some(fp) = mark.strip_prefix(NETWORK_MARK) {
                network = Some(fp.to_string());
            } else if let Some(text) = mark.strip_prefix(LIMITS_MARK) {
                // Limits that do not read are none held: a level then enforces its own.
                limits = crate::limits::Limits::parse(text).unwrap_or_default();
            }
        }
        Marker { mode, namespaces, network, workspace, limits }
    }

    /// The enclosing level's marker, from the environment (none: this level is the outermost).
    pub fn of(env: &crate::environ::Environ) -> Option<Marker> {
        env.get(super::ENFORCED_VAR).map(Marker::parse)
    }

    /// The marker's value, as the command's environment gets it.
    pub fn value(&self) -> OsString {
        let mut out = OsString::from(self.mode.to_string());
        if self.namespaces {
            out.push(format!("+{NAMESPACE_MARK}"));
        }
        if let Some(fp) = &self.network {
            out.push(format!("+{NETWORK_MARK}{fp}"));
        }
        if !self.limits.is_empty() {
            out.push(format!("+{LIMITS_MARK}{}", self.limits.exact()));
        }
        out.push(":");
        if let Some(w) = &self.workspace {
            out.push(w);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_reads_back_as_it_was_written() {
        let plain = Marker { mode: Mode(0o0467), workspace: Some("/srv/a:b".into()), ..Marker::default() };
        let marked =
            Marker { mode: Mode(0o0444), namespaces: true, workspace: Some("/srv/a+ns:b".into()), ..Marker::default() };
        let net = Marker {
            mode: Mode(0o0467),
            namespaces: true,
            network: Some("0123abcd.4567".into()),
            workspace: Some("/srv/a+net=x:b".into()),
            limits: crate::limits::Limits::NONE,
        };
        let limited = Marker { limits: crate::limits::Limits::parse("memory=2G,wall=90s").unwrap(), ..net.clone() };
        for m in [plain, marked, net, limited] {
            assert_eq!(Marker::parse(&m.value()), m);
        }
        assert_eq!(Marker::parse(OsStr::new("0467+ns+net=ab:/w")).value(), OsStr::new("0467+ns+net=ab:/w"));
    }

    #[test]
    fn a_marker_that_is_not_one_reads_as_the_most_restrictive() {
        assert_eq!(Marker::parse(OsStr::new("0444")), Marker { mode: Mode(0o0444), ..Marker::default() });
        assert_eq!(Marker::parse(OsStr::new("garbage")).mode, Mode::NONE);
        assert_eq!(Marker::parse(OsStr::new("")).mode, Mode::NONE);
        assert_eq!(Marker::parse(OsStr::new("7777+root:/")).mode, Mode(0o7777));
        assert!(!Marker::parse(OsStr::new("7777+root:/")).namespaces);
    }
}
