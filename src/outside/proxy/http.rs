//! The proxy's HTTP side: `CONNECT host:port` tunnels, and plain-HTTP requests in absolute
//! form (`GET http://host/path`), which it sends on in origin form with `Connection: close`,
//! one request per connection, following no redirect (the response goes back as it came).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use super::Context;
use super::gate::{self, Access, Denied};
use super::tunnel;

/// The most a request's head may be.
const MAX_HEAD: usize = 64 * 1024;

/// Serves one connection whose first byte said HTTP.
pub fn serve(mut client: TcpStream, cx: &Context) {
    let Ok(reading) = client.try_clone() else { return };
    let mut reader = BufReader::new(reading);
    let head = match read_head(&mut reader) {
        Ok(head) => head,
        Err(HeadEnd::TooLarge) => return plain(&mut client, 431, "sandbox-bash: the request's head is too large\n"),
        Err(_) => return,
    };
    // What the client sent after the head, already read.
    let rest = reader.buffer().to_vec();
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut req = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(_)) = req.parse(&head) else {
        return plain(&mut client, 400, "sandbox-bash: this proxy did not understand the request\n");
    };
    let (Some(method), Some(target)) = (req.method, req.path) else { return };
    let method = method.to_string();
    if method == "CONNECT" {
        let Some((host, port)) = authority(target, 443) else {
            return plain(&mut client, 400, "sandbox-bash: CONNECT needs host:port\n");
        };
        let admitted = match gate::admit_here(&cx.list, &host, port, cx.resolve) {
            Ok(a) => a,
            Err(d) => return deny(&mut client, cx, "CONNECT", &d),
        };
        let upstream = match tunnel::connect(&admitted.addrs) {
            Ok(s) => s,
            Err(e) => return unreachable(&mut client, &host, port, &e),
        };
        if client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").is_err() {
            return;
        }
        if let Err(what) = tunnel::tunnel(client, upstream, rest, cx.access, &host, port) {
            cx.record(&gate::refused(&host, port, what.to_string(), "nothing allows it"), "CONNECT");
        }
        return;
    }

    let lower = target.to_ascii_lowercase();
    let Some(after) = lower.strip_prefix("http://").map(|_| &target[7..]) else {
        let why = if lower.starts_with("https://") {
            "sandbox-bash: an https:// URL goes through this proxy with CONNECT, not as a plain request\n"
        } else {
            "sandbox-bash: this is a proxy: a request names the whole URL (http://host/path)\n"
        };
        return plain(&mut client, 400, why);
    };
    let (auth, path) = match after.find(['/', '?']) {
        Some(i) if after.as_bytes()[i] == b'/' => (&after[..i], after[i..].to_string()),
        Some(i) => (&after[..i], format!("/{}", &after[i..])),
        None => (after, "/".to_string()),
    };
    // user:password@ goes nowhere: credentials in a URL are the command's to send in a header.
    let auth = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let Some((host, port)) = authority(auth, 80) else {
        return plain(&mut client, 400, "sandbox-bash: the URL has no host\n");
    };
    if !crlf_only(&head) {
        return plain(&mut client, 400, "sandbox-bash: a request head whose lines do not end in CR LF\n");
    }
    let body = match framing(req.headers, req.version.unwrap_or(1)) {
        Ok(b) => b,
        Err(why) => return plain(&mut client, 400, &format!("sandbox-bash: {why}\n")),
    };
    let has_body = body != Body::None;
    if cx.access == Access::Read && (!matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") || has_body) {
        let what = if has_body { format!("a {method} request with a body") } else { format!("a {method} request") };
        let d = gate::refused(
            &host,
            port,
            format!("{what} writes, and the mode allows network read only (GET, HEAD and OPTIONS without a body)"),
            "the network write bit (2) in the mode would allow it",
        );
        return deny(&mut client, cx, &method, &d);
    }
    let admitted = match gate::admit_here(&cx.list, &host, port, cx.resolve) {
        Ok(a) => a,
        Err(d) => return deny(&mut client, cx, &method, &d),
    };
    let mut upstream = match tunnel::connect(&admitted.addrs) {
        Ok(s) => s,
        Err(e) => return unreachable(&mut client, &host, port, &e),
    };
    // The Host the destination sees is the one that was checked.
    let out = head_to_send(&method, &path, req.version.unwrap_or(1), &host, port, req.headers, true);
    if upstream.write_all(out.as_bytes()).is_err() {
        return;
    }
    // Only with network write does a body go on, and only this request's body, as its head
    // frames it: nothing after it (another request) reaches the destination.
    let up = match (has_body, client.try_clone(), upstream.try_clone()) {
        (true, Ok(from), Ok(mut to)) => super::thread(move || {
            let mut from = BufReader::new(std::io::Cursor::new(rest).chain(from));
            let _ = send_body(&mut from, &mut to, body);
        }),
        _ => None,
    };
    let Ok(client_w) = client.try_clone() else { return };
    tunnel::copy_then_close(upstream, client_w);
    // The response has ended, and with it the request: a client that keeps its side open
    // (keep-alive) is let go.
    let _ = client.shutdown(std::net::Shutdown::Both);
    if let Some(up) = up {
        let _ = up.join();
    }
}

