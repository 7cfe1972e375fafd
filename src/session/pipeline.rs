//! The steps of minimizing one crash, shared by the single-input run and every batch worker: run the original a few times, reduce while the crash stays the same (noting other crashes met on the way), run the result again.

use std::collections::{HashMap, HashSet};

use crate::exec::probe::HangProbe;
use crate::exec::{Executor, Outcome};
use crate::reduce::{reduce_from, Observer, Oracle, ReduceOptions, Reduction, Stats, StopReason, TestCase, Verdict};
use crate::signature::{Kind, Level, Signature};

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

    /// The crashes met, in the order first met, each with its smallest input
    /// (the tests read them; a run hands each on as it is met).
    #[cfg(test)]
    pub fn into_found(mut self) -> Vec<(Signature, Vec<u8>)> {
        let order = std::mem::take(&mut self.order);
        order.into_iter().map(|s| (s.clone(), self.found.remove(&s).unwrap_or_default())).collect()
    }
}

/// Reduces `initial` while it crashes as `target` says; other crashes go to
/// `slips`. The first test of `initial` is taken as interesting (its runs
/// showed the crash), as the reducer always does. Tests run under shorter
/// time limits ([`HangProbe`]): a candidate that hangs is boring or, when
/// reducing a hang, interesting long before the timeout. When a hang's
/// result does not hang under the configured timeout, the original goes
/// back to the observer and the reduction starts over without them, its
/// tests added to the first's (after a test or time budget ran out, the
/// original is the result).
pub fn reduce_crash<E: Executor + ?Sized>(
    executor: &mut E,
    initial: TestCase,
    target: Target,
    options: &ReduceOptions,
    observer: &mut impl Observer,
    slips: &mut Slips<'_>,
) -> Reduction {
    let hang = target.expected.kind == Kind::Timeout;
    let (first, cut_short) = reduce_once(executor, initial.clone(), target, options, observer, slips, true);
    let stop = first.stats.stop.clone().unwrap_or(StopReason::Done);
    if !hang || !cut_short || matches!(stop, StopReason::Cancelled | StopReason::OracleFailed(_)) {
        return first;
    }
    let confirmed = executor.run(&first.best.bytes);
    if confirmed.is_ok_and(|outcome| same_crash(target.expected, &outcome, target.level)) {
        return Reduction { stats: Stats { confirmed: true, ..first.stats }, ..first };
    }
    observer.improved(&initial);
    if stop != StopReason::Done {
        let stats = Stats { final_len: initial.len(), ..first.stats };
        return Reduction { best: initial, stats };
    }
    let (mut again, _) = reduce_once(executor, initial, target, options, observer, slips, false);
    again.stats.tests += first.stats.tests + 1;
    again.stats.tests_to_result += first.stats.tests + 1;
    for (tests, _) in &mut again.stats.sizes {
        *tests += first.stats.tests + 1;
    }
    again.stats.elapsed += first.stats.elapsed;
    again.stats.redone_at_timeout = true;
    again
}

/// One reduction (with a [`HangProbe`] when `probe` is set); also whether a
/// shortened limit ended a test.
fn reduce_once<E: Executor + ?Sized>(
    executor: &mut E,
    initial: TestCase,
    target: Target,
    options: &ReduceOptions,
    observer: &mut impl Observer,
    slips: &mut Slips<'_>,
    probe: bool,
) -> (Reduction, bool) {
    executor.replay_known_values(true);
    let mut probe = probe.then(HangProbe::default);
    let oracle = SameCrash {
        executor: &mut *executor,
        target,
        slips,
        values: HashSet::new(),
        alikes: HashSet::new(),
        known_values: 0,
        probe: &mut probe,
        hang_checked: false,
    };
    let reduction = reduce_from(initial, oracle, options, observer);
    let cut_short = probe.as_ref().is_some_and(HangProbe::cut_short);
    // What runs next (the re-check of the result) must run the target, under the configured timeout.
    executor.replay_known_values(false);
    executor.limit_time(None);
    (reduction, cut_short)
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
    /// The look-alike keys of the clean runs among them.
    alikes: HashSet<u64>,
    /// How many candidates had a value tested before (answered without a
    /// run, or run ahead on a lane that did not know it: counted alike, so
    /// the counts do not depend on `--parallel`).
    known_values: u64,
    /// Shortens the time limit as runs finish (none in a hang's second reduction).
    probe: &'a mut Option<HangProbe>,
    /// Whether a hang was noted as a slip, or a timeout under a short limit
    /// run under the configured timeout to see whether it is one.
    hang_checked: bool,
}

