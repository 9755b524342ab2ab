//! The macOS backend's rules as data: a Seatbelt (SBPL) profile built from the same inputs as
//! the Linux rules, by a pure function that golden tests check on any platform.
//!
//! Seatbelt can say what Landlock cannot: rules are matched in order and the last matching
//! one decides, and paths can be matched by regular expression. So the profile grants the
//! scopes from the broadest down (external on `/`, then what the system digit takes away or
//! gives, then the workspace, the runtime baseline and scratch) and ends with denials that
//! nothing can override: credentials (the home's and every `.env`, `*.pem`, `id_rsa*`, …
//! anywhere), writes to `.git/hooks`, `.git/config` and shell start-up files, renaming or
//! deleting the directories that hold them, and a container engine's socket.

use std::fmt::Write as _;

use super::policy::{Inputs, Rights};
use crate::mode::Scope;
use crate::scope;

/// Directories of the system scope on macOS (`/private` holds `/etc`, `/var` and `/tmp`;
/// Seatbelt sees paths after symlinks are resolved).
const SYSTEM_ROOTS: &[&str] = &["/System", "/Library", "/private", "/usr", "/bin", "/sbin", "/dev"];

/// Where programs and their libraries live: read and execute whatever the mode.
const PROGRAM_ROOTS: &[&str] = &[
    "/System",
    "/usr",
    "/bin",
    "/sbin",
    "/Library/Apple",
    "/Library/Developer/CommandLineTools",
    "/Applications/Xcode.app",
    "/opt/homebrew",
    "/usr/local",
    "/private/var/db/dyld",
    "/private/var/db/timezone",
];

/// System files programs read at run time.
const RUNTIME_FILES: &[&str] = &[
    "/private/etc/hosts",
    "/private/etc/resolv.conf",
    "/private/etc/services",
    "/private/etc/protocols",
    "/private/etc/passwd",
    "/private/etc/group",
    "/private/etc/localtime",
    "/private/etc/shells",
    "/private/etc/profile",
    "/private/etc/bashrc",
    "/private/etc/paths",
    "/private/etc/paths.d",
    "/private/etc/ssl",
    "/private/etc/openssl",
    "/private/var/run/resolv.conf",
    "/Library/Preferences/SystemConfiguration",
    "/Library/Keychains/System.keychain",
];

/// Devices any program may read and write.
const DEVICES: &[&str] =
    &["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/dtracehelper"];

/// Mach services ordinary tools look up (name resolution of users, logging, certificates,
/// preferences, temporary directories).
const MACH_SERVICES: &[&str] = &[
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.opendirectoryd.membership",
    "com.apple.system.logger",
    "com.apple.system.notification_center",
    "com.apple.logd",
    "com.apple.diagnosticd",
    "com.apple.trustd.agent",
    "com.apple.SecurityServer",
    "com.apple.securityd.xpc",
    "com.apple.bsd.dirhelper",
    "com.apple.cfprefsd.daemon",
    "com.apple.cfprefsd.agent",
    "com.apple.coreservices.launchservicesd",
    "com.apple.lsd.mapdb",
    "com.apple.distributed_notifications@Uv3",
    "com.apple.CoreServices.coreservicesd",
];

/// Mach services for the network: name resolution and network configuration.
const NETWORK_MACH_SERVICES: &[&str] = &[
    "com.apple.SystemConfiguration.DNSConfiguration",
    "com.apple.SystemConfiguration.configd",
    "com.apple.networkd",
    "com.apple.dnssd.service",
    "com.apple.nsurlsessiond",
];

/// Container engines' sockets: root-equivalent, system execute only.
const ENGINE_SOCKETS: &[&str] = &["/private/var/run/docker.sock", "/var/run/docker.sock"];

