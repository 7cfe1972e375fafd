//! One corpus input on one worker: run it once for its coverage (`measure`), or reduce it while it still covers the features it is kept for (`shrink`).
//!
//! The oracle: a candidate is interesting when the target returns normally
//! (no crash, no timeout, not rejected) and its features include every
//! feature assigned to the input by the cover. Only those: every other
//! feature it has is assigned to another kept input, which keeps it. Never
//! the empty input: libFuzzer skips it (`RunOne` returns at size 0), so its
//! coverage would be lost.

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
        return Ok(Shrunk { bytes: bytes.to_vec(), features, tests: 1, stop: None, unstable: true });
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
    match measure(executor, &reduction.best.bytes) {
        Measured::Covered(features) if is_subset(required, &features) => {
            Ok(Shrunk { bytes: reduction.best.bytes, features, tests, stop, unstable: false })
        }
        // The result does not cover them again (coverage that varies run to run): keep the input.
        _ => Ok(Shrunk { bytes: bytes.to_vec(), features, tests, stop, unstable: true }),
    }
}

/// Passes the reducer's progress on as (size, tests).
struct Reporter<'a>(&'a mut dyn FnMut(usize, u64));

impl Observer for Reporter<'_> {
    fn progress(&mut self, progress: &Progress) {
        (self.0)(progress.size, progress.tests);
    }
}
