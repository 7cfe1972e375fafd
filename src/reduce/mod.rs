//! The reducer: from an interesting input and an oracle, the smallest interesting input it can find.
//!
//! Structure-aware when the oracle reports [`Example`]s (where each value was
//! read from the input), byte-level otherwise. Candidates are ordered shortlex
//! and one is run only when it is strictly better than the best so far; passes
//! are sets of choices that the [`scheduler`] explores; see
//! `docs/ARCHITECTURE.md` for the design and the papers behind it.

mod choice;
pub mod draws;
pub mod join;
mod memo;
mod oracle;
pub mod passes;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod range_properties;
pub(crate) mod respell;
mod scheduler;
mod shrinker;
mod speculate;
mod stats;
#[cfg(test)]
mod stop_properties;
pub mod tape;
mod testcase;
pub mod text;
#[cfg(test)]
pub(crate) mod typed_properties;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[cfg(test)]
pub(crate) use oracle::Recording;
pub use oracle::{Fallible, Oracle, Verdict};
pub(crate) use shrinker::hash;
pub use stats::{Observer, PassStats, Progress, Quiet, Speculation, Stats, StopReason};
pub use testcase::{
    better, delete_range, delete_ranges, replace_ranges, shortlex, Example, Label, TestCase, CALL_LABEL,
};

/// In which order a pass explores its choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Highest index first, resuming each step where the previous one stopped.
    Deterministic,
    /// Pseudo-random, reproducible for a given seed.
    Random {
        /// The seed.
        seed: u64,
    },
}

/// How a reduction runs.
#[derive(Clone, Debug)]
pub struct ReduceOptions {
    /// Stop after this many tests (the initial test included).
    pub max_tests: Option<u64>,
    /// Stop after this much time.
    pub max_time: Option<Duration>,
    /// Choice order.
    pub order: Order,
    /// Use the examples the oracle reports (`false` reduces bytes only).
    pub structure: bool,
    /// Use the draws among them: the typed order and the draw-level passes
    /// (`false`: typed inputs compared byte by byte).
    pub draws: bool,
    /// Try every smaller value of each byte at the end, not only zero, one
    /// less, and a binary search (costs up to 255 tests per byte).
    pub exhaustive_lowering: bool,
    /// Run the lowering passes (smaller byte values of the same size); `false`
    /// makes only the size smaller (the corpus mode, where values do not matter).
    pub lowering: bool,
    /// The oracle reads libFuzzer's coverage counters (corpus mode), which
    /// are 8 bits wide and wrap at 256: also try deleting 256 alike elements
    /// at once (`delete-256-alike`), a move that keeps every count modulo 256.
    pub wrapping_counters: bool,
    /// A pass yields to the next after this many failing steps in a row (its
    /// place is kept for the next round; the final round runs to exhaustion).
    pub max_failures: u32,
    /// A pass that has not paid once in the reduction has that budget halved
    /// each round, down to this. `max_failures` or more: never halved, as
    /// the corpus mode runs, since a coverage oracle's successes come late
    /// (decision 0014).
    pub min_failures: u32,
    /// When the final round runs, which proves the result 1-minimal (the
    /// guarantee passes to exhaustion): after a round where nothing paid,
    /// not at all, or first (decision 0101).
    pub proof: Proof,
    /// Raised from elsewhere (a Ctrl-C handler) to stop at the next test.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for ReduceOptions {
    fn default() -> Self {
        ReduceOptions {
            max_tests: None,
            max_time: None,
            order: Order::Deterministic,
            structure: true,
            draws: true,
            exhaustive_lowering: false,
            lowering: true,
            wrapping_counters: false,
            max_failures: 16,
            min_failures: 4,
            proof: Proof::Last,
            cancel: None,
        }
    }
}

/// When a reduction runs its final round, the one that proves the result
/// 1-minimal (the corpus mode's rounds: decision 0101).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proof {
    /// After the first round where nothing paid, and again after each such
    /// round until the final round finds nothing either.
    #[default]
    Last,
    /// Never: the reduction stops at its first round where nothing paid
    /// ([`StopReason::Stalled`]), likely but not proven 1-minimal.
    Skipped,
    /// Before any other round: the input is what a `Skipped` reduction
    /// left, where the first round would find nothing again.
    First,
}

/// The outcome of a reduction.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The best test case found: interesting, and never worse than the input.
    pub best: TestCase,
    /// What it took.
    pub stats: Stats,
}

/// The initial input was not interesting, so there is nothing to reduce.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The oracle said the initial input is not interesting.
    #[error("the initial input is not interesting (the oracle rejected it)")]
    InitialNotInteresting,
    /// The oracle failed on the initial input.
    #[error("testing the initial input failed")]
    InitialTestFailed(#[source] anyhow::Error),
}

/// Reduces `initial` with the default options and no observer.
pub fn reduce(initial: &[u8], oracle: impl Oracle) -> Result<Reduction, ReduceError> {
    reduce_with(initial, oracle, &ReduceOptions::default(), &mut Quiet)
}

/// Reduces `initial`: tests it once (to confirm it and record its examples),
/// then runs the passes until none improves it or a budget runs out.
pub fn reduce_with(
    initial: &[u8],
    mut oracle: impl Oracle,
    options: &ReduceOptions,
    observer: &mut dyn Observer,
) -> Result<Reduction, ReduceError> {
    let examples = match oracle.test(initial) {
        Ok(Verdict::Interesting(examples)) => examples,
        Ok(Verdict::Boring) => return Err(ReduceError::InitialNotInteresting),
        Err(e) => return Err(ReduceError::InitialTestFailed(e)),
    };
    Ok(reduce_from(TestCase::new(initial.to_vec(), examples), oracle, options, observer))
}

/// Reduces a test case already known to be interesting (its examples recorded),
/// for callers that ran the initial input themselves.
pub fn reduce_from(
    initial: TestCase,
    mut oracle: impl Oracle,
    options: &ReduceOptions,
    observer: &mut dyn Observer,
) -> Reduction {
    let shrinker = shrinker::Shrinker::new(initial, &mut oracle, options, observer);
    scheduler::run(shrinker)
}

/// Runs the single pass `name` (one of [`passes::names`]) from a test case
/// known to be interesting until it stops paying; `None` for an unknown name.
/// For tests and for studying one pass in isolation.
pub fn run_pass(name: &str, initial: TestCase, mut oracle: impl Oracle, options: &ReduceOptions) -> Option<Reduction> {
    let mut quiet = Quiet;
    let shrinker = shrinker::Shrinker::new(initial, &mut oracle, options, &mut quiet);
    scheduler::run_single(shrinker, name)
}
