//! Everything that makes sandbox-bash refuse to run a command on its own account (status 125).

use std::fmt;
use std::path::PathBuf;

use crate::mode::{Mode, ModeError};
use crate::sandbox::{self, DEGRADED_VAR, Shortfall};

/// An error of sandbox-bash itself, never of the command it runs.
#[derive(Debug)]
pub enum Error {
    /// `BASH_AGENT_BASH_MODE` is not a valid mode.
    Mode(ModeError),
    /// sandbox-bash's own `--sandbox-*` options are wrong.
    Options(String),
    /// The current directory cannot be determined.
    Cwd(std::io::Error),
    /// The workspace root is not acceptable.
    Workspace { path: String, why: String },
    /// No real bash was found.
    RealBashNotFound { tried: Vec<PathBuf> },
    /// `SANDBOX_BASH_REAL_BASH` names something unusable.
    RealBash { path: PathBuf, why: String, setting: crate::exec::Setting },
    /// `execve` of the real bash failed.
    Exec { path: PathBuf, source: std::io::Error },
    /// Writing the explanation failed.
    Output(std::io::Error),
    /// The script file changed between the analysis and bash reading it.
    ScriptChanged(String),
    /// The program cannot be run safely, for the reason given.
    Refused(String),
    /// A setting is invalid.
    Config(String),
    /// The audit record could not be written (the command does not run without it).
    Audit(String),
    /// The kernel cannot enforce what the mode needs.
    Unenforceable { mode: Mode, shortfalls: Vec<Shortfall> },
    /// Applying the kernel rules failed.
    Sandbox { mode: Mode, why: sandbox::Error },
    /// The system file requires the namespace layer and the kernel gives none here.
    NamespacesRequired(String),
    /// Landlock cannot add another layer, and the inner invocation asks for more than the
    /// outer one enforces.
    LayerLimit { requested: Mode, outer: Option<Mode> },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Mode(e) => write!(f, "{e}"),
            Error::Options(message) => write!(f, "{message}"),
            Error::Cwd(e) => write!(f, "cannot determine the current directory: {e}"),
            Error::Workspace { path, why } => write!(
                f,
                "the workspace root {path:?} is not acceptable: {why}; set SANDBOX_BASH_WORKSPACE to the project directory"
            ),
            Error::RealBashNotFound { tried } => {
                let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "cannot find the real bash (looked at {}); install bash, or name it with real_bash in the \
                     configuration or with SANDBOX_BASH_REAL_BASH",
                    tried.join(", ")
                )
            }
            Error::RealBash { path, why, setting: crate::exec::Setting::Variable } => {
                write!(f, "SANDBOX_BASH_REAL_BASH={}: {why}", path.display())
            }
            Error::RealBash { path, why, setting: crate::exec::Setting::Config } => {
                write!(f, "the configuration's real_bash = {:?}: {why}", path.display().to_string())
            }
            Error::Exec { path, source } => write!(f, "cannot execute the real bash {}: {source}", path.display()),
            Error::Output(e) => write!(f, "cannot write to standard output: {e}"),
            Error::Refused(why) => write!(f, "{why}"),
            Error::Config(message) => write!(f, "{message}"),
            Error::Audit(message) => write!(f, "{message}; the command does not run without its audit record"),
            Error::Unenforceable { mode, shortfalls } => {
                let missing: Vec<String> = shortfalls.iter().map(|s| format!("{} ({})", s.what, s.why)).collect();
                write!(
                    f,
                    "the kernel cannot enforce mode {mode} here: {}. Run on Linux 6.7 or later with Landlock \
                     enabled (landlock in the lsm= boot parameter) and seccomp, or set {DEGRADED_VAR}=1 to run with \
                     only what can be enforced",
                    missing.join("; ")
                )
            }
            Error::NamespacesRequired(why) => write!(
                f,
                "the system file requires the namespace layer (require_namespaces = true in {}), and it cannot be \
                 had here: {why}",
                crate::config::SYSTEM_FILE
            ),
            Error::Sandbox { mode, why } => write!(f, "cannot apply the kernel sandbox for mode {mode}: {why}"),
            Error::LayerLimit { requested, outer } => match outer {
                Some(outer) => write!(
                    f,
                    "Landlock cannot nest another sandbox here (its limit is 16 layers), and mode {requested} asks \
                     for more than the enclosing sandbox-bash enforces ({outer}); ask for {outer} or less"
                ),
                None => write!(
                    f,
                    "Landlock cannot nest another sandbox here (its limit is 16 layers), and the mode the enclosing \
                     sandbox-bash enforces is unknown"
                ),
            },
            Error::ScriptChanged(path) => {
                write!(f, "the script {path} changed while it was analysed; run it again")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Sandbox { why, .. } => Some(why),
            _ => None,
        }
    }
}
