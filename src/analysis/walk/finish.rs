//! The end of the walk: function bodies and traps walked in a state where what the program
//! assigns anywhere is unknown, which of them can run, and the analysis assembled from what
//! every body recorded.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::state::State;
use super::{Place, Sink, Walker};
use crate::analysis::programs::{Nest, Stdin};
use crate::analysis::{Access, Analysis, Certainty};
use crate::mode::{Perm, Scope};

impl Walker<'_> {
    pub(super) fn finish(mut self) -> Analysis {
        if self.failed() {
            return Analysis { failure: self.failure, ..Analysis::default() };
        }
        // Function bodies and traps run later, at times the walk cannot know: analyse them in
        // a state where everything the program assigns anywhere is unknown. If they assign
        // more, analyse once more with every variable unknown.
        let commands_mark = self.commands.len();
        let unresolved_mark = self.unresolved.len();
        let trap_sink = self.sinks.len();
        self.sinks.push(Sink::default());
        // Which bodies the main walk followed whole. Each round starts from these alone: a
        // call followed in an earlier round, in a state that knew more, says nothing about a
        // round where its name may be unknown.
        let followed = (self.function_walked.clone(), self.function_skipped.clone());
        let mut all_unknown = self.assigned_dynamic;
        loop {
            let assigned_before = self.assigned.len();
            let dynamic_before = self.assigned_dynamic;
            // Whether this round's state no longer holds (its results are then dropped).
            let grew = |w: &Walker| {
                !all_unknown && (w.assigned.len() != assigned_before || w.assigned_dynamic != dynamic_before)
            };
            self.commands.truncate(commands_mark);
            self.unresolved.truncate(unresolved_mark);
            for s in self.sinks.iter_mut().skip(1) {
                *s = Sink::default();
            }
            (self.function_walked, self.function_skipped) = (followed.0.clone(), followed.1.clone());
            // Each body is walked on its own at most once a round: at its turn, and, when a
            // walk after its turn leaves a call of it unfollowed, in a further pass of the same
            // round. Once a body assigns what the round's state took as known, the rest of the
            // round is not walked: its results would be dropped.
            let mut alone: HashSet<usize> = HashSet::default();
            let mut traps_done = 0;
            // Fetched text reaches bodies walked on their own through the variables given it
            // anywhere, and the parameters of a function some call gave it to (followed or
            // not), asked as the round goes. A body that read as not fetched what text fetched
            // later in the round reaches is walked again in a further pass, three times at
            // most; then once more with everything it does not know taken as fetched.
            self.read_clean.clear();
            self.params_read_clean.clear();
            self.given_changed.clear();
            let mut anywhere_before = self.params_fetched || self.fetched_args;
            let mut taint_passes = 0;
            self.fetched_code_known = self.runs_fetched_code([0, trap_sink]);
            self.bodies_asked_downloads.clear();
            let mut downloads_before = self.downloads_seen();
            'round: loop {
                let blanket = taint_passes > 3;
                let mut walked = false;
                let mut index = 0;
                // Only a body some code that can run calls (see `runnable`) can run: the others
                // are not walked, unless that code calls it later in the pass.
                // (Asked again only once a body walked since may have called more.)
                let mut runnable = self.runnable(trap_sink);
                let mut runnable_fresh = true;
                while index < self.functions.len() {
                    let i = index;
                    index += 1;
                    if alone.contains(&i) || !self.needs_own_walk(i) {
                        continue;
                    }
                    if !runnable.contains(self.functions[i].sink) {
                        if runnable_fresh {
                            continue;
                        }
                        runnable = self.runnable(trap_sink);
                        runnable_fresh = true;
                        if !runnable.contains(self.functions[i].sink) {
                            continue;
                        }
                    }
                    alone.insert(i);
                    walked = true;
                    runnable_fresh = false;
                    let (body, origin, sink) = {
                        let f = &self.functions[i];
                        (std::sync::Arc::clone(&f.body), f.origin, f.sink)
                    };
                    let mut st = self.deferred_state(all_unknown, Some(i), blanket);
                    self.deferred_body = Some(Some(i));
                    self.sink = sink;
                    let saved = std::mem::replace(&mut self.origin, origin);
                    self.nested_texts += 1;
                    let mut inner = st.clone();
                    let redirect_stdin = match &body.1 {
                        Some(r) => self.redirects(&r.0, "", &mut inner, Stdin::Unknown),
                        None => Stdin::Unknown,
                    };
                    self.compound(&body.0, &mut st, redirect_stdin);
                    if self.asked_downloads.replace(false) {
                        self.bodies_asked_downloads.insert(Some(i));
                    }
                    self.nested_texts -= 1;
                    self.origin = saved;
                    if self.failed() {
                        return Analysis { failure: self.failure, ..Analysis::default() };
                    }
                    if grew(&self) {
                        break 'round;
                    }
                }
                while traps_done < self.traps.len() {
                    let (text, origin) = self.traps[traps_done].clone();
                    traps_done += 1;
                    walked = true;
                    let mut st = self.deferred_state(all_unknown, None, blanket);
                    self.deferred_body = Some(None);
                    self.sink = trap_sink;
                    self.run_text(&text, origin, &mut st, Nest::Same);
                    if self.asked_downloads.replace(false) {
                        self.bodies_asked_downloads.insert(None);
                    }
                    if self.failed() {
                        return Analysis { failure: self.failure, ..Analysis::default() };
                    }
                    if grew(&self) {
                        break 'round;
                    }
                }
                if !walked {
                    // A body that code walked after its turn calls.
                    let runnable = self.runnable(trap_sink);
                    if (0..self.functions.len()).any(|i| {
                        !alone.contains(&i) && self.needs_own_walk(i) && runnable.contains(self.functions[i].sink)
                    }) {
                        continue 'round;
                    }
                    // Fetched text only ever adds a need of network execute: where code that
                    // always counts needs it already, walking again changes no verdict.
                    let mut stale = self.fetched_too_late(anywhere_before);
                    // A file saved in this pass, and a body that found some file not saved
                    // (which one is not kept): that body is walked again.
                    if self.downloads_seen() != downloads_before {
                        stale.extend(self.bodies_asked_downloads.iter().copied());
                    }
                    if stale.is_empty() || blanket || self.fetched_code_known || self.runs_fetched_code([0, trap_sink])
                    {
                        break;
                    }
                    taint_passes += 1;
                    // What the bodies walked again read is recorded again; what the others
                    // read stays (text fetched in a later pass may reach it).
                    self.read_clean.retain(|(_, body)| !stale.contains(body));
                    self.params_read_clean.retain(|body| !stale.contains(body));
                    self.given_changed.clear();
                    anywhere_before = self.params_fetched || self.fetched_args;
                    // (Who asked of a file is kept: a file saved in a later pass is one they
                    // may run.)
                    downloads_before = self.downloads_seen();
                    for body in stale {
                        // What it found before is replaced by what it finds now.
                        match body {
                            // (One every call of which has been followed whole since is not
                            // walked on its own again: its callers' walks hold what it does.)
                            Some(i) => {
                                alone.remove(&i);
                                let sink = self.functions[i].sink;
                                self.sinks[sink] = Sink::default();
                            }
                            None => {
                                traps_done = 0;
                                self.sinks[trap_sink] = Sink::default();
                            }
                        }
                    }
                }
            }
            if all_unknown || !grew(&self) {
                break;
            }
            all_unknown = true;
        }
        self.sink = 0;
        self.deferred_body = None;
        self.fetched_code_known = false;

        let Runnable { sinks: active, all } = self.runnable(trap_sink);
        // A body only a command whose name is not static can call runs only if that command
        // happens to name it: what it does there is possible (that command already needs
        // workspace execute, as code the analysis cannot see).
        let mut accesses = Vec::new();
        for (i, sink) in self.sinks.into_iter().enumerate() {
            if active.contains(&i) {
                accesses.extend(sink.accesses.into_iter().zip(sink.places));
            } else if all {
                for ((mut a, bound), places) in sink.accesses.into_iter().zip(sink.bounds).zip(sink.places) {
                    if a.certainty == Certainty::Known {
                        a.certainty = Certainty::Possible(bound);
                        a.reason.push_str(" (in a function only a command whose name is not static can call)");
                    }
                    accesses.push((a, places));
                }
            }
        }
        Analysis {
            accesses: dedup(accesses),
            commands: self.commands.into_vec(),
            unresolved: self.unresolved.into_vec(),
            failure: None,
            requests: self.requests,
            texts: self.texts_read,
        }
    }

    /// Which bodies can run: the main program and the traps, plus every function some code
    /// that can run calls by name (or all of them, if any such code calls a name that is not
    /// static). As far as the walk has gone: a body not walked yet has called nothing.
    fn runnable(&self, trap_sink: usize) -> Runnable {
        let mut sinks: HashSet<usize> = [0, trap_sink].into_iter().collect();
        let mut queue: Vec<usize> = sinks.iter().copied().collect();
        let mut all = false;
        while let Some(s) = queue.pop() {
            if self.sinks[s].dynamic {
                all = true;
            }
            let names = self.sinks[s].calls.iter().map(String::as_str);
            for name in names.chain(std::iter::once("command_not_found_handle")) {
                for &fs in self.function_sinks.get(name).into_iter().flatten() {
                    if sinks.insert(fs) {
                        queue.push(fs);
                    }
                }
            }
        }
        Runnable { sinks, all }
    }

    /// Whether function `i` is walked on its own: unless every call of it so far was followed
    /// whole into its body (that walk saw the same commands, with more known about their
    /// words). A call the walk cannot see (a name that is not static) is itself reported,
    /// needs workspace execute, and makes every function's needs count.
    fn needs_own_walk(&self, i: usize) -> bool {
        self.functions[i].name == "command_not_found_handle"
            || !self.function_walked.contains(&i)
            || self.function_skipped.contains(&i)
    }

    /// How many files the program was seen saving fetched text to (by path, and by name alone):
    /// it only grows.
    fn downloads_seen(&self) -> (usize, usize) {
        (self.downloaded_ever.len(), self.downloaded_names.len())
    }

    /// Whether code recorded in `sinks` (which always count) needs network execute already.
    fn runs_fetched_code(&self, sinks: [usize; 2]) -> bool {
        sinks.iter().any(|&s| {
            self.sinks[s].accesses.iter().any(|a| a.scope == Scope::Network && a.perm == Perm::Execute && a.required())
        })
    }

    /// The bodies (a function's index; `None` for the traps) that read as not fetched a
    /// variable or their parameters, which fetched text has reached since: a body reads what
    /// was fetched before it as fetched, so each of these came after.
    fn fetched_too_late(&self, anywhere_before: bool) -> HashSet<Option<usize>> {
        let mut stale: HashSet<Option<usize>> = HashSet::default();
        if !self.read_clean.is_empty() {
            // (A read through a reference is filed under the empty name, which any fetched
            // variable reaches; fetched text given to a name not known reaches every read.)
            let anyone = self.tainted_ever.contains("");
            let mut fetched: HashSet<u64> = self.tainted_ever.iter().map(|n| super::hash_of(n.as_str())).collect();
            if !self.tainted_ever.is_empty() {
                fetched.insert(super::hash_of(""));
            }
            stale.extend(self.read_clean.iter().filter(|(h, _)| anyone || fetched.contains(h)).map(|&(_, body)| body));
        }
        // Parameters: a function some call gave more fetched text to in this pass; a trap or
        // the handler, where some command was first given fetched text in it.
        let anywhere = !anywhere_before && (self.params_fetched || self.fetched_args);
        stale.extend(self.params_read_clean.iter().filter(|body| match body {
            Some(i) if self.functions[*i].name != "command_not_found_handle" => {
                self.given_changed.contains(&self.functions[*i].name)
            }
            _ => anywhere,
        }));
        stale
    }

    /// Whether the parameters of a body walked on its own may hold fetched text: a function's
    /// where some call gave it fetched arguments; a trap's, and `command_not_found_handle`'s,
    /// where any call or `set --` did (a trap runs inside whatever function is running; the
    /// handler gets the words of any command not found).
    fn params_given_fetched(&self, function: Option<usize>) -> bool {
        let anywhere = self.params_fetched || self.fetched_args;
        match function {
            Some(i) if self.functions[i].name != "command_not_found_handle" => {
                self.given_fetched.contains_key(&self.functions[i].name)
            }
            _ => anywhere,
        }
    }

    /// The state a body (function `function`, or a trap) is walked in on its own; with
    /// `blanket`, everything it does not know may be fetched.
    fn deferred_state(&self, all_unknown: bool, function: Option<usize>, blanket: bool) -> State {
        let mut st = State::new(self.ctx);
        st.set_positional_vals(None);
        if blanket {
            st.tainted_params_from = Some(0);
        } else if !self.fetched_code_known && self.params_given_fetched(function) {
            // A function's own, as its calls gave them; a trap's or the handler's, any.
            match function.map(|i| self.functions[i].name.as_str()) {
                Some("command_not_found_handle") => st.tainted_params_from = Some(1),
                Some(name) => {
                    if let Some((at, from)) = self.given_fetched.get(name) {
                        st.tainted_params = at.clone();
                        st.tainted_params_from = *from;
                    }
                }
                None => st.tainted_params_from = Some(0),
            }
        }
        st.all_fetched = blanket;
        st.downloads_unknown = blanket;
        if all_unknown {
            st.havoc();
        } else {
            st.havoc_names = Some(std::sync::Arc::new(self.assigned.clone()));
            if self.cwd_changes {
                // They run in one of the directories the program went to.
                st.set_cwds(self.entered_cwds.clone());
                st.dirs = None;
            }
        }
        st
    }
}

