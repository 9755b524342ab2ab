//! `sandbox-bash --sandbox-connect HOST PORT`: a `ProxyCommand` for ssh (and git over ssh). It
//! asks the proxy for a tunnel to HOST:PORT and joins it to standard input and output; a
//! refusal is printed on standard error, as the proxy worded it.

use std::io::{Read, Write};
use std::net::TcpStream;

use super::PROXY_VAR;
use crate::environ::Environ;

/// Runs the tunnel; the exit status (0 when the tunnel ended, 1 when it was refused or could
/// not be had).
pub fn run(host: &str, port: &str, env: &Environ) -> Result<i32, String> {
    let proxy = env
        .get(PROXY_VAR)
        .and_then(|v| v.to_str())
        .ok_or_else(|| {
            format!("--sandbox-connect works inside sandbox-bash with a network allowlist ({PROXY_VAR} is not set)")
        })?
        .to_string();
    let port: u16 = port.parse().map_err(|_| format!("--sandbox-connect: {port:?} is not a port"))?;
    let target = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let mut s = TcpStream::connect(&proxy).map_err(|e| format!("cannot reach the proxy at {proxy}: {e}"))?;
    write!(s, "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").map_err(|e| e.to_string())?;
    // The head, byte by byte: what follows it is the destination's and goes to stdout.
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => return Err(format!("the proxy closed the connection to {target}")),
        }
        if head.len() > 64 * 1024 {
            return Err("the proxy's answer is too long".into());
        }
    }
    let status = String::from_utf8_lossy(&head);
    if status.split(' ').nth(1) != Some("200") {
        let mut body = String::new();
        let _ = s.read_to_string(&mut body);
        let said = body.trim();
        let _ =
            writeln!(std::io::stderr(), "{}", if said.is_empty() { status.lines().next().unwrap_or("") } else { said });
        return Ok(1);
    }
    // Standard input and output as raw descriptors: Rust's standard output holds bytes back
    // until a newline, and ssh's packets have none.
    // SAFETY: the Files only borrow descriptors 0 and 1 (ManuallyDrop never closes them); when
    // one is not open, reading or writing it fails with EBADF and the tunnel ends.
    let (mut stdin, mut stdout) = unsafe {
        use std::os::fd::FromRawFd;
        (
            std::mem::ManuallyDrop::new(std::fs::File::from_raw_fd(0)),
            std::mem::ManuallyDrop::new(std::fs::File::from_raw_fd(1)),
        )
    };
    let mut to_dest = s.try_clone().map_err(|e| e.to_string())?;
    let up = std::thread::spawn(move || {
        let _ = super::tunnel::pump(&mut *stdin, &mut to_dest);
        let _ = to_dest.shutdown(std::net::Shutdown::Write);
    });
    let _ = super::tunnel::pump(&mut s, &mut *stdout);
    // The destination has ended: what standard input still holds has nowhere to go.
    drop(up);
    Ok(0)
}
