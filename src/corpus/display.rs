//! What the corpus mode shows while it runs: a status line redrawn on a terminal (inputs measured, kept inputs shrunk, each worker's input and size), plain lines at each phase's end either way.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::session::progress::{Display, StatusLine};

/// The corpus run's progress on stderr.
#[derive(Debug)]
pub struct Status {
    status: StatusLine,
    started: Instant,
    workers: BTreeMap<usize, (usize, usize, u64)>,
}

impl Status {
    /// Progress shown as `display` says.
    pub fn new(display: Display) -> Status {
        Status { status: StatusLine::new(display), started: Instant::now(), workers: BTreeMap::new() }
    }

    /// A line that stays.
    pub fn line(&mut self, text: &str) {
        self.status.line(text);
    }

    /// Inputs measured so far.
    pub fn measuring(&mut self, done: usize, total: usize) {
        let seconds = self.started.elapsed().as_secs_f64();
        self.status.draw(|| format!("[{seconds:>6.1}s] measuring coverage: {done}/{total} inputs run"));
    }

    /// A worker's input is at `size` bytes after `tests` tests.
    pub fn worker(&mut self, worker: usize, input: usize, size: usize, tests: u64) {
        self.workers.insert(worker, (input, size, tests));
    }

    /// Kept inputs shrunk so far; the workers' inputs.
    pub fn shrinking(&mut self, done: usize, total: usize) {
        let seconds = self.started.elapsed().as_secs_f64();
        let workers: Vec<String> =
            self.workers.values().map(|(input, size, tests)| format!("#{input} {size} B/{tests} tests")).collect();
        self.status.draw(|| format!("[{seconds:>6.1}s] shrinking: {done}/{total} done | {}", workers.join(" | ")));
    }

    /// A worker finished its input.
    pub fn idle(&mut self, input: usize) {
        self.workers.retain(|_, (i, _, _)| *i != input);
    }

    /// Clears the status line.
    pub fn clear(&mut self) {
        self.status.clear();
    }
}
