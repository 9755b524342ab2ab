//! What runs outside a run where the kernel layer is Seatbelt: nothing. The network is held
//! without a namespace or proxy (a list means no network at all), nested levels write their
//! own records, and the same calls as on Linux find nothing to do.

use std::ffi::CString;
use std::os::fd::OwnedFd;

use super::{Nested, ToRun};
use crate::environ::Environ;
use crate::error::Error;
use crate::network::NetPlan;
use crate::sandbox;
use crate::settings::Settings;

/// Nothing runs outside.
pub(crate) struct Outside;

impl Outside {
    pub(crate) fn start(to_run: &ToRun<'_>, _: Option<Nested>) -> Result<Outside, Error> {
        // Without a supervisor there is no session to serve.
        let _ = to_run.session;
        Ok(Outside)
    }

    pub(crate) fn network(&self) -> Option<&[u16]> {
        None
    }

    pub(crate) fn join(&self) -> Option<&OwnedFd> {
        None
    }

    pub(crate) fn sockets(&self) -> Vec<String> {
        Vec::new()
    }

    pub(crate) fn locked(&mut self, _: &mut sandbox::Locked) -> Result<(), Error> {
        Ok(())
    }

    pub(crate) fn serve(&mut self, _: sandbox::NetworkLayer) -> Result<(), Error> {
        Ok(())
    }

    pub(crate) fn note(&self) -> Option<String> {
        None
    }

    /// An enclosing level's lists, as they came (none here holds one of its own).
    pub(crate) fn held_lists(&self, net: &NetPlan) -> Option<String> {
        match net {
            NetPlan::Enclosed(fp, _) => Some(fp.clone()),
            _ => None,
        }
    }

    pub(crate) fn replaced(&self, _: &Settings) -> Vec<&'static str> {
        Vec::new()
    }

    pub(crate) fn variables(&self, _: &Settings, _: &Environ) -> Result<Vec<CString>, Error> {
        Ok(Vec::new())
    }
}

/// Agent sessions need a supervisor: there are none here.
pub(crate) struct Session;

/// No session: each call is on its own.
pub(crate) struct RunSession;

impl RunSession {
    pub(crate) fn id(&self) -> Option<String> {
        None
    }

    pub(crate) fn own(&self) -> Option<&Session> {
        None
    }
}

pub(crate) fn session(_: &Settings, _: &crate::scope::Layout, _: &Environ) -> RunSession {
    RunSession
}
