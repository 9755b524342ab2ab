//! Programs that fetch from, send to and connect over the network: curl, wget, aria2c, scp,
//! rsync, ssh, nc and socat. Each needs network
//! read for the URL, network write when it sends (a request body, or what it shares with
//! peers), and the paths its options name.

use super::{Call, Effects, Stdin};
use crate::analysis::word::{Arg, Field};
use crate::mode::{Perm, Scope};

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    match call.program {
        "curl" => curl(call),
        "aria2c" => aria2c(call),
        "scp" | "rsync" => remote_copy(call),
        "ssh" | "autossh" | "mosh" => ssh(call),
        "socat" => socat(call),
        "nc" | "ncat" | "netcat" | "nc.openbsd" | "nc.traditional" => netcat(call),
        _ => wget(call),
    }
}

/// `curl`: the URLs (operands and `--url`), a local socket instead of the network, `file://`
/// URLs, request bodies, and the files its options read and write.
fn curl(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    let mut urls: Vec<String> = parsed.operands.iter().filter_map(Arg::known).collect();
    urls.extend(parsed.values(&["url"]).iter().filter_map(Arg::known));
    let target = urls.first().cloned().unwrap_or_else(|| "a URL".into());
    for a in parsed.operands.iter().filter(|a| a.known().is_none()) {
        out.unresolved(a);
    }
    let socket = parsed.values(&["unix-socket", "abstract-unix-socket"]);
    for s in &socket {
        out.path(s, &[Perm::Read, Perm::Write], "talks to a local socket");
    }
    if socket.is_empty() {
        out.need(Scope::Network, Perm::Read, &target, "fetches from the network", call.pos);
    }
    // file:// URLs read local files.
    for (i, u) in urls.iter().enumerate() {
        if let Some(rest) = u.strip_prefix("file://") {
            let path = rest.strip_prefix("localhost").unwrap_or(rest);
            let at = parsed.operands.get(i).map_or(call.pos, |a| a.pos);
            let arg = Arg { field: Field::literal(path), pos: at, raw: u.clone() };
            out.path(&arg, &[Perm::Read], "reads a local file through a file:// URL");
        }
    }
    let body = [
        "d",
        "data",
        "data-raw",
        "data-binary",
        "data-ascii",
        "data-urlencode",
        "F",
        "form",
        "form-string",
        "T",
        "upload-file",
        "json",
    ];
    let mut sends = parsed.has(&body);
    for m in parsed.values(&["X", "request"]) {
        let method = m.known().unwrap_or_default().to_ascii_uppercase();
        if !matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") {
            sends = true;
        }
    }
    if sends {
        out.need(Scope::Network, Perm::Write, &target, "sends a request body to the network", call.pos);
    }
    // Files it reads: `-d @file`, `-F name=@file`, `-T file`, `-K file`, certificates.
    for o in &parsed.opts {
        let Some(v) = &o.value else { continue };
        let text = v.known().unwrap_or_default();
        match o.name.as_str() {
            "d" | "data" | "data-binary" | "data-ascii" | "data-urlencode" | "json" | "H" | "header" => {
                if let Some(f) = text.split_once('@').map(|(_, f)| f)
                    && !f.is_empty()
                    && f != "-"
                    && (text.starts_with('@') || o.name == "data-urlencode")
                {
                    out.path(&super::sub_arg(v, f), &[Perm::Read], "sends a file's contents");
                }
            }
            "F" | "form" => {
                if let Some((_, f)) = text.split_once("=@").or_else(|| text.split_once("=<")) {
                    let f = f.split(';').next().unwrap_or("");
                    out.path(&super::sub_arg(v, f), &[Perm::Read], "uploads a file");
                }
            }
            "T" | "upload-file" | "K" | "config" | "cacert" | "E" | "cert" | "key" | "netrc-file" | "etag-compare"
                if text != "-" =>
            {
                out.path(v, &[Perm::Read], "reads a file");
            }
            "b" | "cookie" if !text.contains('=') => out.path(v, &[Perm::Read], "reads cookies"),
            "o" | "output" | "c" | "cookie-jar" | "D" | "dump-header" | "trace" | "trace-ascii" | "stderr"
            | "etag-save" | "libcurl" | "hsts" | "alt-svc"
                if text != "-" && text != "%" =>
            {
                out.path(v, &[Perm::Write], "writes a file");
                if matches!(o.name.as_str(), "o" | "output") {
                    match v.known() {
                        Some(_) => out.downloaded(&text),
                        None => out.downloaded_to(v),
                    }
                }
            }
            "output-dir" => out.path(v, &[Perm::Write], "writes downloads into a directory"),
            _ => {}
        }
    }
    if parsed.has(&["O", "remote-name", "remote-name-all", "J"]) && parsed.values(&["output-dir"]).is_empty() {
        out.cwd(&[Perm::Write], "saves the download in the current directory", call.pos);
        for u in &urls {
            if let Some(name) = u.rsplit('/').next().filter(|n| !n.is_empty()) {
                out.downloaded(name);
            }
        }
    }
    out
}

