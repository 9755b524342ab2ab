//! The network allowlist: which destinations a command may reach when one is in force.
//!
//! An entry is a host name (`pypi.org`), a suffix (`*.pythonhosted.org`: any name below it, not
//! the name itself), an IP address (`127.0.0.2`, `::1`) or a CIDR range (`10.1.0.0/16`,
//! `fd00::/8`), each with an optional port (`github.com:443`, `[::1]:8080`). `deny` entries win
//! over `allow` entries. Every layer must allow a destination: the configuration's list is the
//! first layer, and `SANDBOX_BASH_NETWORK_ALLOW` and nested invocations add layers, so they can
//! narrow what is allowed and never widen it.
//!
//! Names are checked before they are resolved, and each address a name resolves to is checked
//! again: link-local and cloud metadata addresses are refused whatever name led there, unless an
//! entry names that very address or a range within theirs.

use std::net::IpAddr;

/// The variable that narrows the allowlist for one invocation (comma-separated entries).
pub const ALLOW_VAR: &str = "SANDBOX_BASH_NETWORK_ALLOW";

/// What an entry names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// A host name, in lower case, without a trailing dot.
    Name(String),
    /// `*.SUFFIX`: names that end in `.SUFFIX` (the suffix in lower case, without the dot).
    Suffix(String),
    /// An address, or a range of them (`/32` and `/128` for one address).
    Net(IpAddr, u8),
}

/// One entry as written, and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub text: String,
    pub host: Host,
    pub port: Option<u16>,
}

impl Entry {
    /// Reads one entry. Errors say what is wrong with it, for a message that names the file.
    pub fn parse(text: &str) -> Result<Entry, String> {
        let t = text.trim();
        let bad = |why: &str| Err(format!("network entry {t:?}: {why}"));
        if t.is_empty() {
            return bad("it is empty");
        }
        let (host, port) = match split_port(t) {
            Ok(hp) => hp,
            Err(why) => return bad(&why),
        };
        let host = if let Some((addr, bits)) = host.split_once('/') {
            let Ok(addr) = addr.parse::<IpAddr>() else { return bad("a range is an address and a prefix length") };
            let max = if addr.is_ipv4() { 32 } else { 128 };
            match bits.parse::<u8>() {
                Ok(b) if b <= max => Host::Net(mask(addr, b), b),
                _ => return bad(&format!("the prefix length must be 0 to {max}")),
            }
        } else if let Ok(addr) = host.parse::<IpAddr>() {
            Host::Net(addr, if addr.is_ipv4() { 32 } else { 128 })
        } else if let Some(suffix) = host.strip_prefix("*.") {
            match name(suffix) {
                Some(n) => Host::Suffix(n),
                None => return bad("what follows `*.` is not a host name"),
            }
        } else {
            match name(host) {
                Some(n) => Host::Name(n),
                None => return bad("not a host name, an address or a range (a `*` may only start a name, as `*.`)"),
            }
        };
        Ok(Entry { text: t.to_string(), host, port })
    }

    /// Whether the entry names this destination: a name (when the destination was asked for by
    /// name) or an address, and a port.
    fn matches(&self, dest: &Destination) -> bool {
        self.port.is_none_or(|p| p == dest.port) && self.matches_host(dest)
    }

    /// Whether the entry names the destination's host, whatever the port.
    fn matches_host(&self, dest: &Destination) -> bool {
        match (&self.host, &dest.host) {
            (Host::Name(n), Target::Name(d)) => n == d,
            (Host::Suffix(s), Target::Name(d)) => {
                d.len() > s.len() + 1 && d.ends_with(s.as_str()) && d.as_bytes()[d.len() - s.len() - 1] == b'.'
            }
            (Host::Net(net, bits), Target::Addr(a)) => within(*a, *net, *bits),
            _ => false,
        }
    }
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6 address or range (which has
/// colons of its own, so a port needs the brackets).
fn split_port(t: &str) -> Result<(&str, Option<u16>), String> {
    let port = |p: &str| match p.parse::<u16>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(format!("the port {p:?} is not 1 to 65535")),
    };
    if let Some(rest) = t.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else { return Err("a `[` without its `]`".into()) };
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(p) => Ok((host, port(p)?)),
                None => Err("after `]` only `:PORT` may follow".into()),
            },
        };
    }
    match t.rsplit_once(':') {
        // One colon: a port. More: an IPv6 address or range without a port.
        Some((host, p)) if !host.contains(':') => Ok((host, port(p)?)),
        _ => Ok((t, None)),
    }
}

