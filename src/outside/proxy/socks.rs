//! The proxy's SOCKS5 side (RFC 1928): no authentication, CONNECT only, names resolved by the
//! proxy (what `socks5h://` asks for). A refused destination gets reply 2, "connection not allowed by
//! ruleset"; the reason is in the audit log, as SOCKS has no place for words.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, TcpStream};

use super::Context;
use super::gate;
use super::tunnel;

const NOT_ALLOWED: u8 = 2;
const REFUSED: u8 = 5;
const UNREACHABLE: u8 = 4;
const COMMAND_NOT_SUPPORTED: u8 = 7;
const ADDRESS_NOT_SUPPORTED: u8 = 8;

/// Serves one connection whose first byte said SOCKS5.
pub fn serve(mut client: TcpStream, cx: &Context) {
    let mut hello = [0u8; 2];
    if client.read_exact(&mut hello).is_err() {
        return;
    }
    let mut methods = vec![0u8; usize::from(hello[1])];
    if client.read_exact(&mut methods).is_err() {
        return;
    }
    if !methods.contains(&0) {
        let _ = client.write_all(&[5, 0xff]);
        return;
    }
    if client.write_all(&[5, 0]).is_err() {
        return;
    }
    let mut req = [0u8; 4];
    if client.read_exact(&mut req).is_err() || req[0] != 5 {
        return;
    }
    let host = match req[3] {
        1 => {
            let mut a = [0u8; 4];
            if client.read_exact(&mut a).is_err() {
                return;
            }
            IpAddr::V4(Ipv4Addr::from(a)).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            if client.read_exact(&mut len).is_err() {
                return;
            }
            let mut name = vec![0u8; usize::from(len[0])];
            if client.read_exact(&mut name).is_err() {
                return;
            }
            match String::from_utf8(name) {
                Ok(n) => n,
                Err(_) => return reply(&mut client, ADDRESS_NOT_SUPPORTED),
            }
        }
        4 => {
            let mut a = [0u8; 16];
            if client.read_exact(&mut a).is_err() {
                return;
            }
            IpAddr::V6(Ipv6Addr::from(a)).to_string()
        }
        _ => return reply(&mut client, ADDRESS_NOT_SUPPORTED),
    };
    let mut port = [0u8; 2];
    if client.read_exact(&mut port).is_err() {
        return;
    }
    let port = u16::from_be_bytes(port);
    if req[1] != 1 {
        // BIND and UDP ASSOCIATE would open ways in and datagrams out.
        let what = if req[1] == 3 { "UDP ASSOCIATE" } else { "BIND" };
        cx.record(&gate::refused(&host, port, format!("SOCKS5 {what} is not offered"), "nothing allows it"), "SOCKS5");
        return reply(&mut client, COMMAND_NOT_SUPPORTED);
    }
    let admitted = match gate::admit_here(&cx.list, &host, port, cx.resolve) {
        Ok(a) => a,
        Err(d) => {
            cx.tell(&d);
            reply(&mut client, NOT_ALLOWED);
            return cx.record_told(&d, "SOCKS5");
        }
    };
    let upstream = match tunnel::connect(&admitted.addrs) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => return reply(&mut client, REFUSED),
        Err(_) => return reply(&mut client, UNREACHABLE),
    };
    reply(&mut client, 0);
    if let Err(what) = tunnel::tunnel(client, upstream, Vec::new(), cx.access, &host, port) {
        cx.record(&gate::refused(&host, port, what.to_string(), "nothing allows it"), "SOCKS5");
    }
}

fn reply(client: &mut TcpStream, code: u8) {
    let _ = client.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
