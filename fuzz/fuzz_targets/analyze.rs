//! Coverage-guided fuzzing of the static analysis: any bytes, as a `-c` string and as a
//! script, must give an analysis or a clean failure, never a panic of our own or a hang.
//!
//! The parser crate panics on a few inputs; the binary turns those into denials with a panic
//! hook, so here they are counted as handled, and any other panic aborts as a finding.
#![no_main]

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use libfuzzer_sys::fuzz_target;
use sandbox_bash::analysis::{self, Context, TextKind};
use sandbox_bash::scope::Layout;

static PARSER_PANICKED: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

fn context() -> Context {
    Context {
        cwd: "/home/u/proj".into(),
        layout: Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), tmpdir: None, ..Default::default() },
        env: sandbox_bash::environ::Environ::from_pairs([("HOME", "/home/u"), ("PATH", "/usr/bin:/bin")]),
        arg0: "bash".into(),
        args: vec!["a".into()],
        program_dirs: vec!["/usr/bin".into(), "/bin".into()],
        bash_env: None,
        script_path: None,
        self_exe: None,
    }
}

fuzz_target!(|data: &[u8]| {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_some_and(|l| l.file().contains("brush-parser")) {
                PARSER_PANICKED.store(true, Ordering::SeqCst);
            } else {
                previous(info);
                std::process::abort();
            }
        }));
    });
    let ctx = context();
    for kind in [TextKind::Command, TextKind::Script] {
        PARSER_PANICKED.store(false, Ordering::SeqCst);
        let a = analysis::analyze(data, kind, &ctx);
        if let Some(f) = &a.failure {
            if f.message == sandbox_bash::analysis::STOPPED {
                assert!(PARSER_PANICKED.load(Ordering::SeqCst), "the analysis panicked: {f}");
            }
            assert!(!f.message.starts_with("the analysis took longer"), "the analysis hung: {f}");
        }
    }
});