/// A host name in its normal form (lower case, no trailing dot), or `None` when `s` is not one:
/// labels of letters, digits, `-` and `_`, none empty, none starting or ending with `-`.
fn name(s: &str) -> Option<String> {
    let s = s.strip_suffix('.').unwrap_or(s);
    let ok = !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    ok.then(|| s.to_ascii_lowercase())
}

fn mask(addr: IpAddr, bits: u8) -> IpAddr {
    match addr {
        IpAddr::V4(a) => {
            let m = if bits == 0 { 0 } else { u32::MAX << (32 - u32::from(bits)) };
            IpAddr::V4((u32::from(a) & m).into())
        }
        IpAddr::V6(a) => {
            let m = if bits == 0 { 0 } else { u128::MAX << (128 - u32::from(bits)) };
            IpAddr::V6((u128::from(a) & m).into())
        }
    }
}

fn within(addr: IpAddr, net: IpAddr, bits: u8) -> bool {
    // An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is that IPv4 address.
    let addr = match addr {
        IpAddr::V6(a) => a.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    };
    addr.is_ipv4() == net.is_ipv4() && mask(addr, bits) == net
}

/// Addresses refused whatever name or range led to them, unless every layer names them by
/// address (an entry inside their range): the host's own loopback and unspecified addresses
/// (its services, which only `loopback` ports reach), the link-local ranges (where cloud
/// metadata services answer) and the metadata addresses outside them.
const NEVER_BY_NAME: &[(&str, u8)] = &[
    ("127.0.0.0", 8),
    ("0.0.0.0", 8),
    ("::1", 128),
    ("::", 128),
    ("169.254.0.0", 16),
    ("fe80::", 10),
    ("fd00:ec2::254", 128),
    ("100.100.100.200", 32),
];

/// What is being reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Name(String),
    Addr(IpAddr),
}

/// A destination: a host by name or address, and a port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    pub host: Target,
    pub port: u16,
}

impl Destination {
    /// A destination as a client names it: a host name is put in its normal form.
    pub fn new(host: &str, port: u16) -> Destination {
        let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        // `127.0.0.3.` resolves to the address it spells.
        let bare = if bare.ends_with('.') && bare[..bare.len() - 1].parse::<IpAddr>().is_ok() {
            &bare[..bare.len() - 1]
        } else {
            bare
        };
        let host = match bare.parse::<IpAddr>() {
            Ok(a) => Target::Addr(a),
            Err(_) => Target::Name(bare.strip_suffix('.').unwrap_or(bare).to_ascii_lowercase()),
        };
        Destination { host, port }
    }
}

/// One layer: entries that allow and entries that deny, names pinned to addresses, and the
/// ports of the host's loopback it lets the command reach.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layer {
    /// Where the layer comes from, for messages (a file, or the variable).
    pub source: String,
    pub allow: Vec<Entry>,
    pub deny: Vec<Entry>,
    /// `resolve = { NAME = ADDRESS }`: the proxy connects to ADDRESS for NAME.
    pub resolve: Vec<(String, IpAddr)>,
    /// `loopback = [PORT, …]`; `None` for a layer that says nothing of them (the variable).
    pub loopback: Option<Vec<u16>>,
}

/// Why a destination is refused: the layer that refuses it and, when an entry of it denies it,
/// that entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub source: String,
    pub denied_by: Option<String>,
}

/// The allowlist in force: its layers, every one of which must allow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowlist {
    pub layers: Vec<Layer>,
}

impl Allowlist {
    /// How many hosts it allows: the fewest of any layer (each layer only narrows).
    pub fn host_count(&self) -> usize {
        self.layers.iter().map(|l| l.allow.len()).min().unwrap_or(0)
    }

    /// Whether `dest` may be reached: `Ok` with the entry of the first layer that allows it,
    /// or the first refusal.
    pub fn check(&self, dest: &Destination) -> Result<String, Refusal> {
        let mut allowed_by = None;
        for layer in &self.layers {
            if let Some(d) = layer.deny.iter().find(|e| e.matches(dest)) {
                return Err(Refusal { source: layer.source.clone(), denied_by: Some(d.text.clone()) });
            }
            match layer.allow.iter().find(|e| e.matches(dest)) {
                Some(e) => {
                    allowed_by.get_or_insert_with(|| e.text.clone());
                }
                None => return Err(Refusal { source: layer.source.clone(), denied_by: None }),
            }
        }
        allowed_by.ok_or(Refusal { source: "no layer".into(), denied_by: None })
    }

