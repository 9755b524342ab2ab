//! The `sandbox-bash` binary: everything happens in [`sandbox_bash::run`].

#[global_allocator]
static ALLOCATOR: sandbox_bash::arena::Arena = sandbox_bash::arena::Arena;

fn main() {
    std::process::exit(sandbox_bash::run());
}
