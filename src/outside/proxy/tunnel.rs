//! Moving bytes between the command's connection and the destination, and what a tunnel may
//! carry, told by its first bytes: TLS (its record framing followed to the end) or SSH (its
//! identification line and first packet), passed on as they are; plain HTTP/1 requests,
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
    /// A TLS ClientHello record: the stream goes on as TLS records, whose framing is followed
    /// to its end.
    Tls,
    /// An SSH identification line, this long: it goes on, and the first binary packet after it
    /// must be a KEXINIT; the rest is SSH's.
    Ssh(usize),
    /// A plain HTTP/1 request line's method: each request is read and checked.
    Http,
    /// Too few bytes to tell.
    NeedMore,
    /// Something else, described for the refusal.
    Refused(&'static str),
}

/// The largest TLS record: 2^14 bytes of plaintext, with room for what encryption adds.
const MAX_RECORD: usize = (1 << 14) + 2048;

/// A TLS record header at the start of `b`: its content type is one TLS has (20 to 24), its
/// version 3.x, its length within a record's. `Ok(Some(len))`, `Ok(None)` for too few bytes.
fn record_header(b: &[u8]) -> Result<Option<usize>, &'static str> {
    let bad = "bytes that are not TLS records inside a TLS tunnel";
    if let Some(&t) = b.first()
        && !(20..=24).contains(&t)
    {
        return Err(bad);
    }
    if let Some(&major) = b.get(1)
        && major != 3
    {
        return Err(bad);
    }
    if let Some(&minor) = b.get(2)
        && minor > 4
    {
        return Err(bad);
    }
    if b.len() < 5 {
        return Ok(None);
    }
    let len = usize::from(u16::from_be_bytes([b[3], b[4]]));
    if len == 0 || len > MAX_RECORD {
        return Err(bad);
    }
    Ok(Some(len))
}

/// Reads the start of what the command sends into a tunnel.
pub fn start(first: &[u8]) -> Start {
    if first.is_empty() {
        return Start::NeedMore;
    }
    if first[0] == 0x16 {
        // A handshake record whose first message is a ClientHello (type 1).
        return match record_header(first) {
            Err(what) => Start::Refused(what),
            Ok(None) => Start::NeedMore,
            Ok(Some(len)) => match first.get(5..11) {
                None if first.len() > 5 && first[5] != 1 => Start::Refused("a TLS record that is not a ClientHello"),
                None => Start::NeedMore,
                // A ClientHello: its length in 24 bits (at most 64 KiB, and at least what its
                // version and random take), then the client's version 3.x.
                Some(h) => {
                    let hello_len = u32::from_be_bytes([0, h[1], h[2], h[3]]);
                    if h[0] == 1 && (38..=65_536).contains(&hello_len) && h[4] == 3 && h[5] <= 4 && len >= 4 {
                        Start::Tls
                    } else {
                        Start::Refused("a TLS record that is not a ClientHello")
                    }
                }
            },
        };
    }
    if first[0] == b'S' {
        match ssh_start(first) {
            Start::Refused(_) if !first.starts_with(b"SSH-") => {}
            other => return other,
        }
    }
    // A method: capital letters up to a space.
    let method_len = first.iter().take_while(|b| b.is_ascii_uppercase()).count();
    if method_len > 0 && method_len <= 16 {
        match first.get(method_len) {
            None => return Start::NeedMore,
            Some(b' ') if &first[..method_len] == b"CONNECT" => {
                return Start::Refused("a CONNECT request inside a tunnel (a chain of proxies)");
            }
            // A whole request line, `METHOD target HTTP/1.x`: other protocols' commands
            // (`USER anonymous`, `EHLO x`) would wait for a head that never ends.
            Some(b' ') => {
                let Some(end) = first.iter().position(|&b| b == b'\n') else {
                    return if first.len() > 8192 {
                        Start::Refused("a line too long inside a tunnel")
                    } else {
                        Start::NeedMore
                    };
                };
                let line = &first[..end];
                let words: Vec<&[u8]> = line.strip_suffix(b"\r").unwrap_or(line).split(|&b| b == b' ').collect();
                return match words.as_slice() {
                    [_, target, version]
                        if !target.is_empty() && (*version == b"HTTP/1.1" || *version == b"HTTP/1.0") =>
                    {
                        Start::Http
                    }
                    _ => Start::Refused("a line that is not an HTTP request line inside a tunnel"),
                };
            }
            Some(_) => {}
        }
    }
    Start::Refused(match first[0] {
        5 | 4 => "a SOCKS request inside a tunnel (a chain of proxies)",
        _ => "bytes that are neither TLS, SSH nor HTTP inside a tunnel",
    })
}

