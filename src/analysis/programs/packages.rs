//! System package managers: `apt` and its kin (the rows of the table name them), `dpkg` and
//! `rpm`. Reading Debian's and rpm's package databases needs no bit (the runtime baseline reads
//! them at every mode); reading another manager's needs system read (it may refresh its
//! metadata); installing needs system write and, unless it only removes, network read to
//! download.

use super::{Call, Effects};
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    match call.program {
        "dpkg" | "rpm" => dpkg(call),
        _ => apt(call),
    }
}

/// Subcommands that read the package database only.
const APT_READS: &[&str] = &[
    "",
    "list",
    "search",
    "show",
    "policy",
    "info",
    "depends",
    "rdepends",
    "madison",
    "showpkg",
    "query",
    "help",
    "--version",
];

/// Subcommands that change packages without downloading any.
const APT_REMOVES: &[&str] = &["remove", "purge", "autoremove", "clean", "autoclean"];

fn apt(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    let words: Vec<String> = call.args.iter().filter_map(Arg::known).collect();
    let sub = words.iter().find(|t| !t.starts_with('-')).cloned().unwrap_or_default();
    // apt's simulation prints what it would do from the package database alone.
    let simulates = matches!(program, "apt" | "apt-get" | "aptitude")
        && words.iter().any(|t| {
            matches!(t.as_str(), "-s" | "--simulate" | "--just-print" | "--dry-run" | "--recon" | "--no-act")
                || (t.starts_with('-') && !t.starts_with("--") && t.contains('s') && t.len() <= 4)
        });
    if APT_READS.contains(&sub.as_str()) || simulates {
        if !matches!(program, "apt" | "apt-get" | "apt-cache" | "aptitude") {
            out.need(Scope::System, Perm::Read, program, "reads the package database", pos);
        }
    } else {
        out.need(Scope::System, Perm::Write, program, "installs or changes system packages", pos);
        if !APT_REMOVES.contains(&sub.as_str()) {
            out.need(Scope::Network, Perm::Read, program, "downloads packages", pos);
        }
    }
    out
}

/// Options of `dpkg` and `rpm` that install, remove or unpack.
const DPKG_CHANGES: &[&str] =
    &["i", "install", "r", "remove", "P", "purge", "configure", "unpack", "U", "e", "erase", "F", "force"];

fn dpkg(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    let parsed = call.options();
    if parsed.opts.iter().any(|o| DPKG_CHANGES.contains(&o.name.as_str())) {
        out.need(Scope::System, Perm::Write, program, "installs or removes system packages", pos);
        for f in &parsed.operands {
            if f.known().is_some_and(|t| t.contains('.')) {
                out.path(f, &[Perm::Read], "reads a package file");
            }
        }
    }
    // Listing and querying read the database, which every mode may.
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, bits_of as bits, effects_of};
    use crate::mode::{Perm, Scope};

    #[test]
    fn apt_reads_simulates_installs_and_removes() {
        assert_eq!(bits("apt list --installed"), vec![]);
        assert_eq!(bits("apt-get -s install curl"), vec![]);
        assert_eq!(bits("dnf list installed"), vec![(Scope::System, Perm::Read)]);
        assert_eq!(bits("apt-get install -y curl"), vec![(Scope::System, Perm::Write), (Scope::Network, Perm::Read)]);
        assert_eq!(bits("apt-get purge curl"), vec![(Scope::System, Perm::Write)]);
        // Only apt's own programs simulate with -s.
        assert_eq!(bits("dnf -s install x"), vec![(Scope::System, Perm::Write), (Scope::Network, Perm::Read)]);
    }

    #[test]
    fn dpkg_reads_its_package_files() {
        assert_eq!(bits("dpkg -l"), vec![]);
        assert_eq!(bits("rpm -qa"), vec![]);
        let e = effects_of("dpkg -i pkg.deb");
        assert!(matches!(&e[1], Effect::Path { arg, perms: [Perm::Read], .. } if arg.raw == "pkg.deb"), "{e:?}");
        assert_eq!(bits("rpm -U x.rpm"), vec![(Scope::System, Perm::Write)]);
    }
}
