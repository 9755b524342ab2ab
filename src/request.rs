//! Asking for one run with more access: the line a program may start with, what such a request
//! may ask, and the hint a denial ends with. Who answers is [`crate::approval`]'s.
//!
//! The line is a bash comment, so bash runs the program the same with it or without it:
//! `# sandbox-bash: request MODE because REASON`. It is read where the model's command lands:
//! the first line of the program (the second, after a `#!` line), or the first line of a text
//! the program hands to `eval` or `bash -c` (clients wrap the command they are given so).

use crate::allowlist::{self, Allowlist, Entry};
use crate::mode::Mode;
use crate::network::NETWORK_BITS;
use crate::report::{Decision, Verdict};

/// The longest reason, in characters.
pub const MAX_REASON: usize = 200;

/// What every request line starts with (after blanks).
pub const PREFIX: &str = "# sandbox-bash: request";

/// A request as the program wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The mode asked for.
    pub mode: Mode,
    /// Hosts to add to the network allowlist for the run, as entries (`host` or `host:port`).
    pub hosts: Vec<String>,
    /// Why, in the program's words.
    pub reason: String,
    /// The line as written.
    pub line: String,
    /// Found on a line of its own further down the program (where a client put the command it
    /// was given inside its own lines), not first: a line that asks for nothing is then only a
    /// comment.
    pub loose: bool,
}

/// Whether `line` is meant as a request (well formed or not).
pub fn is_request_line(line: &str) -> bool {
    let rest = line.trim_start_matches([' ', '\t']);
    let Some(rest) = rest.strip_prefix('#') else { return false };
    let rest = rest.trim_start_matches([' ', '\t']);
    let Some(rest) = rest.strip_prefix("sandbox-bash:") else { return false };
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.strip_prefix("request").is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
}

/// The request on `line`: `None` when it is no request line, `Err` with what is missing or
/// wrong when it is one that cannot be asked.
pub fn parse_line(line: &str) -> Option<Result<Request, String>> {
    if !is_request_line(line) {
        return None;
    }
    let line = line.trim_end_matches(['\r', ' ', '\t']);
    let after = &line[line.find("request").map_or(line.len(), |i| i + "request".len())..];
    let usage = "write it as: # sandbox-bash: request MODE [host HOST[,HOST…]] because REASON";
    let mut words = after.split_whitespace();
    let Some(first) = words.next() else {
        return Some(Err(format!("the request line names no mode and gives no reason; {usage}")));
    };
    if first == "because" {
        return Some(Err(format!("the request line names no mode; {usage}")));
    }
    let mode = match Mode::parse(first) {
        Ok(m) if first.bytes().all(|b| b.is_ascii_digit()) => m,
        _ => {
            return Some(Err(format!(
                "the request line's mode {first:?} is not four octal digits (system, external, network, workspace); \
                 {usage}"
            )));
        }
    };
    let mut hosts = Vec::new();
    let mut next = words.next();
    if next == Some("host") || next == Some("hosts") {
        let Some(list) = words.next().filter(|l| *l != "because") else {
            return Some(Err(format!("the request line says host but names none; {usage}")));
        };
        for h in list.split(',').filter(|h| !h.is_empty()) {
            match Entry::parse(h) {
                Ok(e) => hosts.push(e.text),
                Err(e) => return Some(Err(format!("the request line's {e}"))),
            }
        }
        next = words.next();
    }
    match next {
        Some("because") => {}
        Some(other) => {
            return Some(Err(format!("the request line has {other:?} where \"because\" belongs; {usage}")));
        }
        None => return Some(Err(format!("the request for {mode} gives no reason; {usage}"))),
    }
    let reason = after[after.find("because").map_or(after.len(), |i| i + "because".len())..].trim();
    // One short line a person reads: blanks run together, and at most so long.
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if reason.is_empty() {
        return Some(Err(format!("the request for {mode} gives no reason; {usage}")));
    }
    if reason.chars().count() > MAX_REASON {
        return Some(Err(format!(
            "the request's reason is {} characters long; say it in at most {MAX_REASON}",
            reason.chars().count()
        )));
    }
    Some(Ok(Request { mode, hosts, reason, line: line.trim().to_string(), loose: false }))
}

