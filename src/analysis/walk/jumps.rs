//! `return`, `break` and `continue`: the state a command of these finds is a state the
//! function, sourced file or loop it leaves may end in.
//!
//! The walk goes on past such a command (what follows it may be reached some other way), so
//! the state at the end of a body covers only the runs that reach the end. Each function call
//! followed, each file sourced and each pass over a loop body keeps the join of the states its
//! jumps left it in, and joins that into its own end: `f() { d=.git/hooks; return; d=ok; }`
//! leaves `d` as either value, not as `ok`.
//!
//! Code the analysis cannot see may jump too; that is not followed, since such code can do
//! itself whatever the code after its jump would do with the state it left. A jump in a subshell
//! (`(return)`, `$(break)`) leaves only the subshell, but is joined as the others are: a state
//! more, never one fewer.

use super::Walker;
use super::state::State;
use crate::analysis::word::Arg;

/// What a jump can leave.
pub(super) enum Frame {
    /// A function call followed, or a sourced file: left by `return`.
    Call(Option<State>),
    /// One pass over a loop body: left by `break` (out of the loop) and `continue` (to the next
    /// pass), both joined into what the pass ends in.
    Loop(Option<State>),
}

/// Which jump.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::analysis) enum Jump {
    Return,
    Break,
    Continue,
}

impl Walker<'_> {
    /// Walks `inner` as a function call or a sourced file: a `return` in it ends it.
    pub(in crate::analysis) fn returning(&mut self, st: &mut State, inner: impl FnOnce(&mut Self, &mut State)) {
        self.jumps.push(Frame::Call(None));
        inner(self, st);
        if let Some(Frame::Call(Some(left))) = self.jumps.pop() {
            self.join(st, &left);
        }
    }

    /// Walks one pass over a loop body: a `break` or `continue` in it ends the pass.
    pub(super) fn loop_pass(&mut self, st: &mut State, inner: impl FnOnce(&mut Self, &mut State)) {
        self.jumps.push(Frame::Loop(None));
        inner(self, st);
        if let Some(Frame::Loop(Some(left))) = self.jumps.pop() {
            self.join(st, &left);
        }
    }

    /// `return`, `break N` or `continue N` run in state `st`.
    pub(in crate::analysis) fn jump(&mut self, jump: Jump, rest: &[Arg], st: &State) {
        let targets: Vec<usize> = match jump {
            // The innermost call or sourced file (none at the top level: bash refuses there).
            Jump::Return => self.jumps.iter().rposition(|f| matches!(f, Frame::Call(_))).into_iter().collect(),
            Jump::Break | Jump::Continue => {
                // `break N` leaves N loops, `continue N` goes on with the Nth: either way the
                // Nth loop's pass ends here (or the outermost's, past it). Each loop inside the
                // Nth is given the state too, and the callers' loops count (bash leaves only
                // the function's own, older versions the caller's as well): more states
                // joined, never fewer. A count not known: every loop.
                let loops =
                    self.jumps.iter().enumerate().rev().filter(|(_, f)| matches!(f, Frame::Loop(_))).map(|(i, _)| i);
                let count = match rest.first().map(Arg::known) {
                    None => Some(1),
                    Some(Some(n)) => n.parse::<usize>().ok().filter(|&n| n >= 1),
                    Some(None) => None,
                };
                loops.take(count.unwrap_or(usize::MAX)).collect()
            }
        };
        for i in targets {
            self.leave_to(i, st);
        }
    }

    fn leave_to(&mut self, i: usize, st: &State) {
        let slot = match &mut self.jumps[i] {
            Frame::Call(s) | Frame::Loop(s) => s.take(),
        };
        let joined = match slot {
            None => st.clone(),
            Some(mut s) => {
                self.join(&mut s, st);
                s
            }
        };
        match &mut self.jumps[i] {
            Frame::Call(s) | Frame::Loop(s) => *s = Some(joined),
        }
    }
}
