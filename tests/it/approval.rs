//! Asking a person: the hint in a denial, the request line, who answers (an approver program,
//! an approvals listener), what each answer comes to, what an answer is bound to, and that no
//! command can answer its own request. On the real kernel, as root and as an unprivileged
//! user.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::lab::{self, Lab, SB, USERS, User, as_user, give_tree, lab_for, text};

const SYSTEM: &str = "SANDBOX_BASH_TEST_SYSTEM_CONFIG";
const HINT: &str = "sandbox-bash: request: to run this once with more access, make its first line";

/// `sandbox-bash` as `user` in the lab's workspace with `mode`, a fresh environment.
fn sb(lab: &Lab, user: User, mode: &str) -> Command {
    let mut c = as_user(user, SB);
    c.current_dir(&lab.ws).env_clear();
    c.env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home);
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("LC_ALL", "C");
    c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn run(lab: &Lab, user: User, mode: &str, program: &str, env: &[(&str, &Path)]) -> Output {
    let mut c = sb(lab, user, mode);
    c.arg("-c").arg(program);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// The `sandbox-bash: denied:` and `request:` lines of `out`.
fn marked(out: &Output) -> Vec<String> {
    text(&out.stderr).lines().filter(|l| l.starts_with("sandbox-bash: ")).map(str::to_string).collect()
}

/// Asserts the last marked line of `out` is the hint to ask for `what` (a mode and its hosts).
#[track_caller]
fn hints(out: &Output, what: &str) {
    let lines = marked(out);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(&*format!("{HINT} # sandbox-bash: request {what} because REASON")),
        "{lines:#?}"
    );
}

#[track_caller]
fn denied_with(out: &Output, words: &str) {
    let lines = marked(out);
    assert_eq!(out.status.code(), Some(126), "{lines:#?}\n{}", text(&out.stderr));
    assert!(lines.iter().any(|l| l.starts_with("sandbox-bash: denied: ") && l.contains(words)), "{words}: {lines:#?}");
}

/// A directory of the lab's own for configuration and approver programs: owned by `user`, not
/// writable by others, outside the workspace.
fn etc(lab: &Lab, user: User) -> PathBuf {
    let d = lab.ws.parent().unwrap().join("etc");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_tree(&d, user);
    d
}

/// A system file with `body`, as `user` may read it.
fn system_file(lab: &Lab, user: User, body: &str) -> PathBuf {
    let d = etc(lab, user);
    let p = d.join("config.toml");
    std::fs::write(&p, body).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    give_tree(&d, user);
    p
}

/// An approver program that keeps what it was given in `asked-N.json` (N counting calls) and
/// answers `answer` after `delay` seconds.
fn approver(lab: &Lab, user: User, answer: &str, delay: u32) -> PathBuf {
    let d = etc(lab, user);
    let p = d.join(format!("approve-{}", answer.replace(' ', "_")));
    let script = format!(
        "#!/bin/sh\nn=$(ls {dir}/asked-*.json 2>/dev/null | wc -l)\ncat > {dir}/asked-$n.json\nsleep {delay}\necho '{answer}'\n",
        dir = d.display()
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_tree(&d, user);
    p
}

fn asked(lab: &Lab) -> Vec<serde_json::Value> {
    let d = lab.ws.parent().unwrap().join("etc");
    let mut out = Vec::new();
    for n in 0..20 {
        match std::fs::read_to_string(d.join(format!("asked-{n}.json"))) {
            Ok(t) => out.push(serde_json::from_str(&t).unwrap()),
            Err(_) => break,
        }
    }
    out
}

fn records(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A write outside the workspace that `0467` refuses, its target, and the program that asks.
fn write_outside(lab: &Lab, name: &str) -> (PathBuf, String) {
    let target = lab.outside.join(name);
    (target.clone(), format!("touch {}", target.display()))
}

/// A server at this machine's own address (which an allowlist reaches only by address) that
/// answers every request with `SERVED`: the address and port.
fn served_here() -> (std::net::IpAddr, u16) {
    let own = std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|u| u.connect("192.0.2.1:9").and_then(|()| u.local_addr()))
        .map(|a| a.ip())
        .expect("this machine has an address with a route out");
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut conn, &mut buf);
            let _ = conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nSERVED\n");
        }
    });
    (own, port)
}

fn request(mode: &str, reason: &str, program: &str) -> String {
    format!("# sandbox-bash: request {mode} because {reason}\n{program}")
}

