//! The `sandbox-bash` binary: everything happens in [`sandbox_bash::run`].

fn main() {
    std::process::exit(sandbox_bash::run());
}
