//! Secrets in the caller's environment are not handed to the command: a variable whose name has
//! KEY, SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL or AUTH (or their plurals) as a word between
//! underscores, or one of a list of well-known secret names, is removed before `execve`; so are
//! sandbox-bash's own control variables. `BASH_AGENT_BASH_MODE` stays, so nested invocations
//! inherit the mode. Only names are ever reported, never values.

use std::ffi::{OsStr, OsString};

/// Words that make a variable name a secret's.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "KEYS",
    "SECRET",
    "SECRETS",
    "TOKEN",
    "TOKENS",
    "PASSWORD",
    "PASSWORDS",
    "PASSWD",
    "CREDENTIAL",
    "CREDENTIALS",
    "AUTH",
];

/// Secret names the word rule does not catch.
const WELL_KNOWN: &[&str] = &["PGPASSWORD", "MYSQL_PWD", "GITHUB_PAT", "GH_PAT", "HF_HUB_TOKEN", "AWS_SESSION"];

/// The prefix of sandbox-bash's own control variables.
const CONTROL_PREFIX: &str = "SANDBOX_BASH_";

/// Whether a variable name looks like it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    WELL_KNOWN.contains(&upper.as_str()) || upper.split('_').any(|word| SECRET_WORDS.contains(&word))
}

/// Whether a variable is removed from the command's environment; `keep` lists secret-looking
/// names the configuration lets through (control variables always stay behind).
pub fn is_removed(name: &OsStr, keep: &[String]) -> bool {
    let name = name.to_string_lossy();
    name.starts_with(CONTROL_PREFIX) || (is_secret_name(&name) && !keep.iter().any(|k| *k == name))
}

/// The names of the current environment's variables that the command will not see, sorted.
pub fn removed_names(keep: &[String]) -> Vec<String> {
    let mut names: Vec<String> = std::env::vars_os()
        .map(|(k, _)| k)
        .filter(|k| is_removed(k, keep))
        .map(|k| k.to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The environment for the command: the current one without removed variables, then `set`.
pub fn command_environment(set: &[(&OsStr, &OsStr)], keep: &[String]) -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(k, _)| !is_removed(k, keep) && !set.iter().any(|(name, _)| name == k))
        .chain(set.iter().map(|(k, v)| (k.to_os_string(), v.to_os_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_go_and_ordinary_ones_stay() {
        for gone in [
            "MY_API_KEY",
            "DB_PASSWORD",
            "NPM_AUTH_TOKEN",
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SSH_AUTH_SOCK",
            "PGPASSWORD",
            "my_secret",
            "Token",
        ] {
            assert!(is_secret_name(gone), "{gone} must be removed");
        }
        for stay in ["GIT_AUTHOR_NAME", "KEYBOARD_LAYOUT", "PATH", "HOME", "TOKENIZERS_PARALLELISM", "MONKEY", "AUTHOR"]
        {
            assert!(!is_secret_name(stay), "{stay} must stay");
        }
        assert!(is_removed(OsStr::new("SANDBOX_BASH_WORKSPACE"), &[]));
        assert!(!is_removed(OsStr::new("BASH_AGENT_BASH_MODE"), &[]));
        let keep = vec!["GITHUB_TOKEN".to_string(), "SANDBOX_BASH_AUDIT_LOG".to_string()];
        assert!(!is_removed(OsStr::new("GITHUB_TOKEN"), &keep));
        assert!(is_removed(OsStr::new("GH_TOKEN"), &keep));
        assert!(is_removed(OsStr::new("SANDBOX_BASH_AUDIT_LOG"), &keep), "control variables always stay behind");
    }
}
