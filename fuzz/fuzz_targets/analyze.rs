//! Coverage-guided fuzzing of the static analysis: any bytes, as a `-c` string and as a
//! script, must give an analysis or a clean failure, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sandbox_bash::analysis::{self, Context, TextKind};
use sandbox_bash::scope::Layout;

fn context() -> Context {
    Context {
        cwd: "/home/u/proj".into(),
        layout: Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), tmpdir: None },
        env: vec![("HOME".into(), "/home/u".into()), ("PATH".into(), "/usr/bin:/bin".into())],
        arg0: "bash".into(),
        args: vec!["a".into()],
        program_dirs: vec!["/usr/bin".into(), "/bin".into()],
        bash_env: None,
        script_path: None,
    }
}

fuzz_target!(|data: &[u8]| {
    let ctx = context();
    let a = analysis::analyze(data, TextKind::Command, &ctx);
    if let Some(f) = &a.failure {
        assert!(!f.message.contains("stopped unexpectedly"), "the analysis panicked: {f}");
    }
    let _ = analysis::analyze(data, TextKind::Script, &ctx);
});
