//! What sandbox-bash says: the denial on stderr, and the explanation (text or JSON).

use std::borrow::Cow;

use serde::Serialize;

use crate::analysis::bytes::shown;

use crate::analysis::{Access, Analysis, Bound, Certainty};
use crate::mode::{Mode, Perm, Scope};

/// The fixed part of the denial line that existing tooling greps for.
pub const MODE_LEGEND: &str = "mode=system/external/network/workspace bits=4:read,2:write,1:execute";

/// One access as the JSON explanation and the audit log write it.
#[derive(Serialize)]
pub struct JsonAccess<'a> {
    scope: &'static str,
    perm: &'static str,
    target: Cow<'a, str>,
    command: Cow<'a, str>,
    reason: Cow<'a, str>,
    line: usize,
    column: usize,
    /// "known", or "possible" for a word only suspected to be a path.
    certainty: &'static str,
    /// For a possible access: what holds it instead of a bit ("kernel", "namespace view"),
    /// or "static" when nothing but its bit does.
    #[serde(skip_serializing_if = "Option::is_none")]
    held_by: Option<&'static str>,
    /// The file the position is in, when it is not the program itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<Cow<'a, str>>,
    /// The text of the simple command the access belongs to, as written (shortened).
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'a, str>>,
    /// How many more places need the same (this is the first of them).
    #[serde(skip_serializing_if = "is_zero")]
    more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> From<&'a Access> for JsonAccess<'a> {
    fn from(a: &'a Access) -> Self {
        JsonAccess {
            scope: a.scope.name(),
            perm: a.perm.letter(),
            target: shown(&a.target),
            command: shown(&a.command),
            reason: shown(&a.reason),
            line: a.pos.line,
            column: a.pos.column,
            certainty: match a.certainty {
                Certainty::Known => "known",
                Certainty::Possible(_) => "possible",
            },
            held_by: match a.certainty {
                Certainty::Known => None,
                Certainty::Possible(b) => Some(bound_name(b)),
            },
            file: a.file.as_deref().map(shown),
            text: a.text.as_deref().map(shown),
            more: a.more,
        }
    }
}

/// `text` for a terminal: [`shown`], with control characters (a program's words may hold
/// escape sequences that would redraw the screen or set the clipboard), the direction
/// overrides and line separators as `\xNN` or `\u{NNNN}`, so that what is printed is what
/// the program says.
fn told(text: &str) -> Cow<'_, str> {
    // Controls, format characters and the code points that draw nothing (Unicode's default
    // ignorables, tags and variation selectors included).
    let hidden = |c: char| {
        c.is_control()
            || matches!(c,
                '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
                | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
    };
    let text = shown(text);
    if !text.chars().any(hidden) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if hidden(c) && u32::from(c) < 0x100 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if hidden(c) => out.push_str(&format!("\\u{{{:04x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// ` in `TEXT``: the command's own text after its position, when it is known.
fn in_text(a: &Access) -> String {
    a.text.as_deref().map(|t| format!(" in `{}`", told(t))).unwrap_or_default()
}

/// Where an access is, and how many more places need the same: `3:5`, `FILE:3:5, and 40 more
/// places`.
fn places(a: &Access) -> String {
    let first = at(a.pos, a.file.as_deref());
    match a.more {
        0 => first,
        1 => format!("{first}, and 1 more place"),
        n => format!("{first}, and {n} more places"),
    }
}

/// A position in the explanation: `3:5`, or `FILE:3:5` in another file.
fn at(pos: crate::analysis::Pos, file: Option<&str>) -> String {
    match file {
        Some(f) => format!("{}:{pos}", told(f)),
        None => pos.to_string(),
    }
}

/// What holds a possible access, in words.
fn bound_name(b: Bound) -> &'static str {
    match b {
        Bound::Kernel => "kernel",
        Bound::View => "namespace view",
        Bound::Static => "static",
    }
}

/// The outcome of the static layer for one invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Deny,
    /// bash itself would fail before running anything (the script cannot be read): the error in
    /// sandbox-bash's words, and what bash prints and exits with.
    BashFails {
        error: String,
        message: String,
        status: i32,
    },
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Deny => "deny",
            Verdict::BashFails { .. } => "error",
        }
    }

    /// The exit status of `--sandbox-explain` on this verdict (a run that bash fails exits with
    /// bash's status): 126 for a denial by policy, 125 for what sandbox-bash cannot do safely.
    pub fn status(&self) -> i32 {
        match self {
            Verdict::Allow => 0,
            Verdict::Deny => DENIED,
            Verdict::BashFails { .. } => REFUSED,
        }
    }
}