/// `wget`: the URL, request bodies, the files its options read and write, and where the
/// download lands (`-O`, `-P`, or the current directory under the URL's last name).
fn wget(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    let target = parsed.operands.first().and_then(Arg::known).unwrap_or_else(|| "a URL".into());
    out.need(Scope::Network, Perm::Read, &target, "fetches from the network", call.pos);
    let mut sends = parsed.has(&["post-data", "post-file", "body-data", "body-file"]);
    for m in parsed.values(&["method"]) {
        if !m.known().unwrap_or_default().eq_ignore_ascii_case("GET") {
            sends = true;
        }
    }
    if sends {
        out.need(Scope::Network, Perm::Write, &target, "sends a request body to the network", call.pos);
    }
    let reads = [
        "i",
        "input-file",
        "post-file",
        "body-file",
        "load-cookies",
        "ca-certificate",
        "certificate",
        "private-key",
        "config",
    ];
    for f in parsed.values(&reads) {
        if f.known().as_deref() != Some("-") {
            out.path(&f, &[Perm::Read], "reads a file");
        }
    }
    for f in parsed.values(&["o", "output-file", "a", "append-output", "save-cookies"]) {
        out.path(&f, &[Perm::Write], "writes a log or cookie file");
    }
    let outputs = parsed.values(&["O", "output-document"]);
    match outputs.first() {
        Some(o) if o.known().as_deref() == Some("-") => {}
        Some(o) => {
            out.path(o, &[Perm::Write], "saves the download");
            match o.known() {
                Some(text) => out.downloaded(&text),
                None => out.downloaded_to(o),
            }
        }
        None if parsed.has(&["spider"]) => {}
        None => {
            match parsed.values(&["P", "directory-prefix"]).first() {
                Some(d) => out.path(d, &[Perm::Write], "saves downloads into a directory"),
                None => out.cwd(&[Perm::Write], "saves the download in the current directory", call.pos),
            }
            for u in parsed.operands.iter().filter_map(Arg::known) {
                if let Some(name) = u.rsplit('/').next().filter(|n| !n.is_empty()) {
                    out.downloaded(name);
                }
            }
        }
    }
    out
}

