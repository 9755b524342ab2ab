//! Fuzzing of the bash argument scanner: any argument vector must be read without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sandbox_bash::invocation::{Tty, parse};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

fuzz_target!(|data: &[u8]| {
    let args: Vec<OsString> = data.split(|&b| b == 0).map(|a| OsStr::from_bytes(a).to_os_string()).collect();
    for tty in [Tty::default(), Tty { stdin: true, stderr: true }] {
        let _ = parse(OsStr::new("bash"), &args, tty);
        let _ = parse(OsStr::new("-bash"), &args, tty);
    }
});
