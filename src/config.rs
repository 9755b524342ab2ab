//! Configuration files: the administrator's `/etc/sandbox-bash/config.toml`, then the user's
//! `$XDG_CONFIG_HOME/sandbox-bash/config.toml` (default `~/.config/…`) or the one file
//! `SANDBOX_BASH_CONFIG` names instead. Only files that exist are read; with none, nothing is
//! parsed. Unknown keys, wrong types and unreadable files are errors that name the file, line
//! and column: a typo must never silently weaken the policy.
//!
//! Precedence: the environment over the user file over the system file, except that
//! `max_mode` and `allow_degraded` come from the system file alone, and the ceiling cuts
//! whatever mode is asked for (allowed = requested & ceiling).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mode::Mode;

/// The administrator's file.
pub const SYSTEM_FILE: &str = "/etc/sandbox-bash/config.toml";
/// The variable naming one file to read instead of the user's.
pub const CONFIG_VAR: &str = "SANDBOX_BASH_CONFIG";

/// One file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    default_mode: Option<String>,
    max_mode: Option<String>,
    workspace: Option<String>,
    real_bash: Option<String>,
    allow_degraded: Option<bool>,
    audit_log: Option<String>,
    #[serde(default)]
    paths: Paths,
    #[serde(default)]
    environment: Environment,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Paths {
    #[serde(default)]
    credentials: Vec<String>,
    #[serde(default)]
    protected: Vec<String>,
    #[serde(default)]
    runtime_read: Vec<String>,
    #[serde(default)]
    runtime_execute: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Environment {
    #[serde(default)]
    keep: Vec<String>,
}

/// The merged configuration.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Config {
    /// The files that were read, in order.
    pub files: Vec<String>,
    pub default_mode: Option<Mode>,
    /// The administrator's ceiling.
    pub max_mode: Option<Mode>,
    pub workspace: Option<String>,
    pub real_bash: Option<String>,
    pub allow_degraded: bool,
    pub audit_log: Option<String>,
    /// Extra credential and protected paths (absolute, `~` expanded), added to the built-in ones.
    pub credentials: Vec<String>,
    pub protected: Vec<String>,
    /// Extra runtime paths to read, or to read and execute (bounded by the ceiling).
    pub runtime_read: Vec<String>,
    pub runtime_execute: Vec<String>,
    /// Environment variables kept even though their names look secret.
    pub keep_env: Vec<String>,
}

/// Where the files are, given the environment.
pub struct Sources {
    pub system: PathBuf,
    /// The user's file, or the explicitly named one.
    pub user: Option<PathBuf>,
    /// The user file was named explicitly (it must then exist).
    pub explicit: bool,
}

impl Sources {
    /// The usual places, from `SANDBOX_BASH_CONFIG`, `XDG_CONFIG_HOME` and `HOME`.
    pub fn from_env(explicit: Option<&OsStr>, xdg: Option<&OsStr>, home: Option<&OsStr>) -> Sources {
        #[allow(unused_mut)]
        let mut system = PathBuf::from(SYSTEM_FILE);
        // Debug builds only: tests put "the system file" in a directory of their own. Release
        // builds read /etc/sandbox-bash/config.toml and nothing else.
        #[cfg(debug_assertions)]
        if let Some(p) = std::env::var_os("SANDBOX_BASH_TEST_SYSTEM_CONFIG") {
            system = PathBuf::from(p);
        }
        if let Some(e) = explicit.filter(|e| !e.is_empty()) {
            return Sources { system, user: Some(PathBuf::from(e)), explicit: true };
        }
        let base = xdg
            .filter(|x| Path::new(x).is_absolute())
            .map(PathBuf::from)
            .or_else(|| home.filter(|h| !h.is_empty()).map(|h| Path::new(h).join(".config")));
        Sources { system, user: base.map(|b| b.join("sandbox-bash/config.toml")), explicit: false }
    }
}

/// Reads and merges the files that exist.
pub fn load(sources: &Sources, home: Option<&str>) -> Result<Config, String> {
    let mut config = Config::default();
    if let Some(system) = read(&sources.system, false)? {
        apply(&mut config, system, &sources.system, home, true)?;
    }
    if let Some(user) = &sources.user
        && let Some(file) = read(user, sources.explicit)?
    {
        apply(&mut config, file, user, home, false)?;
    }
    Ok(config)
}

/// Parses one file; `None` when it does not exist (and need not).
fn read(path: &Path, must_exist: bool) -> Result<Option<File>, String> {
    let shown = path.display();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => return Ok(None),
        Err(e) => return Err(format!("cannot read the configuration file {shown}: {e}")),
    };
    parse(&text, path).map(Some)
}