/// An SSH start: `SSH-2.0-softwareversion [comments]` (or 1.99) and CR LF, in at most 255
/// bytes, that no HTTP server could read as a request line.
fn ssh_start(b: &[u8]) -> Start {
    const BAD: &str = "bytes that only look like SSH inside a tunnel";
    let prefix_ok = |p: &[u8]| {
        let n = b.len().min(p.len());
        b[..n] == p[..n]
    };
    let proto = if prefix_ok(b"SSH-2.0-") {
        b"SSH-2.0-".len()
    } else if prefix_ok(b"SSH-1.99-") {
        b"SSH-1.99-".len()
    } else {
        return Start::Refused(BAD);
    };
    let Some(end) = b.iter().position(|&c| c == b'\n') else {
        return if b.len() > 255 { Start::Refused(BAD) } else { Start::NeedMore };
    };
    if end < proto || end > 254 || b[end - 1] != b'\r' {
        return Start::Refused(BAD);
    }
    let line = &b[..end - 1];
    let Some(rest) = line.get(proto..) else { return Start::NeedMore };
    // The software version is any printable word (`OpenSSH_9.6p1`, `JSCH-0.1.54`,
    // `Ruby/Net::SSH_7.2.0`); the comments of real clients are words of letters, digits and
    // `._+~-` (`Ubuntu-3ubuntu13`, `x86_64-linux`): nothing in them names a host, a port or a
    // path that a lenient proxy could take for a request's target.
    let version_len = rest.iter().take_while(|&&c| c != b' ').count();
    let word = |c: &u8| c.is_ascii_alphanumeric() || b"._+~-".contains(c);
    let comments = &rest[version_len..];
    if version_len == 0
        || !rest[..version_len].iter().all(u8::is_ascii_graphic)
        || !comments.iter().all(|c| *c == b' ' || word(c))
        || comments.windows(2).any(|w| w == b"  ")
    {
        return Start::Refused(BAD);
    }
    Start::Ssh(end + 1)
}

/// Whether `packet` starts as SSH's first binary packet does: a length SSH allows, padding of
/// at least four bytes, and the KEXINIT message (20). `None` for too few bytes.
fn ssh_packet_ok(packet: &[u8]) -> Option<bool> {
    let p = packet.get(..6)?;
    let len = u32::from_be_bytes([p[0], p[1], p[2], p[3]]);
    Some((16..=35_000).contains(&len) && p[4] >= 4 && u32::from(p[4]) < len && p[5] == 20)
}

/// Follows TLS record framing over what the command sends: every record header must be one
/// (the content is TLS's own). `at` is how far into the current record the stream is.
struct Records {
    /// Bytes of the current record's body still to come.
    body_left: usize,
    /// A record header split across reads.
    header: Vec<u8>,
}

impl Records {
    fn new() -> Records {
        Records { body_left: 0, header: Vec::with_capacity(5) }
    }

    /// Checks `chunk`, the next bytes of the stream.
    fn check(&mut self, chunk: &[u8]) -> Result<(), &'static str> {
        self.check_until(chunk, false).map(|_| ())
    }

    /// Checks `chunk` up to where a record that is not a handshake record begins, when
    /// `handshake_only`: how many bytes were checked (the rest waits).
    fn check_until(&mut self, mut chunk: &[u8], handshake_only: bool) -> Result<usize, &'static str> {
        let whole = chunk.len();
        while !chunk.is_empty() {
            if handshake_only && self.body_left == 0 && self.header.is_empty() && chunk[0] != 0x16 {
                return Ok(whole - chunk.len());
            }
            if self.body_left > 0 {
                let n = self.body_left.min(chunk.len());
                self.body_left -= n;
                chunk = &chunk[n..];
                continue;
            }
            let need = 5 - self.header.len();
            let n = need.min(chunk.len());
            self.header.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
            if let Some(len) = record_header(&self.header)? {
                self.body_left = len;
                self.header.clear();
            }
        }
        Ok(whole)
    }
}

