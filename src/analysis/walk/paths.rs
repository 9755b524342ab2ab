//! Paths and what an access needs: a word as a path in each directory the cwd may be (or
//! wherever it could be), partly known paths and globs, links, and the scope and bits of each
//! access (the runtime baseline needs none; entries made in a pinned directory need more).

use std::collections::BTreeSet;

use super::Walker;
use super::state::State;
use crate::analysis::asked;
use crate::analysis::word::{Arg, Field};
use crate::analysis::{Bound, Pos};
use crate::mode::{Perm, Scope};
use crate::scope::{self, Class};

/// The programs whose written paths are removed, not made.
const REMOVERS: &[&str] = &["rm", "rmdir", "unlink", "srm", "trash", "trash-put", "gio-trash"];

/// The programs that write a file that exists by making a new one beside it and renaming it
/// over (`sed -i`, `perl -i`), or move it away (`mv`).
const REPLACERS: &[&str] = &["sed", "perl", "ruby", "mv", "install", "rsync"];

impl Walker<'_> {
    /// The absolute, normal form of a path in the current cwd, when it can be known.
    pub fn absolute(&self, path: &str, st: &State) -> Option<String> {
        if path.starts_with('/') {
            Some(scope::normalize("/", path))
        } else {
            st.cwd.as_ref().map(|cwd| scope::normalize(cwd, path))
        }
    }

    /// Every absolute, normal form a path may have: one per directory the cwd may be.
    /// `None` when the path is relative and the cwd could be anywhere.
    pub fn absolutes(&self, path: &str, st: &State) -> Option<Vec<String>> {
        if path.starts_with('/') {
            return Some(vec![scope::normalize("/", path)]);
        }
        let all: BTreeSet<String> = st.cwds()?.iter().map(|cwd| scope::normalize(cwd, path)).collect();
        Some(all.into_iter().collect())
    }

    /// `path`, as written in `arg`, classified in each directory the cwd may be; where the cwd
    /// is not known, unresolved and scoped wherever it could land.
    fn classified_at(&mut self, path: &str, arg: &Arg, perms: &[Perm], command: &str, reason: &str, st: &State) {
        match self.absolutes(path, st) {
            Some(all) => {
                for abs in all {
                    self.classified(&abs, perms, command, reason, arg.pos);
                }
            }
            None => {
                self.unresolved(&arg.raw, arg.pos);
                self.anywhere(path, perms, command, reason, arg.pos);
            }
        }
    }

    /// A relative path where the cwd could be anywhere (after `cd` to a directory the walk
    /// cannot know): it is not taken for the workspace. It is scoped by its name in the places
    /// it could be — in the workspace, in a `.git` directory, in the home directory — so that
    /// a credential or a protected path (`.git/hooks/…`, `config` in `.git`, `.bashrc`)
    /// needs system access; everything else about it is bounded by the kernel layer.
    pub fn anywhere(&mut self, rel: &str, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        // The cwd's own entry, written without going into it (`mkdir -p .`, `touch .`),
        // plants nothing wherever the cwd is.
        if scope::normalize("/", rel) == "/" && !perms.contains(&Perm::Read) {
            return;
        }
        let layout = &self.ctx.layout;
        let mut bases = vec![layout.workspace.clone(), format!("{}/.git", layout.workspace.trim_end_matches('/'))];
        bases.extend(layout.home.iter().cloned());
        let mut needs: Vec<(Perm, &'static str)> = Vec::new();
        for &perm in perms {
            for base in &bases {
                let class = self.classify(&scope::normalize(base, rel), perm == Perm::Write);
                let noun = match class {
                    Class::Credential => "a credential",
                    Class::Protected => "a protected path (changing it runs code later)",
                    _ => continue,
                };
                if !needs.iter().any(|(p, _)| *p == perm) {
                    needs.push((perm, noun));
                }
            }
        }
        for (perm, noun) in needs {
            let why = format!("{reason}; the cwd is not known here, and in some directory this path is {noun}");
            self.need(Scope::System, perm, rel, command, &why, pos);
        }
    }

    /// A file the running command writes what it reads into (a copy, a link, `tee`, `dd of=`):
    /// where it read fetched text, the file may hold it (see `simple_with`).
    pub fn note_written(&mut self, arg: &Arg) {
        if self.quiet == 0 {
            self.written_now.push(arg.clone());
        }
    }

    /// [`Self::path`] for a program that lists: it prints names, not what the files hold, so a
    /// file saved with fetched text it names does not make its output fetched.
    pub fn path_listed(&mut self, arg: &Arg, perms: &[Perm], command: &str, reason: &str, st: &State) {
        let read_saved = self.read_saved;
        self.path(arg, perms, command, reason, st);
        self.read_saved = read_saved;
    }

    /// Records the accesses a command makes to the file named by `arg`.
    pub fn path(&mut self, arg: &Arg, perms: &[Perm], command: &str, reason: &str, st: &State) {
        // A command that reads a file saved with fetched text may print that text. (A body
        // walked on its own that finds none is not walked again for it when a later one saves
        // one: nearly every body reads files, and most fetch nothing.)
        if perms.contains(&Perm::Read) && self.quiet == 0 && self.without_asking(|w| w.names_saved_file(arg, st)) {
            self.read_saved = true;
        }

        let field = &arg.field;
        if field.tainted {
            self.unresolved(&arg.raw, arg.pos);
        }
        if field.known().is_none()
            && let Some((values, open)) = field.alternatives()
        {
            // Each possible value is a path this command may touch.
            for value in values {
                let words: Vec<&str> =
                    if field.splits_choices() { value.split_whitespace().collect() } else { vec![value.as_str()] };
                for w in words {
                    let alt = Arg { field: Field::literal(w), pos: arg.pos, raw: arg.raw.clone() };
                    self.path(&alt, perms, command, reason, st);
                }
            }
            if open {
                self.unresolved(&arg.raw, arg.pos);
            }
            return;
        }
        match field.known() {
            Some(_) if field.has_glob() => self.glob_path(arg, &field.glob_pattern(), perms, command, reason, st),
            Some(text) => {
                if text.is_empty() {
                    return;
                }
                self.classified_at(&text, arg, perms, command, reason, st);
            }
            None => {
                let prefix = field.prefix();
                let certain = field.only_numbers_unknown();
                // `/proc/$PPID/cmdline`: what a process is, whichever process it is.
                if certain && !perms.contains(&Perm::Write) && scope::is_process_info(&field.with_numbers("1")) {
                    return;
                }
                if !certain {
                    self.unresolved(&arg.raw, arg.pos);
                }
                // The directory part of the known prefix scopes it, as for a glob.
                if let Some(slash) = prefix.rfind('/') {
                    let dir = if slash == 0 { "/".to_string() } else { prefix[..slash].to_string() };
                    for abs in self.absolutes(&dir, st).unwrap_or_default() {
                        self.classified(&abs, perms, command, reason, arg.pos);
                    }
                } else if certain {
                    for cwd in st.cwds().unwrap_or_default() {
                        self.classified(&cwd, perms, command, reason, arg.pos);
                    }
                }
                self.credential_fragments(field, perms, command, reason, arg.pos);
                self.protected_fragments(field, perms, command, reason, arg.pos);
            }
        }
    }

    /// Partly known paths whose known parts name a credential are treated as credentials.
    fn credential_fragments(&mut self, field: &Field, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        let names_secret = field
            .fragments()
            .iter()
            .any(|f| f.split('/').any(|c| scope::credential_name(c) || scope::home_credential_name(c)));
        if names_secret {
            let target = field.fragments().concat();
            for p in perms {
                self.need(Scope::System, *p, &target, command, &format!("{reason}; the path names a credential"), pos);
            }
        }
    }

    /// Partly known paths whose known parts name a protected path (`$d/.git/hooks/x`) are
    /// written as protected paths.
    fn protected_fragments(&mut self, field: &Field, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        if !perms.contains(&Perm::Write) {
            return;
        }
        let known = field.fragments().concat();
        let rel = known.trim_start_matches('/');
        if rel.is_empty() {
            return;
        }
        let protected = self.ctx.layout.is_protected(&known)
            || self.classify(&scope::normalize(&self.ctx.layout.workspace, rel), true) == Class::Protected;
        if protected {
            let why = format!("{reason}; the path names a protected path (changing it runs code later)");
            self.need(Scope::System, Perm::Write, &known, command, &why, pos);
        }
    }

    fn glob_path(&mut self, arg: &Arg, pattern: &str, perms: &[Perm], command: &str, reason: &str, st: &State) {
        // Scoped by the literal directory before the first glob character…
        let first_glob = first_unescaped_glob(pattern).unwrap_or(pattern.len());
        let literal = unescape_glob(&pattern[..first_glob]);
        let dir = match literal.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => literal[..i].to_string(),
            None => ".".to_string(),
        };

        // (Where the cwd is not known, the names it can match decide, not the directory.)
        match self.absolutes(&dir, st) {
            Some(_) => self.classified_at(&dir, arg, perms, command, reason, st),
            None => {
                self.unresolved(&arg.raw, arg.pos);
                self.anywhere(pattern, perms, command, reason, arg.pos);
            }
        }
        // …and by the credential and protected paths it matches now.
        for abs_pattern in self.absolute_patterns(pattern, st) {
            for m in crate::analysis::glob::matches(&abs_pattern, 4096) {
                let write = perms.contains(&Perm::Write);
                let class = self.classify(&m, write);
                if matches!(class, Class::Credential | Class::Protected) {
                    self.classified(&m, perms, command, reason, arg.pos);
                }
            }
        }
    }

    /// Pathname expansion of a command word: bash lists the directory a glob names
    /// (`echo /etc/*` and `for f in /etc/*` read `/etc`), whatever the command does with the
    /// words it gets. Scoped by the longest literal directory before the first glob character.
    pub fn glob_listing(&mut self, arg: &Arg, st: &State) {
        if self.quiet > 0 || !arg.field.has_glob() {
            return;
        }
        if arg.field.known().is_none() {
            // Where the glob is depends on text the walk cannot know.
            self.unresolved(&arg.raw, arg.pos);
            return;
        }
        let pattern = arg.field.glob_pattern();
        let Some(first) = first_glob_pattern_char(&pattern) else { return };
        let literal = unescape_glob(&pattern[..first]);
        let dir = match literal.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => literal[..i].to_string(),
            None => ".".to_string(),
        };
        let reason = "expands a glob, which lists the directory";
        self.classified_at(&dir, arg, &[Perm::Read], "the shell", reason, st);
    }

    /// The absolute forms of a glob pattern, one per directory the cwd may be.
    fn absolute_patterns(&self, pattern: &str, st: &State) -> Vec<String> {
        if pattern.starts_with('/') {
            vec![pattern.to_string()]
        } else {
            let cwds = st.cwds().unwrap_or_default();
            cwds.iter().map(|cwd| format!("{}/{pattern}", cwd.trim_end_matches('/'))).collect()
        }
    }

    /// Records the bits an absolute path needs for `perms`.
    pub fn classified(&mut self, abs: &str, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        if self.quiet > 0 {
            // A quiet run (a loop body walked ahead) still says which files may be written
            // before a later `source` reads them.
            if perms.contains(&Perm::Write) {
                self.written.insert(abs.to_string());
            }
            return;
        }
        self.classified_once(abs, perms, command, reason, pos);
        // A link lands somewhere else: the place it leads to needs the same bits.
        if let Some(target) = self.link_target(abs) {
            let why = format!("{reason}, through a link to {target}");
            self.classified_once(&target, perms, command, &why, pos);
        }
    }

    /// Where a path really leads when a link is on the way: one this program creates (`ln`),
    /// or one that exists now in a place the program could have planted it.
    fn link_target(&mut self, abs: &str) -> Option<String> {
        for (link, target) in &self.links {
            if scope::is_within(abs, link) {
                return Some(format!("{target}{}", &abs[link.len()..]));
            }
        }
        let class = self.classify(abs, false);
        if !matches!(class, Class::Workspace | Class::External | Class::Scratch) {
            return None;
        }
        // /dev/stderr, /dev/fd/N and /proc/self are links that mean the running process's
        // own files: their names decide, not where they point while sandbox-bash runs.
        if abs.starts_with("/dev/") || abs.starts_with("/proc/") {
            return None;
        }
        if let Some(cached) = self.canonical_cache.get(abs) {
            return cached.clone();
        }
        let resolved = asked::canonical(abs).or_else(|| through_dangling_links(abs)).filter(|p| p != abs);
        self.canonical_cache.insert(abs.to_string(), resolved.clone());
        resolved
    }

    /// Records a link the program creates.
    pub fn record_link(&mut self, link: &str, target: &str) {
        if self.quiet == 0 {
            self.links.push((link.to_string(), target.to_string()));
        }
    }

    /// Whether writing `abs` makes or removes an entry right in the home, or in a directory of
    /// it that holds start-up, settings or credential files: the kernel layer keeps such a
    /// directory itself read-only unless the mode grants the whole system (see
    /// [`scope::Layout::holds`]). A path that does not exist is made, but by a program that
    /// removes (then nothing happens); one that exists is removed or replaced by such a program
    /// or one of [`REPLACERS`], and written in place by any other.
    fn entry_of_pinned(&self, abs: &str, command: &str) -> bool {
        let layout = &self.ctx.layout;
        let Some(home) = layout.home.as_deref().filter(|h| *h != "/") else { return false };
        let Some((parent, _)) = abs.rsplit_once('/') else { return false };
        if !scope::is_within(parent, home) || !layout.holds(parent, true) {
            return false;
        }
        Self::makes_or_removes(abs, command)
    }

    /// Whether `abs` is an entry made, removed or replaced right in a client's directory at
    /// the top of the workspace, which the kernel layer keeps read-only itself unless the mode
    /// writes the system (see [`scope::Client::holder`]).
    fn entry_of_workspace_holder(&self, abs: &str, command: &str) -> bool {
        let Some((parent, _)) = abs.rsplit_once('/') else { return false };
        self.ctx.layout.is_workspace_holder(parent) && Self::makes_or_removes(abs, command)
    }

    /// Whether `command` writing `abs` makes, removes or replaces the entry (see
    /// [`Walker::entry_of_pinned`]).
    fn makes_or_removes(abs: &str, command: &str) -> bool {
        let name = command.rsplit('/').next().unwrap_or(command);
        let removes = REMOVERS.contains(&name);
        match asked::status(abs, false) {
            Ok(_) => removes || REPLACERS.contains(&name),
            Err(missing) => missing == asked::Missing::NotFound && !removes,
        }
    }

    fn classified_once(&mut self, abs: &str, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        for &perm in perms {
            if perm == Perm::Read && scope::is_process_info(abs) {
                continue;
            }
            let class = self.classify(abs, perm == Perm::Write);
            // What every program may read and run whatever the mode (the runtime baseline: the
            // program directories, the /etc entries programs read at run time, a toolchain on
            // PATH) needs no bit: the kernel grants it at every level.
            if perm != Perm::Write
                && ((class == Class::System && crate::baseline::baseline_grants(abs, perm))
                    || (class == Class::External && self.in_toolchain(abs)))
            {
                continue;
            }
            if perm == Perm::Write && self.quiet == 0 {
                self.written.insert(abs.to_string());
            }
            if perm == Perm::Write && class == Class::External && self.entry_of_pinned(abs, command) {
                let why = format!(
                    "{reason} (an entry made, removed or replaced right in a directory the kernel layer \
                     keeps read-only unless the mode grants the whole system, so that start-up and settings \
                     files that do not exist yet cannot be made there; a directory of its own takes new files)"
                );
                for p in Perm::ALL {
                    self.need_bounded(Scope::System, p, abs, command, &why, pos, Bound::Kernel);
                }
            }
            if perm == Perm::Write && class == Class::Workspace && self.entry_of_workspace_holder(abs, command) {
                let why = format!(
                    "{reason} (an entry made, removed or replaced right in an agent's directory at the top of the \
                     workspace, which the kernel layer keeps read-only so that a second settings file cannot be made \
                     there; its other entries stay writable)"
                );
                self.need_bounded(Scope::System, Perm::Write, abs, command, &why, pos, Bound::View);
            }
            if let Some(scope) = class.scope() {
                let why = match class {
                    Class::Credential => format!("{reason} ({})", class.noun()),
                    Class::Protected => format!("{reason} (a protected path: changing it runs code later)"),
                    Class::Network => format!("{reason} (bash's network pseudo-device)"),
                    _ => reason.to_string(),
                };
                let bound = match class {
                    Class::Credential | Class::Protected => Bound::View,
                    Class::Network => Bound::Static,
                    _ => Bound::Kernel,
                };
                self.need_bounded(scope, perm, abs, command, &why, pos, bound);
            }
            if is_engine_socket(abs) {
                self.need(
                    Scope::System,
                    Perm::Execute,
                    abs,
                    command,
                    "talks to a container engine, which is root-equivalent",
                    pos,
                );
            }
        }
    }

    /// Whether `abs` lies in a toolchain home the runtime baseline grants.
    fn in_toolchain(&self, abs: &str) -> bool {
        self.ctx.toolchains.iter().any(|t| scope::is_within(abs, t))
    }

    pub fn note_unknown_write(&mut self) {
        if self.quiet == 0 {
            self.written_unknown = true;
        }
    }

    /// A program ran whose every output the table does not name.
    pub fn note_unmodelled_program(&mut self) {
        self.unmodelled_program = true;
    }
}

