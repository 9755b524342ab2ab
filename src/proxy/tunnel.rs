//! Moving bytes between the command's connection and the destination, and what a tunnel may
//! carry, told by its first bytes: TLS or SSH, passed on as they are; plain HTTP/1 requests,
//! each read whole and checked as a plain request through the proxy is (no proxy request to
//! relay through the allowed host, the method under network read, one framing); nothing else.
//! Anything else in the clear could be another proxy's request (a chain) in a form no check
//! here could read.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};

/// How long a connection may wait for its destination.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What the first bytes the command sends into a tunnel say.
#[derive(Debug, PartialEq, Eq)]
pub enum Start {
    /// A TLS record (a handshake) or an SSH version line: it may go on.
    Carried,
    /// A plain HTTP/1 request line's method: each request is read and checked.
    Http,
    /// Too few bytes to tell.
    NeedMore,
    /// Something else, described for the refusal.
    Refused(&'static str),
}

/// Reads the start of what the command sends into a tunnel.
pub fn start(first: &[u8]) -> Start {
    const SSH: &[u8] = b"SSH-";
    if first.is_empty() {
        return Start::NeedMore;
    }
    // A TLS handshake record: type 22, version 3.x.
    if first[0] == 0x16 {
        return match first.get(1..3) {
            None if first.len() == 1 || first[1] == 3 => Start::NeedMore,
            Some([3, minor]) if *minor <= 4 => Start::Carried,
            _ => Start::Refused("bytes that are not a TLS handshake"),
        };
    }
    let n = first.len().min(SSH.len());
    if first[..n] == SSH[..n] {
        return if n == SSH.len() { Start::Carried } else { Start::NeedMore };
    }
    // A method: capital letters up to a space.
    let method_len = first.iter().take_while(|b| b.is_ascii_uppercase()).count();
    if method_len > 0 && method_len <= 16 {
        match first.get(method_len) {
            None => return Start::NeedMore,
            Some(b' ') if &first[..method_len] == b"CONNECT" => {
                return Start::Refused("a CONNECT request inside a tunnel (a chain of proxies)");
            }
            Some(b' ') => return Start::Http,
            Some(_) => {}
        }
    }
    Start::Refused(match first[0] {
        5 | 4 => "a SOCKS request inside a tunnel (a chain of proxies)",
        _ => "bytes that are neither TLS, SSH nor HTTP inside a tunnel",
    })
}

/// Copies both ways until both sides are done. `first` is what the command sent before the
/// tunnel was up. The command's side is checked before its first bytes go on: `Err` with what
/// it carried when it may not.
pub fn tunnel(
    client: TcpStream,
    upstream: TcpStream,
    first: Vec<u8>,
    access: super::Access,
    host: &str,
    port: u16,
) -> Result<(), &'static str> {
    let (Ok(mut client_r), Ok(mut up_w)) = (client.try_clone(), upstream.try_clone()) else { return Ok(()) };
    // The destination may speak first (SSH): its side runs at once.
    let Some(down) = super::thread(move || copy_then_close(upstream, client)) else { return Ok(()) };
    let mut start_bytes = first;
    let mut buf = [0u8; 16 * 1024];
    let verdict = loop {
        match start(&start_bytes) {
            Start::NeedMore => {}
            other => break other,
        }
        match client_r.read(&mut buf) {
            Ok(0) | Err(_) => break Start::NeedMore,
            Ok(n) => start_bytes.extend_from_slice(&buf[..n]),
        }
    };
    let relayed = match verdict {
        Start::Refused(what) => Err(what),
        Start::Http => {
            let from = std::io::Cursor::new(start_bytes).chain(&client_r);
            super::http::requests_in_tunnel(from, &mut up_w, host, port, access)
        }
        Start::Carried => {
            if up_w.write_all(&start_bytes).is_ok() {
                let _ = pump(&mut client_r, &mut up_w);
            }
            Ok(())
        }
        Start::NeedMore => Ok(()),
    };
    if relayed.is_err() {
        let _ = client_r.shutdown(Shutdown::Both);
        let _ = up_w.shutdown(Shutdown::Both);
    } else {
        let _ = up_w.shutdown(Shutdown::Write);
    }
    let _ = down.join();
    relayed
}

/// Copies `from` to `to` until `from` ends, then ends `to`'s writing side.
pub fn copy_then_close(mut from: TcpStream, mut to: TcpStream) {
    let _ = pump(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

/// Copies `from` to `to` until `from` ends, in pieces of 64 KiB: an eighth of the system calls
/// `std::io::copy`'s 8 KiB would take between two sockets.
pub fn pump(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        total += n as u64;
    }
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
    fn tunnels_carry_tls_ssh_and_http_however_the_bytes_are_split() {
        assert_eq!(start(b"\x16\x03\x01\x02\x00\x01"), Start::Carried);
        assert_eq!(start(b"\x16"), Start::NeedMore);
        assert_eq!(start(b"\x16\x03"), Start::NeedMore);
        assert_eq!(start(b"SSH-2.0-OpenSSH_9.6\r\n"), Start::Carried);
        assert_eq!(start(b"SS"), Start::NeedMore);
        assert_eq!(start(b""), Start::NeedMore);
        assert_eq!(start(b"C"), Start::NeedMore);
        assert_eq!(start(b"GET / HTTP/1.1\r\n"), Start::Http);
        assert_eq!(start(b"POST /upload HTTP/1.1\r\n"), Start::Http);
        for refused in [
            &b"CONNECT evil.test:443 HTTP/1.1\r\n\r\n"[..],
            b"get / HTTP/1.1\r\n",
            b"GET\t/ HTTP/1.1\r\n",
            b"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x03\x4e\x20",
            b"\x04\x01\x00\x50",
            b"\x16\x04\x01",
            b"SSX\r\n",
            b"\x00",
        ] {
            assert!(matches!(start(refused), Start::Refused(_)), "{refused:?}");
        }
    }
}
