//! One corpus input on one worker: reduce it while it still covers the features it is kept for (`shrink`), and a large result split in two when that pays (`shrink_and_split`).
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
//! often much less in all (decision 0038).

use crate::corpus::features::{intersect, is_stack, is_subset, union};
use crate::corpus::jobs::{Effort, Measured, Part, Shrunk};
use crate::corpus::worker::covering::Covering;
use crate::corpus::worker::runner::Runner;
use crate::reduce::{reduce_from, Observer, Progress, Proof, ReduceOptions, StopReason, TestCase};

/// A quick shrink's failing steps in a row before a pass yields (`Budget::options`), on a small input.
pub const QUICK_MAX_FAILURES: u32 = 4;

/// A quick shrink's passes may fail one more step in a row per this many
/// bytes of the input, from [`QUICK_MAX_FAILURES`] up to the full budget
/// (decision 0107).
pub const QUICK_BYTES_PER_FAILURE: usize = 256;

/// Results at least this large are tried split in two.
pub const SPLIT_MIN_BYTES: usize = 256;

/// The part of few hits is shrunk first; the other only when that part is
/// at most this share of the whole: the many-hits shrink is the costly one
/// (decision 0038).
const SPLIT_SHARE: usize = 4;

/// The few-hits shrink's budget of tests: where a split paid, that part
/// was small early (decision 0038). A part cut short here is shrunk on in
/// the next round, as an input of its own.
const SPLIT_PROBE_TESTS: u64 = 4_000;

/// Features of this hit-count bucket and above (32 hits or more) are "many
/// hits"; the stack-depth feature counts as one (depth takes nesting).
const MANY_HITS_BUCKET: u32 = 6;

/// What a shrink may spend: the corpus run's reduce options and its round's effort.
#[derive(Clone, Debug)]
pub struct Budget {
    /// The run's options (their `proof` is not read: the effort's half is).
    pub options: ReduceOptions,
    /// What the round asks.
    pub effort: Effort,
}

impl Budget {
    /// `options` as they are, for every input (their proof, the full budget).
    pub fn full(options: ReduceOptions) -> Budget {
        Budget {
            effort: Effort { typed: options.proof, by_size: false, bytes: options.proof, typed_tests: None },
            options,
        }
    }

    /// At most `max_tests` tests (the few-hits part of a split, a join).
    pub fn at_most(&self, max_tests: u64) -> Budget {
        let max_tests = Some(self.options.max_tests.map_or(max_tests, |m| m.min(max_tests)));
        Budget { options: ReduceOptions { max_tests, ..self.options.clone() }, effort: self.effort }
    }

    /// The options for an input of `size` bytes, typed or raw: its half of
    /// the effort's proof; a quick shrink by size yields after
    /// [`QUICK_MAX_FAILURES`] failing steps in a row, not the corpus mode's
    /// 16, so a pass whose successes are over moves on sooner (decision
    /// 0102), and one more per [`QUICK_BYTES_PER_FAILURE`] bytes: a large
    /// input kept for a few features fails its first coarse deletions (each
    /// takes some of what it is kept for) and stalled at once with 4, while
    /// the bytes a success cuts there pay for the tests (decision 0107).
    fn options(&self, typed: bool, size: usize) -> ReduceOptions {
        let Effort { typed: proof, by_size, bytes, typed_tests } = self.effort;
        let (proof, quick) = if typed { (proof, proof == Proof::Skipped && by_size) } else { (bytes, false) };
        let by_size = u32::try_from(size / QUICK_BYTES_PER_FAILURE).unwrap_or(u32::MAX).max(QUICK_MAX_FAILURES);
        let max_failures = if quick { self.options.max_failures.min(by_size) } else { self.options.max_failures };
        let bound = typed_tests.filter(|_| typed);
        let max_tests = match (self.options.max_tests, bound) {
            (Some(run), Some(round)) => Some(run.min(round)),
            (run, round) => run.or(round),
        };
        ReduceOptions { proof, max_failures, max_tests, ..self.options.clone() }
    }
}

