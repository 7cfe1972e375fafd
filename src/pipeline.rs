//! The steps of minimizing one crash, shared by the single-input run and every batch worker: run the original a few times, reduce while the crash stays the same (noting other crashes met on the way), run the result again.

use std::collections::{HashMap, HashSet};

use crate::exec::{Executor, Outcome};
use crate::reduce::{reduce_from, Observer, Oracle, ReduceOptions, Reduction, TestCase, Verdict};
use crate::signature::{Level, Signature};

/// How many times the original runs before reducing, to catch a flaky target.
pub const INITIAL_RUNS: usize = 3;

/// What the first runs of an input showed.
#[derive(Debug)]
pub struct Runs {
    /// Every run's outcome, in order.
    pub outcomes: Vec<Outcome>,
    /// Every run's crash (`None`: no crash).
    pub signatures: Vec<Option<Signature>>,
}

impl Runs {
    /// The most common crash at `level` and how many runs had it (the
    /// earliest wins ties); `None` when no run crashed.
    pub fn majority(&self, level: Level) -> Option<(&Signature, usize)> {
        let crashes = || self.signatures.iter().flatten();
        crashes()
            .map(|s| (s, crashes().filter(|other| s.matches(other, level)).count()))
            // max_by_key keeps the last of equals; reverse so the earliest run wins ties.
            .rev()
            .max_by_key(|&(_, count)| count)
    }

    /// How many runs crashed as `expected` at `level`.
    pub fn matching(&self, expected: &Signature, level: Level) -> usize {
        self.signatures.iter().flatten().filter(|s| expected.matches(s, level)).count()
    }
}

/// Runs `input` `times` times, stopping early when `stop` says so.
pub fn run_times<E: Executor + ?Sized>(
    executor: &mut E,
    input: &[u8],
    times: usize,
    stop: impl Fn() -> bool,
) -> anyhow::Result<Runs> {
    let mut runs = Runs { outcomes: Vec::with_capacity(times), signatures: Vec::with_capacity(times) };
    for _ in 0..times {
        let outcome = executor.run(input)?;
        runs.signatures.push(Signature::of(&outcome));
        runs.outcomes.push(outcome);
        if stop() {
            break;
        }
    }
    Ok(runs)
}

/// The crash a reduction keeps.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The crash.
    pub expected: &'a Signature,
    /// How closely candidates must match it.
    pub level: Level,
    /// Use the structure the executor records.
    pub structure: bool,
}

/// Crashes other than the one being kept, met while reducing (slips): the
/// smallest input seen for each, by signature at the run's level; a hook may
/// hear of each one as soon as it is first met.
#[derive(Default)]
pub struct Slips<'a> {
    found: HashMap<Signature, Vec<u8>>,
    order: Vec<Signature>,
    on_new: Option<SlipHook<'a>>,
}

/// Hears of a slip when first met: its signature and input.
type SlipHook<'a> = Box<dyn FnMut(&Signature, &[u8]) + 'a>;

impl std::fmt::Debug for Slips<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slips").field("order", &self.order).field("hook", &self.on_new.is_some()).finish()
    }
}

impl<'a> Slips<'a> {
    /// Slips that call `hook` with the signature and input of each one first met.
    pub fn with_hook(hook: impl FnMut(&Signature, &[u8]) + 'a) -> Slips<'a> {
        Slips { on_new: Some(Box::new(hook)), ..Slips::default() }
    }

    /// Notes that `input` crashed as `signature`.
    pub fn note(&mut self, signature: Signature, level: Level, input: &[u8]) {
        let key = signature.at_level(level);
        match self.found.get_mut(&key) {
            Some(smallest) if (input.len(), input) < (smallest.len(), smallest.as_slice()) => {
                *smallest = input.to_vec();
            }
            Some(_) => {}
            None => {
                if let Some(hook) = &mut self.on_new {
                    hook(&signature, input);
                }
                self.order.push(key.clone());
                self.found.insert(key, input.to_vec());
            }
        }
    }

    /// The crashes met, in the order first met, each with its smallest input.
    pub fn into_found(mut self) -> Vec<(Signature, Vec<u8>)> {
        let order = std::mem::take(&mut self.order);
        order.into_iter().map(|s| (s.clone(), self.found.remove(&s).unwrap_or_default())).collect()
    }
}

/// Reduces `initial` while it crashes as `target` says; other crashes go to
/// `slips`. The first test of `initial` is taken as interesting (its runs
/// showed the crash), as the reducer always does.
pub fn reduce_crash<E: Executor + ?Sized>(
    executor: &mut E,
    initial: TestCase,
    target: Target,
    options: &ReduceOptions,
    observer: &mut impl Observer,
    slips: &mut Slips<'_>,
) -> Reduction {
    executor.replay_known_values(true);
    let oracle = SameCrash { executor: &mut *executor, target, slips, values: HashSet::new(), known_values: 0 };
    let reduction = reduce_from(initial, oracle, options, observer);
    // What runs next (the re-check of the result) must run the target.
    executor.replay_known_values(false);
    reduction
}

/// The reduction's oracle: a candidate is interesting when it crashes as the
/// target says; another crash is noted as a slip when the serial run meets
/// it (so testing ahead finds exactly the slips a serial run does).
struct SameCrash<'a, 's, E: ?Sized> {
    executor: &'a mut E,
    target: Target<'a>,
    slips: &'a mut Slips<'s>,
    /// The value keys of the candidates tested, in the serial run's order.
    values: HashSet<u64>,
    /// How many candidates had a value tested before (answered without a
    /// run, or run ahead on a lane that did not know it: counted alike, so
    /// the counts do not depend on `--parallel`).
    known_values: u64,
}

impl<E: Executor + ?Sized> Oracle for SameCrash<'_, '_, E> {
    fn test(&mut self, candidate: &[u8]) -> anyhow::Result<Verdict> {
        let outcome = self.executor.run(candidate)?;
        if let Some(key) = outcome.value_key {
            self.known_values += u64::from(!self.values.insert(key));
        }
        let Some(actual) = Signature::of(&outcome) else { return Ok(Verdict::Boring) };
        let target = self.target;
        if !target.expected.matches(&actual, target.level) {
            self.slips.note(actual, target.level, candidate);
            return Ok(Verdict::Boring);
        }
        Ok(Verdict::Interesting(if target.structure { self.executor.examples() } else { Vec::new() }))
    }

