//! Asking the real bash whether it accepts a text the parser refused.
//!
//! `brush-parser` refuses some valid bash (idioms of autoconf scripts, rare quoting). Where it
//! does, bash itself decides: `bash -n` only reads and parses, it runs nothing, not even the
//! start-up files (`--norc --noprofile`, an empty environment). A text bash accepts is valid,
//! and the analysis goes on without the parts it cannot read; a text bash refuses would stop
//! with a syntax error after running what comes before it, so it stays refused.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Whether `bash -n` accepts `text`, as bash would read a script (with `extglob`, which the
/// parser accepts too). `false` when bash cannot be asked.
pub fn bash_accepts(bash: &Path, text: &[u8]) -> bool {
    let child = Command::new(bash)
        .args(["--norc", "--noprofile", "-O", "extglob", "-n"])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    // bash reads as it parses, so the whole text is written before waiting; it stops reading
    // at the first error, and the write then fails, which means "refused" too.
    let written = child.stdin.take().is_some_and(|mut stdin| stdin.write_all(text).is_ok());
    let status = child.wait();
    written && status.is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash() -> std::path::PathBuf {
        crate::exec::find_real_bash(None, std::env::var_os("PATH").as_deref()).expect("a real bash to ask")
    }

    #[test]
    fn bash_decides_what_is_valid() {
        let bash = bash();
        assert!(bash_accepts(&bash, b"echo hi\nif true; then :; fi\n"));
        assert!(bash_accepts(&bash, b"eval ac_env_${ac_var}_set=\\${${ac_var}+set}\n"));
        assert!(!bash_accepts(&bash, b"echo hi\nif true; then\n"));
        assert!(!bash_accepts(&bash, b"echo (\n"));
        // Nothing runs: a command substitution in the text is only parsed.
        let marker = std::env::temp_dir().join(format!("sandbox-bash-oracle-{}", std::process::id()));
        let text = format!("touch {}\necho $(touch {})\n", marker.display(), marker.display());
        assert!(bash_accepts(&bash, text.as_bytes()));
        assert!(!marker.exists(), "bash -n ran a command");
    }
}
