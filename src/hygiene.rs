//! Secrets in the caller's environment are not handed to the command. A variable is removed
//! before `execve` when its name, split at underscores into words (in any case), has
//!
//! - a word that is KEY, KEYS, AUTH, CREDENTIAL or CREDENTIALS, or one that ends in TOKEN(S),
//!   SECRET(S), PASSWORD(S), PASSWD, PASSPHRASE, APIKEY(S), SECRETKEY, ACCESSKEY or PRIVATEKEY
//!   (`MY_API_KEY`, `OPENAI_APIKEY`, `SECRETKEY`, `NGROK_AUTHTOKEN`, `PGPASSWORD`);
//! - a last word PASS, PWD or PAT after another one (`DB_PASS`, `MYSQL_PWD`, `GITHUB_PAT`, but
//!   not `PWD` and `OLDPWD`, nor `SSH_ASKPASS`);
//!
//! or when it is one of a few well-known names, or when its value holds a URL with a password
//! (`postgres://user:password@host/db` in `DATABASE_URL`; not `scheme://user@host`). So are
//! sandbox-bash's own control variables. `BASH_AGENT_BASH_MODE` stays, so nested invocations
//! inherit the mode. Only names are ever reported, never values.
//!
//! This runs for every variable at every start: nothing is allocated, names are compared as
//! bytes, and a value is looked at only where it has `://`.

use std::ffi::CStr;

use crate::environ::Environ;

/// Whole words that make a variable name a secret's.
const SECRET_WORDS: &[&[u8]] = &[b"KEY", b"KEYS", b"AUTH", b"CREDENTIAL", b"CREDENTIALS", b"JWT", b"BEARER", b"COOKIE"];

/// Endings of a word that make a variable name a secret's (the word itself included:
/// `TOKEN`, `AUTHTOKEN`).
const SECRET_ENDINGS: &[&[u8]] = &[
    b"TOKEN",
    b"TOKENS",
    b"SECRET",
    b"SECRETS",
    b"PASSWORD",
    b"PASSWORDS",
    b"PASSWD",
    b"PASSPHRASE",
    b"APIKEY",
    b"APIKEYS",
    b"SECRETKEY",
    b"ACCESSKEY",
    b"PRIVATEKEY",
];

/// Last words that make a name a secret's after another word (`DB_PASS`), never alone: `PWD`
/// is the working directory.
const SECRET_LAST_WORDS: &[&[u8]] = &[b"PASS", b"PWD", b"PAT", b"PW"];

/// Last words that name where a secret is, not the secret (`KEY_FILE`, `PASSWORD_STORE_DIR`).
const PLACE_WORDS: &[&[u8]] = &[b"DIR", b"FILE", b"PATH"];

/// Secret names the word rules do not catch.
const WELL_KNOWN: &[&[u8]] = &[b"AWS_SESSION"];

/// The prefix of sandbox-bash's own control variables.
pub const CONTROL_PREFIX: &str = "SANDBOX_BASH_";

/// Whether `word` ends with `ending`, in any case.
fn ends_with(word: &[u8], ending: &[u8]) -> bool {
    word.len() >= ending.len() && word[word.len() - ending.len()..].eq_ignore_ascii_case(ending)
}

fn is_any(word: &[u8], list: &[&[u8]]) -> bool {
    list.iter().any(|w| w.len() == word.len() && w.eq_ignore_ascii_case(word))
}

/// Whether a variable name looks like it holds a secret (ASCII letters in any case).
pub fn is_secret_name(name: &[u8]) -> bool {
    if is_any(name, WELL_KNOWN) {
        return true;
    }
    // Names are short and the lists fixed: most words are turned away by their length alone.
    if name.len() > 4
        && let Some(last) = name.rsplit(|&b| b == b'_').next()
        && last.len() < name.len()
        && is_any(last, PLACE_WORDS)
    {
        return false;
    }
    let mut words = name.split(|&b| b == b'_').peekable();
    let mut first = true;
    while let Some(word) = words.next() {
        let last = words.peek().is_none();
        // A number after the word counts as part of it (`PASSWORD1`, `TOKEN2`).
        let word = &word[..word.len() - word.iter().rev().take_while(|b| b.is_ascii_digit()).count()];
        if is_any(word, SECRET_WORDS)
            || (word.len() >= 5 && SECRET_ENDINGS.iter().any(|e| ends_with(word, e)))
            || (last && !first && is_any(word, SECRET_LAST_WORDS))
        {
            return true;
        }
        first = false;
    }
    false
}