impl<E: Executor + ?Sized> Oracle for SameCrash<'_, '_, E> {
    fn test(&mut self, candidate: &[u8]) -> anyhow::Result<Verdict> {
        let short = self.probe.as_ref().and_then(HangProbe::limit).is_some();
        let outcome = self.executor.run(candidate)?;
        if let Some(limit) = self.probe.as_mut().and_then(|probe| probe.observe(&outcome)) {
            self.executor.limit_time(Some(limit));
        }
        // A look-alike of a clean run counts as known too, whether this run
        // was answered by it or ran on a lane that did not have it.
        let value_seen = outcome.value_key.is_some_and(|key| !self.values.insert(key));
        let alike_seen = outcome.alike_key.is_some_and(|key| !self.alikes.insert(key));
        self.known_values += u64::from(value_seen || alike_seen);
        let Some(actual) = Signature::of(&outcome) else { return Ok(Verdict::Boring) };
        let target = self.target;
        if !target.expected.matches(&actual, target.level) {
            let timeout = actual.kind == Kind::Timeout;
            if timeout && short {
                self.note_hang(candidate)?;
            } else {
                self.hang_checked |= timeout;
                self.slips.note(actual, target.level, candidate);
            }
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

    fn recorded(&self) -> Option<Vec<crate::reduce::Example>> {
        self.target.structure.then(|| self.executor.examples())
    }
}

impl<E: Executor + ?Sized> SameCrash<'_, '_, E> {
    /// A timeout under a short limit, met while reducing another crash: the
    /// first (unless a hang was noted already) is run again under the
    /// configured timeout and noted as a slip when it hangs there too; later
    /// ones are left out (each check costs the whole timeout, and one input
    /// is enough to minimize the hang from).
    fn note_hang(&mut self, candidate: &[u8]) -> anyhow::Result<()> {
        if std::mem::replace(&mut self.hang_checked, true) {
            return Ok(());
        }
        self.executor.limit_time(None);
        let outcome = self.executor.run(candidate);
        self.executor.limit_time(self.probe.as_ref().and_then(HangProbe::limit));
        if let Some(actual) = Signature::of(&outcome?).filter(|actual| actual.kind == Kind::Timeout) {
            self.slips.note(actual, self.target.level, candidate);
        }
        Ok(())
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
    use std::time::Duration;

    use super::*;
    use crate::exec::fake::{clean, panic_at, Fake};
    use crate::exec::Status;
    use crate::signature::Kind;

    /// [`reduce_crash`] of raw `input` (no examples) for `expected` at the default level, with no observer.
    fn reduce_quietly(
        executor: &mut impl Executor,
        expected: &Signature,
        input: &[u8],
        options: &ReduceOptions,
        slips: &mut Slips<'_>,
    ) -> Reduction {
        let target = Target { expected, level: Level::Default, structure: false };
        let initial = TestCase::new(input.to_vec(), Vec::new());
        reduce_crash(executor, initial, target, options, &mut crate::reduce::Quiet, slips)
    }

    /// Panics at a location named by the input's first byte; no crash on `0`.
    fn by_first_byte() -> Fake<impl crate::exec::fake::Target> {
        Fake::new(|input: &[u8], _| {
            Ok(match input.first() {
                Some(0) | None => clean(Duration::ZERO),
                Some(b) => panic_at(&format!("src/lib.rs:{b}:1"), "boom"),
            })
        })
    }

    #[test]
    fn the_majority_crash_wins_and_the_earliest_breaks_ties() {
        let mut executor = by_first_byte();
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
            raised_in: None,
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
        let mut executor = by_first_byte();
        let expected = run_times(&mut executor, b"\x05", 1, || false).unwrap().signatures[0].clone().unwrap();
        let mut slips = Slips::default();
        let reduction =
            reduce_quietly(&mut executor, &expected, b"\x05\x09\x07\x07", &ReduceOptions::default(), &mut slips);
        assert_eq!(reduction.best.bytes, b"\x05");
        let found = slips.into_found();
        assert!(!found.is_empty(), "the reducer met other panics on the way");
        for (signature, input) in &found {
            assert_eq!(signature.kind, Kind::Panic);
            assert_ne!(signature.location, expected.location);
            let mut check = by_first_byte();
            let outcome = check.run(input).unwrap();
            assert!(same_crash(signature, &outcome, Level::Default), "a slip's input shows its crash");
        }
    }

    /// A simulated target: hangs with 10 `X`s or more; with a count in
    /// `slow` it takes 400 ms and finishes; else 1 ms. It honours the time
    /// limit. Reduces `input` on it: the reduction, how many tests a
    /// shortened limit ended, and the limit it was left with.
    fn reduce_hang(
        slow: std::ops::RangeInclusive<usize>,
        input: &[u8],
        options: &ReduceOptions,
    ) -> (Reduction, usize, Option<Duration>) {
        const TIMEOUT: Duration = Duration::from_secs(1);
        let mut cut_short = 0;
        let mut executor = Fake::new(|input: &[u8], limit: Option<Duration>| {
            let limit = limit.map_or(TIMEOUT, |limit| limit.min(TIMEOUT));
            let xs = input.iter().filter(|&&b| b == b'X').count();
            let takes = match xs {
                10.. => Duration::MAX,
                _ if slow.contains(&xs) => Duration::from_millis(400),
                _ => Duration::from_millis(1),
            };
            let status = if takes > limit { Status::Timeout } else { Status::Exited(0) };
            cut_short += usize::from(status == Status::Timeout && limit < TIMEOUT);
            Ok(Outcome::new(status, Vec::new(), takes.min(limit)))
        });
        let expected = Signature::of(&executor.run(input).unwrap()).expect("a timeout");
        let reduction = reduce_quietly(&mut executor, &expected, input, options, &mut Slips::default());
        let limit = executor.limit();
        (reduction, cut_short, limit)
    }

    #[test]
    fn a_hang_is_reduced_under_short_limits_and_again_under_the_timeout_when_its_result_does_not_hang() {
        // 9 `X`s run fast (the short limit is set), 8 slowly: a hang under it.
        let input = [vec![b'.'; 40], vec![b'X'; 12]].concat();
        let (reduction, cut_short, limit) = reduce_hang(6..=8, &input, &ReduceOptions::default());
        assert!(cut_short > 0, "the short limit ended tests");
        assert!(reduction.stats.redone_at_timeout, "8 `X`s looked like a hang under it");
        assert_eq!(reduction.best.bytes, b"XXXXXXXXXX");
        assert_eq!(limit, None, "the configured timeout again");

        let budget = ReduceOptions { max_tests: Some(18), ..ReduceOptions::default() };
        let (stopped, _, _) = reduce_hang(6..=8, &input, &budget);
        assert_eq!(stopped.best.bytes, input, "no budget for a second reduction: the original");
    }

    #[test]
    fn a_hang_reduced_under_short_limits_is_kept_when_it_hangs_under_the_timeout() {
        let input = [vec![b'.'; 40], vec![b'X'; 12]].concat();
        // No slow band (11 `X`s hang first).
        let (reduction, cut_short, _) = reduce_hang(11..=11, &input, &ReduceOptions::default());
        assert!(cut_short > 0, "the short limit ended tests");
        assert!(!reduction.stats.redone_at_timeout);
        assert!(reduction.stats.confirmed, "run once more under the timeout: the re-check");
        assert_eq!(reduction.best.bytes, b"XXXXXXXXXX");
    }

    /// A simulated interpreter: panics (fast) when the input holds a `P` and
    /// an `L`; without a `P`, loops forever on an `L`. Counts its hangs in
    /// `timeouts`, and those that waited the whole timeout in `full`.
    fn panic_or_loop<'c>(timeouts: &'c mut usize, full: &'c mut usize) -> Fake<impl crate::exec::fake::Target + 'c> {
        Fake::new(move |input: &[u8], limit: Option<Duration>| {
            Ok(if input.contains(&b'P') && input.contains(&b'L') {
                panic_at("src/vm.rs:9:1", "boom")
            } else if input.contains(&b'L') {
                *timeouts += 1;
                *full += usize::from(limit.is_none());
                Outcome::new(Status::Timeout, Vec::new(), limit.unwrap_or(Duration::from_secs(1)))
            } else {
                clean(Duration::ZERO)
            })
        })
    }

    #[test]
    fn hangs_met_while_reducing_a_crash_end_early_and_the_first_is_checked_before_it_is_noted() {
        let (mut all, mut full) = (0, 0);
        let input = b"..L.L.P.L.L..L..L.L..L".to_vec();
        let mut slips = Slips::default();
        let reduction = {
            let mut executor = panic_or_loop(&mut all, &mut full);
            let expected = Signature::of(&executor.run(&input).unwrap()).unwrap();
            reduce_quietly(&mut executor, &expected, &input, &ReduceOptions::default(), &mut slips)
        };
        assert_eq!(reduction.best.bytes, b"LP");
        assert!(all > 2 && full <= 2, "{full} of {all} hangs waited the whole timeout");
        let found = slips.into_found();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0.kind, Kind::Timeout);
        assert!(found[0].1.contains(&b'L') && !found[0].1.contains(&b'P'), "a real hang");
    }
}