/// Whether a path is a container engine's control socket.
pub fn is_engine_socket(abs: &str) -> bool {
    let name = abs.rsplit('/').next().unwrap_or("");
    matches!(name, "docker.sock" | "podman.sock" | "containerd.sock" | "crio.sock" | "dockershim.sock")
}

fn first_unescaped_glob(pattern: &str) -> Option<usize> {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'*' | b'?' | b'[' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Where the first character is that makes `pattern` a glob for bash's pathname expansion:
/// an unescaped `*` or `?`, or a `[` that a `]` closes later (a lone `[`, as in `[ -f x ]`,
/// is matched literally and lists nothing).
fn first_glob_pattern_char(pattern: &str) -> Option<usize> {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'*' | b'?' => return Some(i),
            b'[' if b[i + 1..].contains(&b']') => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn unescape_glob(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Where `abs` leads when a link on its way leads to a name that does not exist yet (a write
/// through `sub/c -> ../.git/commondir` makes `.git/commondir`): each link followed, the rest
/// joined as written; `None` when no link is on the way, or past 40 of them.
fn through_dangling_links(abs: &str) -> Option<String> {
    let mut path = abs.to_string();
    let mut followed = 0;
    'again: loop {
        let mut at = String::new();
        let parts: Vec<String> = path.split('/').filter(|c| !c.is_empty()).map(str::to_string).collect();
        for (i, part) in parts.iter().enumerate() {
            at.push('/');
            at.push_str(part);
            let Ok(kind) = asked::status(&at, false) else {
                // Nothing there: the rest is made as written.
                return (followed > 0).then_some(path);
            };
            if kind == asked::Kind::Link {
                followed += 1;
                if followed > 40 {
                    return None;
                }
                let target = asked::link(&at)?;
                let dir = at.rsplit_once('/').map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
                let mut next = scope::normalize(dir, &target);
                for rest in &parts[i + 1..] {
                    next = scope::normalize(&next, rest);
                }
                path = next;
                continue 'again;
            }
        }
        return (followed > 0).then_some(path);
    }
}
