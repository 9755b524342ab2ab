//! The runtime baseline: what every program may read, and in the program directories run,
//! whatever the mode (the program directories, and the `/etc` and `/run` entries programs need
//! at run time). Pure facts that both layers use: the kernel layer grants them at every level
//! (`sandbox::policy`), so the static layer asks no bit for them (`analysis`).

use crate::scope;

/// `/etc` entries programs read at run time: the loader cache, users and groups, name
/// resolution, time zone, locale, certificates, the shells' own start-up files, alternatives.
pub const ETC_RUNTIME: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/locale.alias",
    "/etc/locale.conf",
    "/etc/default/locale",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/alternatives",
    "/etc/profile",
    "/etc/profile.d",
    "/etc/bash.bashrc",
    "/etc/bash_completion",
    "/etc/bash_completion.d",
    "/etc/environment",
    "/etc/inputrc",
    "/etc/terminfo",
    "/etc/shells",
    "/etc/os-release",
    "/etc/lsb-release",
    "/etc/debian_version",
    "/etc/machine-id",
    "/etc/mime.types",
    "/etc/magic",
    "/etc/mtab",
    "/etc/login.defs",
    "/etc/gitconfig",
    "/etc/wgetrc",
    "/etc/python3",
    "/etc/perl",
    "/etc/npmrc",
    "/etc/pip.conf",
    "/etc/xdg",
    "/etc/fonts",
    "/etc/vim",
    "/etc/java-17-openjdk",
    "/etc/subuid",
    "/etc/subgid",
    "/etc/sandbox-bash",
    // What the package managers read to list packages (not apt's auth.conf, which holds
    // passwords).
    "/etc/apt/apt.conf",
    "/etc/apt/apt.conf.d",
    "/etc/apt/sources.list",
    "/etc/apt/sources.list.d",
    "/etc/apt/preferences",
    "/etc/apt/preferences.d",
    "/etc/apt/trusted.gpg",
    "/etc/apt/trusted.gpg.d",
    "/etc/apt/keyrings",
    "/etc/dpkg",
];

/// The entries of [`ETC_RUNTIME`] that are directories (on the systems we know; on another, a
/// directory taken for a file gets file rights only: its files can be read, not listed).
pub(crate) const ETC_RUNTIME_DIRS: &[&str] = &[
    "/etc/ld.so.conf.d",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/alternatives",
    "/etc/profile.d",
    "/etc/bash_completion.d",
    "/etc/terminfo",
    "/etc/python3",
    "/etc/perl",
    "/etc/xdg",
    "/etc/fonts",
    "/etc/vim",
    "/etc/java-17-openjdk",
    "/etc/sandbox-bash",
    "/etc/apt/apt.conf.d",
    "/etc/apt/sources.list.d",
    "/etc/apt/preferences.d",
    "/etc/apt/trusted.gpg.d",
    "/etc/apt/keyrings",
    "/etc/dpkg",
];

/// The entries of [`ETC_RUNTIME`] where private keys live next to what programs need (a
/// `private` directory beside the certificates: `/etc/ssl/private`, `/etc/pki/tls/private`).
/// They are entered, never granted whole: a root caller would read the keys through a grant on
/// the whole directory.
pub(crate) const ETC_KEY_DIRS: &[&str] = &["/etc/ssl", "/etc/pki"];

/// Other system locations programs read at run time: the resolver's files behind
/// `/etc/resolv.conf`, and the package databases (what is installed is no secret: `dpkg -l`,
/// `apt list --installed` and `rpm -qa` list it at every mode).
pub(crate) const RUN_RUNTIME: &[&str] =
    &["/run/systemd/resolve", "/var/lib/dpkg", "/var/lib/apt/lists", "/var/cache/apt", "/var/lib/rpm"];

/// Where programs live: read and execute for everyone.
pub(crate) const PROGRAM_ROOTS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// Whether the runtime baseline lets every program read (or, in the program directories,
/// run) `path` (absolute, normal), whatever the mode: the program directories and the `/etc`
/// and `/run` entries programs need at run time. (Key directories are left out: their
/// `private` directories are not granted.)
pub(crate) fn baseline_grants(path: &str, perm: crate::mode::Perm) -> bool {
    use crate::mode::Perm;
    match perm {
        Perm::Write => false,
        Perm::Execute => in_program_roots(path),
        Perm::Read => {
            in_program_roots(path)
                || ETC_RUNTIME
                    .iter()
                    .filter(|e| !ETC_KEY_DIRS.contains(e))
                    .any(|e| if ETC_RUNTIME_DIRS.contains(e) { scope::is_within(path, e) } else { path == *e })
                || RUN_RUNTIME.iter().any(|r| scope::is_within(path, r))
        }
    }
}

/// Whether `path` (absolute, normal) lies in one of the system's program directories, which
/// every mode may read and run and only system write may change.
pub(crate) fn in_program_roots(path: &str) -> bool {
    PROGRAM_ROOTS.iter().any(|r| scope::is_within(path, r))
}