/// The exit status of a denial by policy.
pub const DENIED: i32 = 126;

/// The exit status when sandbox-bash cannot run the command safely.
pub const REFUSED: i32 = 125;

/// Everything the explanation reports.
#[derive(Clone, Debug)]
pub struct Decision {
    pub source: &'static str,
    pub cwd: String,
    pub workspace: String,
    pub allowed: Mode,
    pub required: Mode,
    pub verdict: Verdict,
    pub analysis: Analysis,
    /// Why the program was not checked statically, or other facts worth saying.
    pub note: Option<String>,
    /// The script file analysed, as it was when it was read, to check it is still the same
    /// file right before bash reads it.
    pub script: Option<crate::analysis::files::Identity>,
    /// The script's bytes as analysed, and the path bash opens it by: bash reads a frozen copy
    /// of exactly these.
    pub script_bytes: Option<(std::path::PathBuf, Vec<u8>)>,
    /// The program text that was analysed (empty when there was none up front).
    pub program: String,
    /// Hosts the program names literally that the network allowlist in force refuses, one
    /// line each as the proxy words it, with the command and its position.
    pub hosts_refused: Vec<String>,
    /// New files the program writes right into an agents' shell-state directory (the snapshot
    /// it takes): created before the lock and granted for this run alone.
    pub client_files: Vec<String>,
    /// What the kernel layer lifts for this plain program (see [`crate::plain`]).
    pub relaxed: crate::plain::Relaxed,
    /// The descriptors the caller left open and what the run does with each (explanations
    /// only).
    pub inherited: Vec<String>,
    /// Hosts the list refuses for want of an entry that allows them (no deny entry names
    /// them), as an entry that would allow each; and whether a deny entry refuses one.
    pub hosts_missing: Vec<String>,
    pub hosts_forbidden: bool,
    /// What a person could grant for one run (see [`crate::request::hint`]): the denial ends
    /// with how to ask for it.
    pub request: Option<crate::request::Hint>,
}

impl Decision {
    /// The decision on a program that needs nothing (yet): allowed, with no accesses.
    pub fn nothing(
        source: &'static str,
        cwd: String,
        workspace: String,
        allowed: Mode,
        note: Option<String>,
    ) -> Decision {
        Decision {
            source,
            cwd,
            workspace,
            allowed,
            required: Mode::NONE,
            verdict: Verdict::Allow,
            analysis: crate::analysis::Analysis::default(),
            note,
            script: None,
            script_bytes: None,
            program: String::new(),
            hosts_refused: Vec::new(),
            client_files: Vec::new(),
            relaxed: crate::plain::Relaxed::default(),
            inherited: Vec::new(),
            hosts_missing: Vec::new(),
            hosts_forbidden: false,
            request: None,
        }
    }

    /// The canonical denial line.
    pub fn blocked_line(&self) -> String {
        format!(
            "command blocked by bash safety policy (required={} allowed={}; {MODE_LEGEND})",
            self.required, self.allowed
        )
    }

    /// One line per missing bit: scope, permission, target, command, reason, position.
    pub fn missing_lines(&self) -> Vec<String> {
        let missing = self.required.missing_from(self.allowed);
        let mut lines = Vec::new();
        for (scope, perm) in missing.bits() {
            let needing: Vec<&Access> =
                self.analysis.accesses.iter().filter(|a| a.scope == scope && a.perm == perm).collect();
            let Some(first) = needing.first() else { continue };
            let more = match needing.iter().map(|a| a.more + 1).sum::<usize>() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            lines.push(format!(
                "missing {} {} ({}): {} needs it for {} at {}{}: {}{more}",
                scope.name(),
                perm.word(),
                Mode::bit(scope, perm),
                told(&first.command),
                told(&first.target),
                told(&first.place()),
                in_text(first),
                told(&first.reason)
            ));
        }
        lines
    }

