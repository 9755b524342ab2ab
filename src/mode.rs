//! The four-scope rwx mode: parsing `BASH_AGENT_BASH_MODE`, formatting, presets.

use std::fmt;

/// The environment variable that holds the allowed mode.
pub const MODE_VAR: &str = "BASH_AGENT_BASH_MODE";

/// The mode used when the variable is unset: workspace rwx, network rw, external r.
pub const DEFAULT_MODE: Mode = Mode(0o0467);

/// One of the four scopes, in the order of the mode's digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Scope {
    System,
    External,
    Network,
    Workspace,
}

impl Scope {
    /// All scopes in digit order.
    pub const ALL: [Scope; 4] = [Scope::System, Scope::External, Scope::Network, Scope::Workspace];

    /// The lower-case name used in messages and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Scope::System => "system",
            Scope::External => "external",
            Scope::Network => "network",
            Scope::Workspace => "workspace",
        }
    }

    const fn shift(self) -> u32 {
        match self {
            Scope::System => 9,
            Scope::External => 6,
            Scope::Network => 3,
            Scope::Workspace => 0,
        }
    }
}

/// One permission bit within a scope's digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Perm {
    Read,
    Write,
    Execute,
}

impl Perm {
    /// All permissions in digit order.
    pub const ALL: [Perm; 3] = [Perm::Read, Perm::Write, Perm::Execute];

    /// The one-letter form used in JSON (`r`, `w`, `x`).
    pub fn letter(self) -> &'static str {
        match self {
            Perm::Read => "r",
            Perm::Write => "w",
            Perm::Execute => "x",
        }
    }

    /// The word used in messages.
    pub fn word(self) -> &'static str {
        match self {
            Perm::Read => "read",
            Perm::Write => "write",
            Perm::Execute => "execute",
        }
    }

    fn bit(self) -> u16 {
        match self {
            Perm::Read => 4,
            Perm::Write => 2,
            Perm::Execute => 1,
        }
    }
}

/// A four-digit octal mode: system, external, network, workspace; each digit rwx.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Mode(pub u16);

/// The named presets and the digits they stand for.
pub const PRESETS: [(&str, Mode); 3] =
    [("read-only", Mode(0o0444)), ("workspace-write", Mode(0o0467)), ("full", Mode::ALL)];

/// Why a mode string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeError {
    pub value: String,
}

impl fmt::Display for ModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {MODE_VAR}={:?}: expected exactly four octal digits (system, external, network, workspace; \
             each 4=read + 2=write + 1=execute, e.g. 0467) or a preset (read-only, workspace-write, full)",
            self.value
        )
    }
}

impl Mode {
    /// The mode with no bits at all.
    pub const NONE: Mode = Mode(0);

    /// The mode with every bit.
    pub const ALL: Mode = Mode(0o7777);

    /// The single bit for `perm` in `scope`.
    pub fn bit(scope: Scope, perm: Perm) -> Mode {
        Mode(perm.bit() << scope.shift())
    }

    /// Parses the variable's value: exactly four octal digits, or a preset name.
    pub fn parse(value: &str) -> Result<Mode, ModeError> {
        if let Some((_, mode)) = PRESETS.iter().find(|(name, _)| *name == value) {
            return Ok(*mode);
        }
        let bytes = value.as_bytes();
        if bytes.len() != 4 || !bytes.iter().all(|b| (b'0'..=b'7').contains(b)) {
            return Err(ModeError { value: value.to_string() });
        }
        let mut bits = 0u16;
        for b in bytes {
            bits = (bits << 3) | u16::from(b - b'0');
        }
        Ok(Mode(bits))
    }

    /// Reads the mode from the value of the environment variable (`None` = unset).
    pub fn from_env_value(value: Option<&std::ffi::OsStr>) -> Result<Mode, ModeError> {
        match value {
            None => Ok(DEFAULT_MODE),
            Some(raw) => match raw.to_str() {
                Some(text) => Mode::parse(text),
                None => Err(ModeError { value: raw.to_string_lossy().into_owned() }),
            },
        }
    }

