//! The kernel layer, for real, on this kernel: every row of the mapping with a positive
//! control (the action works where the mode allows it) and a denial through a form the static
//! layer cannot resolve (Python or Perl code, a path read from a file), asserting EACCES or
//! EPERM and that the target is unchanged.
#![cfg(target_os = "linux")]

use crate::lab;

use lab::{Lab, kernel_refused, ok, py, read, text};

#[test]
fn workspace_write_and_execute_follow_the_workspace_digit() {
    let lab = Lab::new();
    let target = lab.ws.join("file.txt");
    let write = py(&format!("open('{}', 'w').write('changed')", target.display()));
    kernel_refused(&lab.run("0445", &write), &[]);
    assert_eq!(read(&target), "workspace data\n");
    ok(&lab.run("0447", &write));
    assert_eq!(read(&target), "changed");

    // Execute: a copy of `true` in the workspace. Every interpreter needs workspace execute
    // statically, so the script comes on standard input, which is not checked statically yet.
    std::fs::copy("/bin/true", lab.ws.join("mytrue")).unwrap();
    kernel_refused(&lab.run_stdin("0446", "./mytrue\n"), &[]);
    ok(&lab.run_stdin("0447", "./mytrue\n"));
}

#[test]
fn external_tree_follows_the_external_digit() {
    let lab = Lab::new();
    let file = lab.outside.join("file.txt");
    let readp = py(&format!("print(open('{}').read(), end='')", file.display()));
    assert_eq!(ok(&lab.run("0467", &readp)), "outside data\n");
    kernel_refused(&lab.run("0067", &readp), &[]);

    // Writing, creating and deleting.
    let write = py(&format!("open('{}', 'a').write('more')", file.display()));
    let create = py(&format!("open('{}', 'w').write('new')", lab.outside.join("new.txt").display()));
    let delete = py(&format!("import os; os.unlink('{}')", file.display()));
    for program in [&write, &create, &delete] {
        kernel_refused(&lab.run("0467", program), &[]);
    }
    assert_eq!(read(&file), "outside data\n");
    assert!(!lab.outside.join("new.txt").exists());
    ok(&lab.run("0667", &create));
    assert_eq!(read(&lab.outside.join("new.txt")), "new");

    // Execute.
    std::fs::copy("/bin/true", lab.outside.join("mytrue")).unwrap();
    let exec =
        py(&format!("import subprocess; subprocess.run(['{}'], check=True)", lab.outside.join("mytrue").display()));
    kernel_refused(&lab.run("0467", &exec), &[]);
    ok(&lab.run("0567", &exec));
}

#[test]
fn system_paths_follow_the_system_digit() {
    let lab = Lab::new();
    let canary = lab.canary();
    std::fs::write(lab.ws.join("where"), canary.display().to_string()).unwrap();
    // A path the static layer cannot see: read from a file at run time.
    let cat = "p=$(cat where); cat \"$p\"";
    kernel_refused(&lab.run("0467", cat), &[]);
    assert_eq!(ok(&lab.run("4467", cat)), "SYSTEM CANARY\n");

    let write = py(&format!("open('{}', 'w').write('owned')", canary.display()));
    kernel_refused(&lab.run("4467", &write), &[]);
    assert_eq!(read(&canary), "SYSTEM CANARY\n");
    ok(&lab.run("6467", &write));
    assert_eq!(read(&canary), "owned");
}

#[test]
fn credentials_in_the_home_directory_need_system_read() {
    let lab = Lab::new();
    let key = lab.home.join(".ssh/id_ed25519");
    let readp = py(&format!("print(open('{}').read(), end='')", key.display()));
    let denied = lab.run("0467", &readp);
    kernel_refused(&denied, &[]);
    assert!(!text(&denied.stdout).contains("CANARY"));
    assert_eq!(ok(&lab.run("4467", &readp)), "PRIVATE KEY CANARY\n");
    // A temporary directory set among the credentials does not make them scratch.
    let via_tmpdir = lab.command("0467", &readp).env("TMPDIR", lab.home.join(".ssh")).output().unwrap();
    kernel_refused(&via_tmpdir, &[]);
    assert!(!text(&via_tmpdir.stdout).contains("CANARY"));
    // The rest of the home directory is external: readable under the default mode.
    std::fs::write(lab.home.join("notes.txt"), "notes\n").unwrap();
    let notes = py(&format!("print(open('{}').read(), end='')", lab.home.join("notes.txt").display()));
    assert_eq!(ok(&lab.run("0467", &notes)), "notes\n");
}

#[test]
fn credentials_nested_in_readable_home_directories_stay_closed() {
    let lab = Lab::new();
    let cargo = lab.home.join(".cargo/credentials.toml");
    let gcloud = lab.home.join(".config/gcloud/application_default_credentials.json");
    let other = lab.home.join(".config/app/settings.toml");
    for (path, text) in [(&cargo, "CARGO TOKEN CANARY\n"), (&gcloud, "GCLOUD CANARY\n"), (&other, "settings\n")] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let reader = |p: &std::path::Path| py(&format!("print(open('{}').read(), end='')", p.display()));
    for secret in [&cargo, &gcloud] {
        let out = lab.run("0467", &reader(secret));
        kernel_refused(&out, &[]);
        assert!(!text(&out.stdout).contains("CANARY"));
        // Positive control: system read opens them.
        assert!(ok(&lab.run("4467", &reader(secret))).contains("CANARY"));
    }
    // Their neighbours are ordinary external files.
    assert_eq!(ok(&lab.run("0467", &reader(&other))), "settings\n");
}