/// Credential names anywhere, as Seatbelt regular expressions on the last path component
/// (and everything below it).
const CREDENTIAL_REGEXES: &[&str] = &[
    r"/\.env(\.[^/]*)?(/|$)",
    r"/[^/]+\.(pem|key|p12|pfx)(/|$)",
    r"/id_(rsa|ecdsa|ed25519)[^/]*(/|$)",
    r"/[^/]*([Tt][Oo][Kk][Ee][Nn]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll])[^/]*(/|$)",
];

/// macOS spells `/tmp`, `/var` and `/etc` through `/private`.
pub fn canonical(path: &str) -> String {
    for (short, long) in [("/tmp", "/private/tmp"), ("/var", "/private/var"), ("/etc", "/private/etc")] {
        if scope::is_within(path, short) {
            return format!("{long}{}", &path[short.len()..]);
        }
    }
    path.to_string()
}

/// A string literal in SBPL.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// A regular expression literal in SBPL matching `path` exactly or anything below it.
fn regex_escape(path: &str) -> String {
    let mut out = String::new();
    for c in path.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The SBPL operations a set of rights needs.
fn operations(r: Rights) -> Vec<&'static str> {
    let mut ops = Vec::new();
    if r.contains(Rights::READ) {
        ops.push("file-read*");
    }
    if r.contains(Rights::WRITE) {
        ops.push("file-write*");
    }
    if r.contains(Rights::EXECUTE) {
        ops.push("process-exec");
    }
    ops
}

struct Profile(String);

impl Profile {
    fn line(&mut self, s: &str) {
        self.0.push_str(s);
        self.0.push('\n');
    }

    fn comment(&mut self, s: &str) {
        let _ = writeln!(self.0, "\n; {s}");
    }

    /// `(verb ops filters…)` with one filter per line, when there are filters.
    fn rule(&mut self, verb: &str, ops: &[&str], filters: &[String]) {
        if ops.is_empty() || filters.is_empty() {
            return;
        }
        let _ = writeln!(self.0, "({verb} {}", ops.join(" "));
        for f in filters {
            let _ = writeln!(self.0, "  {f}");
        }
        self.0.push_str(")\n");
    }
}

fn subpaths(paths: &[String]) -> Vec<String> {
    paths.iter().map(|p| format!("(subpath {})", quote(p))).collect()
}

fn literals(paths: &[String]) -> Vec<String> {
    paths.iter().map(|p| format!("(literal {})", quote(p))).collect()
}