/// The bodies that can run (by their sinks), or all of them.
struct Runnable {
    sinks: HashSet<usize>,
    all: bool,
}

impl Runnable {
    fn contains(&self, sink: usize) -> bool {
        self.all || self.sinks.contains(&sink)
    }
}

/// Keeps the first access of each need (see [`Access::more`]), with the number of other
/// places that need the same: bodies record their needs in sinks of their own, so the same
/// need, and the same place, can come from several.
fn dedup(items: Vec<(Access, Vec<Place>)>) -> Vec<Access> {
    // Where each item goes: its own place among those kept, or the kept one it adds to
    // (decided on references, so nothing is copied).
    let (to, kept) = {
        let mut first: HashMap<(Scope, Perm, &str, &str, &str, Certainty), usize> =
            HashMap::with_capacity_and_hasher(items.len(), Default::default());
        let mut to: Vec<usize> = Vec::with_capacity(items.len());
        let mut kept = 0;
        for (a, _) in &items {
            let key = (a.scope, a.perm, a.target.as_str(), a.command.as_str(), a.reason.as_str(), a.certainty);
            let at = *first.entry(key).or_insert(kept);
            if at == kept {
                kept += 1;
            }
            to.push(at);
        }
        (to, kept)
    };
    let mut out: Vec<Access> = Vec::with_capacity(kept);
    let mut placed: HashSet<(usize, Place)> = HashSet::default();
    for ((a, places), at) in items.into_iter().zip(to) {
        if at == out.len() {
            out.push(a);
        }
        for p in places {
            if placed.insert((at, p)) {
                out[at].more += 1;
            }
        }
    }
    // `more` counted every place, the first too.
    for a in &mut out {
        a.more = a.more.saturating_sub(1);
    }
    out
}