/// Shrinks `bytes` while it covers `required` ([`shrink`]); then, when the
/// input is typed (`arbitrary` built it), the result is at least
/// [`SPLIT_MIN_BYTES`] and `required` has features of many
/// hits and of few, shrinks the result once for each kind apart (few hits
/// first, the other only when that part is small) and keeps the two inputs
/// when they are smaller together than the one.
pub fn shrink_and_split(
    runner: &mut Runner,
    bytes: &[u8],
    required: &[u32],
    budget: &Budget,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<Shrunk, String> {
    let whole = shrink(runner, bytes, required, budget, progress)?;
    if whole.unstable || cut_short(&whole) || bounded(&whole) || whole.bytes.len() < SPLIT_MIN_BYTES {
        return Ok(whole);
    }
    let typed = typed(runner, &whole.bytes)?;
    let whole = Shrunk { tests: whole.tests + 1, ..whole };
    if !typed {
        return Ok(whole);
    }
    let counters = runner.counters();
    let (many, few) = by_hits(required, counters);
    if many.is_empty() || few.is_empty() {
        return Ok(whole);
    }
    // Few hits first: it is the cheap one, and a split pays only when that part is small.
    let low = shrink(runner, &whole.bytes, &few, &budget.at_most(SPLIT_PROBE_TESTS), progress)?;
    let mut tests = whole.tests + low.tests;
    if low.unstable || cut_short(&low) || low.bytes.len() * SPLIT_SHARE > whole.bytes.len() {
        return Ok(Shrunk { tests, ..whole });
    }
    let high = shrink(runner, &whole.bytes, &many, budget, progress)?;
    tests += high.tests;
    if high.unstable || cut_short(&high) || high.bytes.len() + low.bytes.len() >= whole.bytes.len() {
        return Ok(Shrunk { tests, ..whole });
    }
    Ok(Shrunk { tests, split: Some(Part { bytes: low.bytes, features: low.features }), ..high })
}

/// Whether `bytes` is typed (`arbitrary` built it; one run on the recording
/// harness). Only typed inputs are split: there every primitive read runs
/// `arbitrary`'s own code, whose counters pin counts the way a bool's does;
/// on a bytes target splits did not pay (decision 0038).
fn typed(runner: &mut Runner, bytes: &[u8]) -> Result<bool, String> {
    Ok(!runner.examples(bytes)?.is_empty())
}

fn cut_short(shrunk: &Shrunk) -> bool {
    shrunk.stop == Some(StopReason::Cancelled)
}

/// Whether the shrink stopped at its test bound: a split waits for the round that shrinks it to the end.
fn bounded(shrunk: &Shrunk) -> bool {
    shrunk.stop == Some(StopReason::TestBudget)
}

/// `required` as (features of many hits, features of few) for a harness of `counters` counters.
fn by_hits(required: &[u32], counters: u32) -> (Vec<u32>, Vec<u32>) {
    required.iter().partition(|&&f| is_stack(f, counters) || f % 8 >= MANY_HITS_BUCKET)
}

/// Reduces `bytes` while it covers `required`; `progress` hears of the best
/// size and the tests so far. The candidates run in a staying child when
/// the input covers `required` there twice in a row; the result is checked
/// in a fresh child. When it fails there, [`after_failed_check`] tells
/// coverage that varies from run to run (the input kept as it is, or the
/// result once two more fresh runs cover) from coverage that earlier runs
/// gave: then the shrink runs again with a fresh child per candidate, and
/// from the third such shrink on so does every later one (decisions 0090,
/// 0102). A result found by children without the sanitizer's costlier
/// checks that crashes in its check sends this shrink and every later one
/// back to the sanitizer's defaults (decision 0117).
pub fn shrink(
    runner: &mut Runner,
    bytes: &[u8],
    required: &[u32],
    budget: &Budget,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<Shrunk, String> {
    let first = runner.measure(bytes);
    let Measured::Covered(features) = first else {
        return Err(format!("it no longer runs normally: {first:?}"));
    };
    if !is_subset(required, &features) {
        // Kept as it is for what it showed before (coverage that varies): it still counts as their holder.
        return Ok(as_it_is(bytes, &features, required, 1));
    }
    let (staying, checks) = enter_staying(runner, bytes, required);
    let (recorded, candidates) = (runner.recorded(), runner.on_candidates());
    let reduction = reduce(runner, bytes, staying.as_deref().unwrap_or(required), budget, progress)?;
    runner.stay(false);
    let tests = reduction.stats.tests + 2 + checks + (runner.recorded() - recorded);
    let stop = reduction.stats.stop.clone();
    let best = reduction.best.bytes;
    let checked = match runner.measure(&best) {
        Measured::Crashed(_) if candidates => {
            // A bug the candidates' children do not catch (decision 0117): this shrink again with it caught.
            runner.forgo_candidates();
            let again = shrink(runner, bytes, required, budget, progress)?;
            return Ok(Shrunk { tests: tests + 1 + again.tests, ..again });
        }
        measured => match covered(measured, required) {
            Some(features) => Checked::Covers(features, 0),
            None if staying.is_some() => after_failed_check(runner, bytes, &best, required),
            None => Checked::Varies(1),
        },
    };
    match checked {
        Checked::Covers(features, runs) => {
            Ok(Shrunk { bytes: best, features, tests: tests + runs, stop, unstable: false, split: None })
        }
        // The result does not cover them again (coverage that varies run to run): keep the input.
        Checked::Varies(runs) => Ok(Shrunk { stop, ..as_it_is(bytes, &features, required, tests + runs) }),
        Checked::Staying(runs) => {
            // Candidates passed after earlier runs that fail alone: this shrink again with fresh children.
            runner.missed_staying();
            let again = runner.fresh(|runner| shrink(runner, bytes, required, budget, progress))?;
            Ok(Shrunk { tests: tests + runs + again.tests, ..again })
        }
    }
}

/// What the fresh check of a shrink's result came to.
enum Checked {
    /// It covers the features (these), after this many more runs.
    Covers(Vec<u32>, u64),
    /// Coverage that varies from run to run: the input is kept as it is
    /// (the runs made to tell).
    Varies(u64),
    /// Earlier runs in the staying child gave the candidates what they
    /// lack alone (the runs made to tell).
    Staying(u64),
}

/// After a staying shrink's result failed its fresh check: the input
/// that failed again in a fresh child varies from run to run (not the
/// staying child's doing: pulldown-cmark's `HashMap`s do it); a result
/// that covers in two more fresh runs is kept (the first miss was
/// variation); else earlier runs gave the candidates what they lack alone.
fn after_failed_check(runner: &mut Runner, input: &[u8], best: &[u8], required: &[u32]) -> Checked {
    if covers(runner, input, required).is_none() {
        return Checked::Varies(1);
    }
    if covers(runner, best, required).is_none() {
        return Checked::Staying(2);
    }
    match covers(runner, best, required) {
        Some(features) => Checked::Covers(features, 3),
        None => Checked::Staying(3),
    }
}

/// `bytes` kept as it is for what it showed before (coverage that varies):
/// still the holder of `required`.
fn as_it_is(bytes: &[u8], features: &[u32], required: &[u32], tests: u64) -> Shrunk {
    let features = union([features, required]);
    Shrunk { bytes: bytes.to_vec(), features, tests, stop: None, unstable: true, split: None }
}

/// Puts the runner's measures in a staying child and returns what a
/// candidate must cover there: `required` but the features that only a
/// process's first run shows (a lazy static's initialization:
/// libfuzzer-sys's own `fuzz_target!` has one), which the fresh check of
/// the result still asks for. Two runs of `bytes` there tell them apart.
/// The child runs without fake stacks where it can
/// ([`Runner::skip_fake_stacks`]); when `bytes` does not cover `required`
/// there (some counters count otherwise without them), with them (decision
/// 0116). `None` when they stay in fresh children (staying forbidden, or
/// the first run there did not cover `required`). Also the runs made.
fn enter_staying(runner: &mut Runner, bytes: &[u8], required: &[u32]) -> (Option<Vec<u32>>, u64) {
    if !runner.stay(true) {
        return (None, 0);
    }
    if !runner.skip_fake_stacks(required) {
        return staying_runs(runner, bytes, required);
    }
    match staying_runs(runner, bytes, required) {
        (None, runs) if runner.stay(true) => {
            let (entered, more) = staying_runs(runner, bytes, required);
            (entered, runs + more)
        }
        entered => entered,
    }
}

/// [`enter_staying`]'s two runs in the staying child the runner is in.
fn staying_runs(runner: &mut Runner, bytes: &[u8], required: &[u32]) -> (Option<Vec<u32>>, u64) {
    let first = runner.measure(bytes);
    let second = runner.measure(bytes);
    match (first, second) {
        (Measured::Covered(first), Measured::Covered(second)) if is_subset(required, &first) => {
            (Some(intersect(required, &second)), 2)
        }
        _ => {
            runner.stay(false);
            (None, 2)
        }
    }
}

/// The reducer on `bytes`, its oracle the coverage harness (and the
/// recording one for a typed input's examples).
fn reduce(
    runner: &mut Runner,
    bytes: &[u8],
    required: &[u32],
    budget: &Budget,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<crate::reduce::Reduction, String> {
    let examples = runner.examples(bytes)?;
    // A candidate's examples come from a run of its own, only where the input has some.
    let typed = !examples.is_empty();
    let options = &budget.options(typed, bytes.len());
    let initial = TestCase::new(bytes.to_vec(), examples);
    let recalled = runner.failures().recall(bytes);
    let mut since_best = Vec::new();
    let oracle = Covering { runner, required, typed, recalled, since_best: &mut since_best, known: 0 };
    let reduction = reduce_from(initial, oracle, options, &mut Reporter(progress));
    runner.failures().keep(&reduction.best.bytes, since_best);
    Ok(reduction)
}

/// The features of `bytes`, when it runs normally and covers `required`.
pub fn covers(runner: &mut Runner, bytes: &[u8], required: &[u32]) -> Option<Vec<u32>> {
    covered(runner.measure(bytes), required)
}

/// The features of a run, when it ran normally and covered `required`.
fn covered(measured: Measured, required: &[u32]) -> Option<Vec<u32>> {
    match measured {
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
    fn a_typed_input_takes_the_efforts_typed_half_with_the_quick_budget_by_size_and_raw_bytes_the_other() {
        let budget = |typed, by_size, max_failures| Budget {
            options: ReduceOptions { max_failures, ..ReduceOptions::default() },
            effort: Effort { typed, by_size, bytes: Proof::First, typed_tests: None },
        };
        let quick = |size| budget(Proof::Skipped, true, 16).options(true, size).max_failures;
        assert_eq!(quick(100), QUICK_MAX_FAILURES);
        assert_eq!(quick(1_300), QUICK_MAX_FAILURES + 1);
        assert_eq!(quick(2_560), 10);
        assert_eq!(quick(100_000), 16, "never past the full budget");
        assert_eq!(budget(Proof::Skipped, true, 2).options(true, 4_000).max_failures, 2, "a smaller budget stays");
        let full = budget(Proof::Skipped, false, 16).options(true, 100);
        assert_eq!((full.proof, full.max_failures), (Proof::Skipped, 16), "a quick shrink at the full budget");
        for typed in [Proof::Skipped, Proof::First, Proof::Last] {
            let bytes = budget(typed, true, 16).options(false, 100);
            assert_eq!((bytes.proof, bytes.max_failures), (Proof::First, 16), "raw bytes: the bytes' proof");
        }
        let proven = budget(Proof::Last, true, 16).options(true, 100);
        assert_eq!((proven.proof, proven.max_failures), (Proof::Last, 16), "by size only when quick");
    }

    #[test]
    fn a_rounds_bound_of_tests_holds_for_typed_inputs_only_and_the_runs_own_bound_when_smaller() {
        let budget = |run: Option<u64>| Budget {
            options: ReduceOptions { max_tests: run, ..ReduceOptions::default() },
            effort: Effort { typed: Proof::First, by_size: false, bytes: Proof::First, typed_tests: Some(500) },
        };
        assert_eq!(budget(None).options(true, 100).max_tests, Some(500));
        assert_eq!(budget(None).options(false, 100).max_tests, None, "raw bytes: no round bound");
        assert_eq!(budget(Some(200)).options(true, 100).max_tests, Some(200), "the run's bound when smaller");
        assert_eq!(budget(Some(9_000)).options(true, 100).max_tests, Some(500));
        assert_eq!(budget(Some(9_000)).options(false, 100).max_tests, Some(9_000));
    }

    #[test]
    fn features_of_32_hits_or_more_and_the_stack_depth_are_many_hits() {
        // Counter 3 hit once (bucket 0), counter 4 at 32-127 (6), counter 5 at 128+ (7),
        // counter 6 at 16-31 (5); 10 counters, so 80 + 2 is the stack-depth feature.
        let (many, few) = by_hits(&[3 * 8, 4 * 8 + 6, 5 * 8 + 7, 6 * 8 + 5, 82], 10);
        assert_eq!(many, [4 * 8 + 6, 5 * 8 + 7, 82]);
        assert_eq!(few, [3 * 8, 6 * 8 + 5]);
    }
}