/// `aria2c`: the URIs, BitTorrent and Metalink (which share what they fetch with peers), the
/// files its options read and write, the programs its event hooks run, and where the downloads
/// land (`-d`, else the current directory; `-o` names the file). Its own configuration file in
/// the home is not modelled: the kernel's rules decide whether it can read it.
fn aria2c(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    let uris: Vec<String> = parsed.operands.iter().filter_map(Arg::known).collect();
    for a in parsed.operands.iter().filter(|a| a.known().is_none()) {
        out.unresolved(a);
    }
    let target = uris.first().cloned().unwrap_or_else(|| "a URL".into());
    out.need(Scope::Network, Perm::Read, &target, "fetches from the network", call.pos);
    let peers = parsed.has(&["T", "torrent-file", "M", "metalink-file"])
        || uris.iter().any(|u| u.starts_with("magnet:") || u.ends_with(".torrent") || u.ends_with(".metalink"));
    if peers {
        out.need(Scope::Network, Perm::Write, &target, "shares what it downloads with peers", call.pos);
    }
    let reads = [
        "i",
        "input-file",
        "conf-path",
        "load-cookies",
        "T",
        "torrent-file",
        "M",
        "metalink-file",
        "certificate",
        "ca-certificate",
        "private-key",
        "server-stat-if",
    ];
    for f in parsed.values(&reads).iter().filter(|f| f.known().as_deref() != Some("-")) {
        out.path(f, &[Perm::Read], "reads a file");
    }
    for f in parsed.values(&["l", "log", "save-session", "save-cookies", "server-stat-of"]) {
        if f.known().as_deref() != Some("-") {
            out.path(&f, &[Perm::Write], "writes a log, session or cookie file");
        }
    }
    for f in parsed.values(&["dht-file-path", "dht-file-path6"]) {
        out.path(&f, &[Perm::Read, Perm::Write], "keeps its routing table in a file");
    }
    let hooks = [
        "on-download-start",
        "on-download-pause",
        "on-download-stop",
        "on-download-complete",
        "on-download-error",
        "on-bt-download-complete",
    ];
    for h in parsed.values(&hooks) {
        out.path(&h, &[Perm::Read, Perm::Execute], "runs a program when a download starts, stops or ends");
    }
    let dir = parsed.values(&["d", "dir"]).into_iter().next();
    match &dir {
        Some(d) => out.path(d, &[Perm::Write], "saves downloads into a directory"),
        None => out.cwd(&[Perm::Write], "saves the download in the current directory", call.pos),
    }
    let prefix = dir.and_then(|d| d.known()).map(|d| format!("{}/", d.trim_end_matches('/'))).unwrap_or_default();
    match parsed.values(&["o", "out"]).first().and_then(Arg::known) {
        Some(name) => out.downloaded(&format!("{prefix}{name}")),
        None => {
            for name in uris.iter().filter_map(|u| u.rsplit('/').next()).filter(|n| !n.is_empty()) {
                out.downloaded(&format!("{prefix}{name}"));
            }
        }
    }
    out
}

/// `scp` and `rsync`: the last operand is the destination, the others sources; a `host:` operand
/// is the network (write to send, read to fetch), a local one a path. `rsync -n` only compares.
fn remote_copy(call: &Call) -> Effects {
    let mut out = Effects::default();
    let pos = call.pos;
    let parsed = call.options();
    for i in parsed.values(&["i", "F", "exclude-from", "include-from", "files-from", "password-file"]) {
        out.path(&i, &[Perm::Read], "reads a file");
    }
    for e in parsed.values(&["e", "rsh", "rsync-path", "S"]) {
        let t = e.known().unwrap_or_default();
        let first = t.split_whitespace().next().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
        // An ssh with options can run commands of its own (`-o ProxyCommand=…`): code the
        // analysis does not read.
        if first != "ssh" || t.split_whitespace().count() > 1 {
            out.need(Scope::Workspace, Perm::Execute, &e.raw, "runs a program named in an option", e.pos);
            out.unresolved(&e);
        }
    }
    let is_remote = |a: &Arg| -> bool {
        let t = a.known().unwrap_or_default();
        if t.starts_with("rsync://") || t.starts_with("scp://") {
            return true;
        }
        match t.find(':') {
            Some(c) => !t[..c].contains('/') && c > 0,
            None => false,
        }
    };
    // `rsync -n` compares and lists what it would copy: it reads both sides (unless a later
    // `--no-dry-run` takes it back).
    let dry_run = call.program == "rsync"
        && parsed
            .opts
            .iter()
            .rev()
            .find(|o| matches!(o.name.as_str(), "n" | "dry-run" | "no-dry-run" | "no-n"))
            .is_some_and(|o| matches!(o.name.as_str(), "n" | "dry-run"));
    let mut ops = parsed.operands;
    let Some(dest) = ops.pop() else { return out };
    let deletes = parsed.opts.iter().any(|o| o.name.starts_with("delete") || o.name == "remove-source-files");
    if is_remote(&dest) {
        let host = dest.known().unwrap_or_default();
        if dry_run {
            out.need(Scope::Network, Perm::Read, &host, "compares files with a remote host (dry run)", pos);
        } else {
            out.need(Scope::Network, Perm::Write, &host, "copies files to a remote host", pos);
        }
    } else if dry_run {
        out.path(&dest, &[Perm::Read], "compares with the destination (dry run)");
    } else {
        if deletes {
            out.path(&dest, &[Perm::Read, Perm::Write], "writes copied files");
        } else {
            out.path(&dest, &[Perm::Write], "writes copied files");
        }
    }
    for src in &ops {
        if is_remote(src) {
            let host = src.known().unwrap_or_default();
            out.need(Scope::Network, Perm::Read, &host, "copies files from a remote host", pos);
        } else {
            out.path(src, &[Perm::Read], "reads files to copy");
        }
    }
    out
}

