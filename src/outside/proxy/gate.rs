//! Whether the proxy lets a request through: the destination against the allowlist, the name
//! resolved here (never by the command), and every address it resolves to checked again.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

use crate::allowlist::{Allowlist, Destination, Target};

/// What the network bits of the mode let through the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Network read: plain-HTTP GET, HEAD and OPTIONS without a body, and tunnels.
    Read,
    /// Network write: every method.
    Write,
}

/// A destination that may be reached: the addresses to connect to, in the resolver's order.
#[derive(Debug)]
pub struct Admitted {
    pub addrs: Vec<SocketAddr>,
}

/// Why a request is refused, in words for the client and the audit log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    /// The host as the client named it.
    pub host: String,
    pub port: u16,
    /// What was refused and why.
    pub why: String,
    /// The entry that would allow it, and where it would go.
    pub remedy: String,
    /// A request for this host may be asked: no entry allows it and none denies it.
    pub grantable: bool,
}

impl Denied {
    /// One line, the text of a 403 body and of the `sandbox-bash` header.
    pub fn line(&self) -> String {
        format!("sandbox-bash: denied: {}:{}: {}; {}", shown(&self.host), self.port, self.why, self.remedy)
    }
}

pub use crate::allowlist::bracketed as shown;

/// A refusal that is not about the allowlist (a method, a chain): nothing in it would allow it.
pub fn refused(host: &str, port: u16, why: String, remedy: &str) -> Denied {
    Denied { host: host.to_string(), port, why, remedy: remedy.to_string(), grantable: false }
}

/// Decides whether `host:port` may be reached, resolving a name here. `resolve` is the
/// resolver (the system's in the proxy; a table in tests); `local` the addresses of this
/// machine's own interfaces.
pub fn admit(
    list: &Allowlist,
    host: &str,
    port: u16,
    resolve: &dyn Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>>,
    local: &[IpAddr],
) -> Result<Admitted, Denied> {
    let dest = Destination::new(host, port);
    let shown_host = match &dest.host {
        Target::Name(n) => n.clone(),
        Target::Addr(a) => a.to_string(),
    };
    if let Err(r) = list.check(&dest) {
        let (why, remedy) = crate::allowlist::refusal_words(&r, &shown_host, Some(port));
        let grantable = r.denied_by.is_none();
        return Err(Denied { host: shown_host, port, why, remedy, grantable });
    }
    let (name, addrs) = match &dest.host {
        Target::Addr(a) => (a.to_string(), vec![SocketAddr::new(*a, port)]),
        Target::Name(n) => match list.pinned(n, port) {
            Some(a) => (n.clone(), vec![SocketAddr::new(a, port)]),
            None => match resolve(n, port) {
                Ok(found) if !found.is_empty() => (n.clone(), found),
                Ok(_) => return Err(unresolved(n, port, "no address")),
                Err(e) => return Err(unresolved(n, port, &e.to_string())),
            },
        },
    };
    // Every address is checked, so a name that resolves to an allowed and a forbidden address
    // (or is rebound between lookups) reaches neither: the proxy connects to what it checked.
    for a in &addrs {
        if let Err(r) = list.check_resolved(&name, a.ip(), port, local) {
            let why = match &r.denied_by {
                Some(d) => format!("it resolves to {}, which the entry {d:?} of {} denies", a.ip(), r.source),
                None => r.source.clone(),
            };
            let remedy =
                format!("only an allow entry naming the address {:?} itself would allow it", a.ip().to_string());
            return Err(Denied { host: name, port, why, remedy, grantable: false });
        }
    }
    Ok(Admitted { addrs })
}

fn unresolved(name: &str, port: u16, why: &str) -> Denied {
    Denied {
        host: name.to_string(),
        port,
        why: format!("the name does not resolve ({why})"),
        remedy: "a `resolve` pin in the configuration names its address".into(),
        grantable: false,
    }
}

/// The addresses of this machine's own interfaces, read afresh (they change): a service bound
/// to every address answers on each of them as on loopback. `None` when they cannot be read;
/// the proxy then refuses, since it could not tell them from others.
pub fn local_addresses() -> Option<Vec<IpAddr>> {
    let mut out = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list it allocates, freed below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None;
    }
    let mut at = list;
    while !at.is_null() {
        // SAFETY: `at` is a node of the list getifaddrs returned, alive until freeifaddrs.
        let node = unsafe { &*at };
        if !node.ifa_addr.is_null() {
            // SAFETY: ifa_addr points at a sockaddr whose family says its layout.
            let family = i32::from(unsafe { (*node.ifa_addr).sa_family });
            if family == libc::AF_INET {
                // SAFETY: an AF_INET address is a sockaddr_in.
                let a = unsafe { &*(node.ifa_addr as *const libc::sockaddr_in) };
                out.push(IpAddr::from(u32::from_be(a.sin_addr.s_addr).to_be_bytes()));
            } else if family == libc::AF_INET6 {
                // SAFETY: an AF_INET6 address is a sockaddr_in6.
                let a = unsafe { &*(node.ifa_addr as *const libc::sockaddr_in6) };
                out.push(IpAddr::from(a.sin6_addr.s6_addr));
            }
        }
        at = node.ifa_next;
    }
    // SAFETY: the list getifaddrs returned, freed once.
    unsafe { libc::freeifaddrs(list) };
    Some(out)
}

