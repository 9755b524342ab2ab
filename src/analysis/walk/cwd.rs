//! The cwd: `cd` (with `CDPATH`), `pushd` and `popd`, `$PWD` and `$OLDPWD`, and the
//! directories code that runs at times the walk cannot know may find itself in.

use std::collections::BTreeSet;

use super::Walker;
use super::state::{MAX_CHOICES, State, Val};
use crate::analysis::word::Arg;
use crate::mode::Perm;

impl Walker<'_> {
    /// `cd`/`pushd`: the directory becomes the cwd.
    pub fn change_dir(&mut self, target: Option<&Arg>, command: &str, st: &mut State) {
        self.cwd_changes = true;
        let old = self.cwd_val(st);
        let dests = match target {
            None => self.var_value("HOME", st).filter(|h| !h.is_empty()).and_then(|h| self.absolutes(&h, st)),
            Some(arg) => match arg.known() {
                Some(t) if t == "-" => {
                    self.var_value("OLDPWD", st).filter(|h| !h.is_empty()).and_then(|h| self.absolutes(&h, st))
                }
                Some(t) => self.cd_destinations(&t, st),
                None => None,
            },
        };
        let pos = target.map_or(self.here, |a| a.pos);
        // Entering a directory reads nothing in it (the kernel lets any directory be entered);
        // what later commands read there is resolved against it and checked then.
        let reason = crate::analysis::ENTERS_DIRECTORY;
        self.possibly(|w| match &dests {
            Some(all) => {
                for d in all {
                    w.classified(d, &[Perm::Read], command, reason, pos);
                }
            }
            None => {
                let raw = target.map_or("$HOME".to_string(), |a| a.raw.clone());
                w.unresolved(&raw, pos);
                if let Some(arg) = target {
                    w.path(arg, &[Perm::Read], command, reason, st);
                }
            }
        });
        // A trap that changes directory may run at any time after it is set.
        let dests = if self.volatile_cwd { None } else { dests };
        if target.is_none_or(|t| t.known().as_deref() != Some(".")) {
            st.forget_relative_saves();
        }
        st.set_cwds(dests.map(|d| d.into_iter().collect()));
        self.entered(st);
        self.assign_val("OLDPWD", old, st);
        let new = self.cwd_val(st);
        self.assign_val("PWD", new, st);
    }

    /// Where `cd DIR` may land. As bash does: a name that does not start with `/`, `./` or
    /// `../` (and is not `.` or `..`) is looked up in each directory of `CDPATH` in turn (an
    /// empty entry is the cwd), and then in the cwd; the first that is a directory when the
    /// command runs is taken, so each is possible. `None` when it could be anywhere.
    fn cd_destinations(&self, dir: &str, st: &State) -> Option<Vec<String>> {
        let searches = !dir.is_empty()
            && !dir.starts_with('/')
            && !dir.starts_with("./")
            && !dir.starts_with("../")
            && dir != "."
            && dir != "..";
        if !searches {
            return self.absolutes(dir, st);
        }
        let (values, open) = self.var_val("CDPATH", st).scalars();
        if open {
            return None;
        }
        let mut all: BTreeSet<String> = self.absolutes(dir, st)?.into_iter().collect();
        for value in values.iter().filter(|v| !v.is_empty()) {
            for entry in value.split(':') {
                let candidate = if entry.is_empty() { dir.to_string() } else { format!("{entry}/{dir}") };
                all.extend(self.absolutes(&candidate, st)?);
            }
        }
        Some(all.into_iter().collect())
    }

    /// The value `$PWD` has for the cwd `st` is in.
    pub(super) fn cwd_val(&self, st: &State) -> Val {
        match (&st.cwd, &st.cwd_alts) {
            (Some(cwd), _) => Val::Known(cwd.clone()),
            (None, Some(alts)) => Val::Choice { values: BTreeSet::clone(alts), open: false },
            (None, None) => Val::unknown(),
        }
    }

    /// Notes the directories the cwd may now be, for code that runs at unknown times.
    fn entered(&mut self, st: &State) {
        match (st.cwds(), &mut self.entered_cwds) {
            (Some(dirs), Some(entered)) => {
                entered.extend(dirs);
                if entered.len() > MAX_CHOICES {
                    self.entered_cwds = None;
                }
            }
            _ => self.entered_cwds = None,
        }
    }

    pub fn push_dir(&mut self, target: Option<&Arg>, command: &str, st: &mut State) {
        let old = st.cwd.clone();
        self.change_dir(target, command, st);
        if let Some(dirs) = &mut st.dirs {
            dirs.push(old);
        }
    }

    pub fn pop_dir(&mut self, st: &mut State) {
        self.cwd_changes = true;
        let popped = st.dirs.as_mut().and_then(|d| d.pop());
        let dest = popped.flatten().filter(|_| !self.volatile_cwd);
        st.forget_relative_saves();
        st.set_cwds(dest.map(|d| [d].into_iter().collect()));
        self.entered(st);
        let new = self.cwd_val(st);
        self.assign_val("PWD", new, st);
    }
}
