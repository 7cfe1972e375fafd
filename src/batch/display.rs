//! What a batch shows while it runs: a status line redrawn on a terminal (inputs triaged, bugs found and done, each worker's current bug and size), plain lines otherwise, and one line per finished bug either way.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use crate::batch::model::{Bug, BugStatus};
use crate::progress::Display;

/// The batch's progress on stderr.
#[derive(Debug)]
pub struct Status {
    display: Display,
    started: Instant,
    last_drawn: Option<Instant>,
    drawn: bool,
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
            display,
            started: Instant::now(),
            last_drawn: None,
            drawn: false,
            found: 0,
            finished: 0,
            workers: BTreeMap::new(),
        }
    }

    /// A line that stays (clears the status line first).
    pub fn line(&mut self, text: &str) {
        if self.display == Display::Off {
            return;
        }
        self.clear();
        eprintln!("{text}");
    }

    /// A worker's bug is at `size` bytes after `tests` tests.
    pub fn worker(&mut self, worker: usize, id: &str, size: usize, tests: u64) {
        self.workers.insert(worker, (id.to_owned(), size, tests));
        self.redraw();
    }

    /// Triage is under way.
    pub fn triage(&mut self, done: usize, total: usize) {
        if self.display != Display::Terminal || self.throttled() {
            return;
        }
        self.draw(&format!("triage: {done}/{total} inputs run, {} bugs so far", self.found));
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
        if self.drawn {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
            self.drawn = false;
        }
    }

    fn redraw(&mut self) {
        if self.display != Display::Terminal || self.throttled() {
            return;
        }
        let workers: Vec<String> =
            self.workers.values().map(|(id, size, tests)| format!("{id} {size} B/{tests} tests")).collect();
        let text = format!(
            "[{:>6.1}s] bugs: {} done of {} | {}",
            self.started.elapsed().as_secs_f64(),
            self.finished,
            self.found,
            workers.join(" | ")
        );
        self.draw(&text);
    }

    fn throttled(&mut self) -> bool {
        if self.last_drawn.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
            return true;
        }
        self.last_drawn = Some(Instant::now());
        false
    }

    fn draw(&mut self, text: &str) {
        let width = 160;
        let text: String = text.chars().take(width).collect();
        eprint!("\r\x1b[2K{text}");
        let _ = std::io::stderr().flush();
        self.drawn = true;
    }
}
