//! Code defined in one place and run in another: functions (defined, followed into at their
//! calls with the call's arguments and `local` names, or applied from their syntax when not
//! followed), aliases and traps.

use std::rc::Rc;

use rustc_hash::FxHashSet as HashSet;

use brush_parser::ast;

use super::state::{MAX_CHOICES, Name, State, Val};
use super::{FunctionDef, Origin, SHALLOW_CALLS, Sink, Walker};
use crate::analysis::Pos;
use crate::analysis::effects::Effects;
use crate::analysis::programs::{Nest, Stdin, shell_quote};
use crate::analysis::word::Arg;

#[cfg(test)]
thread_local! {
    /// Tests count how often what a call may change is gathered anew.
    pub(super) static GATHERED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Deepest chain of function calls followed into function bodies.
const MAX_CALL_DEPTH: usize = 4;

/// The largest function body (in characters of its text) a body walked on its own follows
/// every call into: a wrapper's arguments decide what it does; a larger body is followed once,
/// and walked on its own, its parameters unknown.
const DEFERRED_FOLLOW_CHARS: usize = 4_000;

/// Calls followed into their bodies before calls inside them are no longer followed (their
/// effects are applied from their syntax, and their bodies analysed on their own at the end).
pub(super) const MAX_FOLLOWED_CALLS: usize = 2_000;

impl Walker<'_> {
    pub(super) fn define_function(&mut self, f: &ast::FunctionDefinition, st: &mut State) {
        let name = f.fname.value.clone();
        let pos = self.word_pos(&f.fname);
        if self.volatile_calls.contains(&name) {
            // A trap that may run at any time calls it.
            self.add_volatile(Effects::of_compound(&f.body.0), st);
        }
        if self.quiet > 0 {
            return;
        }
        let sink = self.sinks.len();
        self.sinks.push(Sink::default());
        self.function_sinks.entry(name.clone()).or_default().push(sink);
        self.function_by_name.insert(name.clone(), self.functions.len());
        self.call_effects.clear();
        let origin = if self.origin.verbatim { self.origin } else { Origin { base: pos, ..self.origin } };
        let source = self.source.clone();
        self.functions.push(FunctionDef { name, body: std::sync::Arc::new(f.body.clone()), origin, source, sink });
    }

    /// A call of a function defined earlier: its body runs here, in this shell, with the
    /// call's arguments as positional parameters (the body is also analysed on its own at the
    /// end, for calls the walk cannot see).
    /// `ifs`: the `IFS` the arguments were split with, when known.
    pub(super) fn call_function(&mut self, name: &str, args: &[Arg], ifs: Option<&str>, st: &mut State) -> bool {
        let Some(&index) = self.function_by_name.get(name) else { return false };
        if args.iter().skip(1).any(|a| a.field.tainted) {
            // Which parameters, as the call would set them.
            let mut set = State::new(self.ctx);
            set.set_positional_args(&args[1..], ifs, self.list_references);
            let given = self.given_fetched.entry(name.to_string()).or_default();
            let before = given.clone();
            for i in set.tainted_params {
                if !given.0.contains(&i) {
                    given.0.push(i);
                }
            }
            given.1 = match (given.1, set.tainted_params_from) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if *given != before {
                self.given_changed.insert(name.to_string());
            }
        }
        // While probing a loop, follow calls one level deep only; and past a budget of calls
        // followed (a library of thousands of functions calling each other), none deeper than
        // the first.
        let depth_limit = if self.quiet > 0 || self.calls_followed >= MAX_FOLLOWED_CALLS { 1 } else { MAX_CALL_DEPTH };
        // In a body walked on its own, a large body is followed once: at its other calls it is
        // not, and is walked on its own too, since following it at each call cost more than
        // all the rest of the walk (a library's dispatcher called from its helpers). (Unless
        // an argument is fetched text or names a file saved with some.)
        let large = self.deferred_body.is_some()
            && self.function_walked.contains(&index)
            && {
                use brush_parser::ast::SourceLocation;
                self.functions[index]
                    .body
                    .location()
                    .is_some_and(|s| s.end.index - s.start.index > DEFERRED_FOLLOW_CHARS)
            }
            && !args[1..].iter().any(|a| a.field.tainted || self.without_asking(|w| w.arg_may_be_download(a, st)));
        if large || self.call_stack.iter().any(|n| n == name) || self.call_stack.len() >= depth_limit {
            // Not followed: what the function may change, changes.
            if self.quiet == 0 {
                self.function_skipped.insert(index);
            }
            self.apply_call_effects(name, st);
            // Files it saves fetched text to that its parameters name: the call's words.
            if !self.function_effects.contains_key(&index) {
                self.function_effects_of(index);
            }
            let params: Vec<usize> = self.function_effects[&index].downloaded_params.iter().copied().collect();
            for n in params {
                if let Some(arg) = args.get(n) {
                    self.note_download_to(arg, st);
                }
            }
            return true;
        }
        if self.shallow && self.call_stack.len() >= SHALLOW_CALLS {
            self.stop_shallow();
            return true;
        }
        let (body, origin, source) = {
            let f = &self.functions[index];
            (std::sync::Arc::clone(&f.body), f.origin, f.source.clone())
        };
        let saved_positional = (st.positional.clone(), st.positional_open);
        let saved_taint = (st.tainted_params.clone(), st.tainted_params_from);
        st.set_positional_args(&args[1..], ifs, self.list_references);
        // The variables as the call finds them, for the names it makes its own.
        self.local_frames.push((st.vars.clone(), Vec::new()));
        if self.quiet == 0 {
            self.function_walked.insert(index);
        }
        self.calls_followed += 1;
        self.call_stack.push(name.to_string());
        let saved_origin = std::mem::replace(&mut self.origin, origin);
        let saved_source = std::mem::replace(&mut self.source, source);
        let stdin = match &body.1 {
            Some(r) => self.redirects(&r.0, "", st, Stdin::Unknown),
            None => Stdin::Unknown,
        };
        self.returning(st, |w, st| w.compound(&body.0, st, stdin));
        if let Some((before, locals)) = self.local_frames.pop() {
            for name in locals {
                match before.get(name.as_str()) {
                    Some(value) => st.vars.insert(Name::from(name.as_str()), Rc::clone(value)),
                    None => st.vars.remove(name.as_str()),
                };
            }
        }
        self.origin = saved_origin;
        self.source = saved_source;
        self.call_stack.pop();
        st.positional = saved_positional.0;
        st.positional_open = saved_positional.1;
        (st.tainted_params, st.tainted_params_from) = saved_taint;
        true
    }

    /// `name` is the running function's own (`local`): when the call returns, the value it had
    /// before comes back. Outside a followed call (a function walked on its own, or the top
    /// level) it is an ordinary assignment.
    pub fn declare_local(&mut self, name: &str) {
        if let Some((_, locals)) = self.local_frames.last_mut()
            && !locals.iter().any(|n| n == name)
        {
            locals.push(name.to_string());
        }
    }

    /// Applies what a call of `name` (and the calls it makes) may change, read from syntax.
    fn apply_call_effects(&mut self, name: &str, st: &mut State) {
        let all = match self.call_effects.get(name) {
            Some(all) => Rc::clone(all),
            None => {
                #[cfg(test)]
                GATHERED.with(|g| g.set(g.get() + 1));
                let all = Rc::new(self.gather_call_effects(name));
                self.call_effects.insert(name.to_string(), Rc::clone(&all));
                all
            }
        };
        // A call never changes its caller's positional parameters: bash gives the function
        // its own and puts the caller's back when it returns.
        self.apply_effects(&all, st);
    }

    /// Applies what a call not followed may change, read from its syntax (`all`: with the
    /// effects of the functions it calls).
    fn apply_effects(&mut self, all: &Effects, st: &mut State) {
        // What it prints may be fetched code, and a file it saved may be fetched code (any file,
        // where it saves one it cannot name, or where it may change directory first).
        self.fetched |= all.fetches;
        // (Here only: the body not followed is walked on its own, where what it saves counts
        // for every body.)
        st.downloads_unknown |= all.downloads;
        for file in &all.downloaded {
            match self.absolutes(file, st) {
                Some(paths) if !all.cwd || file.starts_with('/') => {
                    for p in paths {
                        st.downloaded.insert(p);
                    }
                }
                _ => st.downloads_unknown = true,
            }
        }
        if all.traps {
            // A trap it sets runs later in the caller, with the caller's parameters.
            self.trap_runs_anywhere(None, st);
        }
        if all.dynamic {
            self.assigned_dynamic = true;
            let positional = (std::mem::take(&mut st.positional), st.positional_open);
            st.havoc();
            (st.positional, st.positional_open) = positional;
            return;
        }
        for (n, (values, open)) in &all.names {
            // The old value stays possible (the assignment may not run), plus what it may assign.
            let (mut now, was_open) = self.var_val(n, st).scalars();
            now.extend(values.iter().cloned());
            let widened = if now.len() > MAX_CHOICES {
                Val::unknown()
            } else {
                Val::Choice { values: now, open: *open || was_open }
            };
            self.assign_val(n, widened, st);
        }
        if all.cwd {
            self.cwd_changes = true;
            st.set_cwds(None);
            st.dirs = None;
            self.entered_cwds = None;
        }
    }

    /// `effects` with the effects of every function it calls, as defined now (and of those they
    /// call).
    fn with_calls(&mut self, mut effects: Effects) -> Effects {
        let mut seen: HashSet<String> = HashSet::default();
        let mut queue: Vec<String> = effects.calls.iter().cloned().collect();
        while let Some(n) = queue.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            // An alias of that name runs instead (in a body defined after it): not read here.
            if self.aliases_unknown || self.aliases.contains_key(&n) {
                effects.dynamic = true;
            }
            let Some(&index) = self.function_by_name.get(&n) else { continue };
            let own = self.function_effects_of(index);
            queue.extend(own.calls.iter().cloned());
            effects.merge(own);
        }
        effects
    }

    fn function_effects_of(&mut self, index: usize) -> Effects {
        match self.function_effects.get(&index) {
            Some(e) => e.clone(),
            None => {
                let e = Effects::of_function(&self.functions[index].body);
                self.function_effects.insert(index, e.clone());
                e
            }
        }
    }

    /// What a call of `name` may change: its own effects and those of every function it
    /// calls, as defined now.
    fn gather_call_effects(&mut self, name: &str) -> Effects {
        let start = Effects { calls: [name.to_string()].into_iter().collect(), ..Effects::default() };
        self.with_calls(start)
    }

    pub(super) fn expand_alias(&mut self, name: &str, args: &[Arg], st: &mut State) {
        match self.aliases.get(name).cloned() {
            Some(Some(text)) => {
                let rest: Vec<String> =
                    args[1..].iter().map(|a| shell_quote(&a.known().unwrap_or_else(|| a.raw.clone()))).collect();
                let code = if rest.is_empty() { text } else { format!("{text} {}", rest.join(" ")) };
                let pos = args[0].pos;
                // Aliases do not expand recursively into themselves.
                let saved = self.aliases.remove(name);
                self.run_decoded(&code, pos, st, Nest::Same);
                if let Some(v) = saved {
                    self.aliases.insert(name.to_string(), v);
                    // What a call may change was gathered without it meanwhile.
                    self.call_effects.clear();
                }
            }
            Some(None) => {
                let pos = args[0].pos;
                self.unknown_code(&format!("alias {name}"), name, pos, false, st);
            }
            None => {}
        }
    }

    /// `alias NAME=VALUE …`.
    pub fn define_alias(&mut self, name: &str, value: Option<String>) {
        self.aliases.insert(name.to_string(), value);
        // What a call may change was gathered with the aliases then defined.
        self.call_effects.clear();
    }

    /// A trap action that may run between any two commands (`action` is `None` when its text is
    /// not known): what it may assign, with the functions it calls, may change at any time, and
    /// so may the positional parameters and the working directory where it runs `set`, `shift`
    /// or `cd`.
    pub fn trap_runs_anywhere(&mut self, action: Option<&str>, st: &mut State) {
        let effects = match action.map(|text| self.parse_cached(text)) {
            Some(Ok(program)) => Effects::of_program(&program),
            _ => Effects { dynamic: true, ..Effects::default() },
        };
        self.volatile_positional |= effects.positional || effects.dynamic;
        self.add_volatile(effects, st);
    }

    fn add_volatile(&mut self, effects: Effects, st: &mut State) {
        self.volatile_all |= effects.dynamic;
        if (effects.cwd || effects.dynamic) && !self.volatile_cwd {
            self.volatile_cwd = true;
            self.cwd_changes = true;
            self.entered_cwds = None;
            st.set_cwds(None);
            st.dirs = None;
        }
        // A name that is a reference assigns whichever name it refers to when the trap runs.
        if effects.names.keys().any(|n| self.reference_names.contains(n)) {
            self.volatile_all = true;
        }
        self.volatile.extend(effects.names.into_keys());
        for call in effects.calls {
            if (self.aliases_unknown || self.aliases.contains_key(&call)) && !self.volatile_all {
                // An alias of that name runs instead: what it does is not read here.
                self.volatile_all = true;
                self.volatile_positional = true;
                self.add_volatile(Effects { cwd: true, ..Effects::default() }, st);
            }
            if self.volatile_calls.insert(call.clone()) {
                let bodies: Vec<_> =
                    self.functions.iter().filter(|f| f.name == call).map(|f| std::sync::Arc::clone(&f.body)).collect();
                for body in bodies {
                    self.add_volatile(Effects::of_compound(&body.0), st);
                }
            }
        }
    }

    pub fn set_trap(&mut self, action: &str, pos: Pos) {
        if self.quiet == 0 {
            self.traps.push((action.to_string(), Origin { base: pos, verbatim: false, file: self.origin.file }));
        }
    }
}