#[test]
fn a_denial_ends_with_the_hint_naming_the_narrowest_mode_and_the_json_carries_it() {
    lab::require_landlock();
    let lab = lab_for(User::Root);
    let (_, write) = write_outside(&lab, "x");
    let out = run(&lab, User::Root, "0467", &write, &[]);
    hints(&out, "0667");
    // Two scopes missing: both bits, nothing else.
    let out = run(&lab, User::Root, "0444", &format!("{write}; cat {}", lab.canary().display()), &[]);
    assert!(marked(&out).last().unwrap().contains("request 4644 because"), "{:#?}", marked(&out));
    // The JSON of the explanation.
    let out = sb(&lab, User::Root, "0467")
        .arg("--sandbox-explain")
        .arg("--sandbox-json")
        .arg("-c")
        .arg(&write)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["request"]["mode"], "0667", "{json}");
    // No hint where nothing can be granted: above the administrator's ceiling, at a nested
    // level, or for a program that cannot be analysed.
    let ceiling = system_file(&lab, User::Root, "max_mode = \"0467\"\n");
    let out = run(&lab, User::Root, "0667", &write, &[(SYSTEM, &ceiling)]);
    assert_eq!(out.status.code(), Some(126));
    assert!(!text(&out.stderr).contains("sandbox-bash: request:"), "{}", text(&out.stderr));
    let nested = format!("{SB} -c '{write}'");
    let out = run(&lab, User::Root, "0667", &format!("BASH_AGENT_BASH_MODE=0467 {nested}"), &[]);
    assert!(text(&out.stderr).contains("missing external write"), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("sandbox-bash: request:"), "{}", text(&out.stderr));
    let out = run(&lab, User::Root, "0467", "echo $(( 1 +", &[]);
    assert!(!text(&out.stderr).contains("sandbox-bash: request:"), "{}", text(&out.stderr));
}

#[test]
fn a_request_is_paired_exact_and_within_the_ceiling_before_anyone_is_asked() {
    lab::require_landlock();
    let user = User::Root;
    let lab = lab_for(user);
    let (target, write) = write_outside(&lab, "x");
    let program = approver(&lab, user, "allow-once", 0);
    let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\n", program.display()));
    let env: [(&str, &Path); 1] = [(SYSTEM, &config)];
    for (line, says) in [
        ("# sandbox-bash: request 0667", "gives no reason"),
        ("# sandbox-bash: request because I must", "names no mode"),
        (
            "# sandbox-bash: request 0777 because I must",
            "wider than the program needs (0110 is not missing): ask for 0667",
        ),
        ("# sandbox-bash: request 0467 because I must", "adds nothing"),
        ("# sandbox-bash: request 0447 because I must", "does not contain the allowed mode 0467"),
    ] {
        let out = run(&lab, user, "0467", &format!("{line}\n{write}"), &env);
        denied_with(&out, says);
    }
    // Narrower than needed.
    let both = format!("{write}; cat {}", lab.canary().display());
    let out = run(&lab, user, "0467", &request("0667", "x", &both), &env);
    denied_with(&out, "does not cover what the program needs (4000 is still missing): ask for 4667");
    // Not needed at all: the program runs with the allowed mode.
    let out = run(&lab, user, "0467", &request("0667", "x", "echo fine"), &env);
    denied_with(&out, "is not needed");
    // Above the ceiling: forbidden, and no one is asked.
    let capped =
        system_file(&lab, user, &format!("max_mode = \"0667\"\n[approval]\nprogram = \"{}\"\n", program.display()));
    let out = run(&lab, user, "0467", &request("4667", "x", &both), &[(SYSTEM, &capped)]);
    denied_with(&out, "is forbidden: the administrator's ceiling max_mode=0667");
    assert!(asked(&lab).is_empty(), "the approver was asked: {:?}", asked(&lab));
    assert!(!target.exists());
    // Nor for what could not run with it anyway: an audit log the wider mode would let
    // commands write.
    let log = lab.outside.join("audit.jsonl");
    let out =
        run(&lab, user, "0467", &request("0667", "x", &write), &[(SYSTEM, &config), ("SANDBOX_BASH_AUDIT_LOG", &log)]);
    denied_with(&out, "the request for 0667 cannot be granted here: refusing to write the audit log");
    assert!(asked(&lab).is_empty(), "the approver was asked: {:?}", asked(&lab));
    assert!(!target.exists());
    // The line is a comment to bash: a request where nothing is missing changes nothing else.
    let out =
        sb(&lab, user, "0467").arg("--sandbox-explain").arg("-c").arg(request("0667", "x", &write)).output().unwrap();
    assert_eq!(out.status.code(), Some(126));
}

