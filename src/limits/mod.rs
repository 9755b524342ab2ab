//! Resource limits of a run: CPU time, memory, processes, disk, a deadline and the size of one
//! file. This file is the model (pure): the values, their text, how layers combine (each can
//! only lower), and the statuses and lines a reached limit gives. What enforces them on Linux
//! is [`cgroup`] (the run's own control groups) and [`keeper`] (the process outside the sandbox
//! that waits for the run, keeps its deadline and tells what was reached).

#[cfg(target_os = "linux")]
pub mod cgroup;
#[cfg(target_os = "linux")]
pub mod disk;
#[cfg(target_os = "linux")]
pub mod keeper;

/// The variable that lowers the configured limits for one run (and what it starts).
pub const VAR: &str = "SANDBOX_BASH_LIMITS";

/// One kind of limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// CPU time of every process of the run together.
    Cpu,
    /// Memory of every process of the run together, without swap.
    Memory,
    /// Processes and threads of the run at once.
    Pids,
    /// What the run may add to the scratch trees.
    Disk,
    /// The deadline, from the start of the run.
    Wall,
    /// The size of one file the run writes.
    File,
}

impl Kind {
    /// Every kind, in the order they are shown.
    pub const ALL: [Kind; 6] = [Kind::Cpu, Kind::Memory, Kind::Pids, Kind::Disk, Kind::Wall, Kind::File];

    /// Its key in the configuration and in [`VAR`].
    pub fn key(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::Memory => "memory",
            Kind::Pids => "pids",
            Kind::Disk => "disk",
            Kind::Wall => "wall",
            Kind::File => "file",
        }
    }

    /// Its type in the line a reached limit gives and in its audit record.
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu_limit",
            Kind::Memory => "memory_limit",
            Kind::Pids => "pids_limit",
            Kind::Disk => "disk_limit",
            Kind::Wall => "deadline",
            Kind::File => "file_limit",
        }
    }

    fn index(self) -> usize {
        Kind::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }

    /// What its value counts.
    fn unit(self) -> Unit {
        match self {
            Kind::Cpu | Kind::Wall => Unit::Millis,
            Kind::Memory | Kind::Disk | Kind::File => Unit::Bytes,
            Kind::Pids => Unit::Count,
        }
    }

    /// The status of a run this limit stopped as a whole (every process killed); `None` when
    /// the limit makes a call fail instead and the program's own status stands.
    pub fn status(self) -> Option<i32> {
        match self {
            // GNU timeout's and the agents' own word for a run out of time.
            Kind::Wall => Some(124),
            // 128 + SIGKILL: what an out-of-memory kill has always looked like.
            Kind::Memory => Some(137),
            // 128 + SIGXCPU: what a process over its CPU time has always looked like.
            Kind::Cpu => Some(152),
            Kind::Pids | Kind::Disk | Kind::File => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Millis,
    Bytes,
    Count,
}

/// The limits of one run: for each kind, its bound, or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    values: [Option<u64>; 6],
}

impl Limits {
    /// No limit at all.
    pub const NONE: Limits = Limits { values: [None; 6] };

    /// The bound of `kind` (milliseconds, bytes or a count).
    pub fn get(&self, kind: Kind) -> Option<u64> {
        self.values[kind.index()]
    }

    pub fn set(&mut self, kind: Kind, value: Option<u64>) {
        self.values[kind.index()] = value;
    }

    /// No limit is set.
    pub fn is_empty(&self) -> bool {
        self.values.iter().all(Option::is_none)
    }

