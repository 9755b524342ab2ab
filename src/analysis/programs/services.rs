//! Clients of remote services that hold their own credentials: `gh` and its kin, `kubectl` and
//! its kin. Each talks to the network; which words send changes is data below.

use super::{Call, Effects};
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// Words of `gh`, `glab`, `hub` and `tea` that send changes (subcommands and request options).
const FORGE_SENDS: &[&str] = &[
    "create",
    "edit",
    "comment",
    "merge",
    "close",
    "reopen",
    "delete",
    "upload",
    "review",
    "sync",
    "fork",
    "--method",
    "-X",
    "-f",
    "-F",
    "--field",
    "--raw-field",
    "--input",
    "push",
    "transfer",
    "archive",
    "rename",
    "set",
    "login",
];

/// Subcommands of `kubectl`, `helm`, `oc` and `k9s` that only read.
const CLUSTER_READS: &[&str] = &[
    "get",
    "describe",
    "logs",
    "top",
    "explain",
    "api-resources",
    "api-versions",
    "version",
    "cluster-info",
    "config",
    "auth",
    "wait",
    "diff",
    "list",
    "status",
    "history",
    "search",
    "show",
    "template",
    "lint",
];

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    let words: Vec<String> = call.args.iter().filter_map(Arg::known).collect();
    out.need(Scope::Network, Perm::Read, program, "talks to a remote service", pos);
    let sends = if matches!(program, "gh" | "glab" | "hub" | "tea") {
        words.iter().any(|t| FORGE_SENDS.contains(&t.as_str()))
    } else {
        words.iter().find(|t| !t.starts_with('-')).is_some_and(|t| !CLUSTER_READS.contains(&t.as_str()))
    };
    if sends {
        out.need(Scope::Network, Perm::Write, program, "sends changes to a remote service", pos);
    }
    for f in call.options().values(&["f", "filename", "values"]) {
        if f.known().as_deref() != Some("-") && !f.known().is_some_and(|t| super::is_url(&t)) {
            out.path(&f, &[Perm::Read], "reads a manifest");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, effects_of};
    use crate::mode::{Perm, Scope};

    fn sends(line: &str) -> bool {
        effects_of(line).iter().any(|e| matches!(e, Effect::Need { scope: Scope::Network, perm: Perm::Write, .. }))
    }

    #[test]
    fn forges_send_by_word() {
        assert!(!sends("gh pr list"));
        assert!(sends("gh pr create --fill"));
        assert!(sends("gh api -X POST repos/o/r/issues"));
    }

    #[test]
    fn clusters_send_unless_reading_and_manifests_are_read() {
        assert!(!sends("kubectl get pods"));
        assert!(sends("kubectl delete pod x"));
        let e = effects_of("kubectl apply -f deploy.yaml");
        assert!(e.iter().any(|e| matches!(e, Effect::Path { arg, .. } if arg.raw == "deploy.yaml")), "{e:?}");
        let e = effects_of("kubectl apply -f https://h/x.yaml");
        assert!(!e.iter().any(|e| matches!(e, Effect::Path { .. })), "{e:?}");
    }
}