#[test]
fn an_approver_program_grants_one_run_with_the_wider_kernel_layer_and_the_next_run_is_back() {
    lab::require_landlock();
    for user in USERS {
        let lab = lab_for(user);
        let (target, write) = write_outside(&lab, "granted.txt");
        let program = approver(&lab, user, "allow-once", 0);
        let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\n", program.display()));
        // Where 0667 does not let commands write.
        let log = lab.system.join("audit.jsonl");
        let env: [(&str, &Path); 2] = [(SYSTEM, &config), ("SANDBOX_BASH_AUDIT_LOG", &log)];
        let out = run(&lab, user, "0467", &request("0667", "the release notes go there", &write), &env);
        assert_eq!(out.status.code(), Some(0), "{user:?}: {}", text(&out.stderr));
        assert!(target.exists(), "{user:?}");
        assert!(
            text(&out.stderr).contains(&format!(
                "sandbox-bash: request: allowed once (by the approver program {}",
                program.display()
            )),
            "{}",
            text(&out.stderr)
        );
        // What the approver was given.
        let q = &asked(&lab)[0];
        assert_eq!((q["allowed"].as_str(), q["mode"].as_str()), (Some("0467"), Some("0667")), "{q}");
        assert_eq!(q["reason"], "the release notes go there");
        assert_eq!(q["uid"], user.uid());
        assert_eq!(q["workspace"], lab.ws.display().to_string());
        assert_eq!(q["missing"][0]["bit"], "0200", "{q}");
        assert_eq!(q["missing"][0]["target"], target.display().to_string(), "{q}");
        assert_eq!(q["id"].as_str().unwrap().len(), 32);
        // Asked and decided are records, the run's own record says the mode it had.
        let recs = records(&log);
        let approval: Vec<&serde_json::Value> = recs.iter().filter(|r| r["event"] == "approval").collect();
        assert_eq!(approval.len(), 2, "{recs:#?}");
        assert_eq!(approval[0]["verdict"], "asked");
        assert_eq!(approval[1]["verdict"], "allowed-once");
        assert_eq!(approval[1]["by"], format!("the approver program {}", program.display()));
        assert_eq!(approval[1]["id"], q["id"]);
        let runs: Vec<&serde_json::Value> = recs.iter().filter(|r| r.get("event").is_none()).collect();
        assert_eq!(runs.last().unwrap()["allowed"], "0667", "{recs:#?}");
        // The next call is back at 0467: statically, and where only the kernel stands.
        std::fs::remove_file(&target).unwrap();
        let out = run(&lab, user, "0467", &write, &env);
        assert_eq!(out.status.code(), Some(126));
        let mut c = sb(&lab, user, "0467");
        c.arg("-s").stdin(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(format!("{write}\n").as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        lab::kernel_refused(&out, &[]);
        assert!(!target.exists(), "{user:?}");
        assert_eq!(asked(&lab).len(), 1, "asked again");
    }
}

#[test]
fn a_rejection_is_final_and_the_same_request_reworded_is_not_asked_again() {
    lab::require_landlock();
    let user = User::Nobody;
    let lab = lab_for(user);
    let (target, write) = write_outside(&lab, "x");
    let program = approver(&lab, user, "reject", 0);
    let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\n", program.display()));
    let env: [(&str, &Path); 1] = [(SYSTEM, &config)];
    let out = run(&lab, user, "0467", &request("0667", "please", &write), &env);
    denied_with(&out, &format!("the request for 0667 was rejected (by the approver program {})", program.display()));
    assert!(!target.exists());
    // Worded otherwise, the same missing bit on the same target: refused without asking.
    let reworded = format!(": first\n{write} # again");
    let out = run(&lab, user, "0467", &request("0667", "pretty please", &reworded), &env);
    denied_with(&out, "the same request");
    assert_eq!(asked(&lab).len(), 1);
    // Another target is another request.
    let (_, other) = write_outside(&lab, "y");
    let out = run(&lab, user, "0467", &request("0667", "please", &other), &env);
    denied_with(&out, "was rejected");
    assert_eq!(asked(&lab).len(), 2);
    // An answer that is neither word, or a failing approver, is a reject too.
    let odd = approver(&lab, user, "yes", 0);
    let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\n", odd.display()));
    let (_, third) = write_outside(&lab, "z");
    let out = run(&lab, user, "0467", &request("0667", "x", &third), &[(SYSTEM, &config)]);
    denied_with(&out, "whose answer \"yes\" counts as a reject");
}

#[test]
fn no_answer_in_time_expires_and_no_one_to_ask_is_a_denial_at_once() {
    lab::require_landlock();
    let user = User::Root;
    let lab = lab_for(user);
    let (target, write) = write_outside(&lab, "x");
    let slow = approver(&lab, user, "allow-once", 30);
    let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\ntimeout = 1\n", slow.display()));
    let started = Instant::now();
    let out = run(&lab, user, "0467", &request("0667", "x", &write), &[(SYSTEM, &config)]);
    denied_with(&out, "the request for 0667 expired: no answer within 1 s");
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert!(!target.exists());
    // Headless: no approver, no listener, input that says yes on standard input. Denied at
    // once; nothing is read from the command's own input.
    let started = Instant::now();
    let mut c = sb(&lab, user, "0467");
    c.arg("-c").arg(request("0667", "x", &write)).stdin(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(b"a\nallow-once\ny\n");
    let out = child.wait_with_output().unwrap();
    denied_with(&out, "approval needed, and no one can be asked here (no approver configured, no approvals listener)");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(!target.exists());
}

/// A `--sandbox-approvals --json` listener of `user`'s, its events on a channel.
struct Listener {
    child: Child,
    events: mpsc::Receiver<serde_json::Value>,
}

impl Listener {
    fn start(lab: &Lab, user: User) -> Listener {
        let mut c = as_user(user, SB);
        c.arg("--sandbox-approvals").arg("--json").env_clear().env("HOME", &lab.home).env("PATH", "/usr/bin:/bin");
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = c.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        let mut l = Listener { child, events };
        assert_eq!(l.next()["event"], "listening");
        l
    }

    #[track_caller]
    fn next(&mut self) -> serde_json::Value {
        self.events.recv_timeout(Duration::from_secs(30)).expect("an event from the listener")
    }

    fn say(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_listener_in_another_terminal_answers_and_an_answer_binds_one_request_once() {
    lab::require_landlock();
    for user in USERS {
        let lab = lab_for(user);
        let mut listener = Listener::start(&lab, user);
        let (target, write) = write_outside(&lab, "granted.txt");
        // A question from anything but sandbox-bash is not shown.
        let socket = lab.home.join(format!(".local/state/sandbox-bash/approvals/{}.sock", listener.child.id()));
        let fake = lab.outside.join("fake.py");
        std::fs::write(
            &fake,
            format!(
                "import json, os, socket, sys, time\n\
                 q = {{'id': 'f' * 32, 'uid': {uid}, 'workspace': '/', 'cwd': '/', 'argv': [], 'source': 'command',\n\
                 \x20     'program': 'FAKE', 'allowed': '0467', 'mode': '7777', 'missing': [], 'hosts': [], 'reason': 'x',\n\
                 \x20     'asked_at': 0, 'expires_at': int(time.time()) + 60, 'binding': ''}}\n\
                 try:\n\
                 \x20   d, n = os.path.split(sys.argv[1])\n\
                 \x20   s = socket.socket(socket.AF_UNIX)\n\
                 \x20   s.connect('/proc/self/fd/%d/%s' % (os.open(d, os.O_RDONLY), n))\n\
                 except OSError as e:\n\
                 \x20   sys.exit('not connected: %s' % e)\n\
                 print('connected')\n\
                 try:\n\
                 \x20   s.sendall((json.dumps({{'kind': 'ask', 'question': q}}) + '\\n').encode())\n\
                 \x20   time.sleep(1)\n\
                 except OSError:\n\
                 \x20   pass\n",
                uid = user.uid()
            ),
        )
        .unwrap();
        give_tree(&lab.outside, user);
        let out = as_user(user, "/usr/bin/python3").arg(&fake).arg(&socket).output().unwrap();
        // It reached the listener (and was turned away there).
        assert_eq!(text(&out.stdout), "connected\n", "{}", text(&out.stderr));
        let asking = sb(&lab, user, "0467").arg("-c").arg(request("0667", "notes", &write)).spawn().unwrap();
        let pending = listener.next();
        assert_eq!(pending["event"], "pending", "{pending}");
        let q = &pending["request"];
        assert_eq!((q["mode"].as_str(), q["reason"].as_str()), (Some("0667"), Some("notes")), "{q}");
        assert!(pending["expires_in"].as_u64().unwrap() > 100);
        // An answer for another id is refused by the listener; the request still waits.
        listener.say(&format!("{{\"id\":\"{}\",\"answer\":\"allow-once\"}}", "0".repeat(32)));
        let refused = listener.next();
        assert_eq!(refused["event"], "refused", "{refused}");
        listener.say(&format!("{{\"id\":{},\"answer\":\"allow-once\"}}", q["id"]));
        assert_eq!(listener.next()["event"], "answered");
        let gone = listener.next();
        assert_eq!((gone["event"].as_str(), gone["outcome"].as_str()), (Some("gone"), Some("allowed-once")), "{gone}");
        let out = asking.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{user:?}: {}", text(&out.stderr));
        assert!(target.exists());
        assert!(
            text(&out.stderr).contains("by sandbox-bash --sandbox-approvals --json (pid "),
            "{}",
            text(&out.stderr)
        );
        // A second answer to the same request is refused: it was used.
        listener.say(&format!("{{\"id\":{},\"answer\":\"allow-once\"}}", q["id"]));
        assert_eq!(listener.next()["event"], "refused");
        // A rejection by the listener.
        std::fs::remove_file(&target).unwrap();
        let (other, write2) = write_outside(&lab, "other.txt");
        let asking = sb(&lab, user, "0467").arg("-c").arg(request("0667", "notes", &write2)).spawn().unwrap();
        assert_eq!(listener.next()["event"], "pending");
        listener.say("r");
        assert_eq!(listener.next()["event"], "answered");
        assert_eq!(listener.next()["outcome"], "rejected");
        let out = asking.wait_with_output().unwrap();
        denied_with(&out, "the request for 0667 was rejected (by sandbox-bash --sandbox-approvals --json");
        assert!(!other.exists());
    }
}

#[test]
fn a_script_changed_while_its_request_waits_is_not_what_was_approved() {
    lab::require_landlock();
    let user = User::Root;
    let lab = lab_for(user);
    let mut listener = Listener::start(&lab, user);
    let (target, write) = write_outside(&lab, "x");
    let script = lab.ws.join("job.sh");
    std::fs::write(&script, request("0667", "notes", &write)).unwrap();
    let asking = sb(&lab, user, "0467").arg(&script).spawn().unwrap();
    let pending = listener.next();
    assert_eq!(pending["event"], "pending", "{pending}");
    // The script now writes elsewhere too.
    std::fs::write(&script, request("0667", "notes", &format!("{write}; touch {}/y", lab.outside.display()))).unwrap();
    listener.say("a");
    let out = asking.wait_with_output().unwrap();
    denied_with(&out, "changed while the request was asked");
    assert!(!target.exists());
    // A script the program runs is bound too: edited while the question waits, it is not what
    // the person was shown.
    let helper = lab.ws.join("helper.sh");
    std::fs::write(&helper, format!("#!/bin/bash\n{write}\n")).unwrap();
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let asking = sb(&lab, user, "0467").arg("-c").arg(request("0667", "notes", "./helper.sh")).spawn().unwrap();
    let pending = loop {
        let e = listener.next();
        if e["event"] == "pending" {
            break e;
        }
    };
    assert_eq!(pending["request"]["files"][0], helper.display().to_string(), "{pending}");
    let victim = lab.outside.join("victim");
    std::fs::write(&helper, format!("#!/bin/bash\n{write}; touch {}\n", victim.display())).unwrap();
    listener.say("a");
    let out = asking.wait_with_output().unwrap();
    denied_with(&out, "changed while the request was asked");
    assert!(!target.exists() && !victim.exists());
}

#[test]
fn a_nested_level_cannot_widen_what_encloses_it() {
    lab::require_landlock();
    let user = User::Root;
    let lab = lab_for(user);
    let (target, write) = write_outside(&lab, "x");
    let inner = lab.outside.join("inner.sh");
    std::fs::write(&inner, request("0667", "x", &write)).unwrap();
    // The outer level cannot see the inner program (it reads it from a file at run time).
    let outer = format!("p=$(cat {}); {SB} -c \"$p\"", inner.display());
    let out = run(&lab, user, "4467", &outer, &[]);
    denied_with(&out, "made inside another sandbox-bash, whose mode 4467");
    assert!(text(&out.stderr).contains("make the request the first line of the outermost command"));
    assert!(!target.exists());
    // Within what encloses it, a nested request is held already: it runs.
    let out = run(&lab, user, "4667", &format!("export BASH_AGENT_BASH_MODE=0467; {outer}"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(target.exists());
}

#[test]
fn no_command_can_answer_its_own_request() {
    lab::require_landlock();
    for user in USERS {
        let lab = lab_for(user);
        let listener = Listener::start(&lab, user);
        let dir = lab.home.join(".local/state/sandbox-bash/approvals");
        let socket = dir.join(format!("{}.sock", listener.child.id()));
        assert!(socket.exists(), "{}", socket.display());
        let rejected = dir.join("rejected");
        // The page too: its port is reachable from a run with network, its link is not.
        let mut web = as_user(user, SB);
        web.arg("--sandbox-approvals").arg("--web").env_clear().env("HOME", &lab.home).env("PATH", "/usr/bin:/bin");
        let mut web = web.stdin(Stdio::null()).stdout(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(web.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let page = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap()
            .split("/?")
            .next()
            .unwrap()
            .to_string();
        for mode in ["0005", "0445", "0467", "1467", "2467", "4467", "4667", "7757", "7767", "7677", "7775"] {
            // The program comes on standard input: only the kernel stands in the way.
            let attack = format!(
                "ls -a {dir}; echo list=$?\n\
                 python3 -c 'import os,socket,sys; d,n=os.path.split(sys.argv[1]); f=os.open(d,os.O_RDONLY); s=socket.socket(socket.AF_UNIX); s.connect(\"/proc/self/fd/%d/%s\" % (f,n)); print(\"CONNECTED\")' {socket}; echo connect=$?\n\
                 (cd /proc/{pid}/root{dir} && python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(\"CONNECTED\")' {name}); echo proc=$?\n\
                 mkdir -p {rejected} && echo forged > {rejected}/forged; echo forge=$?\n\
                 {SB} --sandbox-approvals --json </dev/null; echo listen=$?\n\
                 readlink /proc/{web_pid}/fd/1; echo fdlink=$?\n\
                 head -c 100 /proc/{web_pid}/fd/1 </dev/null; echo fd=$?\n\
                 for path in /pending '/?token=00000000000000000000000000000000'; do \
                   curl -s -o /dev/null -w 'page=%{{http_code}}\\n' {page}$path; done\n\
                 curl -s -o /dev/null -w 'page=%{{http_code}}\\n' -X POST -H 'X-Sandbox-Bash: answer' \
                   -d '{{\"id\":\"x\",\"answer\":\"allow-once\"}}' {page}/answer\n",
                dir = dir.display(),
                socket = socket.display(),
                pid = listener.child.id(),
                rejected = rejected.display(),
                web_pid = web.id(),
                name = socket.file_name().unwrap().to_string_lossy(),
            );
            let mut c = sb(&lab, user, mode);
            c.arg("-s").stdin(Stdio::piped());
            let mut child = c.spawn().unwrap();
            child.stdin.take().unwrap().write_all(attack.as_bytes()).unwrap();
            let out = child.wait_with_output().unwrap();
            let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert!(!said.contains("CONNECTED"), "{user:?} {mode}: {said}");
            let listing = said.split("list=").next().unwrap();
            assert!(!listing.contains(".sock"), "{user:?} {mode}: the listing shows the socket: {said}");
            for failed in ["connect=1", "proc=1", "listen=125", "fdlink=1", "fd=1"] {
                assert!(said.contains(failed), "{user:?} {mode}: {failed}: {said}");
            }
            // Forbidden where the port is reached, nothing where it is not.
            let codes: Vec<&str> = said.lines().filter_map(|l| l.strip_prefix("page=")).collect();
            assert_eq!(codes.len(), 3, "{said}");
            assert!(codes.iter().all(|c| *c == "403" || *c == "000"), "{user:?} {mode}: {said}");
            assert!(!rejected.join("forged").exists(), "{user:?} {mode}: {said}");
            assert!(socket.exists());
        }
        let _ = web.kill();
        let _ = web.wait();
    }
}

#[test]
fn a_listener_on_the_terminal_the_command_runs_on_is_no_one_to_ask() {
    lab::require_landlock();
    let lab = lab_for(User::Root);
    let (target, write) = write_outside(&lab, "x");
    let program = lab.outside.join("asks.sh");
    std::fs::write(&program, request("0667", "x", &write)).unwrap();
    // One terminal for both: the listener in the background, the asking command after it.
    let both = format!("{SB} --sandbox-approvals & sleep 1; {SB} {}; echo status=$?; kill %1", program.display());
    let out = Command::new("script")
        .args(["-qefc", &both, "/dev/null"])
        .current_dir(&lab.ws)
        .env_clear()
        .env("HOME", &lab.home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("BASH_AGENT_BASH_MODE", "0467")
        .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = text(&out.stdout);
    assert!(said.contains("no one can be asked here") && said.contains("status=126"), "{said}");
    assert!(!target.exists());
}

#[test]
fn the_page_answers_in_a_real_browser() {
    lab::require_landlock();
    for tool in ["chromium", "chromedriver"] {
        let found = Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().unwrap();
        assert!(
            found.status.success(),
            "MISSING: this test drives a real browser and needs {tool} (Debian: apt install chromium chromium-driver); \
             it fails rather than skips"
        );
    }
    let lab = Lab::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/approvals/page.py");
    let out = Command::new("python3")
        .arg(script)
        .args([Path::new(SB), &lab.ws, &lab.outside, &lab.home])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success() && said.contains("page: all 8 steps passed"), "{said}");
}

#[test]
fn a_request_adds_hosts_for_one_run_and_never_one_a_deny_entry_names() {
    lab::require_landlock();
    let user = User::Root;
    let lab = lab_for(user);
    let (own, port) = served_here();
    let program = approver(&lab, user, "allow-once", 0);
    let config = system_file(
        &lab,
        user,
        &format!(
            "[network]\nallow = [\"pypi.org\"]\ndeny = [\"blocked.example\"]\n[approval]\nprogram = \"{}\"\n",
            program.display()
        ),
    );
    let env: [(&str, &Path); 1] = [(SYSTEM, &config)];
    let fetch = format!("curl -s --max-time 20 http://{own}:{port}/x");
    let out = run(&lab, user, "0467", &fetch, &env);
    hints(&out, &format!("0467 host {own}:{port}"));
    // Granted: this run reaches it through the proxy.
    let out = run(&lab, user, "0467", &request(&format!("0467 host {own}:{port}"), "the docs", &fetch), &env);
    assert_eq!(text(&out.stdout), "SERVED\n", "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&format!("and the hosts {own}:{port}")), "{}", text(&out.stderr));
    assert_eq!(asked(&lab)[0]["hosts"][0], format!("{own}:{port}"));
    // The next run is back to the list.
    let out = run(&lab, user, "0467", &fetch, &env);
    assert_eq!(out.status.code(), Some(126));
    // A host no denial named, or one the deny list names: never asked.
    let out = run(&lab, user, "0467", &request(&format!("0467 host {own}:{port},pypi.org"), "x", &fetch), &env);
    denied_with(&out, "names the host pypi.org, which the program is not refused");
    let blocked = "curl -s https://blocked.example/";
    let out = run(&lab, user, "0467", blocked, &env);
    assert!(!text(&out.stderr).contains("sandbox-bash: request:"), "{}", text(&out.stderr));
    let out = run(&lab, user, "0467", &request("0467 host blocked.example:443", "x", blocked), &env);
    denied_with(&out, "is forbidden: the deny entry \"blocked.example\"");
    assert_eq!(asked(&lab).len(), 1);
}

#[test]
fn what_the_kernel_and_the_proxy_refused_ends_with_the_hint_and_that_request_is_granted() {
    lab::require_landlock();
    for user in USERS {
        let lab = lab_for(user);
        let target = lab.outside.join("report.txt");
        // Python writes it: no word of the program names it, the kernel refuses it.
        let write = format!("python3 -c 'open(\"{}\", \"w\").write(\"done\")'", target.display());
        let program = approver(&lab, user, "allow-once", 0);
        let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\n", program.display()));
        // Code the analysis cannot see asks for nothing the kernel has not refused here lately.
        let out = run(&lab, user, "0467", &request("7777", "everything", &write), &[(SYSTEM, &config)]);
        denied_with(&out, "which no word of the program needs and the kernel has not refused in this workspace lately");
        assert!(asked(&lab).is_empty());
        let out = run(&lab, user, "0467", &write, &[]);
        hints(&out, "0667");
        assert!(!target.exists());
        // Now what the kernel refused may be asked, and no more.
        let out = run(&lab, user, "0467", &request("4667", "more", &write), &[(SYSTEM, &config)]);
        denied_with(&out, "the kernel has not refused in this workspace lately");
        let out = run(&lab, user, "0467", &request("0667", "python writes the report", &write), &[(SYSTEM, &config)]);
        assert_eq!(out.status.code(), Some(0), "{user:?}: {}", text(&out.stderr));
        assert_eq!(lab::read(&target), "done");
        let q = &asked(&lab)[0];
        assert_eq!(q["missing"][0]["bit"], "0200", "{q}");
        assert!(q["missing"][0]["reason"].as_str().unwrap().contains("code the analysis cannot see"), "{q}");
        // Under a ceiling that does not allow it, no hint.
        std::fs::remove_file(&target).unwrap();
        let capped = system_file(&lab, user, "max_mode = \"0467\"\n");
        let out = run(&lab, user, "0467", &write, &[(SYSTEM, &capped)]);
        assert!(!text(&out.stderr).contains("sandbox-bash: request:"), "{}", text(&out.stderr));
    }
    // The proxy: a host in a word the analysis cannot know.
    let user = User::Root;
    let lab = lab_for(user);
    let (own, port) = served_here();
    let where_to = lab.ws.join("where");
    std::fs::write(&where_to, format!("http://{own}:{port}/x")).unwrap();
    let fetch = format!("curl -s --max-time 20 \"$(cat {})\"", where_to.display());
    let program = approver(&lab, user, "allow-once", 0);
    let config = system_file(
        &lab,
        user,
        &format!("[network]\nallow = [\"pypi.org\"]\n[approval]\nprogram = \"{}\"\n", program.display()),
    );
    let env: [(&str, &Path); 1] = [(SYSTEM, &config)];
    let out = run(&lab, user, "0467", &fetch, &env);
    hints(&out, &format!("0467 host {own}:{port}"));
    let out = run(&lab, user, "0467", &request(&format!("0467 host {own}:{port}"), "docs", &fetch), &env);
    assert_eq!(text(&out.stdout), "SERVED\n", "{}", text(&out.stderr));
}

#[test]
fn a_request_where_clients_put_the_command_is_read_and_a_stale_marker_does_not_undo_a_grant() {
    lab::require_landlock();
    let user = User::Root;
    let lab = lab_for(user);
    let program = approver(&lab, user, "allow-once", 0);
    let config = system_file(&lab, user, &format!("[approval]\nprogram = \"{}\"\n", program.display()));
    let env: [(&str, &Path); 1] = [(SYSTEM, &config)];
    // Inside a client's own lines (Gemini CLI: a subshell with a trap first).
    let (target, write) = write_outside(&lab, "a");
    let wrapped =
        format!("shopt -u nullglob; f=x\n(\n  trap 'true' EXIT\n{}\n)\nexit $?", request("0667", "wrapped", &write));
    let out = run(&lab, user, "0467", &wrapped, &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(target.exists());
    // Such a line that asks for nothing is only a comment there.
    let out = run(&lab, user, "0467", "cat <<'EOF'\n# sandbox-bash: request 0667 because docs\nEOF", &env);
    assert_eq!(text(&out.stdout), "# sandbox-bash: request 0667 because docs\n", "{}", text(&out.stderr));
    // A nested level whose marker was replaced by a stale one (a client's shell snapshot
    // exports the marker of the call it was taken in) still runs the request its enclosing
    // level was granted.
    let stale = run(&lab, user, "0467", "printf %s \"$SANDBOX_BASH_ENFORCED\"", &[]);
    let stale = text(&stale.stdout);
    assert!(stale.starts_with("0467"), "{stale}");
    let (target, write) = write_outside(&lab, "b");
    let inner = request("0667", "nested", &write);
    let outer = format!("export SANDBOX_BASH_ENFORCED='{stale}'\nexec {SB} -c '{}'", inner.replace('\'', "'\\''"));
    let out = run(&lab, user, "0467", &outer, &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(target.exists());
    assert_eq!(asked(&lab).len(), 2, "the nested level asked again");
    // Without the grant, the same nested request is denied.
    let (target, write) = write_outside(&lab, "c");
    let inner = request("0667", "nested", &write);
    let outer = format!("p=$(cat {}); {SB} -c \"$p\"", lab.outside.join("inner").display());
    std::fs::write(lab.outside.join("inner"), inner).unwrap();
    let out = run(&lab, user, "0467", &outer, &env);
    denied_with(&out, "made inside another sandbox-bash");
    assert!(!target.exists());
}
