//! Running code on a thread with the stack the analysis thread has, for tests and benchmarks
//! that call the walk directly.

/// Runs `f` on a thread with the analysis thread's stack (256 MiB) and returns its result.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(s, f).unwrap().join().unwrap()
    })
}