/// Whether `b` starts with the server's answer to a ClientHello: a handshake record whose
/// message is a ServerHello (2; a HelloRetryRequest is one too).
fn server_hello(b: &[u8]) -> bool {
    b.len() >= 6 && b[0] == 0x16 && b[1] == 3 && b[2] <= 4 && b[5] == 2
}

/// The command's side of a TLS tunnel. Until the destination has answered with a ServerHello
/// only handshake records go on, and none that holds an HTTP version (a server that skips
/// control bytes would read a request there); then TLS's own framing to the end. A server
/// that answers anything else (an HTTP error, a plain-text server) gets nothing more.
fn tls(
    client: &mut TcpStream,
    up: &mut TcpStream,
    mut pending: Vec<u8>,
    answer: &std::sync::mpsc::Receiver<Vec<u8>>,
) -> Result<(), &'static str> {
    let mut records = Records::new();
    let mut before_answer = true;
    let mut handshake: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if !before_answer {
            records.check(&pending)?;
            if up.write_all(&pending).is_err() {
                return Ok(());
            }
            return pump_checked(client, up, |chunk| records.check(chunk));
        }
        let n = records.check_until(&pending, true)?;
        handshake.extend_from_slice(&pending[..n]);
        if handshake.windows(5).any(|w| w == b"HTTP/") {
            return Err("an HTTP request inside what claims to be a TLS handshake");
        }
        if handshake.len() > 256 * 1024 {
            return Err("a TLS handshake longer than any client's");
        }
        if up.write_all(&pending[..n]).is_err() {
            return Ok(());
        }
        pending.drain(..n);
        if !pending.is_empty() {
            // More than the handshake: it waits for the destination's answer.
            match answer.recv_timeout(std::time::Duration::from_secs(30)) {
                Ok(first) if server_hello(&first) => before_answer = false,
                _ => return Err("a destination that did not answer the TLS handshake with TLS"),
            }
            continue;
        }
        match client.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(k) => pending.extend_from_slice(&buf[..k]),
        }
    }
}

