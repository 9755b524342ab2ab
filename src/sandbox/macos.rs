//! Applying the Seatbelt profile to this process on macOS, right before `execve`.
//!
//! The profile is applied with `sandbox_init` in this process rather than by exec'ing
//! `/usr/bin/sandbox-exec`: it costs no second program start, needs no path lookup of any kind,
//! and the error comes back as a value. Both are deprecated interfaces that Apple's own tools
//! and every major browser still use; `sandbox_init` with flags 0 takes the profile text.
//! A process that is already sandboxed cannot take a second profile: `sandbox_check` tells.

use std::ffi::{CStr, CString};

use std::ffi::OsStr;

use super::policy::{self, Inputs, Policy};
use super::{
    Enforcement, Error, Layout, Lock, Locked, Mode, NetworkLayer, Outcome, Shortfall, seatbelt, standard_files, view,
};

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

/// Plans the Seatbelt profile of `lock` and applies it to this process (see [`super::lock`]).
pub(super) fn lock(lock: Lock<'_>) -> Result<Locked, crate::error::Error> {
    let path_var = lock.env.get("PATH");
    let profile = macos_profile(lock.allowed, lock.layout, lock.real_bash, path_var, lock.extra);
    let outcome = enforce_macos(&profile, lock.allowed, lock.requested, lock.outer.map(|m| m.mode))?;
    let network = match lock.network {
        Some(_) => NetworkLayer::Unavailable("this platform has no network namespaces".into()),
        None => NetworkLayer::NotAsked,
    };
    let mode = match lock.network {
        Some(_) => lock.allowed.without(Mode::scope(crate::mode::Scope::Network)),
        None => lock.allowed,
    };
    Ok(Locked { mode, outcome, static_only: Vec::new(), namespaces: false, view: None, policy: None, network })
}

/// What the kernel offers here (see [`super::kernel_facts`]): no Landlock ABI.
pub(super) fn kernel_facts(_: &Policy) -> (Option<i32>, Vec<Shortfall>) {
    (None, shortfalls())
}

/// No namespace layer here (see [`super::namespace_facts`]).
pub(super) fn namespace_facts(
    _: &Policy,
    _: &Layout,
    _: &crate::environ::Environ,
    _: &[String],
    _: bool,
) -> Option<(view::View, Result<(), String>)> {
    None
}

/// The Seatbelt profile for this invocation on macOS (paths resolved, as Seatbelt sees them).
pub fn macos_profile(
    mode: Mode,
    layout: &Layout,
    real_bash: &std::path::Path,
    path_var: Option<&OsStr>,
    extra: policy::Extra,
) -> String {
    let bash = real_bash.to_string_lossy().into_owned();
    let me = crate::exec::self_exe().map(|p| p.to_string_lossy().into_owned());
    let path_var = path_var.map(|p| p.to_string_lossy().into_owned());
    let canonical =
        |p: &str| std::fs::canonicalize(p).map(|c| c.to_string_lossy().into_owned()).unwrap_or_else(|_| p.to_string());
    let layout = Layout {
        workspace: canonical(&layout.workspace),
        home: layout.home.as_deref().map(canonical),
        tmpdir: layout.tmpdir.as_deref().map(canonical),
        extra_credentials: layout.extra_credentials.iter().map(|c| canonical(c)).collect(),
        extra_protected: layout.extra_protected.iter().map(|c| canonical(c)).collect(),
        toolchains: layout.toolchains.clone(),
        client_state: layout.client_state.iter().map(|(c, node)| (canonical(c), *node)).collect(),
        client_files: layout.client_files.clone(),
        ..layout.clone()
    };
    let inputs = Inputs {
        mode,
        layout: &layout,
        path_var: path_var.as_deref(),
        real_bash: &bash,
        self_exe: me.as_deref(),
        standard_files: standard_files(),
        nested: false,
        extra,
    };
    seatbelt::profile(&inputs)
}

/// Applies the Seatbelt profile. macOS takes one profile per process: under an enclosing
/// sandbox-bash, an invocation that asks for no more than the outer one runs under the outer
/// profile; one that asks for more is refused.
fn enforce_macos(
    profile: &str,
    mode: Mode,
    requested: Mode,
    outer: Option<Mode>,
) -> Result<Outcome, crate::error::Error> {
    use crate::error::Error as RunError;
    if already_sandboxed() {
        return match outer {
            Some(outer) if outer.covers(requested) => Ok(Outcome {
                enforcement: Enforcement::default(),
                shortfalls: Vec::new(),
                layer_limit: true,
                run_layers: false,
            }),
            _ => Err(RunError::Sandbox { mode, why: Error::AlreadySandboxed { requested, outer } }),
        };
    }
    apply(profile).map_err(|why| RunError::Sandbox { mode, why })?;
    Ok(Outcome { enforcement: Enforcement::default(), shortfalls: Vec::new(), layer_limit: false, run_layers: false })
}
