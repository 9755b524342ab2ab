//! Applying the Seatbelt profile to this process on macOS, right before `execve`.
//!
//! The profile is applied with `sandbox_init` in this process rather than by exec'ing
//! `/usr/bin/sandbox-exec`: it costs no second program start, needs no path lookup of any kind,
//! and the error comes back as a value. Both are deprecated interfaces that Apple's own tools
//! and every major browser still use; `sandbox_init` with flags 0 takes the profile text.
//! A process that is already sandboxed cannot take a second profile: `sandbox_check` tells.

use std::ffi::{CStr, CString};

use super::{Error, Shortfall};

// SAFETY (for the declarations): these are libsystem_sandbox's C functions, part of libSystem
// on every macOS, with these signatures.
unsafe extern "C" {
    fn sandbox_init(profile: *const libc::c_char, flags: u64, errorbuf: *mut *mut libc::c_char) -> libc::c_int;
    fn sandbox_free_error(errorbuf: *mut libc::c_char);
    fn sandbox_check(pid: libc::pid_t, operation: *const libc::c_char, filter_type: libc::c_int, ...) -> libc::c_int;
}

/// Whether this process already runs under a Seatbelt profile.
pub fn already_sandboxed() -> bool {
    // SAFETY: a null operation with SANDBOX_FILTER_NONE (0) asks only whether the process is
    // sandboxed at all; no further arguments are read.
    unsafe { sandbox_check(libc::getpid(), std::ptr::null(), 0) != 0 }
}

/// What the kernel cannot enforce here (nothing, when Seatbelt is present).
pub fn shortfalls() -> Vec<Shortfall> {
    Vec::new()
}

/// Applies `profile` to this process and sets no further state. Fails with the message
/// Seatbelt gives.
pub fn apply(profile: &str) -> Result<(), Error> {
    let text = CString::new(profile).map_err(|_| Error::ProfileNul)?;
    let mut error: *mut libc::c_char = std::ptr::null_mut();
    // SAFETY: `text` is a valid NUL-terminated string alive for the call; `error` receives a
    // string we free below with the matching function.
    let rc = unsafe { sandbox_init(text.as_ptr(), 0, &mut error) };
    if rc == 0 {
        return Ok(());
    }
    let message = if error.is_null() {
        "sandbox_init failed".to_string()
    } else {
        // SAFETY: on failure `error` points to a NUL-terminated message owned by us.
        let m = unsafe { CStr::from_ptr(error) }.to_string_lossy().into_owned();
        // SAFETY: `error` came from sandbox_init and is freed once.
        unsafe { sandbox_free_error(error) };
        m
    };
    Err(Error::Seatbelt(message))
}