/// Plain HTTP/1 requests inside a tunnel to `host:port`, from `from` to `to`: each head read
/// whole and checked as a plain request through the proxy is (origin form only, so no relay
/// through the allowed host; under network read no method that writes and no body), its `Host`
/// the tunnel's, then its body as the head frames it. `Err` with what a request carried.
pub fn requests_in_tunnel(
    from: impl Read,
    to: &mut TcpStream,
    host: &str,
    port: u16,
    access: Access,
) -> Result<(), &'static str> {
    let mut from = BufReader::new(from);
    loop {
        let head = match read_head(&mut from) {
            Ok(head) => head,
            Err(HeadEnd::Closed) => return Ok(()),
            Err(HeadEnd::TooLarge) => return Err("a request head that is too large inside a tunnel"),
            Err(HeadEnd::Cut) => return Err("a request head that does not end inside a tunnel"),
        };
        let mut headers = [httparse::EMPTY_HEADER; 128];
        let mut req = httparse::Request::new(&mut headers);
        let Ok(httparse::Status::Complete(_)) = req.parse(&head) else {
            return Err("something that is not an HTTP request inside a tunnel");
        };
        let (Some(method), Some(path), Some(version)) = (req.method, req.path, req.version) else {
            return Err("something that is not an HTTP request inside a tunnel");
        };
        if !(path.starts_with('/') || (path == "*" && method == "OPTIONS")) {
            return Err("a proxy request inside a tunnel (a relay through the allowed host)");
        }
        if !crlf_only(&head) {
            return Err("a request head whose lines do not end in CR LF inside a tunnel");
        }
        let body = framing(req.headers, version)?;
        if access == Access::Read && (!matches!(method, "GET" | "HEAD" | "OPTIONS") || body != Body::None) {
            return Err("a request that writes inside a tunnel, and the mode allows network read only");
        }
        let out = head_to_send(method, path, version, host, port, req.headers, false);
        to.write_all(out.as_bytes()).map_err(|_| "the destination went away")?;
        send_body(&mut from, to, body).map_err(|_| "a body that does not end as its head frames it")?;
    }
}