    /// The limits that are set, in order.
    pub fn iter(&self) -> impl Iterator<Item = (Kind, u64)> + '_ {
        Kind::ALL.into_iter().filter_map(|k| self.get(k).map(|v| (k, v)))
    }

    /// Reads `cpu=60s,memory=2G,pids=256,disk=1G,wall=10m,file=512M` (any of them, in any
    /// order; an empty text is no limit).
    pub fn parse(text: &str) -> Result<Limits, String> {
        let mut limits = Limits::NONE;
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| format!("{item:?} is not KEY=VALUE (keys: cpu, memory, pids, disk, wall, file)"))?;
            let kind = Kind::ALL
                .into_iter()
                .find(|k| k.key() == key.trim())
                .ok_or_else(|| format!("unknown limit {:?} (keys: cpu, memory, pids, disk, wall, file)", key.trim()))?;
            if limits.get(kind).is_some() {
                return Err(format!("{} is given twice", kind.key()));
            }
            limits.set(kind, Some(amount(kind, value.trim())?));
        }
        Ok(limits)
    }

    /// Each limit the lower of the two (a missing one is no bound): what holds when both do.
    pub fn lower(&self, other: &Limits) -> Limits {
        let mut out = *self;
        for kind in Kind::ALL {
            out.set(
                kind,
                match (self.get(kind), other.get(kind)) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
            );
        }
        out
    }

    /// The limits of `self` that are lower than what `in_force` already holds: what a level
    /// must enforce itself.
    pub fn beyond(&self, in_force: &Limits) -> Limits {
        let mut out = Limits::NONE;
        for (kind, v) in self.iter() {
            if in_force.get(kind).is_none_or(|held| v < held) {
                out.set(kind, Some(v));
            }
        }
        out
    }

    /// The exact text, read back by [`Limits::parse`] (the marker carries it).
    pub fn exact(&self) -> String {
        let items: Vec<String> = self
            .iter()
            .map(|(k, v)| match k.unit() {
                Unit::Millis => format!("{}={v}ms", k.key()),
                _ => format!("{}={v}", k.key()),
            })
            .collect();
        items.join(",")
    }

    /// The short words of the declaration: `{cpu=60s,memory=2G,pids=256}`, or `none`.
    pub fn words(&self) -> String {
        if self.is_empty() {
            return "none".to_string();
        }
        let items: Vec<String> = self.iter().map(|(k, v)| format!("{}={}", k.key(), short(k, v))).collect();
        format!("{{{}}}", items.join(","))
    }
}

/// A value of `kind` as people read it: `2 GiB`, `60 s`, `256 processes and threads`.
pub fn bound(kind: Kind, value: u64) -> String {
    match kind.unit() {
        Unit::Millis if value.is_multiple_of(1000) => format!("{} s", value / 1000),
        Unit::Millis => format!("{value} ms"),
        Unit::Bytes => bytes(value),
        Unit::Count => format!("{value} processes and threads"),
    }
}

/// A size in the largest binary unit that shows it to a tenth.
pub fn bytes(value: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (name, size) in UNITS {
        if value >= size {
            return if value.is_multiple_of(size) {
                format!("{} {name}", value / size)
            } else {
                format!("{:.1} {name}", value as f64 / size as f64)
            };
        }
    }
    format!("{value} bytes")
}

