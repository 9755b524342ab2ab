//! Moving bytes between the command's connection and the destination, and what a tunnel may
//! not carry: another proxy's request (a chain, or a relay through an allowed host to one the
//! list refuses), and under network read a plain-HTTP request that writes.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};

use super::gate::Access;

/// How long a connection may wait for its destination.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What the first bytes the command sends into a tunnel are, when they are something a tunnel
/// to an allowed host may not carry; `None` for everything else (TLS, SSH, a protocol of the
/// destination's own).
pub fn forbidden_start(first: &[u8], access: Access) -> Option<&'static str> {
    if first.first() == Some(&0x05) && first.len() >= 3 && usize::from(first[1]) + 2 == first.len() {
        return Some("a SOCKS5 greeting inside a tunnel (a chain of proxies)");
    }
    if first.first() == Some(&0x04) && matches!(first.get(1), Some(1 | 2)) && first.len() >= 9 {
        return Some("a SOCKS4 request inside a tunnel (a chain of proxies)");
    }
    let line_end = first.iter().position(|&b| b == b'\n').unwrap_or(first.len());
    let line = String::from_utf8_lossy(&first[..line_end]);
    let mut words = line.split(' ');
    let (Some(method), Some(target)) = (words.next(), words.next()) else { return None };
    let is_method = !method.is_empty() && method.len() <= 16 && method.bytes().all(|b| b.is_ascii_uppercase());
    if !is_method {
        return None;
    }
    if method == "CONNECT" {
        return Some("a CONNECT request inside a tunnel (a chain of proxies)");
    }
    let lower = target.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("ftp://") {
        return Some("a proxy request inside a tunnel (a relay through the allowed host)");
    }
    if access == Access::Read && target.starts_with('/') && !matches!(method, "GET" | "HEAD" | "OPTIONS") {
        return Some("a plain-HTTP request that writes inside a tunnel, and the mode allows network read only");
    }
    None
}

/// Copies both ways until both sides are done. `first` is what the command sent before the
/// tunnel was up. The command's side is checked before its first bytes go on: `Err` with what
/// it carried when it may not.
pub fn tunnel(client: TcpStream, upstream: TcpStream, first: Vec<u8>, access: Access) -> Result<(), &'static str> {
    let (Ok(mut client_r), Ok(mut up_w)) = (client.try_clone(), upstream.try_clone()) else { return Ok(()) };
    // The destination may speak first (SSH, SMTP): its side runs at once.
    let down = std::thread::spawn(move || copy_then_close(upstream, client));
    let mut start = first;
    if start.is_empty() {
        let mut buf = vec![0u8; 16 * 1024];
        match client_r.read(&mut buf) {
            Ok(n) => buf.truncate(n),
            Err(_) => buf.clear(),
        }
        start = buf;
    }
    if let Some(what) = forbidden_start(&start, access) {
        let _ = client_r.shutdown(Shutdown::Both);
        let _ = up_w.shutdown(Shutdown::Both);
        let _ = down.join();
        return Err(what);
    }
    if !start.is_empty() && up_w.write_all(&start).is_ok() {
        let _ = std::io::copy(&mut client_r, &mut up_w);
    }
    let _ = up_w.shutdown(Shutdown::Write);
    let _ = down.join();
    Ok(())
}

/// Copies `from` to `to` until `from` ends, then ends `to`'s writing side.
pub fn copy_then_close(mut from: TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

/// Connects to the first address that answers.
pub fn connect(addrs: &[std::net::SocketAddr]) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for a in addrs {
        match TcpStream::connect_timeout(a, CONNECT_TIMEOUT) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_and_relays_are_told_from_tls_ssh_and_plain_requests() {
        let no = |b: &[u8], a| forbidden_start(b, a).is_none();
        assert!(!no(b"CONNECT evil.test:443 HTTP/1.1\r\n\r\n", Access::Write));
        assert!(!no(b"GET http://evil.test/ HTTP/1.1\r\n", Access::Write));
        assert!(!no(b"\x05\x01\x00", Access::Write));
        assert!(!no(b"\x04\x01\x00\x50\x7f\x00\x00\x03\x00", Access::Write));
        assert!(!no(b"POST /upload HTTP/1.1\r\n", Access::Read));
        assert!(no(b"POST /upload HTTP/1.1\r\n", Access::Write));
        assert!(no(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", Access::Read));
        assert!(no(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", Access::Read), "TLS");
        assert!(no(b"SSH-2.0-OpenSSH_9.6\r\n", Access::Read));
        assert!(no(b"", Access::Read));
    }
}