#[test]
fn a_workspace_that_is_the_home_directory_still_keeps_its_credentials_closed() {
    let lab = Lab::new();
    std::fs::write(lab.home.join("notes.txt"), "notes\n").unwrap();
    let key = lab.home.join(".ssh/id_ed25519");
    let run = |mode: &str, program: &str| {
        lab.command(mode, program).current_dir(&lab.home).env("SANDBOX_BASH_WORKSPACE", &lab.home).output().unwrap()
    };
    let read_key = py(&format!("print(open('{}').read(), end='')", key.display()));
    let out = run("0467", &read_key);
    kernel_refused(&out, &[]);
    assert!(!text(&out.stdout).contains("CANARY"));
    assert!(ok(&run("4467", &read_key)).contains("CANARY"));
    // The rest of the workspace has the workspace bits.
    assert_eq!(ok(&run("0467", &py("print(open('notes.txt').read(), end='')"))), "notes\n");
    ok(&run("0467", &py("open('notes.txt', 'a').write('more')")));
    assert_eq!(read(&lab.home.join("notes.txt")), "notes\nmore");
}

#[test]
fn start_up_files_of_the_home_stay_unwritable_even_with_external_write() {
    let lab = Lab::new();
    let rc = lab.home.join(".bashrc");
    let notes = lab.home.join("notes.txt");
    std::fs::write(&rc, "original\n").unwrap();
    std::fs::write(&notes, "notes\n").unwrap();
    let append = |p: &std::path::Path| py(&format!("open('{}', 'a').write('added')", p.display()));
    kernel_refused(&lab.run("0667", &append(&rc)), &[]);
    assert_eq!(read(&rc), "original\n");
    // Positive controls: another file of the home with external write, and the start-up file
    // itself with system write.
    ok(&lab.run("0667", &append(&notes)));
    assert_eq!(read(&notes), "notes\nadded");
    ok(&lab.run("2667", &append(&rc)));
    assert_eq!(read(&rc), "original\nadded");
}

#[test]
fn symlinks_planted_in_the_workspace_do_not_reach_outside() {
    let lab = Lab::new();
    let canary = lab.canary();
    // Planted before the run, and planted by the sandboxed command itself.
    std::os::unix::fs::symlink(&canary, lab.ws.join("link")).unwrap();
    let via_link = py("print(open('link').read(), end='')");
    kernel_refused(&lab.run("0467", &via_link), &[]);
    assert_eq!(ok(&lab.run("4467", &via_link)), "SYSTEM CANARY\n");

    let plant = py(&format!(
        "import os; os.symlink('{}', 'mine'); open('mine', 'a').write('x')",
        lab.outside.join("file.txt").display()
    ));
    kernel_refused(&lab.run("0467", &plant), &[]);
    assert_eq!(read(&lab.outside.join("file.txt")), "outside data\n");
    assert!(lab.ws.join("mine").symlink_metadata().is_ok(), "creating the link itself is allowed");
    // Positive control: with external write the same write goes through.
    let again = py("open('mine', 'a').write('x')");
    ok(&lab.run("0667", &again));
    assert_eq!(read(&lab.outside.join("file.txt")), "outside data\nx");
}

#[test]
fn hardlinks_cannot_pull_outside_files_into_the_workspace() {
    let lab = Lab::new();
    let link = |from: &std::path::Path, to: &str| py(&format!("import os; os.link('{}', '{}')", from.display(), to));
    // Landlock refuses a link that would give a file more rights than it has where it is
    // (EXDEV), for an external file and for a system one.
    for from in [lab.outside.join("file.txt"), lab.canary()] {
        let out = lab.run("0467", &link(&from, "pulled"));
        kernel_refused(&out, &["Errno 18", "Invalid cross-device link"]);
        assert!(!lab.ws.join("pulled").exists());
    }
    // Positive control: a hard link inside the workspace.
    ok(&lab.run("0467", &link(&lab.ws.join("file.txt"), "twin")));
    assert_eq!(read(&lab.ws.join("twin")), "workspace data\n");
}

#[test]
fn proc_self_root_is_the_same_filesystem() {
    let lab = Lab::new();
    let through_proc = py(&format!("print(open('/proc/self/root{}').read(), end='')", lab.canary().display()));
    kernel_refused(&lab.run("0467", &through_proc), &[]);
    assert_eq!(ok(&lab.run("4467", &through_proc)), "SYSTEM CANARY\n");
}

#[test]
fn the_callers_environment_and_the_caller_itself_are_out_of_reach() {
    let lab = Lab::new();
    let mut caller =
        std::process::Command::new("sleep").arg("30").env("SANDBOX_TEST_SECRET", "s3cr3t-canary").spawn().unwrap();
    let pid = caller.id();
    // Positive control: its own /proc entry is readable.
    assert!(ok(&lab.run("0467", &py("print(len(open('/proc/self/environ','rb').read()) > 0)"))).contains("True"));
    let environ = lab.run("0467", &py(&format!("print(open('/proc/{pid}/environ','rb').read())")));
    kernel_refused(&environ, &[]);
    assert!(!text(&environ.stdout).contains("s3cr3t-canary"));
    // Even with every bit but system execute (which keeps a root caller's CAP_SYS_PTRACE),
    // the caller cannot be traced or have its memory or environment read.
    let environ = lab.run("6777", &py(&format!("print(open('/proc/{pid}/environ','rb').read())")));
    kernel_refused(&environ, &[]);
    assert!(!text(&environ.stdout).contains("s3cr3t-canary"));

    // The real caller (this test process, bash's parent): its environment and signals.
    let ppid_environ =
        lab.run("0467", "python3 -c 'import sys; print(open(\"/proc/\" + sys.argv[1] + \"/environ\").read())' $PPID");
    kernel_refused(&ppid_environ, &[]);
    let ppid_signal = lab.run("0467", "python3 -c 'import os, sys; os.kill(int(sys.argv[1]), 0)' $PPID");
    kernel_refused(&ppid_signal, &[]);
    // Positive control: signal 0 to its own shell is allowed.
    ok(&lab.run("0467", "python3 -c 'import os, sys; os.kill(int(sys.argv[1]), 0)' $$"));

    // Signals: to its own child yes, to the caller no.
    ok(&lab.run("0467", &py("import subprocess, os, signal; p = subprocess.Popen(['sleep', '5']); os.kill(p.pid, signal.SIGTERM); p.wait()")));
    let kill = lab.run("0467", &py(&format!("import os, signal; os.kill({pid}, signal.SIGTERM)")));
    kernel_refused(&kill, &[]);
    assert!(caller.try_wait().unwrap().is_none(), "the caller was killed");
    caller.kill().unwrap();
    caller.wait().unwrap();
}

