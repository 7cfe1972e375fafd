//! What the corpus mode shows while it runs: a status line redrawn on a terminal (the new corpus's files, bytes and features against the old one's, bytes saved per second, kept inputs shrunk, each worker's input and size), plain lines at each phase's end, and the corpus's size once a minute when stderr is not a terminal.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::session::progress::{byte_size, Display, StatusLine};

/// How often the corpus's size is printed as a line when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(60);

/// A corpus's size: files, bytes, features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// Files.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Distinct features.
    pub features: usize,
}

/// The corpus run's progress on stderr.
#[derive(Debug)]
pub struct Status {
    status: StatusLine,
    started: Instant,
    workers: BTreeMap<usize, (usize, usize, u64)>,
    /// The old corpus; the new one when first complete (and when); now.
    old: Size,
    first: Option<(Size, Instant)>,
    now: Size,
    last_line: Option<Instant>,
}

impl Status {
    /// Progress shown as `display` says, timed from `started`.
    pub fn new(display: Display, started: Instant) -> Status {
        let status = StatusLine::new(display);
        let (old, now, first, last_line) = (Size::default(), Size::default(), None, None);
        Status { status, started, workers: BTreeMap::new(), old, first, now, last_line }
    }

    /// A line that stays.
    pub fn line(&mut self, text: &str) {
        self.status.line(text);
    }

    /// Inputs measured so far (`again`: run again, for coverage that varies).
    pub fn measuring(&mut self, done: usize, total: usize, again: bool) {
        let seconds = self.started.elapsed().as_secs_f64();
        let what = if again { "measuring coverage again (does it vary?)" } else { "measuring coverage" };
        self.status.draw(|| format!("[{seconds:>6.1}s] {what}: {done}/{total} inputs run"));
    }

    /// The corpus read, once measured.
    pub fn old_corpus(&mut self, old: Size) {
        self.old = old;
    }

    /// The first complete corpus is written: `new`.
    pub fn first_corpus(&mut self, new: Size) {
        (self.now, self.first) = (new, Some((new, Instant::now())));
        let seconds = self.started.elapsed().as_secs_f64();
        self.line(&format!("[{seconds:>6.1}s] a complete corpus is in place: {}; improving it", self.versus()));
    }

    /// Seconds from the start to the first complete corpus, once written.
    pub fn first_complete(&self) -> Option<f64> {
        self.first.map(|(_, at)| at.duration_since(self.started).as_secs_f64())
    }

    /// The new corpus's files and bytes now.
    pub fn corpus(&mut self, (files, bytes): (usize, u64)) {
        (self.now.files, self.now.bytes) = (files, bytes);
        let due = self.last_line.map_or(self.started.elapsed() >= LINE_EVERY, |t| t.elapsed() >= LINE_EVERY);
        if self.status.display == Display::Lines && due {
            self.last_line = Some(Instant::now());
            let seconds = self.started.elapsed().as_secs_f64();
            let text = format!("[{seconds:>6.1}s] {}, {}", self.versus(), self.rate());
            self.status.line(&text);
        }
    }

    /// The new corpus against the old: `47 files, 10.5 KiB, 554 features (from 2000 files, 8.7 MiB, 554)`.
    fn versus(&self) -> String {
        let (now, old) = (self.now, self.old);
        format!(
            "{} files, {}, {} features (from {} files, {}, {})",
            now.files,
            byte_size(now.bytes),
            now.features,
            old.files,
            byte_size(old.bytes),
            old.features
        )
    }

    /// Bytes saved per second since the first complete corpus.
    fn rate(&self) -> String {
        let Some((first, at)) = self.first else { return String::new() };
        let saved = first.bytes.saturating_sub(self.now.bytes);
        format!("{}/s saved", byte_size((saved as f64 / at.elapsed().as_secs_f64().max(1.0)) as u64))
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
        let corpus = self.first.map(|_| format!("{}, {} | ", self.versus(), self.rate())).unwrap_or_default();
        self.status.draw(|| format!("[{seconds:>6.1}s] {corpus}shrunk {done}/{total} | {}", workers.join(" | ")));
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
