//! What one invocation comes to when it does not exec bash, its exit status and what it prints.

use std::io::Write;

use crate::error::Error;
use crate::report::{self, Decision};

/// What one invocation comes to when it does not exec bash.
#[derive(Debug)]
pub enum Outcome {
    /// Text for standard output: help, version, `--sandbox-info`.
    Print(String),
    /// `--sandbox-explain`: the explanation, and the status of its verdict.
    Explain(String, i32),
    /// Denied by policy: the denial (one line per missing bit), with a note when the
    /// administrator's ceiling took away a bit the mode asked for, or what became of the
    /// program's request for more access.
    Deny(Box<Decision>, Option<String>),
    /// bash itself fails before running anything: its message and status.
    BashFails(String, i32),
    /// sandbox-bash cannot run the command safely.
    Refuse(Error),
    /// A tool of sandbox-bash's own ran to its end (`--sandbox-connect`): its status.
    Exit(i32),
}

impl Outcome {
    /// The one mapping from outcome to exit status.
    pub fn exit_status(&self) -> i32 {
        match self {
            Outcome::Print(_) => 0,
            // What the run would exit with.
            Outcome::Explain(_, status) => *status,
            Outcome::Deny(..) => report::DENIED,
            Outcome::Refuse(_) => report::REFUSED,
            Outcome::BashFails(_, status) | Outcome::Exit(status) => *status,
        }
    }

    /// Writes what the outcome says: the text on standard output, the rest on standard error.
    pub(crate) fn print(&self) -> Result<(), Error> {
        let mut stderr = std::io::stderr();
        match self {
            Outcome::Print(text) | Outcome::Explain(text, _) => write_stdout(text)?,
            Outcome::Deny(decision, ceiling) => {
                // A program denied for its request alone has no denial lines of its own.
                if decision.verdict != crate::report::Verdict::Allow {
                    let _ = stderr.write_all(decision.denial_message().as_bytes());
                }
                if let Some(note) = ceiling {
                    let _ = writeln!(stderr, "sandbox-bash: denied: {note}");
                }
            }
            Outcome::BashFails(message, _) => {
                let _ = stderr.write_all(message.as_bytes());
            }
            Outcome::Refuse(e) => {
                let _ = writeln!(stderr, "sandbox-bash: error: {e}");
            }
            Outcome::Exit(_) => {}
        }
        Ok(())
    }
}

/// Writes our own output; a reader that went away is not an error.
pub(crate) fn write_stdout(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
        _ => Ok(()),
    }
}