    /// Whether `addr`, which the name `name` resolved to, may be reached on `port`: the name
    /// was allowed, and now the address is checked against the deny entries and the addresses
    /// that no name may lead to (an entry must name such an address itself).
    /// `local` are the addresses of this machine's own interfaces, which are held as loopback is.
    pub fn check_resolved(&self, name: &str, addr: IpAddr, port: u16, local: &[IpAddr]) -> Result<(), Refusal> {
        let by_addr = Destination { host: Target::Addr(addr), port };
        for layer in &self.layers {
            if let Some(d) = layer.deny.iter().find(|e| e.matches(&by_addr)) {
                return Err(Refusal { source: layer.source.clone(), denied_by: Some(d.text.clone()) });
            }
        }
        let never = NEVER_BY_NAME
            .iter()
            .map(|(net, bits)| (net.parse::<IpAddr>().expect("a literal address"), *bits))
            .find(|(net, bits)| within(addr, *net, *bits))
            .or_else(|| {
                let own = local.iter().find(|l| within(addr, **l, if l.is_ipv4() { 32 } else { 128 }))?;
                Some((*own, if own.is_ipv4() { 32 } else { 128 }))
            });
        // Such an address is reached only when every layer allows it by an entry inside its
        // range: `0.0.0.0/0` allows the internet, not the metadata service.
        let named = |(net, bits): (IpAddr, u8)| {
            self.check(&by_addr).is_ok()
                && self.layers.iter().all(|l| {
                    l.allow.iter().any(|e| {
                        e.matches(&by_addr) && matches!(e.host, Host::Net(n, b) if b >= bits && within(n, net, bits))
                    })
                })
        };
        if never.is_some_and(|n| !named(n)) {
            return Err(Refusal {
                source: format!(
                    "{name} resolves to {addr}, a loopback, link-local or metadata address or one of this machine's own"
                ),
                denied_by: None,
            });
        }
        Ok(())
    }

    /// Whether a deny entry refuses `host` on every port: for an ssh-style destination, whose
    /// name may be an alias of ssh's own configuration and whose port is not known, only that
    /// can be said before it runs (the proxy judges the real name).
    pub fn denied_on_every_port(&self, host: &str) -> Option<Refusal> {
        let dest = Destination::new(host, 0);
        self.layers.iter().find_map(|layer| {
            let d = layer.deny.iter().find(|e| e.port.is_none() && e.matches_host(&dest))?;
            Some(Refusal { source: layer.source.clone(), denied_by: Some(d.text.clone()) })
        })
    }

    /// Whether `host` may be reached on some port: refused when a layer denies it on every
    /// port or allows it on none.
    #[cfg(test)]
    pub fn check_any_port(&self, host: &str) -> Result<(), Refusal> {
        let dest = Destination::new(host, 0);
        for layer in &self.layers {
            if let Some(d) = layer.deny.iter().find(|e| e.port.is_none() && e.matches_host(&dest)) {
                return Err(Refusal { source: layer.source.clone(), denied_by: Some(d.text.clone()) });
            }
            if !layer.allow.iter().any(|e| e.matches_host(&dest)) {
                return Err(Refusal { source: layer.source.clone(), denied_by: None });
            }
        }
        if self.layers.is_empty() {
            return Err(Refusal { source: "no layer".into(), denied_by: None });
        }
        Ok(())
    }

    /// This allowlist with `entries` allowed by every layer (a request a person granted for one
    /// run; a deny entry still refuses what it names).
    pub fn with_hosts(&self, entries: &[Entry]) -> Allowlist {
        let mut out = self.clone();
        for layer in &mut out.layers {
            layer.allow.extend(entries.iter().cloned());
        }
        out
    }

    /// This allowlist with one more layer: entries from `SANDBOX_BASH_NETWORK_ALLOW` (or a
    /// nested invocation), which can only narrow it.
    pub fn narrowed(&self, source: &str, entries: &str) -> Result<Allowlist, String> {
        let allow = entries.split(',').filter(|e| !e.trim().is_empty()).map(Entry::parse).collect::<Result<_, _>>()?;
        let mut out = self.clone();
        out.layers.push(Layer { source: source.to_string(), allow, ..Layer::default() });
        Ok(out)
    }

