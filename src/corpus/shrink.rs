//! One corpus input on one worker: run it once for its coverage (`measure`), or reduce it while it still covers the features it is kept for (`shrink`).
//!
//! The oracle: a candidate is interesting when the target returns normally
//! (no crash, no timeout, not rejected) and its features include every
//! feature assigned to the input by the cover. Only those: every other
//! feature it has is assigned to another kept input, which keeps it. Never
//! the empty input: libFuzzer skips it (`RunOne` returns at size 0), so its
//! coverage would be lost.
//!
//! A large result may then be split in two (`shrink_and_split`): counters
//! wrap at 256, so an input kept for an edge run 128 times or more is large,
//! and a feature of few hits assigned to it too (`bool::arbitrary` run 3
//! times, modulo 256, in a 5 KB program) pins every count that moves with
//! it: no deletion keeps it but one of 256 alike elements. Shrunk apart, the
//! many-hit features keep a large input and the few-hit ones a small one,
//! often much less in all (commands: 5,578 bytes -> 3,130 + 5).

use crate::corpus::cover::is_subset;
use crate::exec::{Coverage, Executor, ForkServerExecutor};
use crate::protocol::ResultKind;
use crate::reduce::{reduce_from, Fallible, Observer, Progress, ReduceOptions, StopReason, TestCase, Verdict};
use crate::signature::{Kind, Signature};

/// Why a run of a harness built without coverage cannot be measured.
pub const NOT_INSTRUMENTED: &str = "the harness has no coverage counters (not instrumented)";

/// What one run of an input showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measured {
    /// It ran normally and covered these features (ascending).
    Covered(Vec<u32>),
    /// It crashed (the signature, as shown).
    Crashed(String),
    /// It ran past the time limit.
    TimedOut,
    /// The target rejected it (`Corpus::Reject`): libFuzzer never adds it to a corpus.
    Rejected,
    /// It is empty: libFuzzer never counts an empty input's coverage.
    Empty,
    /// It could not be run or measured.
    Failed(String),
}

/// The run's result on an executor whose harness collects coverage.
pub fn measure(executor: &mut ForkServerExecutor, bytes: &[u8]) -> Measured {
    if bytes.is_empty() {
        return Measured::Empty;
    }
    let outcome = match executor.run(bytes) {
        Ok(outcome) => outcome,
        Err(error) => return Measured::Failed(format!("{error:#}")),
    };
    if let Some(signature) = Signature::of(&outcome) {
        return match signature.kind {
            Kind::Timeout => Measured::TimedOut,
            _ => Measured::Crashed(signature.to_string()),
        };
    }
    if executor.last_result().is_some_and(|r| r.kind == ResultKind::Rejected) {
        return Measured::Rejected;
    }
    match executor.coverage() {
        Some(Coverage { cut: true, .. }) => {
            Measured::Failed(String::from("more features than the shared memory holds"))
        }
        Some(Coverage { counters: 0, .. }) => Measured::Failed(String::from(NOT_INSTRUMENTED)),
        Some(coverage) => Measured::Covered(coverage.features),
        None => Measured::Failed(String::from("the run reported no coverage")),
    }
}

/// A shrunk input.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The result (the input itself when it could not be shrunk).
    pub bytes: Vec<u8>,
    /// The result's features.
    pub features: Vec<u32>,
    /// Tests run, the checks included.
    pub tests: u64,
    /// Why the reduction ended; `None` when it did not run (see `unstable`).
    pub stop: Option<StopReason>,
    /// The input did not cover its assigned features when run again: kept as it is.
    pub unstable: bool,
    /// A second input split off the result (`shrink_and_split`): it covers
    /// the required features of few hits, `bytes` the others.
    pub split: Option<Part>,
}

/// An input split off a shrunk one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its contents.
    pub bytes: Vec<u8>,
    /// Its features.
    pub features: Vec<u32>,
}

/// Results at least this large are tried split in two.
pub const SPLIT_MIN_BYTES: usize = 256;

/// The part of few hits is shrunk first; the other only when that part is
/// at most this share of the whole (where a split paid, on the samples, it
/// was under a hundredth; the many-hits shrink is the costly one).
const SPLIT_SHARE: usize = 4;

/// The few-hits shrink's budget of tests. Where a split paid on the
/// samples, that part went under a quarter of the result within 2,704
/// tests; where it did not, the shrink ran on to 32,000. A part cut short
/// here is shrunk on in the next round, as an input of its own.
const SPLIT_PROBE_TESTS: u64 = 4_000;

/// Features of this hit-count bucket and above (32 hits or more) are "many
/// hits"; the stack-depth feature counts as one (depth takes nesting).
const MANY_HITS_BUCKET: u32 = 6;

