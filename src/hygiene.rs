//! Secrets in the caller's environment are not handed to the command: a variable whose name has
//! KEY, SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL or AUTH (or their plurals) as a word between
//! underscores, or one of a list of well-known secret names, is removed before `execve`; so are
//! sandbox-bash's own control variables. `BASH_AGENT_BASH_MODE` stays, so nested invocations
//! inherit the mode. Only names are ever reported, never values.

use std::ffi::CStr;

use crate::environ::Environ;

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

/// The longest of [`SECRET_WORDS`] and [`WELL_KNOWN`].
const LONGEST: usize = 12;

/// Whether a variable name looks like it holds a secret (ASCII letters in any case).
pub fn is_secret_name(name: &[u8]) -> bool {
    // Names are short and the lists fixed: most words are turned away by their length alone.
    let is = |word: &[u8], list: &[&str]| {
        word.len() <= LONGEST && list.iter().any(|w| w.len() == word.len() && w.as_bytes().eq_ignore_ascii_case(word))
    };
    is(name, WELL_KNOWN) || name.split(|&b| b == b'_').any(|word| is(word, SECRET_WORDS))
}

/// Whether a variable is removed from the command's environment; `keep` lists secret-looking
/// names the configuration lets through (control variables always stay behind).
pub fn is_removed(name: &[u8], keep: &[String]) -> bool {
    name.starts_with(CONTROL_PREFIX.as_bytes()) || (is_secret_name(name) && !keep.iter().any(|k| k.as_bytes() == name))
}

/// The names of the variables in `env` that the command will not see, sorted.
pub fn removed_names(env: &Environ, keep: &[String]) -> Vec<String> {
    let mut names: Vec<String> =
        env.vars().filter(|v| is_removed(v.name, keep)).map(|v| String::from_utf8_lossy(v.name).into_owned()).collect();
    names.sort();
    names
}

/// The entries of `env` the command gets: all but the removed variables and those named in
/// `replaced` (which the caller sets anew).
pub fn command_environment<'e>(env: &'e Environ, replaced: &[&str], keep: &[String]) -> Vec<&'e CStr> {
    env.vars()
        .filter(|v| !is_removed(v.name, keep) && !replaced.iter().any(|r| r.as_bytes() == v.name))
        .map(|v| v.entry)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_listed_name_is_longer_than_the_length_check_allows() {
        assert!(SECRET_WORDS.iter().chain(WELL_KNOWN).all(|w| w.len() <= LONGEST));
    }

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
            assert!(is_secret_name(gone.as_bytes()), "{gone} must be removed");
        }
        for stay in ["GIT_AUTHOR_NAME", "KEYBOARD_LAYOUT", "PATH", "HOME", "TOKENIZERS_PARALLELISM", "MONKEY", "AUTHOR"]
        {
            assert!(!is_secret_name(stay.as_bytes()), "{stay} must stay");
        }
        assert!(is_removed(b"SANDBOX_BASH_WORKSPACE", &[]));
        assert!(!is_removed(b"BASH_AGENT_BASH_MODE", &[]));
        let keep = vec!["GITHUB_TOKEN".to_string(), "SANDBOX_BASH_AUDIT_LOG".to_string()];
        assert!(!is_removed(b"GITHUB_TOKEN", &keep));
        assert!(is_removed(b"GH_TOKEN", &keep));
        assert!(is_removed(b"SANDBOX_BASH_AUDIT_LOG", &keep), "control variables always stay behind");
    }
}