#[test]
fn network_off_stops_tcp_and_udp_and_network_on_lets_them_through() {
    use std::io::Read;
    use std::net::{TcpListener, UdpSocket};
    use std::time::Duration;
    let lab = Lab::new();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let tcp_port = tcp.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let send = py(&format!(
        "import socket\n\
         s = socket.create_connection(('127.0.0.1', {tcp_port}), timeout=5); s.sendall(b'tcp-hello'); s.close()\n\
         u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b'udp-hello', ('127.0.0.1', {udp_port}))"
    ));
    let udp_only = py(&format!(
        "import socket; u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b'udp-hello', ('127.0.0.1', {udp_port}))"
    ));
    let ipv6 = py("import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)");
    let mut buf = [0u8; 64];

    for program in [&send, &udp_only, &ipv6] {
        kernel_refused(&lab.run("0407", program), &[]);
    }
    assert!(tcp.accept().is_err(), "the TCP listener received a connection with the network off");
    assert!(udp.recv(&mut buf).is_err(), "the UDP listener received a datagram with the network off");
    // Unix sockets stay: local IPC must work with the network off.
    ok(&lab.run("0407", &py("import socket; a, b = socket.socketpair(); a.send(b'x'); assert b.recv(1) == b'x'")));

    // Positive control: with network read+write both arrive.
    ok(&lab.run("0467", &send));
    tcp.set_nonblocking(false).unwrap();
    let (mut conn, _) = tcp.accept().unwrap();
    let mut got = Vec::new();
    conn.read_to_end(&mut got).unwrap();
    assert_eq!(got, b"tcp-hello");
    let n = udp.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"udp-hello");
}

#[test]
fn status_shows_no_new_privs_seccomp_and_dropped_capabilities() {
    let lab = Lab::new();
    let status = |mode: &str| -> String { ok(&lab.run(mode, &py("print(open('/proc/self/status').read())"))) };
    let field = |s: &str, name: &str| -> String {
        s.lines()
            .find(|l| l.starts_with(&format!("{name}:")))
            .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
            .unwrap_or_default()
    };
    let s = status("0467");
    assert_eq!(field(&s, "NoNewPrivs"), "1");
    assert_eq!(field(&s, "Seccomp"), "2");
    assert!(field(&s, "Seccomp_filters").parse::<u32>().unwrap() >= 1);
    let bnd = u64::from_str_radix(&field(&s, "CapBnd"), 16).unwrap();
    let eff = u64::from_str_radix(&field(&s, "CapEff"), 16).unwrap();
    for (cap, name) in [
        (21, "CAP_SYS_ADMIN"),
        (16, "CAP_SYS_MODULE"),
        (22, "CAP_SYS_BOOT"),
        (25, "CAP_SYS_TIME"),
        (12, "CAP_NET_ADMIN"),
        (19, "CAP_SYS_PTRACE"),
        (7, "CAP_SETUID"),
    ] {
        assert_eq!(bnd & (1 << cap), 0, "{name} still in the bounding set");
        assert_eq!(eff & (1 << cap), 0, "{name} still effective");
    }
    // SAFETY: geteuid only reads the caller's credentials.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        // Positive control: with system execute a root caller keeps them.
        let s = status("1467");
        let bnd = u64::from_str_radix(&field(&s, "CapBnd"), 16).unwrap();
        assert_ne!(bnd & (1 << 21), 0, "system execute must keep CAP_SYS_ADMIN for a root caller");
        assert_eq!(field(&s, "NoNewPrivs"), "1");
    } else {
        eprintln!("NOTE: not running as root: the positive control for kept capabilities needs root");
    }
}

#[test]
fn read_only_audit_changes_nothing_in_the_workspace() {
    let lab = Lab::new();
    std::fs::write(lab.ws.join("rmme"), "rm\n").unwrap();
    std::fs::write(lab.ws.join("what"), "rm").unwrap();
    let target = lab.ws.join("file.txt");
    let attempts = [
        "echo changed > file.txt".to_string(),
        "echo new > created.txt".to_string(),
        py("open('file.txt', 'w').write('changed')"),
        py("open('created.txt', 'w').write('new')"),
        py("import os; os.unlink('rmme')"),
        py("import os; os.mkdir('newdir')"),
        "perl -e 'open(my $f, \">\", \"file.txt\") or die \"open: $!\\n\"; print $f \"changed\"'".to_string(),
        "perl -e 'unlink(\"rmme\") or die \"unlink: $!\\n\"'".to_string(),
        "c=$(cat what); $c rmme".to_string(),
        py("import subprocess; subprocess.run(['git', 'init', '-q', '.'], check=True)"),
        "git init -q .".to_string(),
    ];
    for program in &attempts {
        let out = lab.run("0444", program);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        let denied = all.contains("sandbox-bash: denied:");
        let refused =
            ["Permission denied", "Operation not permitted", "Errno 13", "Errno 1]"].iter().any(|w| all.contains(w));
        assert!(denied || refused, "{program}: neither a denial nor EACCES/EPERM:\n{all}");
        assert_ne!(out.status.code(), Some(0), "{program}: reported success");
    }
    assert_eq!(read(&target), "workspace data\n");
    assert_eq!(read(&lab.ws.join("rmme")), "rm\n");
    for made in ["created.txt", "newdir", ".git"] {
        assert!(!lab.ws.join(made).exists(), "{made} was created in a read-only audit");
    }
    // Reading still works, and the same writes work under the default mode.
    assert_eq!(ok(&lab.run("0444", "cat file.txt")), "workspace data\n");
    ok(&lab.run("0467", &py("open('created.txt', 'w').write('new')")));
    assert!(lab.ws.join("created.txt").exists());
}