/// The head that goes to the destination: the client's method, path and version, the `Host`
/// that was checked, the client's headers but the proxy's own and a protocol switch (what would
/// follow it is not HTTP and is not read here), and with `close` (one request per connection)
/// `Connection: close` in place of the client's.
fn head_to_send(
    method: &str,
    path: &str,
    version: u8,
    host: &str,
    port: u16,
    headers: &[httparse::Header<'_>],
    close: bool,
) -> String {
    let mut out = format!("{method} {path} HTTP/1.{version}\r\nHost: {}\r\n", host_header(host, port));
    for h in headers {
        let n = h.name.to_ascii_lowercase();
        let dropped =
            matches!(n.as_str(), "host" | "proxy-connection" | "proxy-authorization" | "upgrade" | "http2-settings")
                || (close && matches!(n.as_str(), "connection" | "keep-alive"));
        if dropped {
            continue;
        }
        out.push_str(h.name);
        out.push_str(": ");
        out.push_str(&String::from_utf8_lossy(h.value));
        out.push_str("\r\n");
    }
    if close {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    out
}

/// How a request's body is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    None,
    Length(u64),
    Chunked,
}

/// The framing the head gives; an error for a head that frames its body two ways, or in a
/// form two servers could read differently (a sign, a space inside, a character that is not
/// ASCII, a transfer coding but chunked, chunked in HTTP/1.0).
fn framing(headers: &[httparse::Header<'_>], version: u8) -> Result<Body, &'static str> {
    let mut length: Option<u64> = None;
    let mut chunked = false;
    for h in headers {
        let is_length = h.name.eq_ignore_ascii_case("content-length");
        let is_coding = h.name.eq_ignore_ascii_case("transfer-encoding");
        if !is_length && !is_coding {
            continue;
        }
        if !h.value.is_ascii() {
            return Err("a framing header that is not ASCII");
        }
        let value = std::str::from_utf8(h.value).unwrap_or("").trim_matches([' ', '\t']);
        if is_coding {
            if !value.eq_ignore_ascii_case("chunked") || version == 0 {
                return Err("a transfer coding other than chunked, or chunked in HTTP/1.0");
            }
            chunked = true;
        } else {
            if value.is_empty() || value.len() > 18 || !value.bytes().all(|b| b.is_ascii_digit()) {
                return Err("a Content-Length that is not a plain number");
            }
            let n: u64 = value.parse().map_err(|_| "a Content-Length that is not a plain number")?;
            if length.is_some_and(|l| l != n) {
                return Err("two Content-Lengths");
            }
            length = Some(n);
        }
    }
    match (chunked, length) {
        (true, Some(_)) => Err("both Transfer-Encoding and Content-Length"),
        (true, None) => Ok(Body::Chunked),
        (false, Some(0) | None) => Ok(Body::None),
        (false, Some(n)) => Ok(Body::Length(n)),
    }
}

/// Sends the body `body` frames from `from` to `to`, and no byte after it.
fn send_body(from: &mut impl BufRead, to: &mut TcpStream, body: Body) -> std::io::Result<()> {
    match body {
        Body::None => {}
        Body::Length(n) => {
            tunnel::pump(&mut from.take(n), to)?;
        }
        Body::Chunked => loop {
            // A size in hex digits, an extension of visible characters, CR LF; the data; CR
            // LF. No trailers: a line after the last chunk could be read as a request.
            let line = read_line(from)?;
            to.write_all(&line)?;
            let text = &line[..line.len() - 2];
            let (hex, ext) = text.split_at(text.iter().position(|&b| b == b';').unwrap_or(text.len()));
            let ext_ok = ext.iter().all(|&b| b == b'\t' || (b' '..=b'~').contains(&b));
            if hex.is_empty() || hex.len() > 15 || !hex.iter().all(u8::is_ascii_hexdigit) || !ext_ok {
                return Err(std::io::Error::other("a chunk size that is not plain hex"));
            }
            let size = u64::from_str_radix(std::str::from_utf8(hex).unwrap_or("x"), 16)
                .map_err(|_| std::io::Error::other("a chunk size that is not plain hex"))?;
            if size > 0 {
                tunnel::pump(&mut from.take(size), to)?;
            }
            let end = read_line(from)?;
            if end != b"\r\n" {
                return Err(std::io::Error::other(if size == 0 { "trailers" } else { "a chunk longer than its size" }));
            }
            to.write_all(&end)?;
            if size == 0 {
                break;
            }
        },
    }
    to.flush()
}

/// One line, its CR LF included, of at most 4 KiB.
fn read_line(from: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut line = Vec::new();
    from.take(4096).read_until(b'\n', &mut line)?;
    if !line.ends_with(b"\r\n") {
        return Err(std::io::Error::other("a line that does not end in CR LF"));
    }
    Ok(line)
}

/// Whether every line of `head` ends in CR LF (a bare LF is read as a line end by some
/// servers and not by others).
fn crlf_only(head: &[u8]) -> bool {
    head.iter().enumerate().all(|(i, &b)| b != b'\n' || (i > 0 && head[i - 1] == b'\r'))
}

/// Why no head was read.
enum HeadEnd {
    /// The client closed before sending a byte of it.
    Closed,
    /// Longer than [`MAX_HEAD`].
    TooLarge,
    /// The client stopped (or failed) in the middle of it.
    Cut,
}

/// Reads one request head, line by line up to its blank line: the plain request's and each of
/// a tunnel's.
fn read_head(from: &mut impl BufRead) -> Result<Vec<u8>, HeadEnd> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let room = (MAX_HEAD + 1 - head.len().min(MAX_HEAD)) as u64;
        let n = from.take(room).read_until(b'\n', &mut line).map_err(|_| HeadEnd::Cut)?;
        if n == 0 && head.is_empty() {
            return Err(HeadEnd::Closed);
        }
        if !line.ends_with(b"\n") {
            return Err(if head.len() + line.len() > MAX_HEAD { HeadEnd::TooLarge } else { HeadEnd::Cut });
        }
        let blank = line == b"\r\n" || line == b"\n";
        head.extend_from_slice(&line);
        if blank {
            return Ok(head);
        }
        if head.len() > MAX_HEAD {
            return Err(HeadEnd::TooLarge);
        }
    }
}

/// `host:port`, `[v6]:port` or `host` (with `default` as the port).
fn authority(text: &str, default: u16) -> Option<(String, u16)> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None if after.is_empty() => default,
            None => return None,
        };
        (h.to_string(), port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h.to_string(), p.parse().ok()?),
            Some(_) => return None,
            None => (text.to_string(), default),
        }
    };
    (!host.is_empty() && port != 0).then_some((host, port))
}

fn host_header(host: &str, port: u16) -> String {
    let h = gate::shown(host);
    if port == 80 { h } else { format!("{h}:{port}") }
}