/// Builds the profile for `inputs`. Paths are canonicalised for macOS (`/tmp` is
/// `/private/tmp`); the caller resolves symlinks in the workspace, home and temporary
/// directory before.
pub fn profile(inputs: &Inputs) -> String {
    let mode = inputs.mode;
    let system = Rights::of(mode, Scope::System);
    let external = Rights::of(mode, Scope::External);
    let workspace = Rights::of(mode, Scope::Workspace);
    let network = Rights::of(mode, Scope::Network);
    let sockets = network.contains(Rights::READ) || network.contains(Rights::WRITE);
    let w = canonical(&inputs.layout.workspace);
    let home = inputs.layout.home.as_deref().map(canonical);
    let tmpdir = inputs.layout.tmpdir.as_deref().map(canonical);

    let mut p = Profile(String::new());
    p.line(&format!("; sandbox-bash {} profile for mode {mode}", env!("CARGO_PKG_VERSION")));
    p.line("(version 1)");
    p.line("(deny default)");

    p.comment("processes: fork and exec (exec is bounded by the execute rights below), own signals");
    p.line("(allow process-fork)");
    p.line("(allow signal (target same-sandbox))");
    p.line("(allow process-info* (target same-sandbox))");
    p.line("(allow sysctl-read)");
    p.line("(allow ipc-posix-shm ipc-posix-sem)");
    p.line("(allow file-read-metadata)");
    let mach: Vec<String> = MACH_SERVICES
        .iter()
        .chain(if sockets { NETWORK_MACH_SERVICES } else { &[] })
        .map(|s| format!("(global-name {})", quote(s)))
        .collect();
    p.rule("allow", &["mach-lookup"], &mach);

    p.comment(&format!("external: {} on everything, narrowed below", external.letters()));
    p.rule("allow", &operations(external), &subpaths(&["/".to_string()]));

    p.comment(&format!("system: {}", system.letters()));
    let roots: Vec<String> = SYSTEM_ROOTS.iter().map(|s| s.to_string()).collect();
    p.rule("deny", &operations(external.without(system)), &subpaths(&roots));
    p.rule("allow", &operations(system), &subpaths(&roots));

    p.comment(&format!("workspace {w}: {}", workspace.letters()));
    p.rule("deny", &operations(external.without(workspace)), &subpaths(std::slice::from_ref(&w)));
    p.rule("allow", &operations(workspace), &subpaths(std::slice::from_ref(&w)));

    p.comment("runtime baseline: programs and libraries, the files they read, devices");
    let programs: Vec<String> = PROGRAM_ROOTS.iter().map(|s| s.to_string()).collect();
    p.rule("allow", &["file-read*", "process-exec"], &subpaths(&programs));
    let runtime: Vec<String> = RUNTIME_FILES.iter().map(|s| s.to_string()).collect();
    p.rule("allow", &["file-read*"], &subpaths(&runtime));
    let mut devices: Vec<String> = literals(&DEVICES.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    devices.push(r#"(regex #"^/dev/ttys[0-9]+$")"#.to_string());
    devices.push(r#"(regex #"^/dev/fd/[0-9]+$")"#.to_string());
    p.rule("allow", &["file-read*", "file-write*", "file-ioctl"], &devices);
    let mut programs_run: Vec<String> = Vec::new();
    programs_run.push(inputs.real_bash.to_string());
    programs_run.extend(inputs.self_exe.map(str::to_string));
    p.rule("allow", &["file-read*", "process-exec"], &literals(&programs_run));
    let mut path_dirs: Vec<String> = Vec::new();
    for entry in inputs.path_var.unwrap_or_default().split(':') {
        if !entry.starts_with('/') {
            continue;
        }
        let dir = canonical(&scope::normalize("/", entry));
        let holds_home = home.as_deref().is_some_and(|h| scope::is_within(h, &dir));
        if dir == "/" || scope::is_within(&dir, &w) || scope::is_within(&w, &dir) || holds_home {
            continue;
        }
        if !path_dirs.contains(&dir) {
            path_dirs.push(dir);
        }
    }
    if let Some(h) = home.as_deref() {
        for group in [".cargo", ".rustup", ".nvm", ".pyenv", ".local"] {
            let top = format!("{h}/{group}");
            if path_dirs.iter().any(|d| scope::is_within(d, &top)) && !path_dirs.contains(&top) {
                path_dirs.push(top);
            }
        }
        if path_dirs.iter().any(|d| scope::is_within(d, &format!("{h}/.cargo"))) {
            let rustup = format!("{h}/.rustup");
            if !path_dirs.contains(&rustup) {
                path_dirs.push(rustup);
            }
        }
    }
    p.rule("allow", &["file-read*", "process-exec"], &subpaths(&path_dirs));
    // Runtime paths from the configuration, each never beyond the ceiling in its scope.
    for (paths, rights) in [(&inputs.extra.runtime_read, Rights::READ), (&inputs.extra.runtime_execute, Rights::RX)] {
        for path in paths {
            let granted = match (inputs.extra.ceiling, inputs.layout.classify(path, false).scope()) {
                (Some(ceiling), Some(scope)) => rights.intersect(Rights::of(ceiling, scope)),
                _ => rights,
            };
            p.rule("allow", &operations(granted), &subpaths(&[canonical(path)]));
        }
    }

    p.comment("scratch: temporary directories, the standard streams");
    let mut scratch = vec!["/private/tmp".to_string(), "/private/var/folders".to_string()];
    scratch.extend(tmpdir);
    p.rule("allow", &["file-read*", "file-write*", "process-exec"], &subpaths(&scratch));
    for (fd, file) in inputs.standard_files.iter().enumerate() {
        if let Some(file) = file {
            let ops: &[&str] = if fd == 0 { &["file-read*"] } else { &["file-write*"] };
            p.rule("allow", ops, &literals(&[canonical(file)]));
        }
    }

    p.comment(&format!("network: {}", if sockets { "on" } else { "off: unix sockets only" }));
    if sockets {
        p.line("(allow network*)");
    } else {
        p.line("(allow network-outbound (remote unix-socket))");
        p.line("(allow network-bind network-inbound (local unix-socket))");
    }

    p.comment("credentials and protected files: nothing above overrides these");
    let cred_ops = operations(Rights::ALL.without(system));
    if let Some(h) = home.as_deref() {
        let mut creds: Vec<String> =
            scope::HOME_CREDENTIALS.iter().map(|c| format!("(subpath {})", quote(&format!("{h}/{c}")))).collect();
        creds.push(format!("(regex #\"^{}/\\.cargo/credentials\")", regex_escape(h)));
        p.rule("deny", &cred_ops, &creds);
    }
    let extra_creds: Vec<String> = inputs.layout.extra_credentials.iter().map(|c| canonical(c)).collect();
    p.rule("deny", &cred_ops, &subpaths(&extra_creds));
    let patterns: Vec<String> = CREDENTIAL_REGEXES.iter().map(|r| format!("(regex #\"{r}\")")).collect();
    p.rule("deny", &cred_ops, &patterns);
    if !system.contains(Rights::WRITE) {
        let mut protected = vec![
            format!("(subpath {})", quote(&format!("{w}/.git/hooks"))),
            format!("(literal {})", quote(&format!("{w}/.git/config"))),
        ];
        protected.extend(scope::project_settings().map(|f| format!("(subpath {})", quote(&format!("{w}/{f}")))));
        if let Some(h) = home.as_deref() {
            protected.extend(scope::STARTUP_FILES.iter().map(|f| format!("(literal {})", quote(&format!("{h}/{f}")))));
            protected.extend(scope::home_protected().map(|f| format!("(subpath {})", quote(&format!("{h}/{f}")))));
        }
        protected.extend(inputs.layout.extra_protected.iter().map(|c| format!("(subpath {})", quote(&canonical(c)))));
        p.rule("deny", &["file-write*"], &protected);
        // Moving a directory that holds them away (and another in its place) would get
        // around the rules above: the workspace, its .git, the home and their ancestors stay.
        let mut holders: Vec<String> = vec![format!("{w}/.git")];
        for base in std::iter::once(w.as_str()).chain(home.as_deref()) {
            let mut d = base.to_string();
            while d != "/" && !d.is_empty() {
                if !holders.contains(&d) {
                    holders.push(d.clone());
                }
                d = match d.rfind('/') {
                    Some(0) | None => "/".to_string(),
                    Some(i) => d[..i].to_string(),
                };
            }
        }
        p.rule("deny", &["file-write-unlink"], &literals(&holders));
    }
    if !system.contains(Rights::EXECUTE) {
        let engines: Vec<String> =
            ENGINE_SOCKETS.iter().map(|s| format!("(remote unix-socket (path-literal {}))", quote(s))).collect();
        p.rule("deny", &["network-outbound"], &engines);
        p.rule(
            "deny",
            &["file-read*", "file-write*"],
            &literals(&ENGINE_SOCKETS.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        );
    }
    p.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_canonical_for_macos() {
        assert_eq!(canonical("/tmp/x"), "/private/tmp/x");
        assert_eq!(canonical("/var/folders/ab"), "/private/var/folders/ab");
        assert_eq!(canonical("/etc"), "/private/etc");
        assert_eq!(canonical("/tmpfoo"), "/tmpfoo");
        assert_eq!(canonical("/Users/u"), "/Users/u");
    }

    #[test]
    fn quoting_and_regex_escaping() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(regex_escape("/Users/u.name"), r"/Users/u\.name");
    }
}
