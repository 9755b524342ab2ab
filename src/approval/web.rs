//! The approvals page: `sandbox-bash --sandbox-approvals --web [ADDR:PORT]` serves the same
//! queue as the terminal on loopback.
//!
//! The printed link carries a one-time token. Opening it gives the page a key, which the page
//! keeps in its own session storage (one per origin, so no other port of loopback, such as a
//! development server a sandboxed command runs, ever sees it; a cookie would be sent to every
//! port) and sends with each call. A key works only once the person confirms it in the
//! listener's terminal, where the process that opened the link is named: a command that read
//! the link from a command line or a file and raced the browser is refused there. Every
//! request must name this address as its `Host` (no other name can be made to point here); an
//! answer must also carry a header no other site's page can send without asking first, and an
//! `Origin`, when there is one, of this page. A page polls once a second: the listener counts as
//! someone to ask only while a confirmed page has polled in the last five seconds.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::listen::{self, Event, Presence, Shared, Which};
use super::{escaped, now};

/// The header the page's key travels in.
const KEY_HEADER: &str = "x-sandbox-bash-key";
/// Most browsers waiting for the person's confirmation at once.
const MAX_PAIRING: usize = 4;
/// A page that has not polled for this long is not open.
const OPEN_FOR: Duration = Duration::from_secs(5);
const MAX_HEAD: usize = 16 * 1024;
const MAX_BODY: usize = 4 * 1024;
/// Most connections served at once (each is a thread): any process with network may connect.
const MAX_CONNECTIONS: usize = 64;

/// What became of a request the page may still show for a while.
#[derive(serde::Serialize, Clone)]
struct Gone {
    number: usize,
    what: String,
}

/// A browser that opened the link, waiting for the person to confirm it in the terminal.
struct Pairing {
    key: String,
    code: u32,
    who: String,
}

struct State {
    /// The link's token until a browser that opened it is confirmed.
    token: Mutex<Option<String>>,
    /// Browsers that opened the link and wait for the person's confirmation.
    pairing: Mutex<Vec<Pairing>>,
    /// Keys of browsers the person confirmed.
    keys: Mutex<Vec<String>>,
    last_poll: Mutex<Option<Instant>>,
    gone: Mutex<VecDeque<Gone>>,
}

pub(super) struct Page {
    listener: TcpListener,
    addr: SocketAddr,
    token: String,
    state: Arc<State>,
    queue: Shared,
}

