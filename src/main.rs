//! The `sandbox-bash` binary: everything happens in [`sandbox_bash::run`].
//!
//! It has its own C `main`, so the Rust runtime's start-up work is skipped: that work changes
//! what bash would inherit (SIGPIPE is set to be ignored, and a closed descriptor 0, 1 or 2 is
//! reopened on /dev/null), and a drop-in bash must pass signal dispositions and descriptors
//! on exactly as it got them.

#![allow(unsafe_code)]
#![no_main]

use std::ffi::{CStr, OsString, c_char, c_int};
use std::os::unix::ffi::OsStringExt;

// On macOS the system's allocator serves: mimalloc's C code cannot be built for it without the
// macOS SDK, and the macOS build is compiled in CI but not measured.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) -> c_int {
    let count = usize::try_from(argc).unwrap_or(0);
    let args: Vec<OsString> = (0..count)
        .map(|i| {
            // SAFETY: the C runtime passes `argc` pointers to NUL-terminated strings that live
            // as long as the process.
            let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
            OsString::from_vec(arg.to_bytes().to_vec())
        })
        .collect();
    // SAFETY: the C runtime passes the environment as a null-terminated array of pointers to
    // NUL-terminated strings that live as long as the process (nothing here changes them).
    let env = sandbox_bash::environ::Environ::from_entries((0..).map_while(|i| unsafe {
        let entry = if envp.is_null() { std::ptr::null() } else { *envp.add(i) };
        (!entry.is_null()).then(|| CStr::from_ptr(entry).to_bytes())
    }));
    let status = sandbox_bash::run(args, env);
    // Everything is written and closed: the exit handlers left (the allocator's, which hands
    // its memory back page by page) are work the kernel does at once when the process ends.
    // SAFETY: `_exit` ends the process; nothing of ours runs after it.
    unsafe { libc::_exit(status) }
}