#[test]
fn an_inner_invocation_asking_for_everything_still_cannot_read_what_the_outer_forbids() {
    let lab = Lab::new();
    std::fs::write(lab.ws.join("where"), lab.canary().display().to_string()).unwrap();
    // The inner one asks for 7777 and the outer's marker is removed (from Python, which the
    // static layer cannot see into): only the kernel stops it.
    let inner = "p=$(cat where); cat \"$p\"";
    let program = py(&format!(
        "import os, subprocess, sys\n\
         os.environ.pop('SANDBOX_BASH_ENFORCED', None); os.environ['BASH_AGENT_BASH_MODE'] = '7777'\n\
         sys.exit(subprocess.run(['{}', '-c', {inner:?}]).returncode)",
        lab::SB
    ));
    let out = lab.run("0467", &program);
    kernel_refused(&out, &[]);
    assert!(!text(&out.stdout).contains("CANARY"));
    // Positive control: the outer allows system read, so the inner can.
    assert_eq!(ok(&lab.run("4467", &program)), "SYSTEM CANARY\n");
}

#[test]
fn twenty_levels_deep_work_and_keep_the_mode() {
    let lab = Lab::new();
    std::fs::write(lab.ws.join("where"), lab.canary().display().to_string()).unwrap();
    let step = format!(
        "if [ \"$1\" -lt 20 ]; then {} -c \"$NEST\" level $(( $1 + 1 )); else echo \"level $1\"; \
         echo x > deep.txt; p=$(cat where); cat \"$p\"; fi",
        lab::SB
    );
    let out = lab
        .command("0467", "$SB_TEST -c \"$NEST\" level 1")
        .env("NEST", &step)
        .env("SB_TEST", lab::SB)
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(all.contains("level 20"), "{all}");
    assert_eq!(read(&lab.ws.join("deep.txt")), "x\n", "workspace write at level 20");
    assert!(all.contains("Permission denied"), "the system canary must stay unreadable 20 levels down:\n{all}");
    assert!(!all.contains("SYSTEM CANARY"));
}

#[test]
fn nested_invocations_keep_the_workspace_of_the_enclosing_one() {
    // A workspace outside any git work tree, named only by SANDBOX_BASH_WORKSPACE, which is not
    // passed on: the inner invocation, started in a subdirectory, must still see it.
    let lab = Lab::new();
    let home = std::env::var("HOME").expect("HOME");
    let base = std::path::Path::new(&home).join(".cache/sandbox-bash-tests");
    std::fs::create_dir_all(&base).unwrap();
    let root = tempfile::Builder::new().prefix("sbx-nogit-").tempdir_in(&base).unwrap();
    let mut up = root.path().to_path_buf();
    while up.pop() {
        assert!(!up.join(".git").exists(), "this test needs a place outside git work trees");
    }
    let ws = root.path().join("ws");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    let out = lab
        .command("0467", &format!("cd sub && {} -c 'echo x > ../top.txt'", lab::SB))
        .current_dir(&ws)
        .env("SANDBOX_BASH_WORKSPACE", &ws)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(read(&ws.join("top.txt")), "x\n");
}

/// Runs `program` under `mode` as `lab.command` does, in a mount namespace of its own where
/// `tree` is mounted over `/etc/ssl`: the machine's real directory is never touched.
fn with_own_etc_ssl(lab: &Lab, tree: &std::path::Path, mode: &str, program: &str) -> std::process::Output {
    let mount = [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        "mount --bind \"$0\" /etc/ssl && exec \"$@\"",
    ];
    let mut wrapper: Vec<&std::ffi::OsStr> = mount.iter().map(std::ffi::OsStr::new).collect();
    wrapper.push(tree.as_os_str());
    lab.wrapped(&wrapper, None, mode, program).output().unwrap()
}

#[test]
fn private_keys_beside_the_certificates_stay_closed() {
    let lab = Lab::new();
    let ssl = lab.outside.join("ssl");
    std::fs::create_dir_all(ssl.join("certs")).unwrap();
    std::fs::create_dir_all(ssl.join("private")).unwrap();
    std::fs::write(ssl.join("certs/ca.crt"), "CERT CANARY\n").unwrap();
    std::fs::write(ssl.join("openssl.cnf"), "# config\n").unwrap();
    std::fs::write(ssl.join("private/server.key"), "KEY CANARY\n").unwrap();
    // The mount itself works here (the test needs it, and says so when it does not).
    let probe = with_own_etc_ssl(&lab, &ssl, "4467", "cat /etc/ssl/certs/ca.crt");
    assert_eq!(ok(&probe), "CERT CANARY\n", "mounting a test tree over /etc/ssl in a mount namespace");

    let key = py("print(open('/etc/ssl/private/server.key').read(), end='')");
    let denied = with_own_etc_ssl(&lab, &ssl, "0467", &key);
    kernel_refused(&denied, &[]);
    assert!(!text(&denied.stdout).contains("KEY CANARY"));
    // Positive controls: the certificates and the configuration are readable in the same
    // mode, and the key is with system read.
    let cert = py("print(open('/etc/ssl/certs/ca.crt').read() + open('/etc/ssl/openssl.cnf').read(), end='')");
    assert_eq!(ok(&with_own_etc_ssl(&lab, &ssl, "0467", &cert)), "CERT CANARY\n# config\n");
    assert_eq!(ok(&with_own_etc_ssl(&lab, &ssl, "4467", &key)), "KEY CANARY\n");
}