    fn width(&self) -> usize {
        self.executor.width()
    }

    fn prefetch(&mut self, candidates: &[Vec<u8>]) {
        self.executor.prefetch(candidates);
    }

    fn known_values(&self) -> u64 {
        self.known_values
    }
}

/// The test case to start from: the input with the structure its last run
/// recorded (run it last before calling this).
pub fn initial_test_case<E: Executor + ?Sized>(executor: &E, input: &[u8], structure: bool) -> TestCase {
    TestCase::new(input.to_vec(), if structure { executor.examples() } else { Vec::new() })
}

/// Whether `outcome` is the crash `expected` at `level`.
pub fn same_crash(expected: &Signature, outcome: &Outcome, level: Level) -> bool {
    Signature::of(outcome).is_some_and(|actual| expected.matches(&actual, level))
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::time::Duration;

    use super::*;
    use crate::exec::Status;
    use crate::signature::Kind;

    /// Panics at a location named by the input's first byte; no crash on `0`.
    struct ByFirstByte(VecDeque<u8>);

    impl Executor for ByFirstByte {
        fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome> {
            self.0.extend(input.first());
            let stderr = match input.first() {
                Some(0) | None => String::new(),
                Some(b) => format!("thread 'main' panicked at src/lib.rs:{b}:1:\nboom\n"),
            };
            let code = if stderr.is_empty() { 0 } else { 101 };
            Ok(Outcome {
                status: Status::Exited(code),
                stderr: stderr.into_bytes(),
                duration: Duration::ZERO,
                panic: None,
                frames: None,
                value_key: None,
            })
        }
    }

    #[test]
    fn the_majority_crash_wins_and_the_earliest_breaks_ties() {
        let mut executor = ByFirstByte(VecDeque::new());
        let runs = run_times(&mut executor, b"\x07rest", 3, || false).unwrap();
        let (signature, count) = runs.majority(Level::Default).unwrap();
        assert_eq!((signature.location.as_deref(), count), (Some("src/lib.rs:7:1"), 3));
        assert_eq!(runs.matching(signature, Level::Default), 3);
        let none = run_times(&mut executor, b"\x00", 2, || false).unwrap();
        assert!(none.majority(Level::Default).is_none());
    }

    #[test]
    fn the_hook_hears_of_each_slip_once_when_first_met() {
        let mut heard = Vec::new();
        let panic_at = |line: u32| Signature {
            kind: Kind::Panic,
            location: Some(format!("src/a.rs:{line}:1")),
            message: Some(format!("m{line}")),
        };
        let mut slips = Slips::with_hook(|s: &Signature, input: &[u8]| heard.push((s.clone(), input.to_vec())));
        slips.note(panic_at(1), Level::Default, b"long");
        slips.note(panic_at(1), Level::Default, b"s");
        slips.note(panic_at(2), Level::Default, b"x");
        let found = slips.into_found();
        assert_eq!(found[0].1, b"s", "the smallest input is kept");
        assert_eq!(heard, [(panic_at(1), b"long".to_vec()), (panic_at(2), b"x".to_vec())]);
    }

    #[test]
    fn a_reduction_keeps_its_crash_and_notes_the_smallest_input_of_each_other_crash() {
        let mut executor = ByFirstByte(VecDeque::new());
        let expected = run_times(&mut executor, b"\x05", 1, || false).unwrap().signatures[0].clone().unwrap();
        let mut slips = Slips::default();
        let target = Target { expected: &expected, level: Level::Default, structure: false };
        let initial = TestCase::new(b"\x05\x09\x07\x07".to_vec(), Vec::new());
        let reduction = reduce_crash(
            &mut executor,
            initial,
            target,
            &ReduceOptions::default(),
            &mut crate::reduce::Quiet,
            &mut slips,
        );
        assert_eq!(reduction.best.bytes, b"\x05");
        let found = slips.into_found();
        assert!(!found.is_empty(), "the reducer met other panics on the way");
        for (signature, input) in &found {
            assert_eq!(signature.kind, Kind::Panic);
            assert_ne!(signature.location, expected.location);
            let mut check = ByFirstByte(VecDeque::new());
            let outcome = check.run(input).unwrap();
            assert!(same_crash(signature, &outcome, Level::Default), "a slip's input shows its crash");
        }
    }
}
