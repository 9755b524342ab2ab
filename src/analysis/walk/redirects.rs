//! Redirections: the files they read and write, and what a command's standard input is after
//! them (a file, a here-document's text, a substitution's output).

use brush_parser::ast;

use super::Walker;
use super::state::State;
use crate::analysis::programs::Stdin;
use crate::analysis::word::Arg;
use crate::mode::Perm;

impl Walker<'_> {
    pub(super) fn redirects(&mut self, list: &[ast::IoRedirect], command: &str, st: &mut State, stdin: Stdin) -> Stdin {
        let refs: Vec<&ast::IoRedirect> = list.iter().collect();
        self.redirects_of(&refs, command, st, stdin)
    }

    pub(super) fn redirects_of(
        &mut self,
        list: &[&ast::IoRedirect],
        command: &str,
        st: &mut State,
        mut stdin: Stdin,
    ) -> Stdin {
        let command = if command.is_empty() { "redirection" } else { command };
        for r in list {
            match r {
                ast::IoRedirect::File(fd, kind, target) => {
                    let reads_stdin = fd.is_none_or(|f| f == 0);
                    match target {
                        ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w) => {
                            let pos = self.word_pos(w);
                            let field = self.expand_single(&w.value, pos, st);
                            if matches!(target, ast::IoFileRedirectTarget::Duplicate(_)) {
                                // `>&2`, `<&-`, `>&$fd`: a descriptor, not a file, unless it is a name.
                                let text = field.known();
                                let is_fd = text.as_deref().is_some_and(|t| {
                                    t == "-" || t.trim_end_matches('-').bytes().all(|b| b.is_ascii_digit())
                                });
                                if is_fd || text.is_none() && fd.is_some() {
                                    // `<&3` (`5<&3`, `0<&3-`) where 3 was opened on a file saved
                                    // with fetched text: the copy reads it too.
                                    let from_fetched = matches!(kind, ast::IoFileRedirectKind::DuplicateInput)
                                        && text
                                            .and_then(|t| t.trim_end_matches('-').parse::<i32>().ok())
                                            .is_some_and(|n| self.fetched_fds.contains(&n));
                                    if from_fetched {
                                        if reads_stdin {
                                            stdin = Stdin::Fetched;
                                        }
                                        if let Some(n) = fd.filter(|&n| n != 0)
                                            && !self.fetched_fds.contains(&n)
                                        {
                                            self.fetched_fds.push(n);
                                        }
                                    }
                                    continue;
                                }
                            }
                            let arg = Arg { field, pos, raw: w.value.clone() };
                            if crate::analysis::effects::stdout_file(r).is_some() {
                                self.stdout_to.push(arg.clone());
                            }
                            match kind {
                                ast::IoFileRedirectKind::Read | ast::IoFileRedirectKind::DuplicateInput => {
                                    self.path(&arg, &[Perm::Read], command, "reads a file through a redirection", st);
                                    self.note_fetched_fd(*fd, &arg, st);
                                    if reads_stdin {
                                        stdin = match arg.known() {
                                            Some(p) if p == "/dev/null" => Stdin::Empty,
                                            Some(p) => Stdin::File(self.absolute(&p, st).unwrap_or(p)),
                                            // A file saved with fetched text it may name.
                                            None if self.arg_may_be_download(&arg, st) => Stdin::Fetched,
                                            None => Stdin::Unknown,
                                        };
                                    }
                                }
                                ast::IoFileRedirectKind::ReadAndWrite => {
                                    self.path(
                                        &arg,
                                        &[Perm::Read, Perm::Write],
                                        command,
                                        "opens a file for reading and writing through a redirection",
                                        st,
                                    );
                                    self.note_fetched_fd(*fd, &arg, st);
                                    // `<>` opens standard input, read as `<` reads it.
                                    if reads_stdin && let Some(p) = arg.known() {
                                        stdin = Stdin::File(self.absolute(&p, st).unwrap_or(p));
                                    }
                                }
                                _ => {
                                    self.path(&arg, &[Perm::Write], command, "writes a file through a redirection", st);
                                }
                            }
                        }
                        ast::IoFileRedirectTarget::Fd(_) => {}
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                            let tainted = self.process_substitution(sub, st);
                            // `exec 3< <(curl …)`: descriptor 3 reads fetched text.
                            if tainted
                                && let Some(n) = fd.filter(|&n| n != 0)
                                && !self.fetched_fds.contains(&n)
                            {
                                self.fetched_fds.push(n);
                            }
                            if reads_stdin && matches!(kind, ast::IoFileRedirectKind::Read) {
                                stdin = if tainted {
                                    Stdin::Fetched
                                } else {
                                    Stdin::Text(self.static_stdout(&sub.list.to_string(), st))
                                };
                            }
                        }
                    }
                }
                ast::IoRedirect::HereDocument(fd, doc) => {
                    let pos = self.word_pos(&doc.doc);
                    let body = crate::analysis::rescue::restore(&doc.doc.value);
                    let text = if doc.requires_expansion {
                        self.eval_heredoc(&body, pos, st)
                    } else {
                        Some(body.into_owned())
                    };
                    let text = text.map(|t| if doc.remove_tabs { strip_leading_tabs(&t) } else { t });
                    // A here-document that expands fetched text feeds it to the command.
                    let fetched = self.take_taint();
                    if fd.is_none_or(|f| f == 0) {
                        stdin = if fetched { Stdin::Fetched } else { Stdin::Text(text) };
                    }
                }
                ast::IoRedirect::HereString(fd, w) => {
                    let pos = self.word_pos(w);
                    let field = self.expand_single(&w.value, pos, st);
                    if fd.is_none_or(|f| f == 0) {
                        stdin =
                            if field.tainted { Stdin::Fetched } else { Stdin::Text(field.known().map(|t| t + "\n")) };
                    }
                }
                ast::IoRedirect::OutputAndError(w, _) => {
                    let pos = self.word_pos(w);
                    let field = self.expand_single(&w.value, pos, st);
                    let arg = Arg { field, pos, raw: w.value.clone() };
                    self.stdout_to.push(arg.clone());
                    self.path(&arg, &[Perm::Write], command, "writes a file through a redirection", st);
                }
            }
        }
        stdin
    }
}

impl Walker<'_> {
    /// Notes a descriptor other than standard input opened for reading on a file that may hold
    /// fetched text.
    fn note_fetched_fd(&mut self, fd: Option<i32>, arg: &Arg, st: &State) {
        let Some(n) = fd.filter(|&n| n != 0) else { return };
        if self.fetched_fds.contains(&n) {
            return;
        }
        let saved = match arg.known() {
            Some(t) => {
                self.absolute(&t, st).is_some_and(|p| self.downloaded_here(&p, true, st))
                    || (!t.starts_with('/') && self.downloaded_here(&t, true, st))
            }
            None => self.arg_may_be_download(arg, st),
        };
        if saved {
            self.fetched_fds.push(n);
        }
    }
}

fn strip_leading_tabs(text: &str) -> String {
    text.lines().map(|l| l.trim_start_matches('\t')).collect::<Vec<_>>().join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}
