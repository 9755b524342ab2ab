//! The environment the process started with, copied once into one buffer. Start-up looks
//! variables up a few dozen times; std's lookups take a lock and copy the name and the value
//! each time, and listing the environment copies every variable into two allocations. Here a
//! lookup is a scan over byte slices, and the command's environment goes to `execve` as
//! pointers into the same buffer.
//!
//! sandbox-bash never changes its own environment, so the copy stays true for the whole run.

use std::ffi::{CStr, OsStr};
use std::os::unix::ffi::OsStrExt;

/// The variables, in the order the process received them (repeats included, as `execve`
/// passes them on).
#[derive(Clone, Debug, Default)]
pub struct Environ {
    /// The `NAME=VALUE` entries, each followed by a NUL byte.
    bytes: Vec<u8>,
    entries: Vec<Entry>,
}

/// Where one entry lies in [`Environ::bytes`].
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: usize,
    /// The `=` that ends the name.
    eq: usize,
    /// The NUL that ends the entry.
    end: usize,
}

/// One variable.
#[derive(Clone, Copy, Debug)]
pub struct Var<'e> {
    pub name: &'e [u8],
    pub value: &'e [u8],
    /// The whole `NAME=VALUE` entry, as `execve` takes it.
    pub entry: &'e CStr,
}

impl Environ {
    /// Takes the `NAME=VALUE` entries of a C environment. An entry without `=` after its
    /// first byte is no variable (the C library's lookups and std's listing skip it too).
    pub fn from_entries<'a>(raw: impl IntoIterator<Item = &'a [u8]>) -> Environ {
        let raw: Vec<&[u8]> = raw.into_iter().collect();
        let mut env = Environ {
            bytes: Vec::with_capacity(raw.iter().map(|e| e.len() + 1).sum()),
            entries: Vec::with_capacity(raw.len()),
        };
        for entry in raw {
            // A NUL inside cannot come from a C environment; such an entry is no variable.
            if entry.contains(&0) {
                continue;
            }
            let Some(eq) = entry.iter().skip(1).position(|&b| b == b'=').map(|i| i + 1) else { continue };
            let start = env.bytes.len();
            env.bytes.extend_from_slice(entry);
            env.bytes.push(0);
            env.entries.push(Entry { start, eq: start + eq, end: start + entry.len() });
        }
        env
    }

    /// An environment made of `(name, value)` pairs (tests and tools).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Environ {
        let entries: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        Environ::from_entries(entries.iter().map(|e| e.as_bytes()))
    }

    /// The current environment as std sees it (for callers that do not start at `main`).
    pub fn current() -> Environ {
        let entries: Vec<Vec<u8>> = std::env::vars_os()
            .map(|(k, v)| {
                let mut e = k.as_bytes().to_vec();
                e.push(b'=');
                e.extend_from_slice(v.as_bytes());
                e
            })
            .collect();
        Environ::from_entries(entries.iter().map(|e| e.as_slice()))
    }

    /// Every variable, in order.
    pub fn vars(&self) -> impl Iterator<Item = Var<'_>> {
        self.entries.iter().map(|e| Var {
            name: &self.bytes[e.start..e.eq],
            value: &self.bytes[e.eq + 1..e.end],
            // The entry was stored with exactly one NUL, at its end.
            entry: CStr::from_bytes_until_nul(&self.bytes[e.start..=e.end]).unwrap_or_default(),
        })
    }

    /// The value of `name`: the first entry with that name, as the C library's `getenv` finds it.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        let name = name.as_bytes();
        self.entries
            .iter()
            .find(|e| &self.bytes[e.start..e.eq] == name)
            .map(|e| OsStr::from_bytes(&self.bytes[e.eq + 1..e.end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_find_the_first_entry_and_skip_what_is_no_variable() {
        let raw: [&[u8]; 6] = [b"PATH=/usr/bin:/bin", b"EMPTY=", b"NOEQUALS", b"=odd=1", b"A=b=c", b"PATH=/second"];
        let env = Environ::from_entries(raw);
        assert_eq!(env.get("PATH"), Some(OsStr::new("/usr/bin:/bin")));
        assert_eq!(env.get("EMPTY"), Some(OsStr::new("")));
        assert_eq!(env.get("A"), Some(OsStr::new("b=c")));
        assert_eq!(env.get("=odd"), Some(OsStr::new("1")), "a name may start with '=', as std reads it");
        assert_eq!(env.get("NOEQUALS"), None);
        assert_eq!(env.get("PAT"), None);
        let names: Vec<&[u8]> = env.vars().map(|v| v.name).collect();
        assert_eq!(names, [&b"PATH"[..], b"EMPTY", b"=odd", b"A", b"PATH"], "repeats stay, in order");
        let entries: Vec<&[u8]> = env.vars().map(|v| v.entry.to_bytes()).collect();
        assert_eq!(entries[0], b"PATH=/usr/bin:/bin");
        assert_eq!(entries[3], b"A=b=c");
    }

    #[test]
    fn the_current_environment_reads_as_std_reads_it() {
        let env = Environ::current();
        for (k, v) in std::env::vars_os() {
            let name = k.to_str().expect("test environment names are UTF-8");
            assert_eq!(env.get(name), std::env::var_os(name).as_deref(), "{name}");
            assert!(env.vars().any(|var| var.name == k.as_bytes() && var.value == v.as_bytes()));
        }
    }
}
