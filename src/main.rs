//! The `sandbox-bash` binary: everything happens in [`sandbox_bash::run`].
//!
//! It has its own C `main`, so the Rust runtime's start-up work is skipped: that work changes
//! what bash would inherit (SIGPIPE is set to be ignored, and a closed descriptor 0, 1 or 2 is
//! reopened on /dev/null), and a drop-in bash must pass signal dispositions and descriptors
//! on exactly as it got them.
#![no_main]

use std::ffi::{CStr, OsString, c_char, c_int};
use std::os::unix::ffi::OsStringExt;

#[global_allocator]
static ALLOCATOR: sandbox_bash::arena::Arena = sandbox_bash::arena::Arena;

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
    sandbox_bash::run(args, env)
}

/// musl's own copy and fill are slow for the short copies start-up is made of; these replace
/// them in the static musl build (see `sandbox_bash::mem`). Defining `memmove` too keeps musl's
/// `memmove`, which calls into its `memcpy`, out of the link.
#[cfg(all(target_env = "musl", target_arch = "x86_64"))]
mod musl_memory {
    /// # Safety
    /// As C's `memcpy`: both ranges valid, not overlapping.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract is memcpy's, which is stronger than what this needs.
        unsafe { sandbox_bash::mem::copy_forward(dest, src, n) };
        dest
    }

    /// # Safety
    /// As C's `memmove`: both ranges valid; they may overlap.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memmove(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract is memmove's.
        unsafe { sandbox_bash::mem::copy(dest, src, n) };
        dest
    }

    /// # Safety
    /// As C's `memset`: the range valid for writing.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memset(dest: *mut u8, byte: i32, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract is memset's; C passes the byte as an int.
        unsafe { sandbox_bash::mem::fill(dest, byte as u8, n) };
        dest
    }
}
