//! While the reducer runs: save every new best at once, and show progress on stderr (a redrawn line on a terminal, a plain line every few seconds otherwise).

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::reduce::{Observer, Progress, TestCase};
use crate::session::interrupt::Interrupt;
use crate::session::output::write_atomically;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// A status line redrawn in place (stderr is a terminal).
    Terminal,
    /// A plain line now and then (stderr is a file or pipe).
    Lines,
    /// Nothing (`--quiet`).
    Off,
}

impl Display {
    /// `Off` when quiet, else by whether stderr is a terminal.
    pub fn choose(quiet: bool) -> Display {
        if quiet {
            Display::Off
        } else if std::io::stderr().is_terminal() {
            Display::Terminal
        } else {
            Display::Lines
        }
    }

    fn interval(self) -> Duration {
        match self {
            Display::Terminal => Duration::from_millis(100),
            Display::Lines | Display::Off => Duration::from_secs(5),
        }
    }
}

/// A status line on stderr: redrawn in place on a terminal (at most every
/// 100 ms), nothing otherwise; lines that stay print above it.
#[derive(Debug)]
pub struct StatusLine {
    /// How progress is shown.
    pub display: Display,
    last_drawn: Option<Instant>,
    drawn: bool,
}

impl StatusLine {
    /// A status line shown as `display` says.
    pub fn new(display: Display) -> StatusLine {
        StatusLine { display, last_drawn: None, drawn: false }
    }

    /// A line that stays (clears the status line first); nothing when `Off`.
    pub fn line(&mut self, text: &str) {
        if self.display == Display::Off {
            return;
        }
        self.clear();
        eprintln!("{text}");
    }

    /// Redraws the status line with `text` (made only when it will be shown),
    /// on a terminal and when the last draw is old enough.
    pub fn draw(&mut self, text: impl FnOnce() -> String) {
        if self.display != Display::Terminal {
            return;
        }
        if self.last_drawn.is_some_and(|t| t.elapsed() < Display::Terminal.interval()) {
            return;
        }
        self.last_drawn = Some(Instant::now());
        let text: String = text().chars().take(160).collect();
        eprint!("\r\x1b[2K{text}");
        let _ = std::io::stderr().flush();
        self.drawn = true;
    }

    /// Clears the status line.
    pub fn clear(&mut self) {
        if self.drawn {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
            self.drawn = false;
        }
    }
}

/// The reducer's observer for a run.
#[derive(Debug)]
pub struct Watcher<'a> {
    output: &'a Path,
    display: Display,
    interrupt: &'a Interrupt,
    initial_len: usize,
    started: Instant,
    last_shown: Option<Instant>,
    drawn: bool,
    /// The first failure to save a result; the run was cancelled when it happened.
    pub write_error: Option<anyhow::Error>,
    /// Results saved.
    pub saved: u64,
}

impl<'a> Watcher<'a> {
    /// A watcher saving to `output`.
    pub fn new(output: &'a Path, display: Display, interrupt: &'a Interrupt, initial_len: usize) -> Self {
        Watcher {
            output,
            display,
            interrupt,
            initial_len,
            started: Instant::now(),
            last_shown: None,
            drawn: false,
            write_error: None,
            saved: 0,
        }
    }

    /// Clears the status line.
    pub fn finish(&mut self) {
        if self.drawn {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
            self.drawn = false;
        }
    }

    fn line(&self, progress: &Progress) -> String {
        let elapsed = self.started.elapsed();
        // A rate over the first few tests says nothing.
        let rate = if elapsed >= Duration::from_millis(500) {
            format!("{:.0}/s", progress.tests as f64 / elapsed.as_secs_f64())
        } else {
            String::from("-/s")
        };
        let percent = 100.0 * progress.size as f64 / self.initial_len.max(1) as f64;
        format!(
            "[{:>6.1}s] {} bytes ({percent:.1}% of {}), {} tests ({rate}), {} improvements, pass: {}",
            elapsed.as_secs_f64(),
            progress.size,
            self.initial_len,
            progress.tests,
            progress.successes,
            if progress.pass.is_empty() { "-" } else { progress.pass },
        )
    }
}

impl Observer for Watcher<'_> {
    fn progress(&mut self, progress: &Progress) {
        if self.display == Display::Off || self.last_shown.is_some_and(|t| t.elapsed() < self.display.interval()) {
            return;
        }
        self.last_shown = Some(Instant::now());
        let line = self.line(progress);
        match self.display {
            Display::Terminal => {
                eprint!("\r\x1b[2K{line}");
                let _ = std::io::stderr().flush();
                self.drawn = true;
            }
            Display::Lines => eprintln!("{line}"),
            Display::Off => {}
        }
    }

    fn improved(&mut self, best: &TestCase) {
        if self.write_error.is_some() {
            return;
        }
        match write_atomically(self.output, &best.bytes) {
            Ok(()) => self.saved += 1,
            Err(e) => {
                self.write_error = Some(e);
                // Without a place to save results, stop as soon as possible.
                self.interrupt.raise();
            }
        }
    }
}

/// `1 B`, `2.1 KiB`, `1.4 MiB`.
pub fn byte_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / KIB),
        _ => format!("{:.1} MiB", bytes as f64 / (KIB * KIB)),
    }
}

/// `1 bug`, `2 bugs`.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
