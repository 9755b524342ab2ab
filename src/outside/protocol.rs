//! The messages between the run and the supervisor, one per `SOCK_SEQPACKET` packet, each
//! starting with the protocol's version: a supervisor that reads another version refuses the
//! message and says so. Descriptors travel beside a message (`SCM_RIGHTS`), credentials too
//! (`SCM_CREDENTIALS`, which the kernel fills in); the bytes never carry either.
//!
//! | kind | from | bytes after the version | beside it |
//! |---|---|---|---|
//! | hand-over | the level, once it is locked | `H`, then 1 when a listener comes | the listener |
//! | record | a nested level | `R`, then one audit record (a JSON object) | where to answer |
//! | denial | the network proxy | `D`, then the refused destination (JSON) | where to answer, optional |
//! | answer | the supervisor | `Y`, or `N` and why | |

use std::fmt;

/// The protocol's version; both ends are this same executable (the supervisor checks that), so
/// another version means a message from something else.
pub const VERSION: u8 = 2;

/// The longest message a supervisor reads; a longer one is refused.
pub const MAX_MESSAGE: usize = 128 * 1024 + 2;

/// What one packet to the supervisor asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// What the locked level hands over: whether the watch's listener comes beside it, and the
    /// rules in force that the watch asks (see [`super::watch`]).
    Handover { signals: bool, rules: Option<super::watch::Rules> },
    /// A nested level's audit record, to be written with the supervisor's own time and the
    /// kernel's pid and uid.
    Record(Vec<u8>),
    /// A destination the network proxy refused.
    Denial(Denial),
}

/// A destination the proxy refused, as it saw it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Denial {
    pub method: String,
    pub host: String,
    pub port: u16,
    pub reason: String,
}

/// The supervisor's answer to a record or a denial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// It is in the log.
    Written,
    /// It is not, and why.
    Refused(String),
}

/// Why a packet is no message of this protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Malformed {
    Empty,
    Version(u8),
    Kind(u8),
    Payload(String),
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::Empty => write!(f, "sent an empty message"),
            Malformed::Version(v) => write!(f, "sent a message of protocol version {v}, not {VERSION}"),
            Malformed::Kind(k) => write!(f, "sent a message of unknown kind {k:#04x}"),
            Malformed::Payload(why) => write!(f, "sent a malformed message ({why})"),
        }
    }
}

/// The version byte, then the rest: the kind and what follows it.
fn versioned(bytes: &[u8]) -> Result<(u8, &[u8]), Malformed> {
    match bytes {
        [] => Err(Malformed::Empty),
        [v, ..] if *v != VERSION => Err(Malformed::Version(*v)),
        [_] => Err(Malformed::Empty),
        [_, kind, rest @ ..] => Ok((*kind, rest)),
    }
}

impl Request {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        match self {
            Request::Handover { signals, rules } => {
                out.extend([b'H', u8::from(*signals)]);
                // Strings, numbers and flags always encode.
                out.extend(rules.as_ref().map(|r| serde_json::to_vec(r).unwrap_or_default()).unwrap_or_default());
            }
            Request::Record(record) => {
                out.push(b'R');
                out.extend_from_slice(record);
            }
            Request::Denial(d) => {
                out.push(b'D');
                // A struct of strings and a number always encodes.
                out.extend(serde_json::to_vec(d).unwrap_or_default());
            }
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Request, Malformed> {
        match versioned(bytes)? {
            (b'H', [flag @ (0 | 1), rules @ ..]) => Ok(Request::Handover {
                signals: *flag == 1,
                rules: match rules {
                    [] => None,
                    json => Some(serde_json::from_slice(json).map_err(|e| Malformed::Payload(e.to_string()))?),
                },
            }),
            (b'H', _) => Err(Malformed::Payload("a hand-over without its flag".into())),
            (b'R', record) => Ok(Request::Record(record.to_vec())),
            (b'D', denial) => {
                serde_json::from_slice(denial).map(Request::Denial).map_err(|e| Malformed::Payload(e.to_string()))
            }
            (kind, _) => Err(Malformed::Kind(kind)),
        }
    }
}

impl Reply {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        match self {
            Reply::Written => out.push(b'Y'),
            Reply::Refused(why) => {
                out.push(b'N');
                out.extend_from_slice(why.as_bytes());
            }
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Reply, Malformed> {
        match versioned(bytes)? {
            (b'Y', []) => Ok(Reply::Written),
            (b'N', why) => Ok(Reply::Refused(String::from_utf8_lossy(why).into_owned())),
            (kind, _) => Err(Malformed::Kind(kind)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back_as_it_was_written() {
        let denial =
            Denial { method: "CONNECT".into(), host: "example.org".into(), port: 443, reason: "not listed".into() };
        for r in [
            Request::Handover { signals: true, rules: None },
            Request::Handover { signals: false, rules: None },
            Request::Handover {
                signals: true,
                rules: Some(super::super::watch::Rules {
                    mode: 0o467,
                    grants: vec![("/w".into(), 7, false), ("/e/f".into(), 6, true)],
                    view: true,
                    masks: vec!["/w/.env".into()],
                    points: vec![("/w".into(), true, false)],
                    read_only_base: true,
                    scoped: true,
                    filters: Some(2),
                    absent: vec!["/w/.git/hooks".into()],
                    new_hooks: vec!["/v/.git/hooks".into()],
                }),
            },
            Request::Record(br#"{"verdict":"allow"}"#.to_vec()),
            Request::Denial(denial),
        ] {
            assert_eq!(Request::decode(&r.encode()), Ok(r));
        }
        for r in [Reply::Written, Reply::Refused("sent by /usr/bin/python3, which is not sandbox-bash".into())] {
            assert_eq!(Reply::decode(&r.encode()), Ok(r));
        }
    }

    #[test]
    fn another_version_or_kind_is_refused_and_named() {
        assert_eq!(Request::decode(b""), Err(Malformed::Empty));
        assert_eq!(Request::decode(&[VERSION]), Err(Malformed::Empty));
        assert_eq!(Request::decode(b"{\"verdict\":1}"), Err(Malformed::Version(b'{')));
        assert_eq!(Request::decode(&[1, b'R', b'{', b'}']), Err(Malformed::Version(1)));
        assert_eq!(Request::decode(&[VERSION, b'X']), Err(Malformed::Kind(b'X')));
        assert!(
            matches!(Request::decode(&[VERSION, b'H', 2]), Err(Malformed::Payload(why)) if why.contains("hand-over"))
        );
        assert!(matches!(Request::decode(&[VERSION, b'D', b'{']), Err(Malformed::Payload(_))));
        assert_eq!(Reply::decode(b"Y"), Err(Malformed::Version(b'Y')));
        assert_eq!(Malformed::Version(1).to_string(), format!("sent a message of protocol version 1, not {VERSION}"));
    }
}
