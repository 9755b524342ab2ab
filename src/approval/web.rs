//! The approvals page on loopback (`--sandbox-approvals --web`).

use std::sync::mpsc;

use super::listen::{Event, Presence, Shared};

pub(super) struct Page;

impl Page {
    pub(super) fn start(_addr: Option<&str>, _queue: Shared) -> Result<Page, String> {
        Err("--web is not built yet".into())
    }
    pub(super) fn presence(&self) -> Presence {
        std::sync::Arc::new(|| Err("no page".into()))
    }
    pub(super) fn url(&self) -> String {
        String::new()
    }
    pub(super) fn run(self, _rx: mpsc::Receiver<Event>) -> Result<(), String> {
        Ok(())
    }
}