/// The parser, kept out of `read`: most starts find no file, and this code is large.
#[cold]
#[inline(never)]
fn parse(text: &str, path: &Path) -> Result<File, String> {
    toml::from_str::<File>(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_column(text, s.start)).unwrap_or((1, 1));
        let message = e.message().trim_end().replace('\n', " ");
        format!("invalid configuration in {} at line {line}:{column}: {message}", path.display())
    })
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn apply(config: &mut Config, file: File, path: &Path, home: Option<&str>, system: bool) -> Result<(), String> {
    let shown = path.display().to_string();
    let mode = |key: &str, value: &Option<String>| -> Result<Option<Mode>, String> {
        value
            .as_deref()
            .map(|v| {
                Mode::parse(v)
                    .map_err(|_| format!("invalid {key} = {v:?} in {shown}: expected four octal digits or a preset"))
            })
            .transpose()
    };
    if !system && (file.max_mode.is_some() || file.allow_degraded.is_some()) {
        let key = if file.max_mode.is_some() { "max_mode" } else { "allow_degraded" };
        return Err(format!("{key} in {shown}: only the system file {SYSTEM_FILE} may set it"));
    }
    if let Some(m) = mode("default_mode", &file.default_mode)? {
        config.default_mode = Some(m);
    }
    if let Some(m) = mode("max_mode", &file.max_mode)? {
        config.max_mode = Some(m);
    }
    if let Some(d) = file.allow_degraded {
        config.allow_degraded = d;
    }
    let path_value = |key: &str, v: String| -> Result<String, String> {
        let expanded = expand(&v, home);
        if expanded.starts_with('/') {
            Ok(expanded)
        } else {
            Err(format!("invalid {key} = {v:?} in {shown}: expected an absolute path (or one starting with ~/)"))
        }
    };
    if let Some(w) = file.workspace {
        config.workspace = Some(path_value("workspace", w)?);
    }
    if let Some(b) = file.real_bash {
        config.real_bash = Some(path_value("real_bash", b)?);
    }
    if let Some(a) = file.audit_log {
        config.audit_log = Some(path_value("audit_log", a)?);
    }
    for (key, from, to) in [
        ("paths.credentials", file.paths.credentials, &mut config.credentials),
        ("paths.protected", file.paths.protected, &mut config.protected),
        ("paths.runtime_read", file.paths.runtime_read, &mut config.runtime_read),
        ("paths.runtime_execute", file.paths.runtime_execute, &mut config.runtime_execute),
    ] {
        for v in from {
            let p = path_value(key, v)?;
            if !to.contains(&p) {
                to.push(p);
            }
        }
    }
    for k in file.environment.keep {
        if !config.keep_env.contains(&k) {
            config.keep_env.push(k);
        }
    }
    config.files.push(shown);
    Ok(())
}

/// `~` and `~/…` against the home directory.
fn expand(v: &str, home: Option<&str>) -> String {
    match (v.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_string(),
        (Some(rest), Some(h)) if rest.starts_with('/') => format!("{h}{rest}"),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn sources(system: PathBuf, user: Option<PathBuf>, explicit: bool) -> Sources {
        Sources { system, user, explicit }
    }

    #[test]
    fn no_files_no_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(&sources(dir.path().join("none.toml"), Some(dir.path().join("u.toml")), false), None).unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn files_merge_with_the_user_over_the_system() {
        let dir = tempfile::tempdir().unwrap();
        let s = write(
            dir.path(),
            "s.toml",
            "default_mode = \"0444\"\nmax_mode = \"0467\"\nallow_degraded = true\n[paths]\ncredentials = [\"/srv/secrets\"]\n",
        );
        let u = write(
            dir.path(),
            "u.toml",
            "default_mode = \"0407\"\nworkspace = \"~/proj\"\n[paths]\ncredentials = [\"~/.config/op\"]\nruntime_execute = [\"/opt/tool/bin\"]\n[environment]\nkeep = [\"GITHUB_TOKEN\"]\n",
        );
        let c = load(&sources(s.clone(), Some(u.clone()), false), Some("/home/u")).unwrap();
        assert_eq!(c.default_mode, Some(Mode(0o0407)));
        assert_eq!(c.max_mode, Some(Mode(0o0467)));
        assert!(c.allow_degraded);
        assert_eq!(c.workspace.as_deref(), Some("/home/u/proj"));
        assert_eq!(c.credentials, ["/srv/secrets", "/home/u/.config/op"]);
        assert_eq!(c.runtime_execute, ["/opt/tool/bin"]);
        assert_eq!(c.keep_env, ["GITHUB_TOKEN"]);
        assert_eq!(c.files, [s.display().to_string(), u.display().to_string()]);
    }

    #[test]
    fn mistakes_name_the_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("default_mode = \"0467\"\nmax_mod = \"0444\"\n", "line 2:1"),
            ("default_mode = 467\n", "line 1:16"),
            ("[paths]\ncredentials = \"/x\"\n", "line 2:15"),
            ("default_mode = \"0468\"\n", "0468"),
            ("workspace = \"relative\"\n", "absolute path"),
            ("[environment]\nkeep = [1]\n", "line 2:9"),
        ];
        for (text, want) in cases {
            let s = write(dir.path(), "s.toml", text);
            let e = load(&sources(s.clone(), None, false), None).unwrap_err();
            assert!(e.contains(&s.display().to_string()) && e.contains(want), "{text:?}: {e}");
        }
        // The ceiling and the degraded opt-in belong to the system file.
        let s = write(dir.path(), "none-system.toml", "");
        std::fs::remove_file(&s).unwrap();
        let u = write(dir.path(), "u.toml", "max_mode = \"7777\"\n");
        let e = load(&sources(s.clone(), Some(u), false), None).unwrap_err();
        assert!(e.contains("only the system file"), "{e}");
        // A named file must exist; an unreadable one is an error.
        let e = load(&sources(s, Some(dir.path().join("missing.toml")), true), None).unwrap_err();
        assert!(e.contains("cannot read the configuration file"), "{e}");
    }
}