/// Runs `program` as `lab.command` does, or with the real bash (`real`), on a new pseudo-terminal
/// that is its controlling terminal; returns everything written to the terminal.
fn on_a_terminal(lab: &Lab, mode: &str, program: &str, real: Option<&str>) -> String {
    const ORCHESTRATE: &str = "import os, pty, sys\n\
pid, fd = pty.fork()\n\
if pid == 0:\n    os.execv(sys.argv[1], sys.argv[1:])\n\
out = b''\n\
while True:\n    try:\n        chunk = os.read(fd, 4096)\n    except OSError:\n        break\n    if not chunk:\n        break\n    out += chunk\n\
os.waitpid(pid, 0)\n\
sys.stdout.write(out.decode(errors='replace'))\n";
    let wrapper = [std::ffi::OsStr::new("python3"), std::ffi::OsStr::new("-c"), std::ffi::OsStr::new(ORCHESTRATE)];
    let mut c = lab.wrapped(&wrapper, real, mode, program);
    text(&c.output().unwrap().stdout)
}

#[test]
fn no_input_can_be_pushed_into_the_terminal() {
    let lab = Lab::new();
    // TIOCSTI puts characters into the terminal's input: the caller's shell would read and run
    // them after the command ends, outside the sandbox. TIOCLINUX can do the same on a console.
    let push = py("import fcntl, termios\n\
         for request in (termios.TIOCSTI, 0x541C):\n    \
             try:\n        fcntl.ioctl(0, request, b'x')\n        print('pushed', hex(request))\n    \
             except OSError as e:\n        print('refused', hex(request), e.errno)");
    // Positive control: the real bash lets it through (the test runs as root; a kernel that
    // refuses TIOCSTI to everyone would answer EIO, not EPERM).
    let bash = ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| std::path::Path::new(p).exists()).unwrap();
    let control = on_a_terminal(&lab, "0467", &push, Some(bash));
    assert!(
        control.contains("pushed 0x5412"),
        "TIOCSTI on a terminal of our own works outside the sandbox:\n{control}"
    );
    // Refused with EPERM by the filter in every mode, the widest included.
    for mode in ["0467", "0005", "7777"] {
        let out = on_a_terminal(&lab, mode, &push, None);
        assert!(out.contains("refused 0x5412 1"), "mode {mode}:\n{out}");
        assert!(out.contains("refused 0x541c 1"), "mode {mode}:\n{out}");
        assert!(!out.contains("pushed"), "mode {mode}:\n{out}");
    }
}

/// A file lease makes every other process that opens the file for writing wait for its holder
/// (45 seconds at each break, and the holder may take it again): refused in every mode, as root
/// too; giving one up and asking which one is held still reach the kernel (which answers EAGAIN
/// to giving up a lease not held).
#[test]
fn no_command_takes_a_file_lease() {
    let lab = Lab::new();
    let file = lab.ws.join("leased.txt");
    std::fs::write(&file, "x\n").unwrap();
    let code = format!(
        "import fcntl, os\n\
         fd = os.open({:?}, os.O_RDONLY)\n\
         print('held', fcntl.fcntl(fd, fcntl.F_GETLEASE))\n\
         try:\n    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)\n    print('leased')\n\
         except OSError as e:\n    print('refused', e.errno)\n\
         try:\n    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)\n    print('given up')\n\
         except OSError as e:\n    print('none to give up', e.errno)",
        file.display()
    );
    let take = py(&code);
    // Positive control: the same program outside the sandbox takes the lease.
    let control = std::process::Command::new("python3").arg("-c").arg(&code).output();
    let control = text(&control.unwrap().stdout);
    assert_eq!(control, "held 2\nleased\ngiven up\n", "a lease outside the sandbox");
    for mode in ["0467", "0005", "7777"] {
        let out = ok(&lab.run_stdin(mode, &take));
        assert_eq!(out, "held 2\nrefused 1\nnone to give up 11\n", "mode {mode}");
    }
}

/// The user's own tmux server runs what a client sends it, outside any sandbox: a literal
/// `tmux run-shell` or `send-keys` needs system execute, and is refused before it reaches the
/// server.
#[test]
fn a_terminal_multiplexers_server_is_not_asked_to_run_anything() {
    let lab = Lab::new();
    let sock = lab.outside.join("tmux.sock");
    let canary = lab.outside.join("TMUX_RAN");
    // The server's shell is named, and its one session runs a command that lasts: where the
    // caller's SHELL is unset, tmux takes the account's shell, and a session whose shell exits at
    // once ends the server with it.
    let tmux = |args: &[&str]| {
        std::process::Command::new("tmux").env("SHELL", "/bin/sh").arg("-S").arg(&sock).args(args).output()
    };
    let started = tmux(&["-f", "/dev/null", "new-session", "-d", "-s", "user", "sleep 600"])
        .expect("TMUX MISSING: this test starts a real tmux server outside the sandbox");
    assert!(started.status.success(), "{}", text(&started.stderr));
    for program in [
        format!("tmux -S {} run-shell 'touch {}'", sock.display(), canary.display()),
        format!("tmux -S {} send-keys -t user 'touch {}' Enter", sock.display(), canary.display()),
    ] {
        let out = lab.command("0467", &program).output().unwrap();
        assert_eq!(out.status.code(), Some(126), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("missing system execute"), "{}", text(&out.stderr));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!canary.exists(), "the user's tmux server ran a command it was sent");
    // Positive control: the same request from outside runs.
    let out = tmux(&["run-shell", &format!("touch {}", canary.display())]).unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(canary.exists());
    let _ = tmux(&["kill-server"]);
}

