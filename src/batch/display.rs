//! What a batch shows while it runs: a status line redrawn on a terminal (inputs triaged, bugs found and done, each worker's current bug and size), plain lines otherwise, and one line per finished bug either way.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::batch::model::{Bug, BugStatus};
use crate::session::progress::{Display, StatusLine};

/// The batch's progress on stderr.
#[derive(Debug)]
pub struct Status {
    status: StatusLine,
    started: Instant,
    /// Bugs found so far (all targets).
    pub found: usize,
    /// Bugs finished so far.
    pub finished: usize,
    workers: BTreeMap<usize, (String, usize, u64)>,
}

impl Status {
    /// Progress shown as `display` says.
    pub fn new(display: Display) -> Status {
        Status {
            status: StatusLine::new(display),
            started: Instant::now(),
            found: 0,
            finished: 0,
            workers: BTreeMap::new(),
        }
    }

    /// A line that stays (clears the status line first).
    pub fn line(&mut self, text: &str) {
        self.status.line(text);
    }

    /// A worker's bug is at `size` bytes after `tests` tests.
    pub fn worker(&mut self, worker: usize, id: &str, size: usize, tests: u64) {
        self.workers.insert(worker, (id.to_owned(), size, tests));
        self.redraw();
    }

    /// Triage is under way.
    pub fn triage(&mut self, done: usize, total: usize) {
        let found = self.found;
        self.status.draw(|| format!("triage: {done}/{total} inputs run, {found} bugs so far"));
    }

    /// A bug finished: one line, and its worker is idle.
    pub fn finished(&mut self, bug: &Bug) {
        self.finished += 1;
        self.workers.retain(|_, (id, _, _)| *id != bug.id);
        let outcome = match &bug.status {
            BugStatus::Minimized => String::from("minimized"),
            BugStatus::NotReproducible => String::from("NOT REPRODUCIBLE"),
            BugStatus::Interrupted => String::from("interrupted"),
            BugStatus::Failed { error } => format!("FAILED: {error}"),
        };
        let size = bug.reproducer_size.map_or_else(|| String::from("-"), |s| s.to_string());
        let duplicates = bug.duplicates.len();
        self.line(&format!(
            "[{}/{}] {}: {} -> {size} bytes in {:.1}s, {outcome}, {duplicates} duplicates; {}",
            self.finished, self.found, bug.id, bug.original_size, bug.seconds, bug.title
        ));
    }

    /// Clears the status line.
    pub fn clear(&mut self) {
        self.status.clear();
    }

    fn redraw(&mut self) {
        let workers: Vec<String> =
            self.workers.values().map(|(id, size, tests)| format!("{id} {size} B/{tests} tests")).collect();
        let (seconds, finished, found) = (self.started.elapsed().as_secs_f64(), self.finished, self.found);
        self.status.draw(|| format!("[{seconds:>6.1}s] bugs: {finished} done of {found} | {}", workers.join(" | ")));
    }
}