/// [`admit`] with this machine's own addresses, or a refusal when they cannot be read.
pub fn admit_here(
    list: &Allowlist,
    host: &str,
    port: u16,
    resolve: &dyn Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>>,
) -> Result<Admitted, Denied> {
    match local_addresses() {
        Some(local) => admit(list, host, port, resolve, &local),
        None => Err(refused(
            host,
            port,
            "this machine's own addresses cannot be read, so they could not be told from others".into(),
            "nothing in the list would allow it now; try again",
        )),
    }
}

/// The system's resolver, as the proxy outside the sandbox sees it.
pub fn system_resolve(name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
    let mut out: Vec<SocketAddr> = (name, port).to_socket_addrs()?.collect();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(allow: &[&str], deny: &[&str]) -> Allowlist {
        crate::allowlist::one_layer("/etc/x.toml", allow, deny)
    }

    fn admit_t(
        l: &Allowlist,
        host: &str,
        port: u16,
        resolve: &dyn Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>>,
    ) -> Result<Admitted, Denied> {
        admit(l, host, port, resolve, &[])
    }

    #[test]
    fn this_machines_own_addresses_are_read() {
        let own = local_addresses().unwrap();
        assert!(own.contains(&IpAddr::from([127, 0, 0, 1])), "{own:?}");
    }

    fn table(name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let a = |s: &str| SocketAddr::new(s.parse().unwrap(), port);
        Ok(match name {
            "good.test" => vec![a("127.0.0.2")],
            "meta.test" => vec![a("169.254.169.254")],
            "split.test" => vec![a("127.0.0.2"), a("169.254.169.254")],
            "denied-addr.test" => vec![a("10.9.0.1")],
            _ => return Err(std::io::Error::other("unknown name")),
        })
    }

    #[test]
    fn names_are_resolved_here_and_every_address_is_checked() {
        let l = list(&["*.test", "127.0.0.2"], &["10.9.0.0/16"]);
        assert_eq!(admit_t(&l, "good.test", 80, &table).unwrap().addrs, vec!["127.0.0.2:80".parse().unwrap()]);
        let meta = admit_t(&l, "meta.test", 80, &table).unwrap_err();
        assert!(meta.why.contains("loopback, link-local or metadata"), "{}", meta.line());
        assert!(admit_t(&l, "split.test", 80, &table).is_err(), "one forbidden address refuses the name");
        let d = admit_t(&l, "denied-addr.test", 80, &table).unwrap_err();
        assert!(d.why.contains("10.9.0.0/16"), "{}", d.line());
        assert!(admit_t(&l, "nowhere.test", 80, &table).unwrap_err().why.contains("does not resolve"));
    }

    #[test]
    fn a_refusal_names_the_host_the_port_and_the_entry_that_would_allow_it() {
        let l = list(&["pypi.org"], &["*.internal.example"]);
        let d = admit_t(&l, "Evil.Example.", 443, &table).unwrap_err();
        assert_eq!(
            d.line(),
            "sandbox-bash: denied: evil.example:443: not in the network allowlist of /etc/x.toml; the entry \
             \"evil.example:443\" (or \"evil.example\") in the allow list of /etc/x.toml would allow it"
        );
        let d =
            admit_t(&list(&["*.example"], &["*.internal.example"]), "db.internal.example", 5432, &table).unwrap_err();
        assert!(d.why.contains("\"*.internal.example\""), "{}", d.line());
        let v6 = admit_t(&l, "::1", 8080, &table).unwrap_err();
        assert!(v6.line().starts_with("sandbox-bash: denied: [::1]:8080: "), "{}", v6.line());
    }

    #[test]
    fn addresses_and_pins_are_connected_to_as_checked() {
        let mut l = list(&["127.0.0.3", "mirror.test"], &[]);
        l.layers[0].resolve.push(("mirror.test".into(), "127.0.0.3".parse().unwrap()));
        let no_lookup =
            |_: &str, _: u16| -> std::io::Result<Vec<SocketAddr>> { panic!("a pin or address is not looked up") };
        assert_eq!(admit_t(&l, "mirror.test", 80, &no_lookup).unwrap().addrs, vec!["127.0.0.3:80".parse().unwrap()]);
        assert_eq!(admit_t(&l, "127.0.0.3", 81, &no_lookup).unwrap().addrs, vec!["127.0.0.3:81".parse().unwrap()]);
        assert!(admit_t(&l, "169.254.169.254", 80, &no_lookup).is_err());
    }
}