/// The comment on the first line of `text` (the second after a `#!` line), as bash reads it:
/// a `#` that starts a word outside quotes, to the end of the line. Clients put the command
/// they are given after their own words (`{ CMD; }`), so it need not start the line.
pub fn first_comment(text: &str) -> Option<&str> {
    let mut lines = text.lines();
    let mut line = lines.next()?;
    if line.starts_with("#!") {
        line = lines.next()?;
    }
    // Inside single quotes, `$'…'` (which has escapes), double quotes, or `${…}`, a `#` is text.
    let (mut single, mut ansi, mut double, mut escaped, mut braces) = (false, false, false, false, 0usize);
    let mut prev: Option<char> = None;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if !single || ansi => escaped = true,
            '\'' if single => (single, ansi) = (false, false),
            '\'' if !double => (single, ansi) = (true, prev == Some('$')),
            '"' if !single => double = !double,
            '{' if !single && prev == Some('$') => braces += 1,
            '}' if !single && braces > 0 => braces -= 1,
            '#' if !single
                && !double
                && braces == 0
                && prev.is_none_or(|p| p.is_whitespace() || ";&|(){}".contains(p)) =>
            {
                return Some(&line[i..]);
            }
            _ => {}
        }
        prev = Some(c);
    }
    None
}

/// The request a text starts with: the comment on its first line (see [`first_comment`]).
pub fn of_text(text: &str) -> Option<Result<Request, String>> {
    parse_line(first_comment(text)?)
}

/// The request of a decided program: its own first line, or the first line of a text it hands
/// to `eval` or `bash -c`. Two different ones cannot be asked.
pub fn of_decision(decision: &Decision) -> Option<Result<Request, String>> {
    let mut found: Vec<Result<Request, String>> = Vec::new();
    for r in
        of_text(&decision.program).into_iter().chain(decision.analysis.requests.iter().filter_map(|l| parse_line(l)))
    {
        if !found.contains(&r) {
            found.push(r);
        }
    }
    // A line of its own further down, as a client may put the command it was given inside its
    // own lines (`( trap …\nCMD\n)`).
    if found.is_empty() {
        for line in decision.program.lines().skip(1).filter(|l| is_request_line(l)).take(4) {
            let r = parse_line(line).map(|r| r.map(|r| Request { loose: true, ..r }));
            if let Some(r) = r
                && !found.contains(&r)
            {
                found.push(r);
            }
        }
    }
    match found.len() {
        0 => None,
        1 => found.pop(),
        n => Some(Err(format!("the program makes {n} different requests; make one, as its first line"))),
    }
}

/// What can be done with a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judged {
    /// A person may be asked: the mode is exactly what the program is missing.
    Ask,
    /// Denied without asking, with why (the request may be written again).
    Refused(String),
    /// It asks for nothing the program lacks: denied when it is the program's first line, only
    /// a comment when it is a loose one.
    Needless(String),
    /// Never granted here, whoever would answer (final).
    Forbidden(String),
    /// A nested level asked for no more than the enclosing level holds: nothing to ask, the
    /// program runs with that mode (the enclosing level's rules bound it all the same).
    Held(Mode),
}

/// The facts a request is judged by, besides the decision.
#[derive(Clone, Copy, Debug)]
pub struct Bounds<'a> {
    /// The administrator's ceiling and the file that sets it.
    pub ceiling: Option<Mode>,
    /// The enclosing level's mode (a nested level).
    pub outer: Option<Mode>,
    /// The mode a person granted the enclosing level's run, as it said.
    pub outer_grant: Option<Mode>,
    /// Why the network cannot be had here, when it cannot.
    pub network_off: Option<&'a str>,
    /// The network allowlist this level holds with its own proxy (none: every host as the
    /// mode allows, or a list an enclosing level holds).
    pub list: Option<&'a Allowlist>,
    /// What the kernel and the proxy refused in this workspace lately (the mode that would
    /// have allowed it, the hosts): all that code the analysis cannot see may ask for.
    pub observed: Option<&'a (Mode, Vec<String>)>,
}

