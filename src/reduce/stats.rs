//! What a reduction did: per-pass statistics, progress events, why it stopped.

use std::fmt;
use std::time::Duration;

use super::testcase::TestCase;

/// Why a reduction ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// No pass can improve the result any more (it is 1-minimal).
    Done,
    /// A round where nothing paid, with no final round after it
    /// (`Proof::Skipped`): likely, not proven, 1-minimal.
    Stalled,
    /// `max_tests` tests were run.
    TestBudget,
    /// `max_time` elapsed.
    TimeBudget,
    /// The cancel flag was raised (Ctrl-C).
    Cancelled,
    /// The oracle failed; the message says how.
    OracleFailed(String),
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Done => f.write_str("done: no pass can improve the result"),
            StopReason::Stalled => f.write_str("stopped: a round of every pass found nothing (no final round)"),
            StopReason::TestBudget => f.write_str("stopped: test budget used up"),
            StopReason::TimeBudget => f.write_str("stopped: time budget used up"),
            StopReason::Cancelled => f.write_str("stopped: interrupted"),
            StopReason::OracleFailed(why) => write!(f, "stopped: the test oracle failed: {why}"),
        }
    }
}

/// Counters of one pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// The pass's name.
    pub name: &'static str,
    /// Steps taken (choices explored).
    pub steps: u64,
    /// Candidates actually run.
    pub tests: u64,
    /// Candidates that were interesting (each one an improvement).
    pub successes: u64,
    /// Bytes removed by this pass's successes.
    pub bytes_removed: u64,
}

/// Counters of a whole reduction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Size of the initial input.
    pub initial_len: usize,
    /// Size of the result.
    pub final_len: usize,
    /// Candidates run, the initial input included.
    pub tests: u64,
    /// Improvements found.
    pub successes: u64,
    /// Tests run up to and including the last improvement: the rest were
    /// spent confirming that nothing the passes try improves the result.
    pub tests_to_result: u64,
    /// Each smaller result on the way, as (tests run when it was found, its
    /// size), in order: how fast the size came down.
    pub sizes: Vec<(u64, usize)>,
    /// A hang reduced under short test limits ended with a result that did
    /// not hang under the configured timeout, so it was reduced again under
    /// that (`pipeline::reduce_crash`); the counts are both reductions'.
    pub redone_at_timeout: bool,
    /// The result already ran once more after the reduction, under the
    /// configured timeout, and crashed the same way (a hang's, confirmed):
    /// that run is the re-check.
    pub confirmed: bool,
    /// Candidates skipped because they had been tested already.
    pub cache_hits: u64,
    /// Candidates that decoded to a value the reduction already tested
    /// (typed targets; not counted in `tests`): answered without running the
    /// target, or run ahead on a `--parallel` lane that did not know it.
    pub known_values: u64,
    /// Candidates not run in a round because the same edit behind the same
    /// bytes had failed on an earlier best (`memo`); the proof runs them.
    pub remembered_failures: u64,
    /// Candidates never run because they were not better than the best so far.
    pub not_better: u64,
    /// Per pass, in the order the passes are defined.
    pub passes: Vec<PassStats>,
    /// Candidates tested ahead, in parallel (zero when testing one at a time).
    pub speculation: Speculation,
    /// Wall time of the reduction.
    pub elapsed: Duration,
    /// Why it ended.
    pub stop: Option<StopReason>,
}

impl Stats {
    /// Candidates tested so far: run, or answered as known values.
    pub fn tried(&self) -> u64 {
        self.tests + self.known_values
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} -> {} bytes in {} tests ({} improvements, {} cache hits, {} known values) in {:.2?}",
            self.initial_len,
            self.final_len,
            self.tests,
            self.successes,
            self.cache_hits,
            self.known_values,
            self.elapsed
        )?;
        writeln!(f, "{:<24} {:>8} {:>8} {:>10} {:>10}", "pass", "steps", "tests", "successes", "removed")?;
        for p in &self.passes {
            writeln!(f, "{:<24} {:>8} {:>8} {:>10} {:>10}", p.name, p.steps, p.tests, p.successes, p.bytes_removed)?;
        }
        if let Some(stop) = &self.stop {
            write!(f, "{stop}")?;
        }
        Ok(())
    }
}

/// What testing ahead did: candidates predicted and run in parallel, and how
/// many of them the serial order then used (the rest were wasted work).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Speculation {
    /// Predictions made (each one batch of candidates run at once).
    pub batches: u64,
    /// Candidates run ahead.
    pub run: u64,
    /// Of those, the ones the reduction then took (each counted in `tests` too).
    pub used: u64,
}

/// A snapshot of a running reduction, for progress displays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Size of the best test case so far.
    pub size: usize,
    /// Tests run so far.
    pub tests: u64,
    /// Improvements so far.
    pub successes: u64,
    /// The pass now running.
    pub pass: &'static str,
}

/// Receives events while a reduction runs. Both methods do nothing by default.
pub trait Observer {
    /// Called when a pass starts, on every improvement and every few tests.
    fn progress(&mut self, _progress: &Progress) {}
    /// Called with each new best test case, so it can be saved at once.
    fn improved(&mut self, _best: &TestCase) {}
}

/// An observer that ignores everything.
#[derive(Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {}