/// The destination's side: its first bytes (at least six, or all it sent) are told to
/// `answer` before they go on, then the rest.
fn copy_reporting(mut from: TcpStream, mut to: TcpStream, answer: std::sync::mpsc::Sender<Vec<u8>>) {
    let mut first = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    while first.len() < 6 {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => first.extend_from_slice(&buf[..n]),
        }
    }
    let _ = answer.send(first.clone());
    if !first.is_empty() && to.write_all(&first).is_ok() {
        let _ = pump(&mut from, &mut to);
    }
    let _ = to.shutdown(Shutdown::Write);
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
    let (tell, answer) = std::sync::mpsc::channel();
    let Some(down) = super::thread(move || copy_reporting(upstream, client, tell)) else { return Ok(()) };
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
        Start::Tls => tls(&mut client_r, &mut up_w, start_bytes, &answer),
        Start::Ssh(line) => {
            // The line goes at once (a server may wait for it before it says its own), the
            // first packet once it is seen to be SSH's.
            let mut packet = start_bytes.split_off(line);
            let sent = up_w.write_all(&start_bytes).is_ok();
            loop {
                match ssh_packet_ok(&packet) {
                    Some(true) => {
                        if sent && up_w.write_all(&packet).is_ok() {
                            let _ = pump(&mut client_r, &mut up_w);
                        }
                        break Ok(());
                    }
                    Some(false) => break Err("bytes that are not SSH after an SSH identification line"),
                    None => match client_r.read(&mut buf) {
                        Ok(0) | Err(_) => break Ok(()),
                        Ok(n) => packet.extend_from_slice(&buf[..n]),
                    },
                }
            }
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

/// [`pump`], with each piece checked before it goes on: `Err` with what the check said, once
/// a piece fails it (nothing of that piece is sent).
fn pump_checked(
    from: &mut impl Read,
    to: &mut impl Write,
    mut check: impl FnMut(&[u8]) -> Result<(), &'static str>,
) -> Result<(), &'static str> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Ok(()),
        };
        check(&buf[..n])?;
        if to.write_all(&buf[..n]).is_err() {
            return Ok(());
        }
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

    const HELLO: &[u8] = b"\x16\x03\x01\x00\x2a\x01\x00\x00\x26\x03\x03";
    const SSH: &[u8] = b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n\x00\x00\x05\xdc\x08\x14";

    #[test]
    fn tunnels_carry_tls_ssh_and_http_however_the_bytes_are_split() {
        assert_eq!(start(HELLO), Start::Tls);
        assert_eq!(start(SSH), Start::Ssh(SSH.len() - 6));
        for n in 0..HELLO.len() {
            assert_eq!(start(&HELLO[..n]), Start::NeedMore, "{n}");
        }
        for banner in [
            &b"SSH-2.0-JSCH-0.1.54\r\n"[..],
            b"SSH-2.0-APACHE-SSHD-2.12.1\r\n",
            b"SSH-2.0-Go\r\n",
            b"SSH-2.0-Ruby/Net::SSH_7.2.0 x86_64-linux\r\n",
            b"SSH-2.0-Erlang/5.1\r\n",
        ] {
            assert_eq!(start(banner), Start::Ssh(banner.len()), "{banner:?}");
        }
        for n in 0..SSH.len() - 6 {
            assert_eq!(start(&SSH[..n]), Start::NeedMore, "{n}");
        }
        assert_eq!(ssh_packet_ok(&SSH[SSH.len() - 6..]), Some(true));
        assert_eq!(ssh_packet_ok(b"POST h"), Some(false));
        assert_eq!(ssh_packet_ok(b"\x00\x00"), None);
        assert_eq!(start(b"C"), Start::NeedMore);
        assert_eq!(start(b"GET / HT"), Start::NeedMore);
        assert!(matches!(start(b"USER anonymous\r\n"), Start::Refused(_)));
        assert!(matches!(start(b"EHLO x\r\n"), Start::Refused(_)));
        assert_eq!(start(b"GET / HTTP/1.1\r\n"), Start::Http);
        assert_eq!(start(b"POST /upload HTTP/1.1\r\n"), Start::Http);
        for refused in [
            &b"CONNECT evil.test:443 HTTP/1.1\r\n\r\n"[..],
            b"get / HTTP/1.1\r\n",
            b"GET\t/ HTTP/1.1\r\n",
            b"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x03\x4e\x20",
            b"\x04\x01\x00\x50",
            b"\x16\x04\x01",
            b"\x16\x03\x01 127.0.0.3:18080 HTTP/1.1\r\n\r\n",
            b"\x16\x03\x01\x00\x05\x02",
            b"SSH-2.0 /upload HTTP/1.1\r\n",
            b"SSH-2.0-x http://127.0.0.3/ HTTP/1.1\r\n\r\n",
            b"SSH-2.0-x 127.0.0.3:19080\r\n",
            b"SSH-2.0-x http://127.0.0.3:19080/via x\r\n",
            b"\x16\x03\x01\x00\x15\x01 127.0.0.3:19080\r\n\r\n",
            b"SSH-X / HTTP/1.1\r\n",
            b"SSH-2.0-x\n\x00\x00\x05\xdc\x08\x14",
            b"SSX\r\n",
            b"\x00",
        ] {
            assert!(matches!(start(refused), Start::Refused(_)), "{refused:?}");
        }
    }

    #[test]
    fn before_the_server_hello_only_handshake_records_go_on() {
        let mut r = Records::new();
        let hello = b"\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00";
        let mut stream = hello.to_vec();
        stream.extend_from_slice(b"\x17\x03\x03\x00\x03abc");
        assert_eq!(r.check_until(&stream, true), Ok(hello.len()));
        assert_eq!(r.check_until(&stream[hello.len()..], false), Ok(8));
        assert!(server_hello(b"\x16\x03\x03\x00\x7a\x02\x00"));
        assert!(!server_hello(b"HTTP/1.1 400 Bad Request"));
        assert!(!server_hello(b"\x16\x03\x03\x00\x7a\x01"));
    }

    #[test]
    fn tls_framing_is_followed_to_the_end_of_the_stream() {
        let mut r = Records::new();
        assert!(r.check(b"\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00").is_ok());
        // An application-data record split at every byte, then plain text where a header must be.
        let record = b"\x17\x03\x03\x00\x03abc";
        for b in record {
            assert!(r.check(std::slice::from_ref(b)).is_ok());
        }
        assert!(r.check(b"POST http://127.0.0.3/ HTTP/1.1\r\n").is_err());
        let mut r = Records::new();
        assert!(r.check(b"\x17\x03\x03\xff\xff").is_err(), "a record longer than TLS allows");
    }
}
