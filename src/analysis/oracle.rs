//! Asking the real bash whether it accepts a text the parser refused.
//!
//! `brush-parser` refuses some valid bash (idioms of autoconf scripts, rare quoting). Where it
//! does, bash itself decides: `bash -n` only reads and parses, it runs nothing, not even the
//! start-up files (`--norc --noprofile`, an empty environment). A text bash accepts is valid,
//! and the analysis goes on without the parts it cannot read; a text bash refuses would stop
//! with a syntax error after running what comes before it, so it stays refused.

use std::path::Path;
use std::process::{Command, Stdio};

/// Whether bash accepts `text`, as it would read a script (with `extglob`, which the parser
/// accepts too). A script that turns on POSIX mode is also read in it, and one that turns on
/// alias expansion is taken as valid (with `posix`, bash runs in POSIX mode from the start): `bash -n` defines no aliases, and bash parses each line
/// after the aliases before it are defined. `false` when bash cannot be asked.
pub fn bash_accepts(bash: &Path, text: &[u8], posix: bool) -> bool {
    let mentions = |word: &[u8]| text.windows(word.len()).any(|w| w == word);
    if mentions(b"expand_aliases") && mentions(b"alias ") {
        return true;
    }
    parses(bash, text, posix) || (!posix && mentions(b"posix") && parses(bash, text, true))
}

/// `bash -n` on `text`, in POSIX mode with `posix`.
fn parses(bash: &Path, text: &[u8], posix: bool) -> bool {
    // The text goes through a socket rather than a pipe: bash stops reading at the first error,
    // and a write to a pipe nobody reads any more would end this process with SIGPIPE (whose
    // disposition it keeps as it found it, for bash). A socket's write says so as an error.
    let Ok((ours, theirs)) = std::os::unix::net::UnixStream::pair() else { return false };
    let child = Command::new(bash)
        // bash takes long options only before the others.
        .args(if posix { &["--norc", "--noprofile", "--posix"][..] } else { &["--norc", "--noprofile"][..] })
        .args(["-O", "extglob", "-n"])
        .env_clear()
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    // bash reads as it parses, so the whole text is written before waiting; it stops reading
    // at the first error, and the write then fails, which means "refused" too.
    let written = send_all(&ours, text);
    drop(ours);
    let status = child.wait();
    written && status.is_ok_and(|s| s.success())
}

/// Writes all of `text` to `socket`, without the signal a closed reader would raise.
#[cfg(target_os = "linux")]
fn send_all(socket: &std::os::unix::net::UnixStream, mut text: &[u8]) -> bool {
    use nix::sys::socket::{MsgFlags, send};
    use std::os::fd::AsRawFd;
    while !text.is_empty() {
        match send(socket.as_raw_fd(), text, MsgFlags::MSG_NOSIGNAL) {
            Ok(0) => return false,
            Ok(n) => text = &text[n..],
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return false,
        }
    }
    true
}

/// Writes all of `text` to `socket`. (Elsewhere than Linux a reader that stops early still
/// raises SIGPIPE here: macOS has no `MSG_NOSIGNAL`, and its build is compiled, not run.)
#[cfg(not(target_os = "linux"))]
fn send_all(mut socket: &std::os::unix::net::UnixStream, text: &[u8]) -> bool {
    use std::io::Write;
    socket.write_all(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash_accepts_default(bash: &Path, text: &[u8]) -> bool {
        bash_accepts(bash, text, false)
    }

    fn bash() -> std::path::PathBuf {
        crate::exec::find_real_bash(None, std::env::var_os("PATH").as_deref()).expect("a real bash to ask")
    }

    #[test]
    fn bash_decides_what_is_valid() {
        let bash = bash();
        assert!(bash_accepts_default(&bash, b"echo hi\nif true; then :; fi\n"));
        assert!(bash_accepts_default(&bash, b"eval ac_env_${ac_var}_set=\\${${ac_var}+set}\n"));
        assert!(!bash_accepts_default(&bash, b"echo hi\nif true; then\n"));
        assert!(!bash_accepts_default(&bash, b"echo (\n"));
        // Valid in the mode the script turns on.
        assert!(bash_accepts_default(&bash, b"set -o posix\necho \"foo ${IFS+'bar} baz\"\n"));
        assert!(!bash_accepts_default(&bash, b"echo \"foo ${IFS+'bar} baz\"\n"));
        assert!(bash_accepts(&bash, b"echo \"foo ${IFS+'bar} baz\"\n", true));
        assert!(bash_accepts_default(&bash, b"shopt -s expand_aliases\nalias switch=case\nswitch x in x) :;; esac\n"));
        // Nothing runs: a command substitution in the text is only parsed.
        let marker = std::env::temp_dir().join(format!("sandbox-bash-oracle-{}", std::process::id()));
        let text = format!("touch {}\necho $(touch {})\n", marker.display(), marker.display());
        assert!(bash_accepts(&bash, text.as_bytes(), false));
        assert!(!marker.exists(), "bash -n ran a command");
    }
}