/// What a denial's hint asks for: a mode, and hosts for the network allowlist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub mode: Mode,
    pub hosts: Vec<String>,
}

/// The request line that asks for `hint`, with REASON to fill in.
pub fn line_for(hint: &Hint) -> String {
    let hosts = if hint.hosts.is_empty() { String::new() } else { format!(" host {}", hint.hosts.join(",")) };
    format!("# sandbox-bash: request {}{hosts} because REASON", hint.mode)
}

/// Hosts as a set that compares however they were written.
fn host_set(hosts: &[String]) -> Vec<String> {
    let mut v: Vec<String> = hosts.iter().map(|h| h.trim().to_ascii_lowercase()).collect();
    v.sort();
    v.dedup();
    v
}

/// Judges `request` against the decision on the rest of the program.
pub fn judge(request: &Request, decision: &Decision, bounds: Bounds<'_>) -> Judged {
    let (asked, allowed) = (request.mode, decision.allowed);
    if let Some(outer) = bounds.outer {
        let within = outer.covers(asked) || bounds.outer_grant == Some(asked);
        if within && bounds.ceiling.is_none_or(|c| c.covers(asked)) && request.hosts.is_empty() {
            return Judged::Held(asked);
        }
        return Judged::Refused(format!(
            "the request for {asked} is made inside another sandbox-bash, whose mode {outer} a nested level can only \
             narrow: make the request the first line of the outermost command"
        ));
    }
    if let Some(ceiling) = bounds.ceiling
        && !ceiling.covers(asked)
    {
        return Judged::Forbidden(format!(
            "the request for {asked} is forbidden: the administrator's ceiling max_mode={ceiling} ({}) does not \
             allow {}; no one is asked",
            crate::config::SYSTEM_FILE,
            asked.without(ceiling)
        ));
    }
    if let Some(why) = bounds.network_off
        && asked.without(allowed).intersect(NETWORK_BITS) != Mode::NONE
    {
        return Judged::Forbidden(format!(
            "the request for {asked} is forbidden: it adds network, and {why}; no one is asked"
        ));
    }
    if let Some(failure) = &decision.analysis.failure {
        return Judged::Refused(format!(
            "the request for {asked} cannot be asked: the program cannot be analysed ({failure})"
        ));
    }
    if let Verdict::BashFails { .. } = decision.verdict {
        return Judged::Refused(format!("the request for {asked} cannot be asked: bash would fail before running it"));
    }
    if !request.hosts.is_empty() {
        let Some(list) = bounds.list else {
            return Judged::Refused(format!(
                "the request for {asked} names hosts, and no network allowlist of this level's is in force (the \
                 mode's network bits reach every host, or an enclosing level holds the list): ask for the mode alone"
            ));
        };
        for h in &request.hosts {
            let Ok(entry) = Entry::parse(h) else { continue };
            let dest = match entry.port {
                Some(p) => list.check(&allowlist::Destination::new(host_of(&entry.text), p)).err(),
                None => list.denied_on_every_port(host_of(&entry.text)),
            };
            if let Some(allowlist::Refusal { source, denied_by: Some(by) }) = dest {
                return Judged::Forbidden(format!(
                    "the request for {h} is forbidden: the deny entry {by:?} of {source} names it; no one is asked"
                ));
            }
        }
    }
    if decision.hosts_forbidden {
        return Judged::Forbidden(format!(
            "the request for {asked} is forbidden: the program names a host a deny entry of the network allowlist \
             refuses; no one is asked"
        ));
    }
    let (asked_hosts, refused_hosts) = (host_set(&request.hosts), host_set(&decision.hosts_missing));
    // Code the analysis cannot see (an interpreter, a script, a word it cannot know) may need
    // what no word of the program shows: the kernel and the proxy saw it refused, and said so
    // with this hint. The person asked sees that it is so.
    let unseen = sees_not_all(decision);
    let (seen_mode, seen_hosts) = bounds.observed.map_or((Mode::NONE, &[][..]), |(m, h)| (*m, &h[..]));
    let seen_hosts = host_set(seen_hosts);
    if let Some(extra) = asked_hosts.iter().find(|h| !(refused_hosts.contains(h) || unseen && seen_hosts.contains(h))) {
        return Judged::Refused(format!(
            "the request names the host {extra}, which the program is not refused{}",
            hosts_to_ask(&refused_hosts)
        ));
    }
    if let Some(left) = refused_hosts.iter().find(|h| !asked_hosts.contains(h)) {
        return Judged::Refused(format!(
            "the request does not name the host {left}, which the allowlist refuses the program{}",
            hosts_to_ask(&refused_hosts)
        ));
    }
    if !asked.covers(allowed) {
        return Judged::Refused(format!(
            "the request for {asked} does not contain the allowed mode {allowed} (it would take away {}): a request \
             only adds bits",
            allowed.without(asked)
        ));
    }
    let added = asked.without(allowed);
    let missing = decision.required.missing_from(allowed);
    let narrowest = allowed.union(missing);
    if added == Mode::NONE && asked_hosts.is_empty() {
        return Judged::Needless(format!("the request for {asked} adds nothing to the allowed mode {allowed}"));
    }
    if missing == Mode::NONE && refused_hosts.is_empty() && !unseen {
        return Judged::Needless(format!(
            "the request for {asked} is not needed: the program runs with the allowed mode {allowed}; remove the line"
        ));
    }
    let beyond = added.without(missing);
    if beyond != Mode::NONE && !(unseen && seen_mode.covers(beyond)) {
        let why = if unseen {
            format!(
                "the request for {asked} asks for {beyond}, which no word of the program needs and the kernel has not \
                 refused in this workspace lately; run it without the request first: if the kernel refuses it, the \
                 hint names what to ask"
            )
        } else {
            format!(
                "the request for {asked} is wider than the program needs ({beyond} is not missing): ask for {narrowest}"
            )
        };
        return Judged::Refused(why);
    }
    if !added.covers(missing) {
        return Judged::Refused(format!(
            "the request for {asked} does not cover what the program needs ({} is still missing): ask for {narrowest}",
            missing.without(added)
        ));
    }
    Judged::Ask
}

