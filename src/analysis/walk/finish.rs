//! The end of the walk: function bodies and traps walked in a state where what the program
//! assigns anywhere is unknown, which of them can run, and the analysis assembled from what
//! every body recorded.

use rustc_hash::FxHashSet as HashSet;

use super::state::State;
use super::{Sink, Walker, Work};
use crate::analysis::programs::{Nest, Stdin};
use crate::analysis::{Analysis, Certainty};

impl Walker<'_> {
    /// The analysis, and the work it took.
    pub(super) fn finish(mut self) -> (Analysis, Work) {
        if self.failed() {
            return self.failed_with_work();
        }
        // Function bodies and traps run later, at times the walk cannot know: analyse them in
        // a state where everything the program assigns anywhere is unknown. If they assign
        // more, or define functions or aliases that a body walked before them could not see,
        // analyse once more with every variable unknown.
        let commands_mark = self.commands.len();
        let unresolved_mark = self.unresolved.len();
        let trap_sink = self.sinks.len();
        self.sinks.push(Sink::default());
        let mut round = 0;
        loop {
            let assigned_before = self.assigned.len();
            let dynamic_before = self.assigned_dynamic;
            let code_before = (self.code_learned, self.aliases_unknown);
            self.commands.truncate(commands_mark);
            self.unresolved.truncate(unresolved_mark);
            for s in self.sinks.iter_mut().skip(1) {
                *s = Sink::default();
            }
            // Each body once, in order; then again from the start for any a later walk left
            // unfollowed at a call after its turn (it needs its own walk after all).
            let mut walked_here: HashSet<usize> = HashSet::default();
            let mut done = 0;
            let mut traps_done = 0;
            loop {
                let next = (done..self.functions.len())
                    .chain(0..done)
                    .find(|&i| !walked_here.contains(&i) && self.needs_own_walk(i));
                if let Some(index) = next {
                    done = index + 1;
                    walked_here.insert(index);
                    let (body, origin, sink) = {
                        let f = &self.functions[index];
                        (std::sync::Arc::clone(&f.body), f.origin, f.sink)
                    };
                    let mut st = self.deferred_state(round);
                    self.deferred_walks += 1;
                    self.sink = sink;
                    let saved = std::mem::replace(&mut self.origin, origin);
                    self.nested_texts += 1;
                    let mut inner = st.clone();
                    let redirect_stdin = match &body.1 {
                        Some(r) => self.redirects(&r.0, "", &mut inner, Stdin::Unknown),
                        None => Stdin::Unknown,
                    };
                    self.compound(&body.0, &mut st, redirect_stdin);
                    self.nested_texts -= 1;
                    self.origin = saved;
                    if self.failed() {
                        return self.failed_with_work();
                    }
                } else if traps_done < self.traps.len() {
                    let (text, origin) = self.traps[traps_done].clone();
                    traps_done += 1;
                    let mut st = self.deferred_state(round);
                    self.deferred_walks += 1;
                    self.sink = trap_sink;
                    self.run_text(&text, origin, &mut st, Nest::Same);
                    if self.failed() {
                        return self.failed_with_work();
                    }
                } else {
                    break;
                }
            }
            round += 1;
            // What this round learned of the code is news to the bodies walked before it. What
            // it assigned is news only if it began with some variables known: with every
            // variable unknown from the start, the next round's state would be the same.
            let code_grew = (self.code_learned, self.aliases_unknown) != code_before;
            let names_grew =
                !dynamic_before && (self.assigned.len() != assigned_before || self.assigned_dynamic != dynamic_before);
            if !(code_grew || names_grew) || round >= 2 {
                break;
            }
        }
        self.sink = 0;
        let work = self.work();

        // Which bodies can run: the main program and the traps, plus every function some
        // running code calls by name (or all of them, if any running code calls a name that
        // is not static).
        let mut active: HashSet<usize> = [0, trap_sink].into_iter().collect();
        let mut queue: Vec<usize> = active.iter().copied().collect();
        let mut all = false;
        while let Some(s) = queue.pop() {
            if self.sinks[s].dynamic {
                all = true;
            }
            let calls: Vec<String> = self.sinks[s].calls.iter().cloned().collect();
            for name in calls.iter().chain(std::iter::once(&"command_not_found_handle".to_string())) {
                for &fs in self.function_sinks.get(name).into_iter().flatten() {
                    if active.insert(fs) {
                        queue.push(fs);
                    }
                }
            }
        }
        // A body only a command whose name is not static can call runs only if that command
        // happens to name it: what it does there is possible (that command already needs
        // workspace execute, as code the analysis cannot see).
        let mut accesses = Vec::new();
        for (i, sink) in self.sinks.into_iter().enumerate() {
            if active.contains(&i) {
                accesses.extend(sink.accesses);
            } else if all {
                for (mut a, bound) in sink.accesses.into_iter().zip(sink.bounds) {
                    if a.certainty == Certainty::Known {
                        a.certainty = Certainty::Possible(bound);
                        a.reason.push_str(" (in a function only a command whose name is not static can call)");
                    }
                    accesses.push(a);
                }
            }
        }
        let analysis = Analysis {
            accesses: dedup(accesses),
            commands: dedup(self.commands),
            unresolved: dedup(self.unresolved),
            failure: None,
            requests: self.requests,
            texts: self.texts_read,
        };
        (analysis, work)
    }

    /// Whether function `index` needs a walk on its own. A body already walked at its calls
    /// needs no second, vaguer walk: that one would see the same commands, with less known about
    /// their words. A call the walk cannot see (a name that is not static) is itself reported,
    /// needs workspace execute, and makes every function's needs count.
    fn needs_own_walk(&self, index: usize) -> bool {
        self.functions[index].name == "command_not_found_handle"
            || !self.function_walked.contains(&index)
            || self.function_skipped.contains(&index)
    }

    fn failed_with_work(self) -> (Analysis, Work) {
        let work = self.work();
        (Analysis { failure: self.failure, ..Analysis::default() }, work)
    }

    fn work(&self) -> Work {
        Work { deferred_walks: self.deferred_walks }
    }

    fn deferred_state(&self, round: usize) -> State {
        let mut st = State::new(self.ctx);
        st.set_positional_vals(None);
        if round > 0 || self.assigned_dynamic {
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

/// Removes repeated items, keeping the first of each.
fn dedup<T: Eq + std::hash::Hash>(items: Vec<T>) -> Vec<T> {
    // Which to keep is decided on references, so nothing is copied.
    let keep: Vec<bool> = {
        let mut seen: HashSet<&T> = HashSet::with_capacity_and_hasher(items.len(), Default::default());
        items.iter().map(|item| seen.insert(item)).collect()
    };
    items.into_iter().zip(keep).filter_map(|(item, keep)| keep.then_some(item)).collect()
}
