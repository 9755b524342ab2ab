//! The agent session a run belongs to: the calls one client process starts (its pid and start
//! time: Claude Code's, Codex's or make's process, whatever starts `bash -c` again for every
//! command), or the calls a launcher names with [`NAME_VAR`], with the same uid, workspace,
//! mode and network list. A parent that is no client (pid 0, outside the pid namespace: what
//! `docker exec` and `kubectl exec` start; or the machine's init, which adopted the call)
//! gives every call a session of its own. A server one call starts (`npm run dev &`) is
//! reached and stopped by the later calls of its session; processes outside it stay out of
//! reach.
//!
//! Every process of a session carries the session's id in its environment ([`MARKER_VAR`]):
//! only sandbox-bash puts it there, the outermost level of each call, and a process cannot
//! give another process an environment. The supervisor of a call sends a signal for it to a
//! process whose environment carries the same id (see [`super::signals`]); every other signal
//! is left to the kernel's rules, which keep each call to its own processes.

/// The variable a launcher names a session with (any text; the same text, the same session).
pub const NAME_VAR: &str = "SANDBOX_BASH_SESSION_NAME";

/// The variable that carries the session's id in the environment of its processes.
pub const MARKER_VAR: &str = "SANDBOX_BASH_SESSION";

/// One session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// 32 hex digits, the same for every call of the session.
    pub id: String,
    /// Who it belongs to, in words (`client process 1234 (node)`, or the launcher's name).
    pub client: String,
}

impl Session {
    /// The session of a run started by the process `parent` (or named `name` by a launcher),
    /// as `uid`, in `workspace`, under `mode` and the network list `list` (its fingerprint).
    pub fn of(name: Option<&str>, parent: i32, uid: u32, workspace: &str, mode: &str, list: Option<&str>) -> Session {
        let alone = parent == 0 || (parent == 1 && initial_pid_namespace());
        let client = match name.filter(|n| !n.is_empty()) {
            Some(n) => format!("named {n:?}"),
            None => {
                let (parent, what) = if alone {
                    (std::process::id() as i32, "no client: this call")
                } else {
                    (parent, "client process")
                };
                let stat = std::fs::read_to_string(format!("/proc/{parent}/stat")).unwrap_or_default();
                // The command name is in parentheses and may hold spaces; the start time is the
                // 22nd field, the 20th after them.
                let (comm, rest) = match (stat.find('('), stat.rfind(')')) {
                    (Some(a), Some(b)) if a < b => (&stat[a + 1..b], &stat[b + 1..]),
                    _ => ("?", ""),
                };
                let start = rest.split_whitespace().nth(19).unwrap_or("0");
                format!("{what} {parent} ({comm}) started at {start}")
            }
        };
        let key = format!("{uid}\0{client}\0{workspace}\0{mode}\0{}", list.unwrap_or(""));
        let id = {
            let d = hmac_sha256::Hash::hash(key.as_bytes());
            d.iter().take(16).map(|b| format!("{b:02x}")).collect()
        };
        Session { id, client }
    }

    /// Whether the process `pid` belongs to the session: its environment carries the id.
    pub fn holds(&self, pid: i32) -> bool {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { return false };
        let want = format!("{MARKER_VAR}={}", self.id);
        environ.split(|&b| b == 0).any(|v| v == want.as_bytes())
    }
}

/// Whether this process is in the machine's first pid namespace, whose pid 1 is its init.
fn initial_pid_namespace() -> bool {
    // The first pid namespace's fixed inode number.
    const INITIAL: u64 = 0xEFFF_FFFC;
    std::fs::metadata("/proc/self/ns/pid").is_ok_and(|m| std::os::unix::fs::MetadataExt::ino(&m) == INITIAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_one_workspace_one_mode_one_session() {
        let me = std::process::id() as i32;
        let a = Session::of(None, me, 0, "/w", "0467", None);
        assert_eq!(a, Session::of(None, me, 0, "/w", "0467", None));
        assert_eq!(a.id.len(), 32);
        assert!(a.client.starts_with(&format!("client process {me} (")), "{}", a.client);
        for other in [
            Session::of(None, me, 0, "/w", "0444", None),
            Session::of(None, me, 0, "/v", "0467", None),
            Session::of(None, me, 1000, "/w", "0467", None),
            Session::of(None, me, 0, "/w", "0467", Some("ab")),
            Session::of(None, 1, 0, "/w", "0467", None),
            Session::of(Some("ci-job-7"), me, 0, "/w", "0467", None),
        ] {
            assert_ne!(a.id, other.id, "{other:?}");
        }
        assert_eq!(Session::of(Some("x"), me, 0, "/w", "0467", None), Session::of(Some("x"), 1, 0, "/w", "0467", None));
        // This process carries no marker.
        assert!(!a.holds(me));
        // A parent outside the pid namespace is no client: the call is alone.
        let alone = Session::of(None, 0, 0, "/w", "0467", None);
        assert!(alone.client.starts_with(&format!("no client: this call {me} (")), "{}", alone.client);
        assert_ne!(alone.id, Session::of(None, 0, 0, "/v", "0467", None).id);
    }
}