/// Whether the program runs code the analysis cannot see: an interpreter, a script or a name
/// that is not static (workspace execute), or a word it cannot know.
pub fn sees_not_all(decision: &Decision) -> bool {
    decision.required.has(crate::mode::Scope::Workspace, crate::mode::Perm::Execute)
        || !decision.analysis.unresolved.is_empty()
}

/// What a denial's hint names: the allowed mode plus only the bits the program is missing, and
/// the hosts the list refuses it for want of an entry, when a person could grant them (nothing
/// at a nested level, above the ceiling, for a network that cannot be had, for a host a deny
/// entry names, or for a program that cannot be analysed).
pub fn hint(decision: &Decision, bounds: Bounds<'_>) -> Option<Hint> {
    if decision.verdict != Verdict::Deny || decision.analysis.failure.is_some() || bounds.outer.is_some() {
        return None;
    }
    if decision.hosts_forbidden || (!decision.hosts_missing.is_empty() && bounds.list.is_none()) {
        return None;
    }
    let missing = decision.required.missing_from(decision.allowed);
    let narrowest = decision.allowed.union(missing);
    let blocked = (missing == Mode::NONE && decision.hosts_missing.is_empty())
        || bounds.ceiling.is_some_and(|c| !c.covers(narrowest))
        || (bounds.network_off.is_some() && missing.intersect(NETWORK_BITS) != Mode::NONE);
    (!blocked).then(|| Hint { mode: narrowest, hosts: decision.hosts_missing.clone() })
}