/// Shrinks `bytes` while it covers `required` ([`shrink`]); then, when the
/// input is typed (`arbitrary` built it), the result is at least
/// [`SPLIT_MIN_BYTES`] and `required` has features of many
/// hits and of few, shrinks the result once for each kind apart (few hits
/// first, the other only when that part is small) and keeps the two inputs
/// when they are smaller together than the one.
pub fn shrink_and_split(
    executor: &mut ForkServerExecutor,
    bytes: &[u8],
    required: &[u32],
    options: &ReduceOptions,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<Shrunk, String> {
    let whole = shrink(executor, bytes, required, options, progress)?;
    // Typed inputs only: there every primitive read runs `arbitrary`'s own
    // code, whose counters pin counts the way a bool's does. On the bytes
    // target `triage` splits paid locally and cost 1.4% in all (and 66% more time).
    let typed = options.structure && !executor.examples().is_empty();
    if !typed || whole.unstable || cut_short(&whole) || whole.bytes.len() < SPLIT_MIN_BYTES {
        return Ok(whole);
    }
    let counters = executor.coverage().map_or(u32::MAX, |c| c.counters);
    let (many, few) = by_hits(required, counters);
    if many.is_empty() || few.is_empty() {
        return Ok(whole);
    }
    // Few hits first: it is the cheap one, and a split pays only when that part is small.
    let max_tests = Some(options.max_tests.map_or(SPLIT_PROBE_TESTS, |m| m.min(SPLIT_PROBE_TESTS)));
    let low = shrink(executor, &whole.bytes, &few, &ReduceOptions { max_tests, ..options.clone() }, progress)?;
    let mut tests = whole.tests + low.tests;
    if low.unstable || cut_short(&low) || low.bytes.len() * SPLIT_SHARE > whole.bytes.len() {
        return Ok(Shrunk { tests, ..whole });
    }
    let high = shrink(executor, &whole.bytes, &many, options, progress)?;
    tests += high.tests;
    if high.unstable || cut_short(&high) || high.bytes.len() + low.bytes.len() >= whole.bytes.len() {
        return Ok(Shrunk { tests, ..whole });
    }
    Ok(Shrunk { tests, split: Some(Part { bytes: low.bytes, features: low.features }), ..high })
}

fn cut_short(shrunk: &Shrunk) -> bool {
    shrunk.stop == Some(StopReason::Cancelled)
}

/// `required` as (features of many hits, features of few) for a harness of `counters` counters.
fn by_hits(required: &[u32], counters: u32) -> (Vec<u32>, Vec<u32>) {
    let is_stack = |f: u32| u64::from(f) >= u64::from(counters) * 8;
    required.iter().partition(|&&f| is_stack(f) || f % 8 >= MANY_HITS_BUCKET)
}

/// Reduces `bytes` while it covers `required`; `progress` hears of the best
/// size and the tests so far.
pub fn shrink(
    executor: &mut ForkServerExecutor,
    bytes: &[u8],
    required: &[u32],
    options: &ReduceOptions,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<Shrunk, String> {
    let first = measure(executor, bytes);
    let Measured::Covered(features) = first else {
        return Err(format!("it no longer runs normally: {first:?}"));
    };
    if !is_subset(required, &features) {
        return Ok(Shrunk { bytes: bytes.to_vec(), features, tests: 1, stop: None, unstable: true, split: None });
    }
    let examples = if options.structure { executor.examples() } else { Vec::new() };
    let initial = TestCase::new(bytes.to_vec(), examples);
    let structure = options.structure;
    let oracle = Fallible(|candidate: &[u8]| -> anyhow::Result<Verdict> {
        Ok(match measure(executor, candidate) {
            Measured::Covered(features) if is_subset(required, &features) => {
                Verdict::Interesting(if structure { executor.examples() } else { Vec::new() })
            }
            Measured::Failed(error) => anyhow::bail!(error),
            _ => Verdict::Boring,
        })
    });
    let reduction = reduce_from(initial, oracle, options, &mut Reporter(progress));
    let tests = reduction.stats.tests + 2;
    let stop = reduction.stats.stop.clone();
    match covers(executor, &reduction.best.bytes, required) {
        Some(features) => {
            Ok(Shrunk { bytes: reduction.best.bytes, features, tests, stop, unstable: false, split: None })
        }
        // The result does not cover them again (coverage that varies run to run): keep the input.
        None => Ok(Shrunk { bytes: bytes.to_vec(), features, tests, stop, unstable: true, split: None }),
    }
}

/// The features of `bytes`, when it runs normally and covers `required`.
pub fn covers(executor: &mut ForkServerExecutor, bytes: &[u8], required: &[u32]) -> Option<Vec<u32>> {
    match measure(executor, bytes) {
        Measured::Covered(features) => is_subset(required, &features).then_some(features),
        _ => None,
    }
}

/// Passes the reducer's progress on as (size, tests).
struct Reporter<'a>(&'a mut dyn FnMut(usize, u64));

impl Observer for Reporter<'_> {
    fn progress(&mut self, progress: &Progress) {
        (self.0)(progress.size, progress.tests);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_of_32_hits_or_more_and_the_stack_depth_are_many_hits() {
        // Counter 3 hit once (bucket 0), counter 4 at 32-127 (6), counter 5 at 128+ (7),
        // counter 6 at 16-31 (5); 10 counters, so 80 + 2 is the stack-depth feature.
        let (many, few) = by_hits(&[3 * 8, 4 * 8 + 6, 5 * 8 + 7, 6 * 8 + 5, 82], 10);
        assert_eq!(many, [4 * 8 + 6, 5 * 8 + 7, 82]);
        assert_eq!(few, [3 * 8, 6 * 8 + 5]);
    }
}
