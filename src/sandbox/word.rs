//! The run's word to its nested levels: what decided the boundary its kernel layers hold, and
//! the Landlock rules it holds, at the end of the listings file in the read-only file system
//! its view mounts in the store's place (see `facts`), read with the listings (no open more
//! for a nested level, whose opens each wait for the run's watch). Nothing inside a run can
//! write there or mount another in its place: Landlock refuses every mount, and the filter
//! `mount_setattr`.
//!
//! A nested level whose own inputs are the word's, byte for byte, adds no Landlock layer or
//! filter of its own: the run's domain, planned from the same inputs, holds it (what the
//! planner would make differently of the file system as it is now, it leaves to the run's
//! rules, which hold every process of the run alike). It answers what the rules in force hold
//! with the word's rules (the run's, with those its view adds once mounted). Any difference (a
//! narrower mode, another workspace, home, configuration, program) and it locks itself as
//! before. The word is compared, never trusted for what it says of the nested level: a forged
//! marker changes nothing, and under a narrower level in between the domain in force is the
//! intersection either way. Only a run that Landlock holds whole writes one (without Landlock,
//! a process of the run could mount another in its place). What a level that adds no domain of
//! its own goes without: Landlock's scoping between it and the rest of its run (signals,
//! abstract unix sockets, ptrace), which the run's domain still holds against everything
//! outside the run.

use serde::{Deserialize, Serialize};

use super::policy::{Kind, PathRule, Policy, Rights, Why};
use crate::mode::Mode;

/// What ends the listings file when a word follows them: the word, the listings' length (4
/// bytes, little endian: where the word starts), then these 8 bytes. The listings' own format
/// locates every record from its header, so what follows them is never read as listings.
const TRAILER: &[u8; 8] = b"SBWORD01";

/// `listings` with `word` after them, as the view writes them for nested levels.
pub fn with_listings(listings: &[u8], word: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(listings.len()).ok()?;
    let mut out = Vec::with_capacity(listings.len() + word.len() + 12);
    out.extend_from_slice(listings);
    out.extend_from_slice(word);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(TRAILER);
    Some(out)
}

/// The word at the end of the listings file `bytes`, when one is there: from the end of the
/// listings the trailer names to the trailer.
pub fn after_listings(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_suffix(TRAILER)?;
    let (rest, len) = rest.split_at_checked(rest.len().checked_sub(4)?)?;
    rest.get(u32::from_le_bytes(len.try_into().ok()?) as usize..)
}

/// What the run's levels said when it locked.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Word {
    /// The inputs that decided the boundary (see [`inputs`]).
    inputs: String,
    /// The Landlock rules in force: path, rights, whether the rule is on a file.
    rules: Vec<(String, u8, bool)>,
}

/// The inputs of a level locked in `mode`: this build, the mode, and the rest of what decides
/// its rules (`boundary`, see [`super::boundary`]).
fn inputs(mode: Mode, boundary: &str) -> String {
    format!("{} {mode} {boundary}", env!("CARGO_PKG_VERSION"))
}

/// The word of a level locked in `mode` with the rules of `policy` and the view `view`: the
/// rules the view adds once it is mounted (the caches' layers, the listings) among them. (A
/// layer the kernel then refuses grants nothing: listed all the same, it makes the nested
/// level's answers more cautious, never less.)
pub fn of(mode: Mode, boundary: &str, policy: &Policy, view: &super::view::View) -> Vec<u8> {
    let mut rules: Vec<(String, u8, bool)> =
        policy.paths.iter().map(|r| (r.path.clone(), r.rights.0, r.kind == Kind::File)).collect();
    for point in &view.points {
        if let super::view::Point::Layer { path, rights, .. } = point {
            rules.push((path.clone(), rights.0, false));
        }
    }
    if let Some((path, _)) = &view.listings {
        rules.push((path.clone(), Rights::READ.0, false));
    }
    let word = Word { inputs: inputs(mode, boundary), rules };
    serde_json::to_vec(&word).unwrap_or_default()
}

/// The rules in force, when `bytes` is the word of a level locked in `mode` whose other inputs
/// were `boundary`.
pub fn rules_for(bytes: &[u8], mode: Mode, boundary: &str) -> Option<Policy> {
    let word: Word = serde_json::from_slice(bytes).ok()?;
    if word.inputs != inputs(mode, boundary) {
        return None;
    }
    Some(Policy::of_run(
        mode,
        word.rules
            .into_iter()
            .map(|(path, rights, file)| PathRule {
                path,
                rights: Rights(rights),
                why: Why::Run,
                follow: false,
                kind: if file { Kind::File } else { Kind::Dir },
                node: None,
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_gives_its_rules_only_to_the_same_inputs() {
        let mut policy = Policy::bare(Mode(0o0467));
        policy.paths.push(PathRule {
            path: "/w".into(),
            rights: Rights::ALL,
            why: Why::Workspace,
            follow: false,
            kind: Kind::Dir,
            node: None,
        });
        policy.paths.push(PathRule {
            path: "/etc/hosts".into(),
            rights: Rights::READ,
            why: Why::Runtime,
            follow: true,
            kind: Kind::File,
            node: None,
        });
        let bytes = of(Mode(0o0467), "workspace /w", &policy, &crate::sandbox::view::View::default());
        let held = rules_for(&bytes, Mode(0o0467), "workspace /w").expect("the same inputs");
        assert_eq!(held.granted("/w/src/main.rs"), Rights::ALL);
        assert_eq!(held.granted("/etc/hosts"), Rights::READ);
        assert_eq!(held.granted("/etc/shadow"), Rights::NONE);
        // Another mode, another workspace, or a word that does not read: nothing.
        assert!(rules_for(&bytes, Mode(0o0444), "workspace /w").is_none());
        assert!(rules_for(&bytes, Mode(0o0467), "workspace /w/sub").is_none());
        assert!(rules_for(&bytes[..bytes.len() - 1], Mode(0o0467), "workspace /w").is_none());
        assert!(rules_for(b"", Mode(0o0467), "").is_none());
    }

    #[test]
    fn the_word_is_found_after_the_listings_and_nowhere_else() {
        let both = with_listings(b"LISTINGS", b"{word}").unwrap();
        assert_eq!(after_listings(&both), Some(&b"{word}"[..]));
        assert_eq!(after_listings(b"LISTINGS"), None);
        assert_eq!(after_listings(&both[..both.len() - 1]), None);
        // Listings longer than what precedes the trailer.
        let mut long = b"{word}".to_vec();
        long.extend_from_slice(&100u32.to_le_bytes());
        long.extend_from_slice(TRAILER);
        assert_eq!(after_listings(&long), None);
        assert_eq!(after_listings(&with_listings(b"", b"").unwrap()), Some(&b""[..]));
    }
}