    /// What goes to stderr when the program is denied.
    pub fn denial_message(&self) -> String {
        let mut out = String::new();
        if let Some(failure) = &self.analysis.failure {
            out.push_str(&format!("sandbox-bash: denied: cannot analyse the program: {failure}\n"));
            out.push_str(&format!("sandbox-bash: denied: {}\n", self.blocked_line()));
            return out;
        }
        if self.required.missing_from(self.allowed) == Mode::NONE && !self.hosts_refused.is_empty() {
            // The bits are allowed; the hosts are not.
            for line in &self.hosts_refused {
                out.push_str(&format!("sandbox-bash: denied: {line}\n"));
            }
            return self.with_hint(out);
        }
        out.push_str(&format!("sandbox-bash: denied: {}\n", self.blocked_line()));
        for line in self.missing_lines() {
            out.push_str(&format!("sandbox-bash: denied: {line}\n"));
        }
        for line in &self.hosts_refused {
            out.push_str(&format!("sandbox-bash: denied: {line}\n"));
        }
        self.with_hint(out)
    }

    /// A denial's lines, then how to ask for more when a person could grant it.
    fn with_hint(&self, mut out: String) -> String {
        if let Some(hint) = &self.request {
            out.push_str(&crate::request::hint_line(hint));
            out.push('\n');
        }
        out
    }

