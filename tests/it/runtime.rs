//! What ordinary development work needs must keep working under the default mode (0467)
//! with the kernel layer on: a temporary git workspace, the machine's real toolchains.
#![cfg(target_os = "linux")]

use crate::lab;

use std::io::{Read, Write};

use lab::{Lab, ok, read, text};

/// A lab that keeps the real home directory and PATH, so toolchains installed there work.
fn lab() -> Lab {
    let mut lab = Lab::new();
    lab.fake_home = false;
    lab
}

#[test]
fn git_workflow() {
    let lab = lab();
    let out = ok(&lab.run(
        "0467",
        "git init -q . && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm first \
         && echo more >> file.txt && git diff --stat && git -c user.name=t -c user.email=t@example.com commit -qam second \
         && git log --oneline | wc -l",
    ));
    assert!(out.contains("1 file changed"), "{out}");
    assert!(out.trim_end().ends_with('2'), "{out}");
}

#[test]
fn python_tempfile_multiprocessing_subprocess_asyncio() {
    let lab = lab();
    std::fs::write(
        lab.ws.join("t.py"),
        r#"
import asyncio, multiprocessing, subprocess, tempfile

def square(x):
    return x * x

async def main():
    p = await asyncio.create_subprocess_exec("echo", "async", stdout=asyncio.subprocess.PIPE)
    out, _ = await p.communicate()
    r, w = await asyncio.open_connection(*(await start()))
    w.write(b"ping\n"); await w.drain()
    line = await r.readline()
    return out.decode().strip(), line.decode().strip()

async def start():
    async def echo(reader, writer):
        writer.write(await reader.readline()); await writer.drain(); writer.close()
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server.sockets[0].getsockname()[:2]

if __name__ == "__main__":
    with tempfile.NamedTemporaryFile("w+") as f:
        f.write("temp"); f.flush(); f.seek(0); assert f.read() == "temp"
    with multiprocessing.Pool(2) as pool:
        assert pool.map(square, [1, 2, 3]) == [1, 4, 9]
    lock = multiprocessing.Lock(); lock.acquire(); lock.release()
    assert subprocess.run(["true"]).returncode == 0
    print(asyncio.run(main()))
"#,
    )
    .unwrap();
    let out = ok(&lab.run("0467", "python3 t.py"));
    assert_eq!(out.trim(), "('async', 'ping')");
}

#[test]
fn node_child_process() {
    let lab = lab();
    let out = ok(&lab.run(
        "0467",
        "node -e 'const cp = require(\"child_process\"); console.log(cp.execSync(\"echo from-child\").toString().trim())'",
    ));
    assert_eq!(out.trim(), "from-child");
}

#[test]
fn make_and_a_cargo_crate_built_offline() {
    let lab = lab();
    std::fs::write(lab.ws.join("Makefile"), "all:\n\techo built > out.txt\n").unwrap();
    ok(&lab.run("0467", "make -s"));
    assert_eq!(read(&lab.ws.join("out.txt")), "built\n");

    let krate = lab.ws.join("tiny");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(krate.join("Cargo.toml"), "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .unwrap();
    std::fs::write(krate.join("src/main.rs"), "fn main() { println!(\"tiny runs\"); }\n").unwrap();
    let out = ok(&lab.run("0467", "cd tiny && cargo build --offline -q && ./target/debug/tiny"));
    assert_eq!(out.trim(), "tiny runs");
}

#[test]
fn curl_to_a_loopback_server() {
    let lab = lab();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = conn.read(&mut buf).unwrap();
        conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello").unwrap();
    });
    let out = ok(&lab.run("0467", &format!("curl -s http://127.0.0.1:{port}/")));
    assert_eq!(out, "hello");
    server.join().unwrap();
}

#[test]
fn temporary_files_large_heredocs_and_standard_streams() {
    let lab = lab();
    let out = ok(&lab.run("0467", "d=$(mktemp -d) && echo hi > \"$d/f\" && cat \"$d/f\" && rm -r \"$d\""));
    assert_eq!(out, "hi\n");

    // Over 64 KiB, bash writes the here-document to a temporary file.
    let body = "x".repeat(100 * 1024);
    let out = ok(&lab.run("0467", &format!("wc -c <<'EOF'\n{body}\nEOF")));
    assert_eq!(out.trim(), (body.len() + 1).to_string());

    // Standard error redirected by the caller to a file outside the workspace.
    let log = lab.outside.join("stderr.log");
    let file = std::fs::File::create(&log).unwrap();
    let out = lab.command("0467", "echo to-stderr >/dev/stderr").stderr(file).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(read(&log), "to-stderr\n");
}

#[test]
fn processes_and_proc_self() {
    let lab = lab();
    let out = ok(&lab.run("0467", "ps -o pid,comm && cat /proc/self/status | grep -c '^Name:'"));
    assert!(out.contains("PID"), "{out}");
    assert!(out.trim_end().ends_with('1'), "{out}");
    let all = text(&lab.run("0467", "ls /proc/self/fd").stdout);
    assert!(all.contains('0'), "{all}");
}