    /// Whether every bit of `other` is also in `self`.
    pub fn covers(self, other: Mode) -> bool {
        other.0 & !self.0 == 0
    }

    /// The bits of `self` that `allowed` lacks.
    pub fn missing_from(self, allowed: Mode) -> Mode {
        Mode(self.0 & !allowed.0)
    }

    /// Whether `perm` in `scope` is set.
    pub fn has(self, scope: Scope, perm: Perm) -> bool {
        self.0 & Mode::bit(scope, perm).0 != 0
    }

    /// Union of two modes.
    pub fn union(self, other: Mode) -> Mode {
        Mode(self.0 | other.0)
    }

    /// The bits both modes have: a mode narrowed by another (an enclosing level's, a ceiling).
    pub const fn intersect(self, other: Mode) -> Mode {
        Mode(self.0 & other.0)
    }

    /// The bits of `self` without those of `other`.
    pub const fn without(self, other: Mode) -> Mode {
        Mode(self.0 & !other.0)
    }

    /// Every bit of `scope` (its read, write and execute).
    pub const fn scope(scope: Scope) -> Mode {
        Mode(0o7 << scope.shift())
    }

    /// The preset name for exactly this mode, if there is one.
    pub fn preset_name(self) -> Option<&'static str> {
        PRESETS.iter().find(|(_, m)| *m == self).map(|(n, _)| *n)
    }

    /// The four digits, plus the preset name in parentheses when there is one.
    pub fn describe(self) -> String {
        match self.preset_name() {
            Some(name) => format!("{self} ({name})"),
            None => self.to_string(),
        }
    }

    /// Every (scope, perm) bit set in this mode, in digit order.
    pub fn bits(self) -> impl Iterator<Item = (Scope, Perm)> {
        Scope::ALL
            .into_iter()
            .flat_map(|s| Perm::ALL.into_iter().map(move |p| (s, p)))
            .filter(move |(s, p)| self.has(*s, *p))
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04o}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_digits_and_presets() {
        assert_eq!(Mode::parse("0467"), Ok(Mode(0o467)));
        assert_eq!(Mode::parse("7777"), Ok(Mode(0o7777)));
        assert_eq!(Mode::parse("0000"), Ok(Mode(0)));
        assert_eq!(Mode::parse("read-only"), Ok(Mode(0o444)));
        assert_eq!(Mode::parse("workspace-write"), Ok(Mode(0o467)));
        assert_eq!(Mode::parse("full"), Ok(Mode(0o7777)));
    }

    #[test]
    fn rejects_everything_else() {
        for bad in ["", "467", "04670", "0468", "08", " 467", "0467 ", "+467", "Full", "0x1f", "٠٤٦٧"] {
            assert!(Mode::parse(bad).is_err(), "{bad:?} must be rejected");
        }
        let message = Mode::parse("8").unwrap_err().to_string();
        assert!(message.contains("BASH_AGENT_BASH_MODE"));
        assert!(message.contains("\"8\""));
        assert!(message.contains("four octal digits"));
    }

    #[test]
    fn unset_is_the_default() {
        assert_eq!(Mode::from_env_value(None), Ok(Mode(0o467)));
    }

    #[test]
    fn bits_and_cover() {
        assert_eq!(Mode::bit(Scope::System, Perm::Read), Mode(0o4000));
        assert_eq!(Mode::bit(Scope::Workspace, Perm::Execute), Mode(0o0001));
        assert_eq!(Mode::bit(Scope::Network, Perm::Write), Mode(0o0020));
        assert!(Mode(0o467).covers(Mode(0o0004)));
        assert!(!Mode(0o467).covers(Mode(0o4004)));
        assert_eq!(Mode(0o4004).missing_from(Mode(0o467)), Mode(0o4000));
        assert_eq!(Mode(0o444).describe(), "0444 (read-only)");
        assert_eq!(Mode(0o4004).to_string(), "4004");
        let bits: Vec<_> = Mode(0o4001).bits().collect();
        assert_eq!(bits, vec![(Scope::System, Perm::Read), (Scope::Workspace, Perm::Execute)]);
    }
}
