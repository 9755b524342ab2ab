//! The command's own network namespace, when a network allowlist is in force: only loopback,
//! brought up here, and the listeners the proxy outside serves, made here so that they are
//! this namespace's.

use std::net::TcpListener;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::outside::proxy::{Handover, Role};

/// Brings loopback up in the network namespace this process has just entered and makes the
/// proxy's listener (on an unused port of 127.0.0.1) and one per forwarded `loopback` port
/// (127.0.0.1, and ::1 where IPv6 is on).
pub fn set_up(loopback: &[u16]) -> Result<Handover, String> {
    loopback_up().map_err(|e| format!("cannot bring up loopback in the new network namespace: {e}"))?;
    // The forwarded ports first: the proxy's own is any free one, which must not take theirs.
    let mut listeners = Vec::new();
    for &p in loopback {
        let v4 = TcpListener::bind(("127.0.0.1", p))
            .map_err(|e| format!("cannot listen on 127.0.0.1:{p} for the host's loopback port {p}: {e}"))?;
        listeners.push((Role::Forward(p), OwnedFd::from(v4)));
        if let Ok(v6) = TcpListener::bind(("::1", p)) {
            listeners.push((Role::Forward(p), OwnedFd::from(v6)));
        }
    }
    let proxy = TcpListener::bind(("127.0.0.1", 0)).map_err(|e| format!("cannot listen for the proxy: {e}"))?;
    let port = proxy.local_addr().map_err(|e| format!("cannot read the proxy's port: {e}"))?.port();
    listeners.push((Role::Proxy, OwnedFd::from(proxy)));
    let netns =
        std::fs::File::open("/proc/self/ns/net").map_err(|e| format!("cannot open the network namespace: {e}"))?;
    Ok(Handover { port, listeners, netns: OwnedFd::from(netns) })
}

fn loopback_up() -> std::io::Result<()> {
    // SAFETY: socket takes integer arguments; the result is checked before use.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned, owned by nothing else.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: an all-zero ifreq is valid; the name is copied in within its bounds.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS and SIOCSIFFLAGS read and write the ifreq they are given.
    unsafe {
        if libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS as libc::Ioctl, &mut ifr) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        ifr.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        if libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS as libc::Ioctl, &ifr) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The descriptors this process holds that are sockets of a family other than AF_UNIX. Made
/// outside the new namespace, each would still reach the network it was made in: the command
/// may not have them while an allowlist holds.
/// An error when the descriptors cannot be listed (none can be said to be safe then).
pub fn inherited_network_sockets() -> Result<Vec<i32>, String> {
    let dir = std::fs::read_dir("/proc/self/fd").map_err(|e| format!("cannot list this process's descriptors: {e}"))?;
    let fds: Vec<i32> = dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect();
    Ok(fds
        .into_iter()
        .filter(|&fd| {
            // SAFETY: an all-zero stat is valid to be overwritten; fstat fills it or fails (the
            // directory's own descriptor is gone by now).
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: a descriptor number and a valid out-pointer.
            if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
                return false;
            }
            let mut domain: libc::c_int = 0;
            let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: SO_DOMAIN writes one int into `domain`, whose size `len` gives.
            let rc = unsafe {
                libc::getsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_DOMAIN,
                    (&mut domain as *mut libc::c_int).cast(),
                    &mut len,
                )
            };
            rc != 0 || domain != libc::AF_UNIX
        })
        .collect())
}

/// Whether this process's network namespace has no interface but loopback: then no socket it
/// makes leads anywhere but to what listens on that loopback. A nested invocation trusts an
/// enclosing proxy only on this fact, never on the marker alone (which anyone can set).
pub fn only_loopback() -> bool {
    let Ok(text) = std::fs::read_to_string("/proc/self/net/dev") else { return false };
    let names: Vec<&str> = text.lines().skip(2).filter_map(|l| Some(l.split_once(':')?.0.trim())).collect();
    names == ["lo"]
}