    /// The address a name is pinned to. A pin of the first layer (the administrator's file when
    /// there is one) is taken as it is; a later layer's pin only when every layer allows its
    /// address, so that pinning an allowed name cannot lead it somewhere no layer allows.
    pub fn pinned(&self, name: &str, port: u16) -> Option<IpAddr> {
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        for (i, layer) in self.layers.iter().enumerate().rev() {
            let Some((_, addr)) = layer.resolve.iter().find(|(n, _)| *n == name) else { continue };
            if i == 0 || self.check(&Destination { host: Target::Addr(*addr), port }).is_ok() {
                return Some(*addr);
            }
        }
        None
    }

    /// The host's loopback ports the command may reach: those every layer that names ports
    /// lists.
    pub fn loopback(&self) -> Vec<u16> {
        let mut lists = self.layers.iter().filter_map(|l| l.loopback.as_ref());
        let Some(first) = lists.next() else { return Vec::new() };
        let mut out: Vec<u16> = first.clone();
        for l in lists {
            out.retain(|p| l.contains(p));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The words of a refusal: what refused `host` (on `port`, when known) and the entry that
/// would allow it. One line after `sandbox-bash: denied: HOST:PORT: `, the same from the proxy
/// and from the static layer.
pub fn refusal_words(r: &Refusal, host: &str, port: Option<u16>) -> (String, String) {
    let shown = bracketed(host);
    let where_ = match port {
        Some(p) => format!("{shown}:{p}"),
        None => shown.clone(),
    };
    match &r.denied_by {
        Some(d) => (
            format!("the entry {d:?} of {} denies it", r.source),
            format!("only removing {d:?} from the deny list of {} would allow it", r.source),
        ),
        None if port.is_some() => (
            format!("not in the network allowlist of {}", r.source),
            format!("the entry {where_:?} (or {shown:?}) in the allow list of {} would allow it", r.source),
        ),
        None => (
            format!("not in the network allowlist of {} on any port", r.source),
            format!("the entry {shown:?} in the allow list of {} would allow it", r.source),
        ),
    }
}

/// An IPv6 address in brackets, as it is written with a port.
pub fn bracketed(host: &str) -> String {
    if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host.to_string() }
}

/// The host and port that the target of a network access names literally: a URL
/// (`https://user@host:8443/x`, with its scheme's port when none is written) or, for the
/// programs of `remote`, `user@host`, `host:path` or a host name with a dot in it (its port
/// unknown). `None` for anything else: a program name, a path, a word not known.
pub fn literal_destination(target: &str, remote: bool) -> Option<(String, Option<u16>)> {
    if let Some((scheme, rest)) = target.split_once("://") {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = match split_port(authority) {
            Ok((h, p)) => (h, p),
            Err(_) => return None,
        };
        let port = port.or(match scheme.to_ascii_lowercase().as_str() {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            "ftp" => Some(21),
            "ssh" | "sftp" | "git+ssh" | "ssh+git" => Some(22),
            "git" => Some(9418),
            "rsync" => Some(873),
            _ => None,
        });
        return host_name_or_address(host).map(|h| (h, port));
    }
    if !remote || target.starts_with('-') {
        return None;
    }
    let host = target.split_once(':').map_or(target, |(h, _)| h);
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    if host.contains('/') || !(host.contains('.') || host.parse::<IpAddr>().is_ok()) {
        return None;
    }
    host_name_or_address(host).map(|h| (h, None))
}

fn host_name_or_address(host: &str) -> Option<String> {
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    if let Ok(a) = bare.parse::<IpAddr>() {
        return Some(a.to_string());
    }
    name(bare)
}

/// An allowlist of one layer from `source`, for tests here and in the proxy.
#[cfg(test)]
pub fn one_layer(source: &str, allow: &[&str], deny: &[&str]) -> Allowlist {
    let parse = |v: &[&str]| v.iter().map(|e| Entry::parse(e).unwrap()).collect();
    Allowlist {
        layers: vec![Layer { source: source.into(), allow: parse(allow), deny: parse(deny), ..Layer::default() }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(allow: &[&str], deny: &[&str]) -> Allowlist {
        one_layer("config.toml", allow, deny)
    }

    fn allowed(l: &Allowlist, host: &str, port: u16) -> bool {
        l.check(&Destination::new(host, port)).is_ok()
    }

    #[test]
    fn entries_parse_names_suffixes_addresses_ranges_and_ports() {
        let e = |t: &str| Entry::parse(t).unwrap();
        assert_eq!(e("PyPI.org.").host, Host::Name("pypi.org".into()));
        assert_eq!(e("*.pythonhosted.org").host, Host::Suffix("pythonhosted.org".into()));
        assert_eq!(e("github.com:443").port, Some(443));
        assert_eq!(e("127.0.0.2").host, Host::Net("127.0.0.2".parse().unwrap(), 32));
        assert_eq!(e("10.1.2.3/16").host, Host::Net("10.1.0.0".parse().unwrap(), 16));
        assert_eq!(e("::1").host, Host::Net("::1".parse().unwrap(), 128));
        assert_eq!(e("[::1]:8080").port, Some(8080));
        assert_eq!(e("fd00::/8").host, Host::Net("fd00::".parse().unwrap(), 8));
        for wrong in [
            "",
            "a:0",
            "a:70000",
            "*",
            "*.",
            "a.*.b",
            "exa mple.com",
            "-a.com",
            "10.0.0.0/33",
            "[::1",
            "[::1]x",
            "a..b",
        ] {
            assert!(Entry::parse(wrong).is_err(), "{wrong:?} parsed");
        }
    }

    #[test]
    fn names_suffixes_and_ports_match_exactly() {
        let l = list(&["pypi.org", "*.pythonhosted.org", "github.com:443", "10.1.0.0/16", "[::1]:8080"], &[]);
        assert!(allowed(&l, "pypi.org", 443) && allowed(&l, "PYPI.ORG.", 80));
        assert!(!allowed(&l, "evil-pypi.org", 443) && !allowed(&l, "sub.pypi.org", 443));
        assert!(allowed(&l, "files.pythonhosted.org", 443));
        assert!(!allowed(&l, "pythonhosted.org", 443), "a suffix does not name the name itself");
        assert!(!allowed(&l, "xpythonhosted.org", 443));
        assert!(allowed(&l, "github.com", 443) && !allowed(&l, "github.com", 22));
        assert!(allowed(&l, "10.1.200.3", 5432) && !allowed(&l, "10.2.0.1", 5432));
        assert!(allowed(&l, "::ffff:10.1.0.9", 80), "an IPv4 address written as IPv6 is that address");
        assert!(allowed(&l, "[::1]", 8080) && !allowed(&l, "::1", 8081));
        // A name is not its address, nor an address a name: 10.1.0.1 allowed says nothing of a
        // name that resolves there until the name is allowed.
        assert!(!allowed(&l, "db.internal", 5432));
    }

    #[test]
    fn deny_wins_and_layers_only_narrow() {
        let l = list(&["*.example.com"], &["*.internal.example.com"]);
        assert!(allowed(&l, "www.example.com", 443));
        let refused = l.check(&Destination::new("db.internal.example.com", 443)).unwrap_err();
        assert_eq!(refused.denied_by.as_deref(), Some("*.internal.example.com"));
        let narrow = l.narrowed(ALLOW_VAR, "www.example.com:443").unwrap();
        assert!(allowed(&narrow, "www.example.com", 443));
        assert!(!allowed(&narrow, "api.example.com", 443));
        // A layer cannot widen: what the configuration does not allow stays refused.
        let wider = l.narrowed(ALLOW_VAR, "evil.test,www.example.com").unwrap();
        assert!(!allowed(&wider, "evil.test", 443));
        assert_eq!(wider.check(&Destination::new("evil.test", 443)).unwrap_err().source, "config.toml");
        assert!(l.narrowed(ALLOW_VAR, "a b").is_err());
        assert!(!allowed(&Allowlist::default(), "pypi.org", 443), "no layer allows nothing");
    }

    #[test]
    fn names_never_lead_to_metadata_addresses_unless_named_by_address() {
        let l = list(&["*.test", "10.0.0.0/8"], &["10.9.0.0/16"]);
        let ok = |a: &str| l.check_resolved("x.test", a.parse().unwrap(), 80, &[]).is_ok();
        assert!(ok("203.0.113.7"));
        assert!(!ok("169.254.169.254"));
        assert!(!ok("fd00:ec2::254"));
        assert!(!ok("fe80::1"));
        assert!(!ok("::ffff:169.254.169.254"));
        assert!(!ok("10.9.1.1"), "a denied range is refused after resolving too");
        let everything = list(&["0.0.0.0/0", "::/0", "*.test"], &[]);
        for host in ["127.0.0.1", "127.0.0.3", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1"] {
            assert!(everything.check_resolved("x.test", host.parse().unwrap(), 80, &[]).is_err(), "{host}");
        }
        let test_host = list(&["127.0.0.2", "[::1]:8080"], &[]);
        assert!(test_host.check_resolved("127.0.0.2", "127.0.0.2".parse().unwrap(), 80, &[]).is_ok());
        assert!(test_host.check_resolved("127.0.0.3", "127.0.0.3".parse().unwrap(), 80, &[]).is_err());
        assert!(test_host.check_resolved("::1", "::1".parse().unwrap(), 8080, &[]).is_ok());
        assert!(everything.check_resolved("169.254.169.254", "169.254.169.254".parse().unwrap(), 80, &[]).is_err());
        assert!(everything.check_resolved("x", "fd00:ec2::254".parse().unwrap(), 80, &[]).is_err());
        let meta = list(&["169.254.169.254:80"], &[]);
        assert!(meta.check_resolved("metadata.test", "169.254.169.254".parse().unwrap(), 80, &[]).is_ok());
        assert!(meta.check_resolved("metadata.test", "169.254.169.254".parse().unwrap(), 81, &[]).is_err());
        // This machine's own addresses are held as loopback is: a wide range does not reach them.
        let own: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(everything.check_resolved("x.test", own, 80, &[own]).is_err());
        assert!(everything.check_resolved("x.test", own, 80, &[]).is_ok());
        assert!(list(&["192.0.2.2"], &[]).check_resolved("192.0.2.2", own, 80, &[own]).is_ok());
    }

    #[test]
    fn literal_destinations_of_urls_and_remote_hosts() {
        let d = |t: &str, remote| literal_destination(t, remote);
        assert_eq!(d("https://pypi.org/simple/", false), Some(("pypi.org".into(), Some(443))));
        assert_eq!(d("http://u:p@127.0.0.3:8111/x?y", false), Some(("127.0.0.3".into(), Some(8111))));
        assert_eq!(d("http://[::1]:8080/", false), Some(("::1".into(), Some(8080))));
        assert_eq!(d("HTTP://Example.COM", false), Some(("example.com".into(), Some(80))));
        assert_eq!(d("git@github.com:o/r.git", true), Some(("github.com".into(), None)));
        assert_eq!(d("deploy@10.0.0.5", true), Some(("10.0.0.5".into(), None)));
        assert_eq!(d("git@github.com:o/r.git", false), None, "only remote programs name hosts this way");
        for not in ["pip", "prod", "./file", "/srv/x", "file.txt/..", "-oProxyCommand=x", "http://"] {
            assert_eq!(d(not, true), None, "{not}");
        }
        let l = list(&["github.com:443", "*.example.com"], &["bad.example.com"]);
        assert!(l.check_any_port("github.com").is_ok());
        assert!(l.check_any_port("gitlab.com").is_err());
        assert_eq!(l.check_any_port("bad.example.com").unwrap_err().denied_by.as_deref(), Some("bad.example.com"));
        assert!(l.denied_on_every_port("gitlab.com").is_none(), "an alias may name anything");
        assert_eq!(l.denied_on_every_port("bad.example.com").unwrap().denied_by.as_deref(), Some("bad.example.com"));
    }

    #[test]
    fn pins_of_later_layers_must_lead_where_allowed_and_loopback_ports_intersect() {
        let addr = |a: &str| a.parse::<IpAddr>().unwrap();
        let mut l = list(&["mirror.test", "pypi.org", "127.0.0.2"], &[]);
        l.layers[0].resolve.push(("mirror.test".into(), addr("127.0.0.3")));
        l.layers[0].loopback = Some(vec![5432, 6379]);
        // The first layer's pin holds as written.
        assert_eq!(l.pinned("Mirror.Test.", 80), Some(addr("127.0.0.3")));
        let mut user = l.clone();
        user.layers.push(Layer {
            source: "user".into(),
            allow: vec![Entry::parse("pypi.org").unwrap(), Entry::parse("127.0.0.2").unwrap()],
            resolve: vec![("pypi.org".into(), addr("10.0.0.5")), ("mirror.test".into(), addr("127.0.0.2"))],
            loopback: Some(vec![5432, 8080]),
            ..Layer::default()
        });
        assert_eq!(user.pinned("pypi.org", 443), None, "a later pin to an address no layer allows is not taken");
        assert_eq!(user.pinned("mirror.test", 80), Some(addr("127.0.0.2")));
        assert_eq!(user.loopback(), vec![5432]);
        assert_eq!(l.narrowed(ALLOW_VAR, "pypi.org").unwrap().loopback(), vec![5432, 6379]);
        assert!(Allowlist::default().loopback().is_empty());
    }
}
