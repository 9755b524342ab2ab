//! The command's standard error as the processes outside hold it: where a refusal is told to
//! the command (`sandbox-bash: denied: …` lines), whatever the program itself shows of it.
//!
//! A copy is held only while the command's process lives; it is let go when it ends, so that a
//! reader waiting for the end of standard error is not held. A line is written only if standard
//! error takes it at once: a reader that does not read loses the line, it never holds the
//! process that tells it.

use std::os::fd::{AsRawFd, OwnedFd};

/// The most bytes a line has: what a pipe takes in one atomic write.
const PIPE_ATOMIC: usize = 4096;

/// A copy of the command's standard error, while it is held.
#[derive(Default)]
pub struct Stderr(Option<OwnedFd>);

impl Stderr {
    pub fn new(fd: Option<OwnedFd>) -> Stderr {
        Stderr(fd)
    }

    /// The descriptor, for the list of those a detached process keeps.
    pub fn raw(&self) -> Option<std::os::fd::RawFd> {
        self.0.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// Writes `text` as one line if standard error takes it within a tenth of a second. The
    /// line fits a pipe's atomic write, so a pipe that says it has room takes it whole.
    pub fn line(&self, text: &str) {
        let Some(fd) = &self.0 else { return };
        let line = fit(text);
        let mut p = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLOUT, revents: 0 };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut p, 1, 100) };
        if ready == 1 && p.revents & libc::POLLOUT != 0 {
            let _ = nix::unistd::write(fd, line.as_bytes());
        }
    }

    /// Lets standard error go: the command's process ended.
    pub fn release(&mut self) {
        self.0 = None;
    }
}

/// `text` as one line of printable characters with its newline, cut to fit one atomic write
/// (a host or path name is the command's to choose).
fn fit(text: &str) -> String {
    let mut line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if line.len() > PIPE_ATOMIC - 1 {
        let mut end = PIPE_ATOMIC - 5;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
        line.push('…');
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_one_line_and_fits_an_atomic_write() {
        assert_eq!(fit("a\nb\tc"), "a b c\n");
        let long = "é".repeat(3000);
        let line = fit(&long);
        assert!(line.len() <= PIPE_ATOMIC && line.ends_with("…\n"), "{}", line.len());
    }

    #[test]
    fn a_pipe_gets_the_line_and_nothing_once_released() {
        let (r, w) = nix::unistd::pipe().unwrap();
        let mut s = Stderr::new(Some(w));
        s.line("sandbox-bash: denied: x");
        s.release();
        s.line("not this");
        let mut buf = [0u8; 64];
        let n = nix::unistd::read(&r, &mut buf).unwrap();
        assert_eq!(&buf[..n], b"sandbox-bash: denied: x\n");
        // Every write end is closed: end of file.
        assert_eq!(nix::unistd::read(&r, &mut buf).unwrap(), 0);
    }
}