/// Servers outside, reached by code the analysis cannot see (Python connecting by path): the
/// view covers every socket bound when the run starts, so the user's tmux server (its socket
/// alone in its directory) and a little server that runs what it is sent (its socket beside
/// other files) are out of reach below system execute, as root and as nobody. The positive
/// control: at system execute the same program reaches both, and each runs the command.
#[test]
fn servers_outside_are_out_of_reach_below_system_execute() {
    use std::os::unix::process::CommandExt;
    for nobody in [false, true] {
        let lab = Lab::new();
        let owner = |c: &mut std::process::Command| {
            if nobody {
                c.uid(65534).gid(65534);
            }
        };
        let tmux_dir = lab.outside.join("tmux-user");
        let servers = lab.outside.join("servers");
        for d in [&tmux_dir, &servers] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(servers.join("README"), "a directory with a socket among files\n").unwrap();
        if nobody {
            for d in [&lab.ws, &lab.outside, &tmux_dir, &servers] {
                std::os::unix::fs::chown(d, Some(65534), Some(65534)).unwrap();
            }
            // Everything above the lab must be passable for nobody.
            let mut up = lab.outside.parent();
            while let Some(dir) = up {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(dir).unwrap().permissions().mode();
                assert!(mode & 0o001 != 0, "{} is not passable for nobody", dir.display());
                up = dir.parent();
            }
        }
        let tmux_sock = tmux_dir.join("default");
        let server_sock = servers.join("run.sock");
        let mut t = std::process::Command::new("tmux");
        // A named shell and a lasting session: nobody's own shell is nologin, and a session
        // whose shell exits at once ends the server with it.
        t.env("SHELL", "/bin/sh").arg("-S").arg(&tmux_sock);
        t.args(["-f", "/dev/null", "new-session", "-d", "-s", "user", "sleep 600"]);
        owner(&mut t);
        let started = t.output().expect("TMUX MISSING: this test starts a real tmux server outside the sandbox");
        assert!(started.status.success(), "{}", text(&started.stderr));
        let server_code = format!(
            "import socket, subprocess\n\
             s = socket.socket(socket.AF_UNIX)\ns.bind({:?})\ns.listen(4)\n\
             while True:\n    c, _ = s.accept()\n    subprocess.run(c.recv(4096).decode(), shell=True)\n    \
             c.send(b'ran')\n    c.close()",
            server_sock.display()
        );
        let mut server = std::process::Command::new("python3");
        server.arg("-c").arg(&server_code).stdin(std::process::Stdio::null());
        owner(&mut server);
        let mut server = server.spawn().unwrap();
        for _ in 0..100 {
            if server_sock.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(server_sock.exists(), "the little server did not start");
        let tmux_canary = lab.outside.join("TMUX_RAN");
        let server_canary = lab.outside.join("SERVER_RAN");
        let attack = py(&format!(
            "import socket, subprocess\n\
             r = subprocess.run([\"tmux\", \"-S\", {tmux:?}, \"run-shell\", \"touch {tc}\"], capture_output=True)\n\
             print(\"tmux\", r.returncode)\n\
             s = socket.socket(socket.AF_UNIX)\n\
             try:\n    s.connect({srv:?})\n    s.send(b\"touch {sc}\")\n    print(\"server\", s.recv(8).decode())\n\
             except OSError as e:\n    print(\"server refused\", e.errno)",
            tmux = tmux_sock.display().to_string(),
            tc = tmux_canary.display(),
            srv = server_sock.display().to_string(),
            sc = server_canary.display(),
        ));
        let run = |mode: &str| {
            let mut c = lab.command(mode, &attack);
            owner(&mut c);
            c.output().unwrap()
        };
        for mode in ["0467", "0777", "0005"] {
            let out = ok(&run(mode));
            std::thread::sleep(std::time::Duration::from_millis(300));
            assert!(!tmux_canary.exists(), "nobody={nobody} {mode}: the tmux server ran a command:\n{out}");
            assert!(!server_canary.exists(), "nobody={nobody} {mode}: the server ran a command:\n{out}");
            assert!(out.starts_with("tmux 1\n"), "nobody={nobody} {mode}:\n{out}");
            // The path leads to a stand-in, not to the socket: ECONNREFUSED (not a socket), or
            // EACCES for a user who may not write the stand-in.
            let refused = if nobody { "server refused 13\n" } else { "server refused 111\n" };
            assert!(out.ends_with(refused), "nobody={nobody} {mode}:\n{out}");
        }
        // Positive control: at system execute both servers are reached, and run the command.
        let out = ok(&run("1467"));
        assert_eq!(out, "tmux 0\nserver ran\n", "nobody={nobody}");
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(tmux_canary.exists() && server_canary.exists(), "nobody={nobody}");
        let _ = server.kill();
        let _ = server.wait();
        let mut k = std::process::Command::new("tmux");
        k.arg("-S").arg(&tmux_sock).arg("kill-server");
        owner(&mut k);
        let _ = k.output();
    }
}

/// A socket the configuration names stays reachable below system execute.
#[test]
fn a_socket_the_configuration_names_stays_reachable() {
    let lab = Lab::new();
    let sock = lab.outside.join("named.sock");
    let code = format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.bind({:?})\ns.listen(1)\n\
         c, _ = s.accept()\nc.send(b'hello')\nc.close()",
        sock.display()
    );
    let mut server = std::process::Command::new("python3").arg("-c").arg(&code).spawn().unwrap();
    for _ in 0..100 {
        if sock.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let config = lab.outside.join("config.toml");
    std::fs::write(&config, format!("[paths]\nsockets = [{:?}]\n", sock.display())).unwrap();
    let client = py(&format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({:?})\nprint(s.recv(8).decode())",
        sock.display()
    ));
    let out = ok(&lab.command("0467", &client).env("SANDBOX_BASH_CONFIG", &config).output().unwrap());
    assert_eq!(out, "hello\n");
    let _ = server.wait();
}