/// The hint line a denial ends with.
pub fn hint_line(hint: &Hint) -> String {
    format!("sandbox-bash: request: to run this once with more access, make its first line {}", line_for(hint))
}

/// The host an entry names, without its port.
fn host_of(entry: &str) -> &str {
    match entry.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !h.ends_with(':') => {
            h.trim_start_matches('[').trim_end_matches(']')
        }
        _ => entry.trim_start_matches('[').trim_end_matches(']'),
    }
}

fn hosts_to_ask(refused: &[String]) -> String {
    if refused.is_empty() { String::new() } else { format!(": ask for host {}", refused.join(",")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_is_paired_and_names_a_mode() {
        let ok = parse_line("# sandbox-bash: request 0667 because the build writes /srv/out").unwrap().unwrap();
        assert_eq!(ok.mode, Mode(0o0667));
        assert_eq!(ok.reason, "the build writes /srv/out");
        assert_eq!(parse_line("#sandbox-bash:   request\t0667 because x").unwrap().unwrap().mode, Mode(0o0667));
        for (line, says) in [
            ("# sandbox-bash: request", "names no mode and gives no reason"),
            ("# sandbox-bash: request because x", "names no mode"),
            ("# sandbox-bash: request 0667", "gives no reason"),
            ("# sandbox-bash: request 0667 because   ", "gives no reason"),
            ("# sandbox-bash: request 667 because x", "not four octal digits"),
            ("# sandbox-bash: request full because x", "not four octal digits"),
            ("# sandbox-bash: request 0667 since x", "where \"because\" belongs"),
        ] {
            let e = parse_line(line).unwrap().unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
        }
        let hosts =
            parse_line("# sandbox-bash: request 0467 host a.example:443,b.example because docs").unwrap().unwrap();
        assert_eq!(hosts.hosts, ["a.example:443", "b.example"]);
        assert!(parse_line("# sandbox-bash: request 0467 host because x").unwrap().unwrap_err().contains("names none"));
        assert!(parse_line("# sandbox-bash: request 0467 host a b because x").unwrap().unwrap_err().contains("\"b\""));
        assert!(parse_line("# sandbox-bash: request 0467 host *x because y").unwrap().is_err());
        for not in ["# sandbox-bash: requests 0667 because x", "echo # sandbox-bash: request", "# request 0667", ""] {
            assert_eq!(parse_line(not), None, "{not}");
        }
    }

    #[test]
    fn the_request_is_the_first_line_or_the_one_after_a_shebang() {
        let r = |t: &str| of_text(t).map(|r| r.map(|r| r.mode));
        assert_eq!(r("# sandbox-bash: request 0667 because x\ntouch /srv/x"), Some(Ok(Mode(0o0667))));
        assert_eq!(r("#!/bin/bash\n# sandbox-bash: request 0667 because x\n"), Some(Ok(Mode(0o0667))));
        assert_eq!(r("touch /srv/x\n# sandbox-bash: request 0667 because x"), None);
        // After a client's own words on the first line, as bash reads a comment.
        assert_eq!(
            r("shopt -u nullglob; { # sandbox-bash: request 0667 because x\ntouch /srv/x; }"),
            Some(Ok(Mode(0o0667)))
        );
        for not in [
            "echo '# sandbox-bash: request 0667 because x'",
            "echo \"# sandbox-bash: request 0667 because x\"",
            "echo a# sandbox-bash: request 0667 because x",
            "echo \\# sandbox-bash: request 0667 because x",
            "echo $'\\' # sandbox-bash: request 0667 because x'",
            "echo ${x:-{ # sandbox-bash: request 0667 because x}",
        ] {
            assert_eq!(r(not), None, "{not}");
        }
        assert_eq!(r(""), None);
    }
}