/// A 403 that says why, in the body and in a header of its own; the denial is recorded.
fn deny(client: &mut TcpStream, cx: &Context, method: &str, d: &Denied) {
    let line = d.line();
    let header_value = line.strip_prefix("sandbox-bash: ").unwrap_or(&line).replace(['\r', '\n'], " ");
    let body = format!("{line}\n");
    // The reason phrase carries it too: clients that show only the status line (`curl` on a
    // refused CONNECT: "CONNECT tunnel failed, response 403") still say why.
    let reason: String = header_value.chars().filter(|c| c.is_ascii() && !c.is_ascii_control()).take(300).collect();
    let response = format!(
        "HTTP/1.1 403 {reason}\r\nsandbox-bash: {header_value}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    // Told before the answer, while the client still waits for it; recorded after (a record
    // waits for the log's lock).
    cx.tell(d);
    let _ = client.write_all(response.as_bytes());
    cx.record_told(d, method);
}

fn unreachable(client: &mut TcpStream, host: &str, port: u16, e: &std::io::Error) {
    let body = format!("sandbox-bash: allowed, but {}:{port} did not answer: {e}\n", gate::shown(host));
    plain(client, 502, &body);
}

fn plain(client: &mut TcpStream, status: u16, body: &str) {
    let reason = match status {
        400 => "Bad Request",
        431 => "Request Header Fields Too Large",
        _ => "Bad Gateway",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(response.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_sent_as_its_head_frames_it_and_nothing_after_it() {
        let (listener, addr) = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let a = l.local_addr().unwrap();
            (l, a)
        };
        let send = |input: &[u8], body: Body| -> Vec<u8> {
            let mut to = TcpStream::connect(addr).unwrap();
            let (mut got, _) = listener.accept().unwrap();
            let _ = send_body(&mut BufReader::new(input), &mut to, body);
            drop(to);
            let mut out = Vec::new();
            got.read_to_end(&mut out).unwrap();
            out
        };
        assert_eq!(send(b"helloGET http://evil/ HTTP/1.1\r\n\r\n", Body::Length(5)), b"hello");
        let chunked = b"5\r\nhello\r\n0\r\n\r\nPOST http://evil/ HTTP/1.1\r\n\r\n";
        assert_eq!(send(chunked, Body::Chunked), b"5\r\nhello\r\n0\r\n\r\n");
        let h = |n: &'static str, v: &'static [u8]| httparse::Header { name: n, value: v };
        let f = |hs: &[httparse::Header<'_>]| framing(hs, 1);
        assert_eq!(f(&[h("Content-Length", b" 5\t")]), Ok(Body::Length(5)));
        assert_eq!(f(&[h("transfer-encoding", b"chunked")]), Ok(Body::Chunked));
        assert!(f(&[h("Content-Length", b"5"), h("Transfer-Encoding", b"chunked")]).is_err());
        assert!(f(&[h("Content-Length", b"5"), h("Content-Length", b"6")]).is_err());
        assert!(f(&[h("Transfer-Encoding", b"gzip, chunked")]).is_err());
        assert_eq!(f(&[h("Content-Length", b"0")]), Ok(Body::None));
        for odd in [&b"+5"[..], b"5\xc2\xa0", b"5 5", b"", b"0x5"] {
            assert!(f(&[h("Content-Length", odd)]).is_err(), "{odd:?}");
        }
        assert!(f(&[h("Transfer-Encoding", b"chunked\xc2\xa0")]).is_err());
        assert!(framing(&[h("Transfer-Encoding", b"chunked")], 0).is_err(), "chunked in HTTP/1.0");
        for odd in [
            &b"5\r\nhelloGET http://evil/ HTTP/1.1\r\n"[..],
            b"0\r\nGET http://evil/ HTTP/1.1\r\n\r\n",
            b"+5\r\nhello\r\n0\r\n\r\n",
            b"5 ;x\r\nhello\r\n0\r\n\r\n",
            b"5\nhello\n0\n\n",
        ] {
            let got = send(odd, Body::Chunked);
            assert!(
                !String::from_utf8_lossy(&got).contains("evil") && !got.ends_with(b"0\r\n\r\n"),
                "{odd:?}: {got:?}"
            );
        }
        assert!(crlf_only(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
        assert!(!crlf_only(b"GET / HTTP/1.1\nHost: a\r\n\r\n"));
    }

    #[test]
    fn authorities_with_and_without_ports() {
        assert_eq!(authority("pypi.org:443", 80), Some(("pypi.org".into(), 443)));
        assert_eq!(authority("pypi.org", 80), Some(("pypi.org".into(), 80)));
        assert_eq!(authority("[::1]:8080", 80), Some(("::1".into(), 8080)));
        assert_eq!(authority("[::1]", 80), Some(("::1".into(), 80)));
        assert_eq!(authority("::1", 80), None);
        assert_eq!(authority("a:0", 80), None);
        assert_eq!(authority(":80", 80), None);
    }
}