/// Descriptors the caller left open are judged like the paths and sockets they lead to: a
/// credential, a protected file open for writing, a protected file open for reading (which
/// /proc/self/fd would open again for writing), a directory (names below it resolve past the
/// view) and a TCP connection at a mode without network (`0407`) are closed before the lock, each named
/// on stderr; a pipe stays. As root and as nobody; the positive control at 7777 keeps them all
/// and the same program reads the key, writes both files and reaches the listener.
#[test]
fn descriptors_the_caller_left_open_are_judged_like_paths() {
    for nobody in [false, true] {
        let lab = Lab::new();
        let key = lab.home.join(".ssh/id_ed25519");
        let rc = lab.home.join(".bashrc");
        std::fs::write(&rc, "# the user's\n").unwrap();
        let git = lab.ws.join(".git");
        std::fs::create_dir_all(&git).unwrap();
        let config = git.join("config");
        std::fs::write(&config, "[core]\n").unwrap();
        if nobody {
            for p in [&lab.ws, &lab.outside, &lab.home, &lab.home.join(".ssh"), &key, &rc, &git, &config] {
                std::os::unix::fs::chown(p, Some(65534), Some(65534)).unwrap();
            }
        }
        // The caller: opens what a careless parent leaves behind, then starts sandbox-bash.
        let caller = format!(
            r#"
import os, socket, subprocess, sys
if {nobody}:
    os.setgid(65534); os.setuid(65534)
key = os.open({key:?}, os.O_RDONLY)
rc = os.open({rc:?}, os.O_WRONLY | os.O_APPEND)
cfg = os.open({config:?}, os.O_RDONLY)
ws = os.open({ws:?}, os.O_RDONLY | os.O_DIRECTORY)
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
tcp = socket.create_connection(server.getsockname())
pipe_r, pipe_w = os.pipe()
if os.path.exists({sock:?}):
    os.unlink({sock:?})
named = socket.socket(socket.AF_UNIX); named.bind({sock:?}); named.listen(4)
handle = os.open({sock:?}, os.O_PATH)
abstract = socket.socket(socket.AF_UNIX); abstract.bind("\0sb-test-%d" % os.getpid()); abstract.listen(4)
to_abstract = socket.socket(socket.AF_UNIX); to_abstract.connect("\0sb-test-%d" % os.getpid())
fds = [key, rc, cfg, ws, tcp.fileno(), pipe_r, handle, to_abstract.fileno()]
program = """python3 -c '
import os, socket, sys
key, rc, cfg, ws, tcp, pipe, handle, abstract = [int(a) for a in sys.argv[1:]]
def tryit(name, f):
    try:
        f(); print(name, "done")
    except OSError as e:
        print(name, "refused", e.errno)
tryit("key", lambda: os.read(key, 100) or 1/0)
tryit("rc", lambda: os.write(rc, b"PLANTED\\n"))
tryit("config", lambda: open("/proc/self/fd/%d" % cfg, "a").write("[core]\\n\\tfsmonitor = PLANTED\\n"))
tryit("dir", lambda: os.open(".git/config", os.O_WRONLY | os.O_APPEND, dir_fd=ws))
tryit("tcp", lambda: socket.socket(fileno=os.dup(tcp)).send(b"OUT"))
tryit("pipe", lambda: os.fstat(pipe))
tryit("handle", lambda: socket.socket(socket.AF_UNIX).connect("/proc/self/fd/%d" % handle))
tryit("abstract", lambda: socket.socket(fileno=os.dup(abstract)).send(b"OUT"))
' """ + " ".join(str(f) for f in fds)
env = dict(os.environ, BASH_AGENT_BASH_MODE=sys.argv[1])
r = subprocess.run([{sb:?}, "-c", program], pass_fds=fds, env=env, capture_output=True, text=True, cwd={ws:?})
print(r.stdout, end="")
print(r.stderr, end="", file=sys.stderr)
server.settimeout(1)
conn, _ = server.accept()
conn.settimeout(0.5)
try:
    print("listener got", conn.recv(10).decode() or "nothing")
except socket.timeout:
    print("listener got nothing")
"#,
            key = key.display().to_string(),
            rc = rc.display().to_string(),
            config = config.display().to_string(),
            ws = lab.ws.display().to_string(),
            sb = lab::SB,
            nobody = if nobody { "True" } else { "False" },
            sock = lab.outside.join("server.sock").display().to_string(),
        );
        let run = |mode: &str| {
            let mut c = std::process::Command::new("python3");
            c.arg("-c").arg(&caller).arg(mode);
            for (name, value) in lab.command(mode, "true").get_envs() {
                match value {
                    Some(v) => c.env(name, v),
                    None => c.env_remove(name),
                };
            }
            c.output().unwrap()
        };
        let out = run("0407");
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(
            stdout,
            "key refused 9\nrc refused 9\nconfig refused 2\ndir refused 9\ntcp refused 9\npipe done\nhandle refused 2\n\
             abstract refused 9\nlistener got nothing\n",
            "nobody={nobody}\n{stderr}"
        );
        for said in [
            "closed inherited descriptor",
            "id_ed25519, open for reading: the mode may not read it (credential path) (it needs 4000)",
            ".bashrc, open for writing: the mode may not write it (protected path) (it needs 2000)",
            "config, open for reading: the mode may not write it (protected path, which /proc/self/fd would \
             open again for writing) (it needs 2000)",
            "the directory",
            "a network socket (family 2): the mode has no network (it needs 0040)",
            "server.sock: a server outside the sandbox acts for its clients outside every rule (it needs 1000)",
            "a connection to the server at @sb-test-",
        ] {
            assert!(stderr.contains(said), "nobody={nobody}: {said:?}\n{stderr}");
        }
        assert_eq!(read(&rc), "# the user's\n");
        assert_eq!(read(&config), "[core]\n");
        // Positive control: where the mode gives all of it, every descriptor stays and works.
        let out = run("7777");
        assert_eq!(
            text(&out.stdout),
            "key done\nrc done\nconfig done\ndir done\ntcp done\npipe done\nhandle done\nabstract done\n\
             listener got OUT\n",
            "nobody={nobody}\n{}",
            text(&out.stderr)
        );
        assert!(read(&rc).contains("PLANTED") && read(&config).contains("PLANTED"), "nobody={nobody}");
    }
}