impl Page {
    /// Listens at `addr` (default `127.0.0.1:0`, a free port), on loopback only.
    pub(super) fn start(addr: Option<&str>, queue: Shared) -> Result<Page, String> {
        let wanted = addr.unwrap_or("127.0.0.1:0");
        let parsed: SocketAddr =
            wanted.parse().map_err(|_| format!("--web takes ADDR:PORT (such as 127.0.0.1:8765), not {wanted:?}"))?;
        if !parsed.ip().is_loopback() {
            return Err(format!("the approvals page listens on loopback only, not on {}", parsed.ip()));
        }
        let listener = TcpListener::bind(parsed).map_err(|e| format!("cannot listen at {parsed}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let token = super::new_id();
        let state = Arc::new(State {
            token: Mutex::new(Some(token.clone())),
            pairing: Mutex::new(Vec::new()),
            keys: Mutex::new(Vec::new()),
            last_poll: Mutex::new(None),
            gone: Mutex::new(VecDeque::new()),
        });
        Ok(Page { listener, addr, token, state, queue })
    }

    fn origin(&self) -> String {
        origin(self.addr)
    }

    /// The link to open, with its one-time token.
    pub(super) fn url(&self) -> String {
        format!("{}/?token={}", self.origin(), self.token)
    }

    /// Whether a page is open, and how a run names it.
    pub(super) fn presence(&self) -> Presence {
        let (state, origin) = (Arc::clone(&self.state), self.origin());
        Arc::new(move || {
            let open = state.last_poll.lock().ok().and_then(|t| *t).is_some_and(|t| t.elapsed() < OPEN_FOR);
            if open {
                Ok(format!("the approvals page at {origin}"))
            } else {
                Err("the approvals page is not open in any browser".into())
            }
        })
    }

    /// Serves the page, takes the person's confirmations from standard input (`y`: let the
    /// browser named last in, `n`: refuse it), and keeps what became of each request, until the
    /// process is stopped.
    pub(super) fn run(self, rx: mpsc::Receiver<Event>, tx: mpsc::Sender<Event>) -> Result<(), String> {
        let Page { listener, addr, state, queue, .. } = self;
        {
            let (state, tx) = (Arc::clone(&state), tx.clone());
            std::thread::spawn(move || {
                let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
                for conn in listener.incoming() {
                    let Ok(conn) = conn else { continue };
                    if open.load(std::sync::atomic::Ordering::SeqCst) >= MAX_CONNECTIONS {
                        continue;
                    }
                    open.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let (state, queue, tx, open) =
                        (Arc::clone(&state), Arc::clone(&queue), tx.clone(), Arc::clone(&open));
                    std::thread::spawn(move || {
                        serve(conn, addr, &state, &queue, &tx);
                        open.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    });
                }
            });
        }
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(Event::Input(line)).is_err() {
                    return;
                }
            }
        });
        let mut out = std::io::stdout();
        for event in rx {
            match event {
                Event::New(n) => {
                    let _ = writeln!(out, "request {n}: waiting on the page");
                }
                Event::Gone(n, why, outcome) => {
                    let what = outcome.clone().unwrap_or(why);
                    let _ = writeln!(out, "request {n}: {what}");
                    if let Ok(mut g) = state.gone.lock() {
                        g.push_back(Gone { number: n, what });
                        while g.len() > 50 {
                            g.pop_front();
                        }
                    }
                }
                Event::Input(line) => {
                    let said = confirm(&state, line.trim());
                    let _ = writeln!(out, "{said}");
                }
                Event::Pairing(code, who) => {
                    let _ = writeln!(
                        out,
                        "a browser opened the link: {who}; the page shows the code {code:04}. \
                         y: let it in, n: refuse it"
                    );
                }
                Event::End => {}
            }
            let _ = out.flush();
        }
        Ok(())
    }
}