/// `ssh HOST [COMMAND]`: connects to the host (network read), sends a redirected file (network
/// write), reads the keys and configuration its options name, and runs the local commands
/// `-o ProxyCommand=…` and its kin name.
fn ssh(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options_first();
    for i in parsed.values(&["i", "F"]) {
        out.path(&i, &[Perm::Read], "reads a key or configuration");
    }
    for e in parsed.values(&["E"]) {
        out.path(&e, &[Perm::Write], "writes a log");
    }
    for o in parsed.values(&["o"]) {
        let t = o.known().unwrap_or_default().to_ascii_lowercase();
        if ["proxycommand", "localcommand", "knownhostscommand"].iter().any(|c| t.starts_with(c)) || o.known().is_none()
        {
            out.need(Scope::Workspace, Perm::Execute, &o.raw, "runs a local command named in an option", o.pos);
            out.unresolved(&o);
        }
    }
    let host = parsed.operands.first().and_then(Arg::known).unwrap_or_else(|| call.program.to_string());
    out.need(Scope::Network, Perm::Read, &host, "connects to a remote host", call.pos);
    if matches!(call.stdin, Stdin::File(_)) {
        out.need(Scope::Network, Perm::Write, &host, "sends a file to a remote host", call.pos);
    }
    out
}

/// The first word of `call` that is not an option: the host (or address) it talks to.
fn first_target(call: &Call) -> String {
    call.args
        .iter()
        .filter_map(Arg::known)
        .find(|t| !t.starts_with('-') && !t.is_empty())
        .unwrap_or_else(|| call.program.to_string())
}

/// `nc`: opens a connection (a local socket with `-U`), sends a redirected file, and runs the
/// program `-e`/`-c` names on the connection.
fn netcat(call: &Call) -> Effects {
    let mut out = Effects::default();
    let target = first_target(call);
    let parsed = call.options();
    for e in parsed.values(&["e", "c"]) {
        out.need(Scope::Workspace, Perm::Execute, &e.raw, "runs a program on the connection", e.pos);
    }
    if parsed.has(&["U"]) {
        for op in &parsed.operands {
            out.path(op, &[Perm::Read, Perm::Write], "talks to a local socket");
        }
        return out;
    }
    out.need(Scope::Network, Perm::Read, &target, "opens a network connection", call.pos);
    if matches!(call.stdin, Stdin::File(_)) {
        out.need(Scope::Network, Perm::Write, &target, "sends a file over the network", call.pos);
    }
    out
}