/// The user's real ssh-agent, with a key in it, reached by a path the command names itself
/// (the variable is removed from its environment, so it sets it again): below system execute
/// the agent's socket is covered, and `ssh-add -l` cannot list, let alone use, the key. The
/// positive control: at system execute the same program lists it.
#[test]
fn a_real_ssh_agent_is_out_of_reach_below_system_execute() {
    let lab = Lab::new();
    let sock = lab.outside.join("agent.sock");
    let agent = std::process::Command::new("ssh-agent")
        .arg("-a")
        .arg(&sock)
        .output()
        .expect("SSH-AGENT MISSING: this test starts a real ssh-agent outside the sandbox");
    assert!(agent.status.success(), "{}", text(&agent.stderr));
    let pid: String = text(&agent.stdout)
        .split("SSH_AGENT_PID=")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .unwrap_or_default()
        .to_string();
    let key = lab.outside.join("key");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "agent-canary", "-f"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    let added = std::process::Command::new("ssh-add").arg(&key).env("SSH_AUTH_SOCK", &sock).output().unwrap();
    assert!(added.status.success(), "{}", text(&added.stderr));
    let program = py(&format!(
        "import os, subprocess\n\
         r = subprocess.run([\"ssh-add\", \"-l\"], env=dict(os.environ, SSH_AUTH_SOCK={:?}), capture_output=True, text=True)\n\
         print(r.returncode, \"agent-canary\" in r.stdout)",
        sock.display().to_string()
    ));
    for mode in ["0467", "0407", "4467"] {
        let out = ok(&lab.command(mode, &program).output().unwrap());
        assert_eq!(out, "2 False\n", "{mode}: ssh-add reached the agent");
    }
    let out = ok(&lab.command("1467", &program).output().unwrap());
    assert_eq!(out, "0 True\n", "the positive control");
    let _ = std::process::Command::new("kill").arg(pid.trim()).status();
}

/// Sockets the kernel's listing cannot place (bound by a relative path, renamed or linked
/// since) are found where servers keep them, in scratch: under `/tmp` on purpose here. Each is
/// out of reach below system execute, and reached at system execute.
#[test]
fn sockets_bound_relatively_renamed_or_linked_in_scratch_are_out_of_reach() {
    let lab = Lab::new();
    let dir = tempfile::Builder::new().prefix("sbx-sockets-").tempdir_in("/tmp").unwrap();
    let d = dir.path().to_path_buf();
    std::fs::write(d.join("README"), "not only sockets here\n").unwrap();
    let server = |bind: &str, cwd: &std::path::Path| {
        let code = format!(
            "import socket\ns = socket.socket(socket.AF_UNIX)\ns.bind({bind:?})\ns.listen(4)\n\
             while True:\n    c, _ = s.accept()\n    c.send(b'hello')\n    c.close()"
        );
        std::process::Command::new("python3").arg("-c").arg(code).current_dir(cwd).spawn().unwrap()
    };
    let wait = |p: &std::path::Path| {
        for _ in 0..100 {
            if p.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("{} did not appear", p.display());
    };
    let mut servers = vec![server("relative.sock", &d)];
    wait(&d.join("relative.sock"));
    servers.push(server(&d.join("bound.sock").to_string_lossy(), &d));
    wait(&d.join("bound.sock"));
    std::fs::rename(d.join("bound.sock"), d.join("renamed.sock")).unwrap();
    servers.push(server(&d.join("linked.sock").to_string_lossy(), &d));
    wait(&d.join("linked.sock"));
    std::fs::hard_link(d.join("linked.sock"), d.join("other-name.sock")).unwrap();
    let client = py(&format!(
        "import socket\nfor name in [\"relative.sock\", \"renamed.sock\", \"other-name.sock\"]:\n    \
         s = socket.socket(socket.AF_UNIX)\n    \
         try:\n        s.connect({:?} + \"/\" + name)\n        print(name, s.recv(8).decode())\n    \
         except OSError as e:\n        print(name, \"refused\", e.errno)",
        d.display().to_string()
    ));
    let out = ok(&lab.command("0467", &client).output().unwrap());
    assert_eq!(out, "relative.sock refused 111\nrenamed.sock refused 111\nother-name.sock refused 111\n");
    let out = ok(&lab.command("1467", &client).output().unwrap());
    assert_eq!(out, "relative.sock hello\nrenamed.sock hello\nother-name.sock hello\n");
    for mut s in servers {
        let _ = s.kill();
        let _ = s.wait();
    }
}

/// A copy of a standard stream (autoconf's `exec 6>&1`, passed on to the shells configure
/// starts) is the caller's choice like the stream itself: it stays, even on a file outside
/// what the mode may write.
#[test]
fn a_copy_of_standard_output_stays() {
    let lab = Lab::new();
    let log = lab.outside.join("out.log");
    let inner = format!("{} -c 'echo six >&6'", lab::SB);
    let outer = format!("exec 6>&1; {inner}; echo status=$?");
    let file = std::fs::File::create(&log).unwrap();
    let mut c = lab.command("0405", "true");
    let args: Vec<std::ffi::OsString> = vec!["-c".into(), outer.into()];
    let mut bash = std::process::Command::new("/bin/bash");
    bash.args(&args).current_dir(&lab.ws).stdout(file);
    for (name, value) in c.get_envs() {
        match value {
            Some(v) => bash.env(name, v),
            None => bash.env_remove(name),
        };
    }
    let _ = &mut c;
    let out = bash.output().unwrap();
    assert_eq!(read(&log), "six\nstatus=0\n", "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("closed inherited descriptor"), "{}", text(&out.stderr));
}
