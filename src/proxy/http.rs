//! The proxy's HTTP side: `CONNECT host:port` tunnels, and plain-HTTP requests in absolute
//! form (`GET http://host/path`), which it sends on in origin form with `Connection: close`,
//! one request per connection, following no redirect (the response goes back as it came).

use std::io::{Read, Write};
use std::net::TcpStream;

use super::Context;
use super::gate::{self, Access, Denied};
use super::tunnel;

/// The most a request's head may be.
const MAX_HEAD: usize = 64 * 1024;

/// Serves one connection whose first byte said HTTP.
pub fn serve(mut client: TcpStream, cx: &Context) {
    let Some((head, rest)) = read_head(&mut client) else { return };
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
        let admitted = match gate::admit(&cx.list, &host, port, cx.resolve) {
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
        if let Err(what) = tunnel::tunnel(client, upstream, rest, cx.access) {
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
    let has_body = req.headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("transfer-encoding")
            || (h.name.eq_ignore_ascii_case("content-length") && std::str::from_utf8(h.value).map(str::trim) != Ok("0"))
    });
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
    let admitted = match gate::admit(&cx.list, &host, port, cx.resolve) {
        Ok(a) => a,
        Err(d) => return deny(&mut client, cx, &method, &d),
    };
    let mut upstream = match tunnel::connect(&admitted.addrs) {
        Ok(s) => s,
        Err(e) => return unreachable(&mut client, &host, port, &e),
    };
    // The Host the destination sees is the one that was checked.
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", host_header(&host, port));
    for h in req.headers.iter() {
        let n = h.name.to_ascii_lowercase();
        if matches!(n.as_str(), "host" | "connection" | "keep-alive" | "proxy-connection" | "proxy-authorization") {
            continue;
        }
        out.push_str(h.name);
        out.push_str(": ");
        out.push_str(&String::from_utf8_lossy(h.value));
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    if upstream.write_all(out.as_bytes()).is_err() {
        return;
    }
    // Only with network write does anything after the head (a body) go on.
    let up = match (cx.access, client.try_clone(), upstream.try_clone()) {
        (Access::Write, Ok(mut from), Ok(mut to)) => Some(std::thread::spawn(move || {
            if rest.is_empty() || to.write_all(&rest).is_ok() {
                let _ = std::io::copy(&mut from, &mut to);
            }
            let _ = to.shutdown(std::net::Shutdown::Write);
        })),
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

/// Reads up to the end of the head: the head and what followed it.
fn read_head(client: &mut TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            let end = from + i + 4;
            let rest = buf.split_off(end);
            return Some((buf, rest));
        }
        if buf.len() > MAX_HEAD {
            plain(client, 431, "sandbox-bash: the request's head is too large\n");
            return None;
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
    cx.record(d, method);
    let line = d.line();
    let header_value = line.strip_prefix("sandbox-bash: ").unwrap_or(&line).replace(['\r', '\n'], " ");
    let body = format!("{line}\n");
    let response = format!(
        "HTTP/1.1 403 Forbidden\r\nsandbox-bash: {header_value}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(response.as_bytes());
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