/// `socat A B`: relays between two addresses (network read and write), runs the programs of
/// `EXEC:`/`SYSTEM:` addresses, and talks to the local sockets of `UNIX…:` ones.
fn socat(call: &Call) -> Effects {
    let mut out = Effects::default();
    let target = first_target(call);
    out.need(Scope::Network, Perm::Read, &target, "opens a network connection", call.pos);
    out.need(Scope::Network, Perm::Write, &target, "relays data to the network", call.pos);
    for a in call.args {
        let t = a.known().unwrap_or_default();
        let upper = t.to_ascii_uppercase();
        if upper.starts_with("EXEC:") || upper.starts_with("SYSTEM:") {
            out.need(Scope::Workspace, Perm::Execute, &t, "runs a program on the connection", a.pos);
        }
        if upper.starts_with("UNIX")
            && let Some((_, path)) = t.split_once(':')
        {
            out.path(
                &super::sub_arg(a, path.split(',').next().unwrap_or("")),
                &[Perm::Read, Perm::Write],
                "talks to a local socket",
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, needs_in as needs, paths_in as paths};
    use crate::mode::{Perm, Scope};

    fn effects(line: &str) -> Vec<Effect> {
        super::super::effects_of(line)
    }

    fn downloads(effects: &[Effect]) -> Vec<String> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Downloaded { path } => Some(path.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn curl_fetches_sends_reads_and_writes() {
        let e = effects("curl https://x/a");
        assert_eq!(needs(&e), [(Scope::Network, Perm::Read, "https://x/a".to_string())]);
        assert!(paths(&e).is_empty() && downloads(&e).is_empty());

        let e = effects("curl -d @body.json -H @hdrs -X POST https://x/api");
        assert_eq!(needs(&e).len(), 2);
        assert_eq!(needs(&e)[1], (Scope::Network, Perm::Write, "https://x/api".to_string()));
        assert_eq!(paths(&e), [("body.json".to_string(), &[Perm::Read][..]), ("hdrs".to_string(), &[Perm::Read][..])]);

        // The value of -o is the next word, even after the URL (options may follow operands).
        let e = effects("curl https://x/get.sh -o get.sh");
        assert_eq!(paths(&e), [("get.sh".to_string(), &[Perm::Write][..])]);
        assert_eq!(downloads(&e), ["get.sh"]);

        let e = effects("curl -O https://x/dir/tool");
        assert!(e.iter().any(|x| matches!(x, Effect::Cwd { perms: [Perm::Write], .. })));
        assert_eq!(downloads(&e), ["tool"]);
    }

    #[test]
    fn curl_on_a_local_socket_or_a_file_url_needs_no_network() {
        let e = effects("curl --unix-socket /run/docker.sock http://x/containers/json");
        assert!(needs(&e).is_empty());
        assert_eq!(paths(&e), [("/run/docker.sock".to_string(), &[Perm::Read, Perm::Write][..])]);
        let e = effects("curl file:///etc/hosts");
        assert_eq!(paths(&e), [("/etc/hosts".to_string(), &[Perm::Read][..])]);
    }

    #[test]
    fn wget_saves_where_its_options_say() {
        let e = effects("wget https://x/file.tar.gz");
        assert!(e.iter().any(|x| matches!(x, Effect::Cwd { perms: [Perm::Write], .. })));
        assert_eq!(downloads(&e), ["file.tar.gz"]);
        // `-qO-` writes to standard output: nothing is saved.
        let e = effects("wget -qO- https://x");
        assert!(paths(&e).is_empty() && downloads(&e).is_empty());
        let e = effects("wget -P /opt/d https://x/f");
        assert_eq!(paths(&e), [("/opt/d".to_string(), &[Perm::Write][..])]);
        let e = effects("wget --post-file=form.txt -o log https://x/api");
        assert_eq!(needs(&e)[1].1, Perm::Write);
        assert_eq!(paths(&e), [("form.txt".to_string(), &[Perm::Read][..]), ("log".to_string(), &[Perm::Write][..])]);
        // The needs are at the command's name.
        assert!(e.iter().all(|x| !matches!(x, Effect::Need { pos, .. } if pos.column != 1)));
    }

    #[test]
    fn aria2c_saves_shares_and_runs_its_hooks() {
        let e = effects("aria2c -d /srv/iso -o a.iso https://x/debian.iso");
        assert_eq!(needs(&e), [(Scope::Network, Perm::Read, "https://x/debian.iso".to_string())]);
        assert_eq!(paths(&e), [("/srv/iso".to_string(), &[Perm::Write][..])]);
        assert_eq!(downloads(&e), ["/srv/iso/a.iso"]);
        // BitTorrent uploads to peers while it downloads.
        let e = effects("aria2c magnet:?xt=urn:btih:abc");
        assert_eq!(needs(&e)[1].1, Perm::Write);
        let e = effects("aria2c -i urls.txt --on-download-complete=./unpack.sh --log=- https://x/f");
        assert_eq!(
            paths(&e),
            [
                ("urls.txt".to_string(), &[Perm::Read][..]),
                ("./unpack.sh".to_string(), &[Perm::Read, Perm::Execute][..])
            ]
        );
        assert!(e.iter().any(|x| matches!(x, Effect::Cwd { perms: [Perm::Write], .. })));
        assert_eq!(downloads(&e), ["f"]);
    }

    #[test]
    fn scp_and_rsync_send_fetch_and_compare() {
        let e = effects("scp notes.txt host:/srv/");
        assert_eq!(needs(&e), [(Scope::Network, Perm::Write, "host:/srv/".to_string())]);
        assert_eq!(paths(&e), [("notes.txt".to_string(), &[Perm::Read][..])]);
        let e = effects("rsync -a host:/srv/ dst");
        assert_eq!(needs(&e), [(Scope::Network, Perm::Read, "host:/srv/".to_string())]);
        assert_eq!(paths(&e), [("dst".to_string(), &[Perm::Write][..])]);
        // A dry run reads both sides; --delete also reads what it would remove.
        let e = effects("rsync -n src/ host:/srv/");
        assert_eq!(needs(&e)[0].1, Perm::Read);
        let e = effects("rsync -a --delete src/ /backup");
        assert_eq!(paths(&e)[0], ("/backup".to_string(), &[Perm::Read, Perm::Write][..]));
        // An ssh with options of its own can run commands (ProxyCommand): workspace execute.
        let e = effects("rsync -e ssh\u{a0}-oProxyCommand=x src host:");
        assert!(needs(&e).iter().any(|n| n.0 == Scope::Workspace && n.1 == Perm::Execute), "{e:?}");
    }

    #[test]
    fn ssh_nc_and_socat_connect_send_and_run() {
        let e = effects("ssh -i key -o ProxyCommand=nc\u{a0}%h host ls -l");
        assert_eq!(paths(&e), [("key".to_string(), &[Perm::Read][..])]);
        assert_eq!(
            needs(&e),
            [
                (Scope::Workspace, Perm::Execute, "ProxyCommand=nc %h".to_string()),
                (Scope::Network, Perm::Read, "host".to_string())
            ]
        );
        // `-l` after the host is the remote command's, not ssh's login name.
        assert!(paths(&effects("ssh host ls -l x")).is_empty());
        let e = effects("nc -U /run/app.sock");
        assert!(needs(&e).is_empty());
        assert_eq!(paths(&e), [("/run/app.sock".to_string(), &[Perm::Read, Perm::Write][..])]);
        let e = effects("nc -e /bin/sh host 4444");
        assert_eq!(needs(&e)[0], (Scope::Workspace, Perm::Execute, "/bin/sh".to_string()));
        let e = effects("socat TCP-LISTEN:8080 EXEC:/bin/sh");
        assert_eq!(needs(&e).len(), 3);
        assert_eq!(needs(&e)[2], (Scope::Workspace, Perm::Execute, "EXEC:/bin/sh".to_string()));
    }
}
