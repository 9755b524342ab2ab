//! Inputs built to break the analysis are denied cleanly (status 126 and the marker line) and
//! nothing runs; the same program without the hostile part runs (the positive control).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

fn run(dir: &Path, args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new(SANDBOX)
        .args(args)
        .current_dir(dir)
        .env_remove("BASH_AGENT_BASH_MODE")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs `script` (which starts with `touch ran`) as a script file and returns (status, stderr,
/// whether it ran).
fn script(text: &[u8]) -> (i32, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sh");
    std::fs::write(&path, text).unwrap();
    let (status, stderr) = run(dir.path(), &[path.as_os_str()]);
    (status, stderr, dir.path().join("ran").exists())
}

fn assert_denied(text: &[u8], why: &str) {
    let (status, stderr, ran) = script(text);
    assert_eq!(status, 126, "{why}: {stderr}");
    assert!(stderr.starts_with("sandbox-bash: denied: cannot analyse the program:"), "{why}: {stderr}");
    assert!(stderr.contains(why), "expected {why:?} in {stderr}");
    assert!(!ran, "{why}: the program ran");
}

#[test]
fn positive_control_runs() {
    let (status, stderr, ran) = script(b"touch ran\n( ( echo $(echo ok) ) )\n");
    assert_eq!(status, 0, "{stderr}");
    assert!(ran);
}

#[test]
fn hundred_thousand_levels_of_nesting_are_denied() {
    let n = 100_000;
    let mut parens = b"touch ran\n".to_vec();
    parens.extend("( ".repeat(n).bytes());
    parens.extend(b"true");
    parens.extend(" )".repeat(n).bytes());
    assert_denied(&parens, "levels deep");

    let mut subst = b"touch ran\necho ".to_vec();
    subst.extend("$(".repeat(n).bytes());
    subst.extend(b"true");
    subst.extend(")".repeat(n).bytes());
    assert_denied(&subst, "levels deep");

    let mut ifs = b"touch ran\n".to_vec();
    ifs.extend("if true; then ".repeat(n).bytes());
    ifs.extend(b"true");
    ifs.extend("; fi".repeat(n).bytes());
    assert_denied(&ifs, "levels deep");

    let mut braces = b"touch ran\n".to_vec();
    braces.extend("{ ".repeat(n).bytes());
    braces.extend(b"true;");
    braces.extend(" }".repeat(n).bytes());
    assert_denied(&braces, "levels deep");
}

#[test]
fn a_long_program_bash_stops_reading_early_is_denied_with_its_reason() {
    // The parser refuses it and bash is asked; bash stops reading at line 2, long before the
    // text ends. That must end as a denial that says why, not as a death by SIGPIPE.
    let mut text = b"touch ran\necho (\n".to_vec();
    for i in 0..30_000 {
        text.extend(format!("echo line {i}\n").bytes());
    }
    assert_denied(&text, "bash -n rejects it too");
}

#[test]
fn a_ten_mebibyte_program_is_denied() {
    let mut text = b"touch ran\n".to_vec();
    while text.len() < 10 * 1024 * 1024 {
        text.extend(b"echo this line is padding to make the program very large\n");
    }
    assert_denied(&text, "bytes long");
}

/// Runs `script` (which starts with `touch ran`) under `mode`: (status, stderr, whether it ran).
fn script_at(text: &[u8], mode: &str) -> (i32, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sh");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(SANDBOX)
        .arg(&path)
        .current_dir(dir.path())
        .env("BASH_AGENT_BASH_MODE", mode)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        dir.path().join("ran").exists(),
    )
}

/// Valid bash that the analysis cannot read in part: that part is code it cannot see, which
/// needs workspace execute. Without that bit it is denied, naming it; with it, it runs.
fn assert_unseen(text: &[u8], why: &str) {
    let (status, stderr, ran) = script_at(text, "0466");
    assert_eq!(status, 126, "{why}: {stderr}");
    assert!(stderr.contains("sandbox-bash: denied: missing workspace execute (0001)"), "{why}: {stderr}");
    assert!(stderr.contains(why), "expected {why:?} in {stderr}");
    assert!(!ran, "{why}: the program ran");
    let (_, stderr, ran) = script_at(text, "0467");
    assert!(!stderr.contains("sandbox-bash: denied"), "{why}: {stderr}");
    assert!(ran, "{why}: it did not run: {stderr}");
}

#[test]
fn programs_in_any_byte_encoding_are_analysed_and_nul_bytes_are_denied() {
    let (status, stderr, ran) = script_at(b"touch ran\necho caf\xe9\n", "0467");
    assert_eq!((status, ran), (0, true), "{stderr}");
    // A Latin-1 path is the same path to the analysis: a credential name is one in any bytes.
    let (status, stderr, ran) = script_at(b"touch ran\ncat /etc/shadow\xe9\n", "0467");
    assert_eq!((status, ran), (126, false), "{stderr}");
    assert!(stderr.contains("missing system read (4000)"), "{stderr}");
    assert!(stderr.contains("/etc/shadow\\xe9"), "the byte is shown escaped: {stderr}");
    assert_denied(b"touch ran\necho a\0b\n", "NUL byte");
    let dir = tempfile::tempdir().unwrap();
    let arg = std::ffi::OsStr::from_bytes(b"touch ran; echo \xc3\x41");
    let (status, stderr) = run(dir.path(), &[std::ffi::OsStr::new("-c"), arg]);
    assert_eq!(status, 0, "{stderr}");
    assert!(dir.path().join("ran").exists());
}

#[test]
fn syntax_errors_bash_rejects_deny_the_whole_program() {
    // bash would run `touch ran` before reaching the error; the analysis refuses it all.
    assert_denied(b"touch ran\nif true; then\n", "rejected");
    assert_denied(b"touch ran\nfi\n", "rejected");
}

#[test]
fn code_the_analysis_cannot_read_is_code_it_cannot_see() {
    // Nested code bash rejects only when it runs it fails there, not here.
    assert_unseen(b"touch ran\neval 'if then'\n", "code the analysis cannot read");
    assert_unseen(b"touch ran\nbash -c 'echo \"'\n", "code the analysis cannot read");
    assert_unseen(b"touch ran\ncat <<EOF\n$(if)\nEOF\n", "code the analysis cannot read");
    // bash stops at this line after running the first: all it can run was analysed before it.
    assert_unseen(b"touch ran\necho $(echo \"$(if)\")\n", "code the analysis cannot read");
    // An expansion the parser leaves unparsed (bash 5.3's `${ …; }`).
    assert_unseen(b"touch ran\necho ${ cat /etc/hostname; }\n", "an expansion the parser cannot follow");
    // Here-documents the parser cannot read (it loops forever on them): bash accepts them.
    assert_unseen(b"touch ran\n''<<''\t", "code the parser cannot read, which bash accepts");
    assert_unseen(b"touch ran\n$s<<-\r yy ", "code the parser cannot read, which bash accepts");
    // Expansions never closed (bash fails on them when it expands them): the word parser,
    // which backtracks exponentially over them, never sees them.
    assert_unseen(b"touch ran\ncat <<EOF\n$($(($((+((${i[$[${a[$(\n\nEOF\n", "expansion that is never closed");
}

#[test]
fn parser_traps_are_refused_before_the_parser_sees_them() {
    assert_denied(b"touch ran\necho 333333333333333333333>|x\n", "too large");
    assert_denied(b"touch ran\necho ~99999999999999999999999\n", "too large");
    // Nested array subscripts make the word parser's work grow twentyfold per level.
    assert_denied(b"touch ran\necho ${a[${b[${c[1]}]}]}\n", "subscripts 3 deep");
    // The parser crate panics on this one (found by cargo fuzz): an internal error, 125, with
    // nothing run.
    let (status, stderr, ran) = script(b"touch ran\n<<EOF $((1)\nEOF");
    assert_eq!(status, 125, "{stderr}");
    assert!(stderr.starts_with("sandbox-bash: error: internal error"), "{stderr}");
    assert!(stderr.trim_end().ends_with("nothing was run"), "{stderr}");
    assert!(!ran);
    let mut parens = b"touch ran\n((z|".to_vec();
    parens.extend("(".repeat(40).bytes());
    assert_denied(&parens, "never closed");
    // Unclosed braces are plain text to bash; the brace expansion the analysis does stays
    // linear in them (the parser crate's own was exponential).
    let mut braces = b"touch ran\necho ".to_vec();
    braces.extend("{a,".repeat(150).bytes());
    braces.extend(b" >/dev/null\n");
    let (status, stderr, ran) = script(&braces);
    assert_eq!(status, 0, "{stderr}");
    assert!(ran);
}

#[test]
fn a_mode_that_allows_everything_refuses_nothing_for_the_analysis() {
    // bash itself rejects this after running the first line; at 7777 it is bash's to say.
    let (status, stderr, ran) = script_at(b"touch ran\nif true; then\n", "7777");
    assert_eq!((status, ran), (2, true), "{stderr}");
    assert!(stderr.contains("syntax error"), "bash's own message: {stderr}");
    assert!(!stderr.contains("sandbox-bash: denied"), "{stderr}");
    // Beyond the bounds too.
    let mut text = b"touch ran\n".to_vec();
    while text.len() < 10 * 1024 * 1024 {
        text.extend(b"echo this line is padding to make the program very large > /dev/null\n");
    }
    let (status, stderr, ran) = script_at(&text, "7777");
    assert_eq!((status, ran), (0, true), "{stderr}");
    // One bit less, and both are refused again.
    let (status, _, ran) = script_at(b"touch ran\nif true; then\n", "7767");
    assert_eq!((status, ran), (126, false));
}
