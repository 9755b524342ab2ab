//! The integration tests, one binary: each module is one subject. `common` has the helpers
//! and the analysis contexts, `lab` the kernel tests' workspaces, homes and canaries (under
//! `target/`, never `/tmp`, unless a test says so).
//!
//! Tests may use unsafe code: they set up the processes they start (`pre_exec`) as a
//! caller of sandbox-bash would.
#![allow(unsafe_code)]

mod common;
#[cfg(target_os = "linux")]
#[path = "common/lab.rs"]
mod lab;

mod approval;
mod audit;
mod classification;
mod clients;
mod config;
mod container;
mod corpus;
mod docs;
mod enforcement;
mod errors;
mod escapes;
mod everyday;
mod fuzz_stable;
mod hygiene;
mod invocation;
#[cfg(target_os = "linux")]
mod kept;
mod kernel;
#[cfg(target_os = "linux")]
mod later;
mod limits;
mod namespaces;
mod nesting;
mod network;
mod nothing_hidden;
mod parse_ahead;
mod possible;
mod real_scripts;
#[cfg(target_os = "linux")]
mod resources;
mod runtime;
mod seatbelt;
mod shallow;
mod startup_files;
mod symlinks;
mod table_examples;
mod told;