    /// The human-readable explanation.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let verdict = match self.verdict {
            Verdict::Allow => "would run",
            Verdict::Deny => "would be denied",
            Verdict::BashFails { .. } => "error",
        };
        out.push_str(&format!("verdict:    {verdict} (exit {})\n", self.verdict.status()));
        out.push_str(&format!("source:     {}\n", self.source));
        out.push_str(&format!("cwd:        {}\n", self.cwd));
        out.push_str(&format!("workspace:  {}\n", self.workspace));
        out.push_str(&format!("allowed:    {}\n", self.allowed.describe()));
        out.push_str(&format!("required:   {}\n", self.required));
        let missing = self.required.missing_from(self.allowed);
        if missing != Mode::NONE {
            out.push_str(&format!("missing:    {missing}\n"));
        }
        out.push_str(&format!("            ({MODE_LEGEND})\n"));
        if let Verdict::BashFails { error, .. } = &self.verdict {
            out.push_str(&format!("error:      {error}\n"));
        }
        if let Some(failure) = &self.analysis.failure {
            out.push_str(&format!("failure:    {failure}\n"));
        }
        if let Some(note) = &self.note {
            out.push_str(&format!("note:       {note}\n"));
        }
        if let Some(hint) = &self.request {
            out.push_str(&format!(
                "request:    to run it once with more access, make its first line {}\n",
                crate::request::line_for(hint)
            ));
        }
        if !self.hosts_refused.is_empty() {
            out.push_str("hosts refused by the network allowlist:\n");
            for line in &self.hosts_refused {
                out.push_str(&format!("  {line}\n"));
            }
        }
        let (known, possible): (Vec<&Access>, Vec<&Access>) =
            self.analysis.accesses.iter().partition(|a| a.bound().is_none());
        if !known.is_empty() {
            out.push_str("needs:\n");
            for a in known {
                let bit = Mode::bit(a.scope, a.perm);
                let flag = if missing.covers(bit) { "  MISSING" } else { "" };
                out.push_str(&format!(
                    "  {bit} {} {:<7} {}  ({} at {}: {}){flag}\n",
                    a.scope.name(),
                    a.perm.word(),
                    told(&a.target),
                    told(&a.command),
                    places(a),
                    told(&a.reason)
                ));
            }
        }
        if !possible.is_empty() {
            out.push_str("possible (words that may be paths; no bit needed where the rules in force hold them):\n");
            for a in possible {
                let bit = Mode::bit(a.scope, a.perm);
                let held = match a.bound() {
                    Some(Bound::View) if !self.allowed.covers(bit) => "  held by Landlock or the namespace view",
                    Some(_) if !self.allowed.covers(bit) => "  held by the kernel",
                    _ => "",
                };
                out.push_str(&format!(
                    "  {bit} {} {:<7} {}  ({} at {}: {}){held}\n",
                    a.scope.name(),
                    a.perm.word(),
                    told(&a.target),
                    told(&a.command),
                    places(a),
                    told(&a.reason)
                ));
            }
        }
        if !self.analysis.commands.is_empty() {
            out.push_str("commands:\n");
            // Each command once, where it is first, with the number of its other places.
            let mut first: std::collections::HashMap<(Option<&str>, Option<&str>), usize> = Default::default();
            let mut listed: Vec<(&crate::analysis::CommandUse, usize)> = Vec::new();
            for c in &self.analysis.commands {
                match first.entry((c.name.as_deref(), c.text.as_deref())) {
                    std::collections::hash_map::Entry::Occupied(e) => listed[*e.get()].1 += 1,
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(listed.len());
                        listed.push((c, 0));
                    }
                }
            }
            for (c, more) in listed {
                let place = at(c.pos, c.file.as_deref());
                let place = match more {
                    0 => place,
                    1 => format!("{place}, and 1 more place"),
                    n => format!("{place}, and {n} more places"),
                };
                match &c.name {
                    Some(name) => out.push_str(&format!("  {} ({place})\n", told(name))),
                    None => {
                        out.push_str(&format!("  (not static: {}) ({place})\n", told(c.text.as_deref().unwrap_or(""))))
                    }
                }
            }
        }
        if !self.inherited.is_empty() {
            out.push_str("inherited descriptors:\n");
            for line in &self.inherited {
                out.push_str(&format!("  {line}\n"));
            }
        }
        if !self.analysis.unresolved.is_empty() {
            out.push_str("unresolved (bounded only by the kernel layer):\n");
            for u in &self.analysis.unresolved {
                out.push_str(&format!("  {} ({})\n", told(&u.text), at(u.pos, u.file.as_deref())));
            }
        }
        out
    }

    /// The JSON explanation: one object, documented in the manual.
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct JsonCommand<'a> {
            name: Option<Cow<'a, str>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            text: Option<Cow<'a, str>>,
            line: usize,
            column: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            file: Option<Cow<'a, str>>,
        }
        #[derive(Serialize)]
        struct JsonUnresolved<'a> {
            text: Cow<'a, str>,
            line: usize,
            column: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            file: Option<Cow<'a, str>>,
        }
        #[derive(Serialize)]
        struct Json<'a> {
            version: u32,
            source: &'a str,
            cwd: &'a str,
            workspace: &'a str,
            allowed: String,
            required: String,
            verdict: &'static str,
            accesses: Vec<JsonAccess<'a>>,
            commands: Vec<JsonCommand<'a>>,
            unresolved: Vec<JsonUnresolved<'a>>,
            error: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            note: Option<&'a str>,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            hosts_refused: &'a [String],
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            inherited: &'a [String],
            #[serde(skip_serializing_if = "Option::is_none")]
            request: Option<JsonRequest<'a>>,
        }
        #[derive(Serialize)]
        struct JsonRequest<'a> {
            mode: String,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            hosts: &'a [String],
        }
        let error = match (&self.verdict, &self.analysis.failure) {
            (Verdict::BashFails { error, .. }, _) => Some(error.clone()),
            (_, Some(f)) => Some(format!("cannot analyse the program: {f}")),
            (_, None) => None,
        };
        let doc = Json {
            version: 1,
            source: self.source,
            cwd: &self.cwd,
            workspace: &self.workspace,
            allowed: self.allowed.to_string(),
            required: self.required.to_string(),
            verdict: self.verdict.name(),
            accesses: self.analysis.accesses.iter().map(JsonAccess::from).collect(),
            commands: self
                .analysis
                .commands
                .iter()
                .map(|c| JsonCommand {
                    name: c.name.as_deref().map(shown),
                    text: c.text.as_deref().map(shown),
                    line: c.pos.line,
                    column: c.pos.column,
                    file: c.file.as_deref().map(shown),
                })
                .collect(),
            unresolved: self
                .analysis
                .unresolved
                .iter()
                .map(|u| JsonUnresolved {
                    text: shown(&u.text),
                    line: u.pos.line,
                    column: u.pos.column,
                    file: u.file.as_deref().map(shown),
                })
                .collect(),
            error,
            note: self.note.as_deref(),
            hosts_refused: &self.hosts_refused,
            inherited: &self.inherited,
            request: self.request.as_ref().map(|h| JsonRequest { mode: h.mode.to_string(), hosts: &h.hosts }),
        };
        serde_json::to_string_pretty(&doc)
            .unwrap_or_else(|e| format!("{{\"version\":1,\"verdict\":\"error\",\"error\":\"{e}\"}}"))
    }
}

/// The scope and permission named in words, for messages.
pub fn bit_words(scope: Scope, perm: Perm) -> String {
    format!("{} {}", scope.name(), perm.word())
}
