//! Programs that read or change the machine's own configuration: `sysctl`, `ip`, `systemctl`,
//! `crontab`. Each needs a system bit, read or write by what its words ask for.

use super::{Call, Effects};
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    match program {
        "sysctl" => {
            // Reading is reading /proc/sys, which every program may in every mode (as `uname -a`
            // may): no bit.
            if call.args.iter().filter_map(Arg::known).any(|t| sysctl_writes(&t)) {
                out.need(Scope::System, Perm::Write, program, "changes kernel parameters", pos);
            }
        }
        "ip" => {
            if call.args.iter().filter_map(Arg::known).any(|t| IP_CHANGES.contains(&t.as_str())) {
                out.need(Scope::System, Perm::Write, program, "changes network configuration", pos);
            } else {
                out.need(Scope::System, Perm::Read, program, "reads network configuration", pos);
            }
        }
        "crontab" => {
            // `-l` (for oneself or `-u USER`) only lists; anything else installs, edits or removes a
            // crontab, which cron runs later, outside any sandbox.
            let words: Vec<String> = call.args.iter().filter_map(Arg::known).collect();
            let lists = words.len() == call.args.len()
                && words.iter().any(|w| w == "-l")
                && words.iter().enumerate().all(|(i, w)| w == "-l" || w == "-u" || (i > 0 && words[i - 1] == "-u"));
            if lists {
                out.need(
                    Scope::System,
                    Perm::Read,
                    program,
                    "reads a crontab in the cron spool (unless the caller is root, crontab reads it through its \
                     set-group-id bit, which no sandboxed program keeps, so it fails inside any sandbox)",
                    pos,
                );
            } else {
                out.need(
                    Scope::System,
                    Perm::Write,
                    program,
                    "installs, edits or removes a crontab, which cron runs later",
                    pos,
                );
                // The file it installs.
                for (i, a) in call.args.iter().enumerate() {
                    let after_user = i > 0 && call.args[i - 1].known().as_deref() == Some("-u");
                    if !after_user && a.known().is_none_or(|t| !t.starts_with('-')) {
                        out.path(a, &[Perm::Read], "reads the crontab it installs");
                    }
                }
            }
        }
        _ => {
            let sub = call.args.iter().filter_map(Arg::known).find(|t| !t.starts_with('-')).unwrap_or_default();
            if SYSTEMCTL_READS.contains(&sub.as_str()) {
                out.need(Scope::System, Perm::Read, program, "reads service state", pos);
            } else {
                out.need(Scope::System, Perm::Execute, program, "controls services run by the init system", pos);
            }
        }
    }
    out
}

/// `-w`, `-p`/`-f` (a file of settings, also `-pFILE`), `--load`, `--system`, `name=value`.
fn sysctl_writes(t: &str) -> bool {
    let short = t.starts_with('-') && !t.starts_with("--");
    t == "-w"
        || t.starts_with("--write")
        || (short && (t.starts_with("-p") || t.starts_with("-f")))
        || t.starts_with("--load")
        || t.starts_with("--system")
        || (!t.starts_with('-') && t.contains('='))
}

/// Words of `ip` that change the configuration, whatever object they apply to.
const IP_CHANGES: &[&str] = &[
    "add", "del", "delete", "set", "change", "replace", "flush", "append", "prepend", "exec", "attach", "detach", "up",
    "down",
];

/// `systemctl` subcommands that only read (none: `status`).
const SYSTEMCTL_READS: &[&str] = &[
    "",
    "status",
    "show",
    "cat",
    "list-units",
    "list-unit-files",
    "list-timers",
    "list-sockets",
    "list-dependencies",
    "is-active",
    "is-enabled",
    "is-failed",
    "help",
];

#[cfg(test)]
mod tests {
    use super::super::bits_of as need;
    use crate::mode::{Perm, Scope};

    #[test]
    fn sysctl_writes_only_when_setting() {
        assert!(need("sysctl -a").is_empty());
        assert!(need("sysctl kernel.ostype").is_empty());
        for line in ["sysctl -w a.b=1", "sysctl a.b=1", "sysctl -p/etc/x.conf", "sysctl --system", "sysctl --load=f"] {
            assert_eq!(need(line), vec![(Scope::System, Perm::Write)], "{line}");
        }
    }

    #[test]
    fn ip_reads_unless_changing() {
        assert_eq!(need("ip addr show"), vec![(Scope::System, Perm::Read)]);
        assert_eq!(need("ip link set eth0 up"), vec![(Scope::System, Perm::Write)]);
        assert_eq!(need("ip netns exec x sh"), vec![(Scope::System, Perm::Write)]);
    }

    #[test]
    fn systemctl_controls_unless_reading() {
        assert_eq!(need("systemctl"), vec![(Scope::System, Perm::Read)]);
        assert_eq!(need("systemctl --no-pager status nginx"), vec![(Scope::System, Perm::Read)]);
        assert_eq!(need("systemctl restart nginx"), vec![(Scope::System, Perm::Execute)]);
    }
}
