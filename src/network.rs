//! How the network is held for a run: every host, none, or through the proxy with an allowlist
//! (the plan), and the refusals a list makes before anything runs.

use crate::environ::Environ;
use crate::error::Error;
use crate::mode::{self, Mode};
use crate::report::{Decision, Verdict};
use crate::sandbox::marker::Marker;
use crate::{allowlist, config};

/// How the network is held for one run.
#[derive(Clone)]
pub(crate) enum NetPlan {
    /// No allowlist (or no network bit): the mode's network bits reach every host.
    Open,
    /// The command's own network namespace, and the proxy outside it for this list.
    Proxy(allowlist::Allowlist),
    /// An enclosing sandbox-bash holds this list, or a narrower one, through its proxy (its
    /// marker's fingerprints, as they came): the bits stay, bounded by its namespace.
    Enclosed(String, allowlist::Allowlist),
    /// No network at all, for this reason.
    Off(String),
}

pub(crate) fn net_plan(list: Option<&allowlist::Allowlist>, allowed: Mode, outer: Option<&Marker>) -> NetPlan {
    let Some(list) = list else { return NetPlan::Open };
    if allowed.intersect(NETWORK_BITS) == Mode::NONE {
        return NetPlan::Open;
    }
    let sources: Vec<&str> = list.layers.iter().map(|l| l.source.as_str()).collect();
    let sources = sources.join(", ");
    if !cfg!(target_os = "linux") {
        return NetPlan::Off(format!(
            "a network allowlist is in force ({sources}), and this platform has no network namespace to enforce it in"
        ));
    }
    if let Some(outer) = outer {
        let fp = fingerprint(list);
        // The enclosing proxy holds this list only if the marker says so and this process is in
        // fact in a namespace with nothing but loopback: a marker set from outside any sandbox
        // gets no network at all, never the network without the list.
        #[cfg(target_os = "linux")]
        let enclosed = crate::sandbox::netns::only_loopback();
        #[cfg(not(target_os = "linux"))]
        let enclosed = false;
        // The enclosing level names every list its proxy holds at least as strictly (its own and
        // each of its layers' prefixes): a nested run without the variable the enclosing one had
        // (it is not passed on) has a prefix of that list.
        return match &outer.network {
            Some(held) if held.split('.').any(|f| f == fp) && enclosed => NetPlan::Enclosed(held.clone(), list.clone()),
            _ => NetPlan::Off(format!(
                "a network allowlist is in force ({sources}) that the enclosing sandbox-bash does not hold, and a \
                 nested invocation cannot have a network namespace of its own"
            )),
        };
    }
    NetPlan::Proxy(list.clone())
}

/// Programs whose network targets are literal hosts: `user@host`, `host:path` and bare host
/// names are hosts for them (a URL is a host for every program).
pub(crate) const REMOTE_PROGRAMS: &[&str] =
    &["ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "git"];

/// Denies `decision` when a network access names a host literally that `list` refuses: one line
/// per host, in the words the proxy would answer with, and where the program names it.
pub(crate) fn refuse_hosts(decision: &mut Decision, list: &allowlist::Allowlist) {
    for a in decision.analysis.accesses.iter().filter(|a| a.scope == mode::Scope::Network && a.bound().is_none()) {
        let remote = REMOTE_PROGRAMS.contains(&a.command.as_str());
        let Some((host, port)) = allowlist::literal_destination(&a.target, remote) else { continue };
        // The namespace's own loopback, where the command's own servers are: not the proxy's.
        if matches!(host.as_str(), "localhost" | "127.0.0.1" | "::1") {
            continue;
        }
        let refused = match port {
            Some(p) => list.check(&allowlist::Destination::new(&host, p)).err(),
            None => list.denied_on_every_port(&host),
        };
        let Some(r) = refused else { continue };
        let (why, remedy) = allowlist::refusal_words(&r, &host, port);
        let at = allowlist::bracketed(&host);
        let at = port.map_or(at.clone(), |p| format!("{at}:{p}"));
        if r.denied_by.is_some() {
            decision.hosts_forbidden = true;
        } else if !decision.hosts_missing.contains(&at) {
            decision.hosts_missing.push(at.clone());
        }
        let line = format!("{at}: {why}; {remedy} ({} at line {}:{})", a.command, a.pos.line, a.pos.column);
        if !decision.hosts_refused.contains(&line) {
            decision.hosts_refused.push(line);
        }
    }
    if !decision.hosts_refused.is_empty() && decision.verdict == Verdict::Allow {
        decision.verdict = Verdict::Deny;
    }
}

/// The refusal (125) of a program that needs network the plan takes away: denied for want of
/// those bits, or allowed with them before the lock found no namespace to hold them in.
pub(crate) fn network_refusal(decision: &Decision, requested: Mode, net: &NetPlan) -> Option<String> {
    let NetPlan::Off(why) = net else { return None };
    let cut = decision.required.intersect(requested).intersect(NETWORK_BITS);
    let applies = match decision.verdict {
        Verdict::Deny => true,
        Verdict::Allow => decision.allowed.intersect(NETWORK_BITS) != Mode::NONE,
        Verdict::BashFails { .. } => false,
    };
    (applies && cut != Mode::NONE)
        .then(|| format!("the program needs network ({cut}), and {why}: so it allows no network at all"))
}

/// A short fingerprint of an allowlist, which tells a nested invocation whether the enclosing
/// one holds the same list (FNV-1a over its normal form).
pub(crate) fn fingerprint(list: &allowlist::Allowlist) -> String {
    let text = format!("{:?}", list.layers);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The network bits of a mode (read, write, execute).
pub(crate) const NETWORK_BITS: Mode = Mode::scope(mode::Scope::Network);

/// The network allowlist in force: the configuration's layers, narrowed by
/// `SANDBOX_BASH_NETWORK_ALLOW`; `None` when neither names one (every host, as the mode allows).
pub(crate) fn network_allowlist(config: &config::Config, env: &Environ) -> Result<Option<allowlist::Allowlist>, Error> {
    let var = env.get(allowlist::ALLOW_VAR);
    if config.network.is_none() && var.is_none() {
        return Ok(None);
    }
    // Without a configured list, the variable's layer alone narrows every host to its entries.
    let base = config.network.clone().unwrap_or_default();
    match var {
        None => Ok(Some(base)),
        Some(v) => {
            let text = v.to_str().ok_or_else(|| Error::Config(format!("{} is not UTF-8", allowlist::ALLOW_VAR)))?;
            let narrowed = base.narrowed(allowlist::ALLOW_VAR, text);
            narrowed.map(Some).map_err(|e| Error::Config(format!("{}: {e}", allowlist::ALLOW_VAR)))
        }
    }
}
