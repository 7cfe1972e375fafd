//! Ctrl-C (and SIGTERM, SIGHUP): the first raises the reducer's cancel flag and stops the running test at once; a second exits immediately.
//!
//! The test's process group is not the terminal's foreground group, so it
//! does not get the terminal's SIGINT itself: the handler sends it SIGTERM.
//! The reducer sees that test as not interesting, then the flag, and stops
//! with the best result so far (already on disk).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use nix::sys::signal::Signal;

use crate::exec::process::signal_group;
use crate::exec::RunningGroup;
use crate::exit_code::Exit;

/// The flag the handler raises, and the test it stops.
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    /// Raised on the first Ctrl-C; the reducer polls it before every test.
    pub cancel: Arc<AtomicBool>,
    /// The process group of the test now running (0 when none).
    pub running: RunningGroup,
    /// More running tests: one per batch worker.
    workers: Arc<Mutex<Vec<RunningGroup>>>,
}

impl Interrupt {
    /// Installs the process-wide handler (once per process).
    pub fn install() -> anyhow::Result<Interrupt> {
        let interrupt = Interrupt::default();
        let handler = interrupt.clone();
        ctrlc::set_handler(move || {
            if handler.cancel.swap(true, Ordering::SeqCst) {
                // A second Ctrl-C: the user means it. The output is complete on disk.
                std::process::exit(i32::from(Exit::Interrupted.code()));
            }
            signal_group(handler.running.load(Ordering::SeqCst), Signal::SIGTERM);
            let workers = handler.workers.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for running in workers.iter() {
                signal_group(running.load(Ordering::SeqCst), Signal::SIGTERM);
            }
        })
        .context("cannot install the Ctrl-C handler")?;
        Ok(interrupt)
    }

    /// Whether Ctrl-C was pressed (or the cancel flag raised otherwise).
    pub fn is_raised(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    /// A new place to publish a worker's running test, which Ctrl-C stops too.
    pub fn worker_group(&self) -> RunningGroup {
        let running = RunningGroup::default();
        self.workers.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(running.clone());
        running
    }

    /// Raises the flag, as Ctrl-C would (used to stop after a failed write).
    pub fn raise(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }
}
