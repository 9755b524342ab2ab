//! What the walk records: the bits each access needs and how certain it is, the words it
//! cannot know, the commands it sees, and code it cannot see (which needs workspace execute and
//! makes what it may change unknown); positions mapped back to the text the user gave.

use brush_parser::ast;

use super::Walker;
use super::state::State;
use crate::analysis::{Access, Bound, Certainty, CommandUse, Failure, Pos, Unresolved, parse};
use crate::mode::{Perm, Scope};

/// How much of a text the analysis cannot read the explanation shows.
const MAX_UNSEEN_SHOWN: usize = 400;

/// How much of the shell's state code the analysis cannot see may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    /// Anything: variables, functions, aliases, the cwd (`eval "$x"`).
    Everything,
    /// Only variables (`$(…)` in a word, `${x:=…}`).
    Variables,
}

impl Walker<'_> {
    /// Records the first failure; the program is then denied as a whole.
    pub fn fail(&mut self, f: Failure) {
        if self.failure.is_none() {
            self.failure = Some(f);
        }
    }

    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// Records that `command` needs `perm` in `scope` for `target`. Inside [`Self::possibly`],
    /// the access is possible, and only the static layer holds it.
    pub fn need(&mut self, scope: Scope, perm: Perm, target: &str, command: &str, reason: &str, pos: Pos) {
        self.need_bounded(scope, perm, target, command, reason, pos, Bound::Static);
    }

    /// [`Self::need`] for an access that `bound` holds when it is only possible.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn need_bounded(
        &mut self,
        scope: Scope,
        perm: Perm,
        target: &str,
        command: &str,
        reason: &str,
        pos: Pos,
        bound: Bound,
    ) {
        if scope == Scope::Network && perm == Perm::Read {
            self.fetched = true;
        }
        if self.quiet > 0 {
            return;
        }
        // Running code is held by the kernel only where it is an exec of a program that is not
        // there (`exec_held`): an interpreter reads its script past Landlock and noexec alike.
        let bound = if perm == Perm::Execute && !self.exec_held { Bound::Static } else { bound };
        let certainty = if self.possible > 0 { Certainty::Possible(bound) } else { Certainty::Known };
        if matches!(certainty, Certainty::Known | Certainty::Possible(Bound::Static)) {
            self.required_recorded += 1;
        }
        // The same need at another place is counted on the first (bound included: it is
        // what the access would be were it made possible later).
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = rustc_hash::FxHasher::default();
            (scope, perm, target, command, reason, certainty, bound).hash(&mut h);
            h.finish()
        };
        let place = (pos, self.origin.file);
        let sink = &mut self.sinks[self.sink];
        if let Some(&i) = sink.same.get(&key) {
            let a = &sink.accesses[i];
            if (a.scope, a.perm, a.certainty, sink.bounds[i]) == (scope, perm, certainty, bound)
                && (a.target.as_str(), a.command.as_str(), a.reason.as_str()) == (target, command, reason)
            {
                // A body walked again records the same places again: each is kept once.
                if sink.placed.insert((i, place)) {
                    sink.places[i].push(place);
                }
                return;
            }
        }
        let file = self.file_here();
        let sink = &mut self.sinks[self.sink];
        sink.same.insert(key, sink.accesses.len());
        sink.placed.insert((sink.accesses.len(), place));
        sink.bounds.push(bound);
        sink.places.push(vec![place]);
        sink.accesses.push(Access {
            scope,
            perm,
            target: target.to_string(),
            command: command.to_string(),
            reason: reason.to_string(),
            pos,
            certainty,
            file,
            text: None,
            more: 0,
        });
    }

    /// [`Self::possibly`] for an exec of a program by its path, which the kernel's execute
    /// rights hold (a probe for a program that is not there).
    pub fn possibly_exec<R>(&mut self, walk: impl FnOnce(&mut Self) -> R) -> R {
        let saved = std::mem::replace(&mut self.exec_held, true);
        let result = self.possibly(walk);
        self.exec_held = saved;
        result
    }

    /// Runs `walk` with every access it records only possible: the words of a program the
    /// analysis does not model, which may or may not be paths it opens.
    pub fn possibly<R>(&mut self, walk: impl FnOnce(&mut Self) -> R) -> R {
        self.possible += 1;
        let result = walk(self);
        self.possible -= 1;
        result
    }

    /// The file the text being walked comes from, when it is not the program's own.
    fn file_here(&self) -> Option<String> {
        self.origin.file.and_then(|i| self.file_names.get(i as usize)).cloned()
    }

    /// Records a word whose value is not known.
    pub fn unresolved(&mut self, text: &str, pos: Pos) {
        if self.quiet == 0 {
            let file = self.origin.file;
            let named = |i: Option<u32>| i.and_then(|i| self.file_names.get(i as usize)).map(String::as_str);
            self.unresolved.push_with(
                super::hash_of((text, pos, named(file))),
                |u| (u.text.as_str(), u.pos, u.file.as_deref()) == (text, pos, named(file)),
                || Unresolved { text: text.to_string(), pos, file: named(file).map(str::to_string) },
            );
        }
    }

    pub(super) fn record_command(&mut self, name: Option<&str>, text: &str, pos: Pos) {
        if self.quiet > 0 {
            return;
        }
        let file = self.origin.file.and_then(|i| self.file_names.get(i as usize)).map(String::as_str);
        let text = if name.is_none() { Some(text) } else { None };
        self.commands.push_with(
            super::hash_of((name, text, pos, file)),
            |c| (c.name.as_deref(), c.text.as_deref(), c.pos, c.file.as_deref()) == (name, text, pos, file),
            || CommandUse {
                file: file.map(str::to_string),
                name: name.map(str::to_string),
                text: text.map(str::to_string),
                pos,
            },
        );
        match name {
            Some(n) => {
                let calls = &mut self.sinks[self.sink].calls;
                if !calls.contains(n) {
                    calls.insert(n.to_string());
                }
            }
            None => self.sinks[self.sink].dynamic = true,
        }
    }

    /// Marks that code the analysis cannot see runs here: it needs workspace execute, it may
    /// call any function, and afterwards nothing about variables or the cwd is known.
    pub fn unknown_code(&mut self, what: &str, command: &str, pos: Pos, tainted: bool, st: &mut State) {
        self.unknown_code_reaching(what, command, pos, tainted, Reach::Everything, st);
    }

    /// [`Self::unknown_code`] that can change only what `reach` says.
    fn unknown_code_reaching(
        &mut self,
        what: &str,
        command: &str,
        pos: Pos,
        tainted: bool,
        reach: Reach,
        st: &mut State,
    ) {
        self.unresolved(what, pos);
        if tainted {
            self.need(Scope::Network, Perm::Execute, what, command, "runs code fetched from the network", pos);
        } else {
            self.need(Scope::Workspace, Perm::Execute, what, command, "runs code the analysis cannot see", pos);
        }
        if self.quiet == 0 {
            self.sinks[self.sink].dynamic = true;
        }
        self.assigned_dynamic = true;
        match reach {
            Reach::Everything => {
                // What a call may change was gathered knowing the aliases: once they are unknown,
                // it is gathered again (after that, nothing it was gathered from changes here).
                if !self.aliases_unknown {
                    self.aliases_unknown = true;
                    self.call_effects.clear();
                }
                st.havoc();
            }
            Reach::Variables => st.havoc_variables(),
        }
    }

    /// Code bash runs that the analysis cannot read (`why`): listed as a command that is not
    /// static, with its text, and treated as [`Self::unknown_code`].
    pub fn unseen(&mut self, code: &str, why: &str, pos: Pos, st: &mut State) {
        let mut shown = code.trim();
        if shown.len() > MAX_UNSEEN_SHOWN {
            let mut end = MAX_UNSEEN_SHOWN;
            while !shown.is_char_boundary(end) {
                end -= 1;
            }
            shown = &shown[..end];
        }
        self.record_command(None, shown, pos);
        self.unknown_code(why, "bash", pos, false, st);
    }

    /// An expansion the parser cannot follow (`raw`, the whole word): its value is not known
    /// and code in it runs unseen. In a subshell (`$(…)`) or as an assignment (`${x:=…}`,
    /// arithmetic) it can change only variables here; bash 5.3's `${ …; }` runs in this shell
    /// and can change anything.
    pub fn unseen_expansion(&mut self, raw: &str, what: &str, pos: Pos, st: &mut State) {
        let funsub = |t: &str| t.contains("${ ") || t.contains("${\t") || t.contains("${\n") || t.contains("${|");
        if funsub(raw) || funsub(what) {
            self.unseen(raw, what, pos, st);
            return;
        }
        self.record_command(None, raw, pos);
        self.unknown_code_reaching(what, "bash", pos, false, Reach::Variables, st);
    }

    pub fn take_taint(&mut self) -> bool {
        std::mem::take(&mut self.pending_taint)
    }

    /// Maps a position of the text being walked to the user's text.
    pub fn map(&self, p: Pos) -> Pos {
        self.origin.map(p)
    }

    pub(super) fn word_pos(&self, w: &ast::Word) -> Pos {
        parse::word_pos(w).map_or(self.here, |p| self.map(p))
    }

    /// Runs `f` without recording anything (to compute a value a second time).
    pub fn quiet_eval<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.quiet += 1;
        let fetched = self.fetched;
        let taint = self.pending_taint;
        let out = f(self);
        self.fetched = fetched;
        self.pending_taint = taint;
        self.quiet -= 1;
        out
    }
}