/// Whether a value holds a URL with a password: `scheme://user:password@host…`, anywhere in it
/// (a list of URLs too). The user information is what lies between `://` and the last `@`
/// before the host ends (at `/`, `?`, `#` or white space); it holds a password when it has a
/// `:` with something after it.
pub fn has_url_password(value: &[u8]) -> bool {
    let mut rest = value;
    while let Some(at) = find_scheme_end(rest) {
        let after = &rest[at + 3..];
        let authority_end = after
            .iter()
            .position(|&b| matches!(b, b'/' | b'?' | b'#') || b.is_ascii_whitespace())
            .unwrap_or(after.len());
        let authority = &after[..authority_end];
        if let Some(userinfo_end) = authority.iter().rposition(|&b| b == b'@') {
            let userinfo = &authority[..userinfo_end];
            if let Some(colon) = userinfo.iter().position(|&b| b == b':')
                && colon + 1 < userinfo.len()
            {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Where the next `://` that follows a scheme letter starts.
fn find_scheme_end(s: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].iter().position(|&b| b == b':').map(|i| i + from) {
        if s[i..].starts_with(b"://") && i > 0 && s[i - 1].is_ascii_alphanumeric() {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// Whether a variable is removed from the command's environment; `keep` lists secret-looking
/// names the configuration lets through (control variables always stay behind).
pub fn is_removed(name: &[u8], value: &[u8], keep: &[String]) -> bool {
    name.starts_with(CONTROL_PREFIX.as_bytes())
        || ((is_secret_name(name) || has_url_password(value)) && !keep.iter().any(|k| k.as_bytes() == name))
}

/// The names of the variables in `env` that the command will not see, sorted.
pub fn removed_names(env: &Environ, keep: &[String]) -> Vec<String> {
    let mut names: Vec<String> = env
        .vars()
        .filter(|v| is_removed(v.name, v.value, keep))
        .map(|v| String::from_utf8_lossy(v.name).into_owned())
        .collect();
    names.sort();
    names
}

/// The entries of `env` the command gets: all but the removed variables and those named in
/// `replaced` (which the caller sets anew).
pub fn command_environment<'e>(env: &'e Environ, replaced: &[&str], keep: &[String]) -> Vec<&'e CStr> {
    env.vars()
        .filter(|v| !is_removed(v.name, v.value, keep) && !replaced.iter().any(|r| r.as_bytes() == v.name))
        .map(|v| v.entry)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names as people name them: these go.
    const GONE: &[&str] = &[
        "MY_API_KEY",
        "PASSWORD1",
        "DB_PW",
        "CI_JOB_JWT",
        "JWT",
        "SESSION_COOKIE",
        "API_KEY",
        "APIKEY",
        "OPENAI_APIKEY",
        "SENDGRID_APIKEYS",
        "SECRETKEY",
        "AWS_SECRETKEY",
        "MINIO_ACCESSKEY",
        "JWT_PRIVATEKEY",
        "DB_PASSWORD",
        "DBPASSWORD",
        "PGPASSWORD",
        "MYSQL_ROOT_PASSWORD",
        "REDIS_PASSWD",
        "DB_PASS",
        "SMTP_PASS",
        "mail_pass",
        "MYSQL_PWD",
        "DB_PWD",
        "GITHUB_PAT",
        "GH_PAT",
        "AZURE_DEVOPS_PAT",
        "BORG_PASSPHRASE",
        "GPG_PASSPHRASE",
        "NPM_AUTH_TOKEN",
        "NGROK_AUTHTOKEN",
        "SLACK_APITOKEN",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "HF_HUB_TOKEN",
        "TOKEN",
        "Token",
        "ANTHROPIC_API_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SESSION",
        "CLIENTSECRET",
        "my_secret",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SSH_AUTH_SOCK",
    ];

    /// Real names that only look alike: these stay.
    const STAY: &[&str] = &[
        "PATH",
        "HOME",
        "PWD",
        "OLDPWD",
        "pwd",
        "PASS",
        "PAT",
        "PASSAGE",
        "COMPAT",
        "GIT_AUTHOR_NAME",
        "KEYBOARD_LAYOUT",
        "KEYMAP",
        "PASSWORD_STORE_DIR",
        "KEY_FILE",
        "TOKEN_FILE",
        "SECRETS_DIR",
        "SSH_KEY_PATH",
        "MONKEY",
        "LESSKEY",
        "AUTHOR",
        "XAUTHORITY",
        "TOKENIZERS_PARALLELISM",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "GIT_ASKPASS",
        "BYPASS_CACHE",
        "XDG_RUNTIME_DIR",
        "XDG_CONFIG_HOME",
        "XDG_SESSION_TYPE",
        "LD_LIBRARY_PATH",
        "MANPATH",
        "GOPATH",
        "PKG_CONFIG_PATH",
        "PATCH_LEVEL",
        "COMPOSE_PROJECT_NAME",
        "DISPLAY",
        "SHLVL",
        "LANG",
        "TERM",
        "GPG_TTY",
        "DATABASE_URL",
    ];

    #[test]
    fn secret_names_go_and_ordinary_ones_stay() {
        for gone in GONE {
            assert!(is_secret_name(gone.as_bytes()), "{gone} must be removed");
        }
        for stay in STAY {
            assert!(!is_secret_name(stay.as_bytes()), "{stay} must stay");
        }
        assert!(is_removed(b"SANDBOX_BASH_WORKSPACE", b"/w", &[]));
        assert!(!is_removed(b"BASH_AGENT_BASH_MODE", b"0467", &[]));
        let keep = vec!["GITHUB_TOKEN".to_string(), "SANDBOX_BASH_AUDIT_LOG".to_string(), "HTTPS_PROXY".to_string()];
        assert!(!is_removed(b"GITHUB_TOKEN", b"x", &keep));
        assert!(is_removed(b"GH_TOKEN", b"x", &keep));
        assert!(is_removed(b"SANDBOX_BASH_AUDIT_LOG", b"/l", &keep), "control variables always stay behind");
        // The keep-list holds for a password in a URL too.
        assert!(is_removed(b"HTTP_PROXY", b"http://u:p@proxy:3128", &keep));
        assert!(!is_removed(b"HTTPS_PROXY", b"http://u:p@proxy:3128", &keep));
    }

    #[test]
    fn urls_with_a_password_go_and_others_stay() {
        for gone in [
            "postgres://u:p@h/db",
            "postgresql://app:s3cr3t@db.internal:5432/app?sslmode=require",
            "mysql://root:pw@localhost",
            "redis://:onlypassword@cache:6379/0",
            "https://user:ghp_abc@github.com/org/repo.git",
            "amqp://guest:guest@rabbit",
            "http://u:p@ss@proxy:3128",
            "mongodb+srv://u:p@cluster0.example.net/db",
            "https://mirror.example https://u:p@private.example/simple",
            "a,b,http://u:p@h",
        ] {
            assert!(has_url_password(gone.as_bytes()), "{gone:?} must be removed");
        }
        for stay in [
            "",
            "postgres://u@h/db",
            "ssh://git@github.com/org/repo",
            "https://github.com/org/repo",
            "https://host:8443/path",
            "https://host:8443/@scope/pkg",
            "https://host/path?email=a@b.c",
            "http://host/#user:x@y",
            "user:password@host",
            "://u:p@h",
            "postgres://u:@h/db",
            "/usr/local/bin:/usr/bin:/bin",
            "C:\\path",
            "file:///home/u/x",
        ] {
            assert!(!has_url_password(stay.as_bytes()), "{stay:?} must stay");
        }
    }
}
