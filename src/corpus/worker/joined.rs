//! A join on a worker: two results put into one input (the first's collection elements, then the second's) and shrunk while it keeps what the two must; the plan of which pairs to try is `plan/join.rs`'s.

use crate::corpus::jobs::{Joined, Measured, Shrunk};
use crate::corpus::worker::runner::Runner;
use crate::corpus::worker::shrink::{covers, shrink, Budget};
use crate::reduce::join::{joins, padded, PAD};
use crate::reduce::{ReduceOptions, TestCase};

/// Tests a joined input is shrunk for at most: its two parts were shrunk
/// already, so most of what a full shrink would spend is the final proof that
/// no byte of a large input can go (decision 0039).
pub const JOIN_MAX_TESTS: u64 = 20_000;

/// On a worker: `a` and `b` joined (`a` alone without `b`; `saved`, an
/// earlier run's result, when it still covers `required`), shrunk while it
/// covers `required`.
pub fn join_and_shrink(
    runner: &mut Runner,
    a: &[u8],
    b: Option<&[u8]>,
    required: &[u32],
    saved: Option<&[u8]>,
    options: &ReduceOptions,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<Joined, String> {
    let mut done = Joined::default();
    if let Some(bytes) = saved {
        done.tests += 1;
        if let Some(features) = covers(runner, bytes, required) {
            let bytes = bytes.to_vec();
            done.shrunk = Some(Shrunk { bytes, features, tests: 1, stop: None, unstable: false, split: None });
            return Ok(done);
        }
    }
    let joined = match b {
        Some(b) => joined(runner, a, b, required, &mut done)?,
        None => Some(a.to_vec()),
    };
    let Some(joined) = joined else { return Ok(done) };
    let shrunk = shrink(runner, &joined, required, &Budget::full(options.clone()).at_most(JOIN_MAX_TESTS), progress)?;
    done.tests += shrunk.tests;
    done.shrunk = (!shrunk.unstable).then_some(Shrunk { tests: done.tests, ..shrunk });
    Ok(done)
}

/// The first of `a` and `b`'s joins that covers `required`; `done` counts
/// the runs, and says when `a` has no examples.
fn joined(
    runner: &mut Runner,
    a: &[u8],
    b: &[u8],
    required: &[u32],
    done: &mut Joined,
) -> Result<Option<Vec<u8>>, String> {
    let Some(a) = recorded_padded(runner, a, &mut done.tests)? else {
        done.tests += 1;
        done.untyped = runner.examples(a)?.is_empty();
        return Ok(None);
    };
    let Some(b) = recorded_padded(runner, b, &mut done.tests)? else { return Ok(None) };
    Ok(joins(&a, &b).into_iter().find(|joined| {
        done.tests += 1;
        covers(runner, joined, required).is_some()
    }))
}

/// `bytes` run, written again with zeros after its reads, and that run's
/// test case; `tests` counts the runs.
fn recorded_padded(runner: &mut Runner, bytes: &[u8], tests: &mut u64) -> Result<Option<TestCase>, String> {
    let Some(first) = recorded(runner, bytes, tests)? else { return Ok(None) };
    match padded(&first, PAD) {
        Some(padded) => recorded(runner, &padded, tests),
        None => Ok(None),
    }
}

/// `bytes` as a test case with its examples, when it runs normally and has
/// some (a run on each harness, counted in `tests`).
fn recorded(runner: &mut Runner, bytes: &[u8], tests: &mut u64) -> Result<Option<TestCase>, String> {
    *tests += 1;
    if !matches!(runner.measure(bytes), Measured::Covered(_)) {
        return Ok(None);
    }
    *tests += 1;
    let examples = runner.examples(bytes)?;
    Ok((!examples.is_empty()).then(|| TestCase::new(bytes.to_vec(), examples)))
}