/// The shortest exact text of a value (`60s`, `10m`, `2G`, `256`).
fn short(kind: Kind, v: u64) -> String {
    let units: &[(&str, u64)] = match kind.unit() {
        Unit::Millis => &[("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)],
        Unit::Bytes => &[("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("", 1)],
        Unit::Count => &[("", 1)],
    };
    let (name, size) = units.iter().find(|(_, size)| v.is_multiple_of(*size)).copied().unwrap_or(("", 1));
    format!("{}{name}", v / size)
}

/// One value of `kind`: a time (`90`, `90s`, `1500ms`, `10m`, `2h`; a bare number is seconds),
/// a size (`1048576`, `512K`, `2G`, `2GiB`; binary units) or a count.
pub fn amount(kind: Kind, text: &str) -> Result<u64, String> {
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let what = |e: &str| format!("{} = {text:?}: {e}", kind.key());
    let number: u64 = number.parse().map_err(|_| what("expected a number"))?;
    let scale: u64 = match (kind.unit(), suffix.trim()) {
        (Unit::Millis, "ms") => 1,
        (Unit::Millis, "" | "s") => 1000,
        (Unit::Millis, "m" | "min") => 60_000,
        (Unit::Millis, "h") => 3_600_000,
        (Unit::Millis, _) => return Err(what("expected a time like 90s, 10m or 2h")),
        (Unit::Bytes, s) => match s.trim_end_matches("iB").trim_end_matches('B') {
            "" => 1,
            "K" | "k" => 1 << 10,
            "M" | "m" => 1 << 20,
            "G" | "g" => 1 << 30,
            "T" | "t" => 1 << 40,
            _ => return Err(what("expected a size like 512M or 2G")),
        },
        (Unit::Count, "") => 1,
        (Unit::Count, _) => return Err(what("expected a number of processes")),
    };
    let value = number.checked_mul(scale).ok_or_else(|| what("too large"))?;
    if value == 0 {
        return Err(what("a limit of nothing would refuse every command; leave it out for no limit"));
    }
    Ok(value)
}

/// The line a reached limit gives on the command's standard error.
pub fn line(kind: Kind, value: u64, what: &str) -> String {
    format!("sandbox-bash: limit: {} ({}) reached: {what}", kind.type_name(), bound(kind, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_reads_every_kind_and_unit() {
        let l = Limits::parse("cpu=60s,memory=2G,pids=256,disk=1G,wall=10m,file=512M").unwrap();
        assert_eq!(l.get(Kind::Cpu), Some(60_000));
        assert_eq!(l.get(Kind::Memory), Some(2 << 30));
        assert_eq!(l.get(Kind::Pids), Some(256));
        assert_eq!(l.get(Kind::Disk), Some(1 << 30));
        assert_eq!(l.get(Kind::Wall), Some(600_000));
        assert_eq!(l.get(Kind::File), Some(512 << 20));
        assert_eq!(l.words(), "{cpu=1m,memory=2G,pids=256,disk=1G,wall=10m,file=512M}");
        assert_eq!(Limits::parse(&l.exact()).unwrap(), l);
        assert_eq!(Limits::parse("").unwrap(), Limits::NONE);
        assert_eq!(Limits::NONE.words(), "none");
        assert_eq!(Limits::parse(" wall = 1500ms ").unwrap().get(Kind::Wall), Some(1500));
        assert_eq!(Limits::parse("wall=90").unwrap().get(Kind::Wall), Some(90_000));
        assert_eq!(Limits::parse("memory=64MiB").unwrap().get(Kind::Memory), Some(64 << 20));
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            ("memory", "is not KEY=VALUE"),
            ("ram=1G", "unknown limit \"ram\""),
            ("memory=lots", "expected a number"),
            ("memory=2X", "expected a size"),
            ("wall=5d", "expected a time"),
            ("pids=10k", "expected a number of processes"),
            ("pids=0", "a limit of nothing"),
            ("wall=1s,wall=2s", "given twice"),
            ("memory=99999999999T", "too large"),
        ] {
            let e = Limits::parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn layers_can_only_lower() {
        let system = Limits::parse("memory=2G,wall=10m").unwrap();
        let user = Limits::parse("memory=4G,pids=100").unwrap();
        let both = system.lower(&user);
        assert_eq!(both, Limits::parse("memory=2G,wall=10m,pids=100").unwrap());
        // What an enclosing level holds is not enforced again; only what is lower.
        let asked = Limits::parse("memory=1G,wall=10m,pids=100").unwrap();
        assert_eq!(asked.beyond(&both), Limits::parse("memory=1G").unwrap());
        assert_eq!(both.beyond(&both), Limits::NONE);
        assert_eq!(both.beyond(&Limits::NONE), both);
    }

    #[test]
    fn lines_name_the_type_and_the_bound() {
        assert_eq!(
            line(Kind::Memory, 2 << 30, "every process of the run was stopped"),
            "sandbox-bash: limit: memory_limit (2 GiB) reached: every process of the run was stopped"
        );
        assert_eq!(bound(Kind::Wall, 1500), "1500 ms");
        assert_eq!(bound(Kind::Cpu, 60_000), "60 s");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(Kind::Wall.status(), Some(124));
        assert_eq!(Kind::Pids.status(), None);
    }
}