fn origin(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

struct Head {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body_start: usize,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

fn read_head(s: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Head> {
    let mut chunk = [0u8; 4096];
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut req = httparse::Request::new(&mut headers);
        if let Ok(httparse::Status::Complete(n)) = req.parse(buf) {
            return Some(Head {
                method: req.method?.to_string(),
                path: req.path?.to_string(),
                headers: req
                    .headers
                    .iter()
                    .map(|h| (h.name.to_string(), String::from_utf8_lossy(h.value).into_owned()))
                    .collect(),
                body_start: n,
            });
        }
        if buf.len() >= MAX_HEAD {
            return None;
        }
        let n = s.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn respond(s: &mut TcpStream, status: &str, kind: &str, body: &[u8], extra: &[String]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Frame-Options: DENY\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
         Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
         connect-src 'self'; form-action 'none'; frame-ancestors 'none'\r\nConnection: close\r\n",
        body.len()
    );
    for e in extra {
        head.push_str(e);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
}

fn json(s: &mut TcpStream, status: &str, value: &serde_json::Value) {
    respond(s, status, "application/json", value.to_string().as_bytes(), &[]);
}

/// The person's word on the browser that waits longest: `y` lets it in (and the link works no
/// more), `n` refuses it.
fn confirm(state: &State, said: &str) -> String {
    let Ok(mut waiting) = state.pairing.lock() else { return "the page's state is unusable".into() };
    if waiting.is_empty() {
        return "no browser waits to be let in".into();
    }
    match said {
        "y" | "yes" => {
            let p = waiting.remove(0);
            if let Ok(mut t) = state.token.lock() {
                *t = None;
            }
            if let Ok(mut k) = state.keys.lock() {
                k.push(p.key);
            }
            let refused = waiting.len();
            waiting.clear();
            format!(
                "let in: {} (code {:04}); the link works no more{}",
                p.who,
                p.code,
                if refused > 0 {
                    format!(", and {refused} other browser(s) waiting were refused")
                } else {
                    String::new()
                }
            )
        }
        "n" | "no" => {
            let p = waiting.remove(0);
            format!("refused: {} (code {:04})", p.who, p.code)
        }
        _ => "y lets the browser in, n refuses it".into(),
    }
}

/// Who is at the other end of a connection to this page: the process that holds the socket.
fn who(peer: SocketAddr) -> String {
    let found = crate::outside::proxy::socket_inode(std::process::id() as i32, peer.port())
        .and_then(crate::outside::proxy::owner_of);
    match found {
        Some(pid) => {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).map_or("?".into(), |p| p.display().to_string());
            let uid = std::fs::read_to_string(format!("/proc/{pid}/status"))
                .ok()
                .and_then(|s| {
                    s.lines().find_map(|l| {
                        l.strip_prefix("Uid:").map(|u| u.split_whitespace().next().unwrap_or("?").to_string())
                    })
                })
                .unwrap_or_else(|| "?".into());
            format!("process {pid} ({}), uid {uid}", escaped(&exe))
        }
        None => format!("a process this listener cannot see, from port {}", peer.port()),
    }
}

fn serve(mut s: TcpStream, addr: SocketAddr, state: &State, queue: &Shared, tx: &mpsc::Sender<Event>) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let Some(head) = read_head(&mut s, &mut buf) else { return };
    // Only this address: a name made to point here (DNS rebinding) is refused.
    let host_ok = head.header("host").is_some_and(|h| {
        let port = addr.port();
        h == addr.to_string() || h == format!("localhost:{port}")
    });
    if !host_ok {
        respond(&mut s, "421 Misdirected Request", "text/plain", b"this page answers only at its own address\n", &[]);
        return;
    }
    let key = head.header(KEY_HEADER).unwrap_or("");
    let keyed = !key.is_empty() && state.keys.lock().is_ok_and(|k| k.iter().any(|k| same(k, key)));
    let (path, query) = head.path.split_once('?').unwrap_or((&head.path, ""));
    match (head.method.as_str(), path) {
        ("GET", "/") if !query.is_empty() => {
            let given = query.split('&').find_map(|p| p.strip_prefix("token=")).unwrap_or("");
            let valid = state.token.lock().is_ok_and(|t| t.as_deref().is_some_and(|t| same(t, given)));
            let room = state.pairing.lock().is_ok_and(|p| p.len() < MAX_PAIRING);
            if valid && room {
                let key = super::new_id();
                let code = u32::from_str_radix(&key[..4], 16).unwrap_or(0) % 10_000;
                let who = s.peer_addr().map_or_else(|_| "a process this listener cannot see".into(), who);
                if let Ok(mut p) = state.pairing.lock() {
                    p.push(Pairing { key: key.clone(), code, who: who.clone() });
                }
                let _ = tx.send(Event::Pairing(code, who));
                let page = PAGE.replace("KEY_FROM_LINK", &key).replace("CODE_FROM_LINK", &format!("{code:04}"));
                respond(&mut s, "200 OK", "text/html; charset=utf-8", page.as_bytes(), &[]);
            } else {
                let body = b"This link was used already, or is not this page's: start sandbox-bash \
                             --sandbox-approvals --web again for a new one.\n";
                respond(&mut s, "403 Forbidden", "text/plain", body, &[]);
            }
        }
        ("GET", "/") => {
            let page = PAGE.replace("KEY_FROM_LINK", "").replace("CODE_FROM_LINK", "");
            respond(&mut s, "200 OK", "text/html; charset=utf-8", page.as_bytes(), &[]);
        }
        ("GET", "/pending") if !keyed => {
            let code = state.pairing.lock().ok().and_then(|p| p.iter().find(|p| same(&p.key, key)).map(|p| p.code));
            let body = match code {
                Some(code) => serde_json::json!({"waiting": format!("{code:04}")}),
                None => serde_json::json!({"error": "open the link sandbox-bash printed"}),
            };
            json(&mut s, "403 Forbidden", &body);
        }
        _ if !keyed => {
            let body = serde_json::json!({"ok": false, "error": "open the link sandbox-bash printed"});
            json(&mut s, "403 Forbidden", &body);
        }
        ("GET", "/pending") => {
            if let Ok(mut t) = state.last_poll.lock() {
                *t = Some(Instant::now());
            }
            json(&mut s, "200 OK", &pending(queue, state));
        }
        ("POST", "/answer") => {
            let origin_ok = head.header("origin").is_none_or(|o| o == origin(addr));
            if head.header("x-sandbox-bash") != Some("answer") || !origin_ok {
                json(&mut s, "403 Forbidden", &serde_json::json!({"ok": false, "error": "not from this page"}));
                return;
            }
            let length: usize = head.header("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
            if length > MAX_BODY {
                json(&mut s, "413 Content Too Large", &serde_json::json!({"ok": false, "error": "too long"}));
                return;
            }
            let mut body = buf[head.body_start..].to_vec();
            let mut chunk = [0u8; 1024];
            while body.len() < length {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => body.extend_from_slice(&chunk[..n]),
                }
            }
            body.truncate(length);
            #[derive(serde::Deserialize)]
            struct Said {
                id: String,
                answer: String,
            }
            let said: Option<Said> = serde_json::from_slice(&body).ok();
            let result = match said {
                Some(s) if s.answer == "allow-once" || s.answer == "reject" => {
                    listen::answer(queue, Which::Id(&s.id), s.answer == "allow-once")
                }
                _ => Err("the answer must be allow-once or reject, for one request id".into()),
            };
            match result {
                Ok(n) => json(&mut s, "200 OK", &serde_json::json!({"ok": true, "number": n})),
                Err(why) => json(&mut s, "409 Conflict", &serde_json::json!({"ok": false, "error": why})),
            }
        }
        _ => respond(&mut s, "404 Not Found", "text/plain", b"not here\n", &[]),
    }
}

/// The queue as the page shows it: every text already escaped.
fn pending(queue: &Shared, state: &State) -> serde_json::Value {
    let list: Vec<serde_json::Value> = queue
        .lock()
        .map(|q| {
            q.pending
                .iter()
                .map(|p| {
                    let q = &p.question;
                    let argv: Vec<String> = q.argv.iter().map(|a| format!("'{}'", escaped(a))).collect();
                    let missing: Vec<String> = q.missing.iter().map(super::Missing::shown).collect();
                    serde_json::json!({
                        "number": p.number,
                        "id": q.id,
                        "answered": p.answered,
                        "expires_in": q.expires_at.saturating_sub(now()),
                        "uid": q.uid,
                        "workspace": escaped(&q.workspace),
                        "cwd": escaped(&q.cwd),
                        "command": format!("bash {}", argv.join(" ")),
                        "from": q.allowed,
                        "to": q.mode,
                        "missing": missing,
                        "hosts": q.hosts.iter().map(|h| escaped(h)).collect::<Vec<_>>(),
                        "reason": escaped(&q.reason),
                        "files": q.files.iter().map(|f| escaped(f)).collect::<Vec<_>>(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let gone: Vec<Gone> = state.gone.lock().map(|g| g.iter().cloned().collect()).unwrap_or_default();
    serde_json::json!({"pending": list, "gone": gone})
}

/// The page: the pending requests, each with its fields and two buttons, polled once a second.
/// Text goes in with `textContent` only.
const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sandbox-bash approvals</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;margin:2em;max-width:60em}
.req{border:1px solid #999;border-radius:6px;padding:1em;margin:1em 0}
.req dt{font-weight:bold;float:left;width:7em}.req dd{margin:0 0 .3em 8em;font-family:monospace;white-space:pre-wrap;word-break:break-all}
button{font-size:1em;margin-right:1em;padding:.3em 1em}
#status{color:#555}#log{color:#555;font-size:.9em}
</style></head>
<body><h1>sandbox-bash approvals</h1>
<p id="status">Connecting…</p>
<div id="list"></div>
<h2>Answered or gone</h2><ul id="log"></ul>
<script>
"use strict";
// The key comes once, in the page the link opened; the page keeps it in its own session storage
// (this origin's alone) and sends it with every call.
const given = "KEY_FROM_LINK";
if (given) { sessionStorage.setItem("key", given); sessionStorage.setItem("code", "CODE_FROM_LINK"); history.replaceState(null, "", "/"); }
const key = sessionStorage.getItem("key") || "";
const shown = new Map();
function field(dl, name, value) {
  const dt = document.createElement("dt"); dt.textContent = name;
  const dd = document.createElement("dd"); dd.textContent = value;
  dl.append(dt, dd);
}
function card(r) {
  const div = document.createElement("div");
  div.className = "req"; div.dataset.id = r.id;
  const h = document.createElement("h3");
  h.textContent = "Request " + r.number;
  const dl = document.createElement("dl");
  field(dl, "id", r.id);
  field(dl, "workspace", r.workspace);
  field(dl, "cwd", r.cwd);
  field(dl, "command", r.command);
  field(dl, "mode", r.from + " \u2192 " + r.to);
  for (const m of r.missing) field(dl, "missing", m);
  if (r.hosts.length) field(dl, "hosts", r.hosts.join(", "));
  if (r.files.length) field(dl, "runs", r.files.join(", "));
  field(dl, "reason", r.reason);
  const left = document.createElement("p"); left.className = "left";
  const allow = document.createElement("button"); allow.textContent = "Allow once"; allow.className = "allow";
  const reject = document.createElement("button"); reject.textContent = "Reject"; reject.className = "reject";
  const said = document.createElement("p"); said.className = "said";
  allow.onclick = () => answer(r.id, "allow-once", said);
  reject.onclick = () => answer(r.id, "reject", said);
  div.append(h, dl, left, allow, reject, said);
  return div;
}
async function answer(id, what, said) {
  try {
    const res = await fetch("/answer", {method: "POST", headers: {"Content-Type": "application/json", "X-Sandbox-Bash": "answer", "X-Sandbox-Bash-Key": key},
                                        body: JSON.stringify({id: id, answer: what})});
    const body = await res.json();
    said.textContent = body.ok ? "Answer sent: " + what : "Refused: " + body.error;
  } catch (e) {
    said.textContent = "Not sent (the connection is lost): " + e;
  }
}
async function poll() {
  try {
    const res = await fetch("/pending", {cache: "no-store", headers: {"X-Sandbox-Bash-Key": key}});
    const data = await res.json();
    if (res.status == 403) {
      document.getElementById("status").textContent = data.waiting
        ? "Confirm this page in the terminal of sandbox-bash --sandbox-approvals: it shows the code " + data.waiting + "."
        : "Open the link sandbox-bash --sandbox-approvals --web printed.";
      return;
    }
    if (!res.ok) throw new Error("status " + res.status);
    const list = document.getElementById("list");
    const ids = new Set(data.pending.map(r => r.id));
    for (const [id, el] of shown) if (!ids.has(id)) { el.remove(); shown.delete(id); }
    for (const r of data.pending) {
      if (!shown.has(r.id)) { const el = card(r); shown.set(r.id, el); list.append(el); }
      shown.get(r.id).querySelector(".left").textContent =
        (r.answered ? "Answered here; waiting for the run. " : "") + "Expires in " + r.expires_in + " s.";
    }
    const log = document.getElementById("log");
    log.replaceChildren(...data.gone.slice().reverse().map(g => {
      const li = document.createElement("li"); li.textContent = "Request " + g.number + ": " + g.what; return li;
    }));
    document.getElementById("status").textContent =
      data.pending.length ? data.pending.length + " waiting." : "No request is waiting.";
  } catch (e) {
    document.getElementById("status").textContent = "Connection lost; trying again…";
  }
}
poll(); setInterval(poll, 1000);
</script></body></html>
"#;
