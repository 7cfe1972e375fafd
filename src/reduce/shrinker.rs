//! The shrinker's state: the best test case, the one rule for running a candidate, budgets and counters.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::choice::DeadBranch;
use super::draws::typed_order;
use super::memo::EditMemo;
use super::oracle::{Oracle, Verdict};
use super::stats::{Observer, PassStats, Progress, Stats, StopReason};
use super::tape::{self, Read};
use super::testcase::TestCase;
use super::text;
use super::{ReduceOptions, Reduction};

/// Why a pass step ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Halt {
    /// The step's choices were used up.
    Dead,
    /// The whole reduction must stop.
    Stop(StopReason),
}

impl From<DeadBranch> for Halt {
    fn from(_: DeadBranch) -> Self {
        Halt::Dead
    }
}

/// What a pass step returns.
pub(crate) type StepResult = Result<(), Halt>;

/// Tests sent to the observer between progress events.
const PROGRESS_EVERY: u64 = 64;

/// The best test case so far and everything needed to try candidates against it.
pub(crate) struct Shrinker<'a> {
    /// Shared, so a pass step can hold it while trying candidates.
    best: Arc<TestCase>,
    /// Bumped on every improvement; passes compare it to notice a change.
    generation: u64,
    oracle: &'a mut dyn Oracle,
    options: &'a ReduceOptions,
    observer: &'a mut dyn Observer,
    /// Hashes of every candidate run (64-bit SipHash with fixed keys, so runs
    /// are reproducible; a collision only skips one candidate).
    seen: HashSet<u64>,
    /// Edits that failed, answered without a test in a round.
    memo: EditMemo,
    pub(crate) stats: Stats,
    /// Index into `stats.passes` of the pass now running.
    current: usize,
    started: Instant,
    /// The hashes of the candidates the oracle is testing ahead, in the
    /// order the serial run is predicted to meet them.
    ahead: VecDeque<u64>,
    /// Whether `ahead` holds a step's own guesses ([`Shrinker::hint`]), which
    /// end with the step.
    hinted: bool,
    /// Set while the scheduler predicts the next candidates: they are
    /// collected instead of run.
    dry: Option<DryRun>,
    /// The best test case's reads ([`tape::reads`]) and the generation they
    /// are of: a step on the reads runs once per test, most of them on the
    /// same best, and reading them again cost a sixth of the tool's own time
    /// in corpus mode.
    reads: Option<(u64, Option<Arc<[Read]>>)>,
}

/// The candidates a prediction collected (each one as `run_if` would have run it).
struct DryRun {
    /// Their hashes, so a candidate proposed twice is collected once.
    seen: HashSet<u64>,
    candidates: Vec<Vec<u8>>,
    limit: usize,
}

impl<'a> Shrinker<'a> {
    pub(crate) fn new(
        initial: TestCase,
        oracle: &'a mut dyn Oracle,
        options: &'a ReduceOptions,
        observer: &'a mut dyn Observer,
    ) -> Self {
        let initial = configured(initial, options);
        let mut seen = HashSet::new();
        seen.insert(hash(&initial.bytes));
        let stats = Stats {
            initial_len: initial.len(),
            final_len: initial.len(),
            tests: 1,
            tests_to_result: 1,
            ..Stats::default()
        };
        Shrinker {
            best: Arc::new(initial),
            generation: 0,
            oracle,
            options,
            observer,
            seen,
            memo: EditMemo::default(),
            stats,
            current: 0,
            started: Instant::now(),
            ahead: VecDeque::new(),
            hinted: false,
            dry: None,
            reads: None,
        }
    }

    /// The best test case so far.
    pub(crate) fn best(&self) -> &TestCase {
        &self.best
    }

    /// The best test case so far, to keep while it changes.
    pub(crate) fn shared(&self) -> Arc<TestCase> {
        Arc::clone(&self.best)
    }

    /// The best test case's reads, once per generation; `None` when its
    /// lengths do not fit the model ([`tape::reads`]).
    pub(crate) fn reads(&mut self) -> Option<Arc<[Read]>> {
        match &self.reads {
            Some((generation, reads)) if *generation == self.generation => reads.clone(),
            _ => {
                let reads: Option<Arc<[Read]>> = tape::reads(&self.best).map(Arc::from);
                self.reads = Some((self.generation, reads.clone()));
                reads
            }
        }
    }

    /// Changes whenever the best test case does.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn options(&self) -> &ReduceOptions {
        self.options
    }

    /// Lets the memo of failed edits answer candidates (in a round) or not
    /// (in the proof and the polish).
    pub(crate) fn remember_failures(&mut self, on: bool) {
        self.memo.set_on(on);
    }

    /// Whether the memo answered a candidate of the best test case as it is
    /// now: then the passes' choices on it are not all proven.
    pub(crate) fn memo_answered_now(&self) -> bool {
        self.memo.answered_at(self.generation)
    }

    /// Registers the passes' statistics rows.
    pub(crate) fn add_pass(&mut self, name: &'static str) -> usize {
        self.stats.passes.push(PassStats { name, ..PassStats::default() });
        self.stats.passes.len() - 1
    }

    /// Makes `pass` the one whose counters move, and tells the observer.
    pub(crate) fn enter_pass(&mut self, pass: usize) {
        self.current = pass;
        self.report_progress();
    }

    /// The statistics of the pass now running (what it did in earlier rounds).
    pub(crate) fn pass_stats(&self) -> &PassStats {
        &self.stats.passes[self.current]
    }

    pub(crate) fn count_step(&mut self) {
        self.stats.passes[self.current].steps += 1;
    }

    /// Tries a candidate: runs it only if it is strictly better (shortlex)
    /// than the best so far and was never run before. Returns whether it
    /// became the new best.
    pub(crate) fn consider(&mut self, candidate: Vec<u8>) -> Result<bool, Halt> {
        let better = self.better(&candidate, false);
        self.run_if(candidate, better)
    }

    /// Like [`Shrinker::consider`], in the typed order: at equal length the
    /// best's draws compare by value first (the draw-level passes' moves: 500
    /// for 512, though `f4 01` is larger than `00 02` byte for byte). Only
    /// those passes use it, so every other pass moves as it does without draws.
    pub(crate) fn consider_typed(&mut self, candidate: Vec<u8>) -> Result<bool, Halt> {
        let better = self.better(&candidate, true);
        self.run_if(candidate, better)
    }

    /// [`Shrinker::consider_typed`], and when the candidate ran and was
    /// boring, what its run recorded (the oracle's [`Oracle::recorded`]).
    /// A candidate that is not better is run as a probe, only for what it
    /// records: it never becomes the best.
    pub(crate) fn consider_learning(&mut self, candidate: Vec<u8>) -> Result<(bool, Option<TestCase>), Halt> {
        if !self.better(&candidate, true) {
            return self.probe(candidate).map(|run| (false, run));
        }
        let key = hash(&candidate);
        let seen_before = self.seen.contains(&key);
        let copy = candidate.clone();
        if self.consider_typed(candidate)? {
            return Ok((true, None));
        }
        // A candidate run now is in `seen`; one answered otherwise (cached, remembered, predicted) is not new there.
        let ran = !seen_before && self.seen.contains(&key);
        Ok((false, ran.then(|| self.oracle.recorded()).flatten().map(|examples| TestCase::new(copy, examples))))
    }

    /// Runs `candidate` (never run before) for what it records; `None` while
    /// predicting, for a candidate run before, or when the oracle records nothing.
    fn probe(&mut self, candidate: Vec<u8>) -> Result<Option<TestCase>, Halt> {
        let key = hash(&candidate);
        if self.dry.is_some() || !self.seen.insert(key) {
            return Ok(None);
        }
        self.test(&candidate, key)?.map_err(|e| Halt::Stop(StopReason::OracleFailed(format!("{e:#}"))))?;
        Ok(self.oracle.recorded().map(|examples| TestCase::new(candidate, examples)))
    }

    /// Runs `candidate` (hashed `key`) through the oracle, within the budget,
    /// and counts it: the one place a test is made.
    fn test(&mut self, candidate: &[u8], key: u64) -> Result<anyhow::Result<Verdict>, Halt> {
        self.check_budget()?;
        self.take_ahead(key);
        let known_before = self.oracle.known_values();
        let verdict = self.oracle.test(candidate);
        self.count_test(known_before);
        Ok(verdict)
    }

    /// Whether `candidate` is strictly better than the best so far: shortlex,
    /// or `typed`, in the typed order.
    fn better(&self, candidate: &[u8], typed: bool) -> bool {
        if typed {
            typed_order(candidate, &self.best.bytes, &self.best.draws, &self.best.text).is_lt()
        } else {
            text::shortlex(candidate, &self.best.bytes, &self.best.text).is_lt()
        }
    }

    fn run_if(&mut self, candidate: Vec<u8>, better: bool) -> Result<bool, Halt> {
        if !better {
            self.stats.not_better += 1;
            return Ok(false);
        }
        let key = hash(&candidate);
        let fresh = self.dry.is_some() && !self.seen.contains(&key) && !self.remembered(&candidate);
        if let Some(dry) = &mut self.dry {
            if fresh && dry.seen.insert(key) {
                dry.candidates.push(candidate);
            }
            return if dry.candidates.len() >= dry.limit { Err(Halt::Dead) } else { Ok(false) };
        }
        if self.seen.contains(&key) {
            self.stats.cache_hits += 1;
            return Ok(false);
        }
        if self.remembered(&candidate) {
            self.memo.answered(key, self.generation);
            self.stats.remembered_failures += 1;
            return Ok(false);
        }
        self.seen.insert(key);
        let verdict = self.test(&candidate, key)?;
        if let Ok(verdict) = &verdict {
            let interesting = matches!(verdict, Verdict::Interesting(_));
            self.memo.record(&self.best.bytes, &candidate, key, interesting);
        }
        match verdict {
            Err(e) => Err(Halt::Stop(StopReason::OracleFailed(format!("{e:#}")))),
            Ok(Verdict::Boring) => Ok(false),
            Ok(Verdict::Interesting(examples)) => {
                let removed = self.best.len() - candidate.len();
                let pass = &mut self.stats.passes[self.current];
                pass.successes += 1;
                pass.bytes_removed += removed as u64;
                self.stats.successes += 1;
                self.stats.tests_to_result = self.stats.tests;
                if candidate.len() < self.best.len() {
                    self.stats.sizes.push((self.stats.tests, candidate.len()));
                }
                self.best = Arc::new(configured(TestCase::new(candidate, examples), self.options));
                self.generation += 1;
                self.ahead.clear();
                self.observer.improved(&self.best);
                self.report_progress();
                Ok(true)
            }
        }
    }

    /// Counts the candidate just tested: a test, or a known value when the
    /// oracle answered without running the target.
    fn count_test(&mut self, known_before: u64) {
        if self.oracle.known_values() > known_before {
            self.stats.known_values += 1;
            return;
        }
        self.stats.tests += 1;
        self.stats.passes[self.current].tests += 1;
        if self.stats.tests % PROGRESS_EVERY == 0 {
            self.report_progress();
        }
    }

    /// Notes that the serial run reached candidate `key`: the prediction's
    /// next one, or a divergence that makes the rest of it useless.
    fn take_ahead(&mut self, key: u64) {
        if self.ahead.front() == Some(&key) {
            self.ahead.pop_front();
            self.stats.speculation.used += 1;
        } else {
            self.ahead.clear();
        }
    }

    /// How many candidates to test ahead now: none while earlier ones are
    /// being taken, during a prediction, or when the oracle tests one at a time.
    pub(crate) fn wants_prediction(&self) -> usize {
        let width = self.oracle.width();
        if width < 2 || !self.ahead.is_empty() || self.dry.is_some() {
            return 0;
        }
        let left = self.options.max_tests.map_or(u64::MAX, |max| max.saturating_sub(self.stats.tests));
        width.min(usize::try_from(left).unwrap_or(usize::MAX))
    }

    /// Starts a prediction: until [`Shrinker::end_prediction`], candidates are
    /// collected (at most `limit`; the one that reaches it ends its step) and
    /// nothing the steps do counts.
    pub(crate) fn begin_prediction(&mut self, limit: usize) -> Stats {
        self.dry = Some(DryRun { seen: HashSet::new(), candidates: Vec::new(), limit });
        self.stats.clone()
    }

    /// Makes `pass` the one whose counters the steps read, without telling
    /// the observer (a dry run); returns the one it was.
    pub(crate) fn swap_current(&mut self, pass: usize) -> usize {
        std::mem::replace(&mut self.current, pass)
    }

    /// How many candidates the prediction under way has collected.
    pub(crate) fn predicted(&self) -> usize {
        self.dry.as_ref().map_or(0, |dry| dry.candidates.len())
    }

    /// Ends a prediction: the counters go back to `saved`, and the oracle
    /// starts testing the candidates collected (when there are two or more).
    pub(crate) fn end_prediction(&mut self, saved: Stats) {
        self.stats = saved;
        let Some(dry) = self.dry.take() else { return };
        self.run_ahead(dry.candidates, false);
    }

    /// Tests `candidates` at once when the oracle can and nothing runs ahead
    /// now: the first is the one the pass tries next, the others guesses at
    /// what follows it (`typed`: compared as [`Shrinker::consider_typed`]
    /// does). Those the pass would not run (not better, run before) are left out.
    pub(crate) fn hint(&mut self, candidates: Vec<Vec<u8>>, typed: bool) {
        let limit = self.wants_prediction();
        let mut keys = HashSet::new();
        let kept: Vec<Vec<u8>> = candidates
            .into_iter()
            .filter(|c| {
                let key = hash(c);
                self.better(c, typed) && !self.seen.contains(&key) && !self.remembered(c) && keys.insert(key)
            })
            .take(limit)
            .collect();
        self.run_ahead(kept, true);
    }

    /// A step ends: what it guessed and did not reach is dropped, so the
    /// next step can predict.
    pub(crate) fn end_step(&mut self) {
        if self.hinted {
            self.ahead.clear();
            self.hinted = false;
        }
    }

    /// Hands `candidates` to the oracle to test at once (two or more; fewer
    /// are left to the serial run), expecting them in this order; `hinted`:
    /// a step's own guesses, dropped when the step ends.
    fn run_ahead(&mut self, candidates: Vec<Vec<u8>>, hinted: bool) {
        if candidates.len() < 2 {
            return;
        }
        self.ahead = candidates.iter().map(|c| hash(c)).collect();
        self.hinted = hinted;
        self.stats.speculation.run += candidates.len() as u64;
        self.stats.speculation.batches += 1;
        self.oracle.prefetch(&candidates);
    }

    /// Fails with the reason to stop if a budget is used up or the run was cancelled.
    pub(crate) fn check_budget(&self) -> Result<(), Halt> {
        if let Some(cancel) = &self.options.cancel {
            if cancel.load(Ordering::Relaxed) {
                return Err(Halt::Stop(StopReason::Cancelled));
            }
        }
        if self.options.max_tests.is_some_and(|max| self.stats.tests >= max) {
            return Err(Halt::Stop(StopReason::TestBudget));
        }
        if self.options.max_time.is_some_and(|max| self.started.elapsed() >= max) {
            return Err(Halt::Stop(StopReason::TimeBudget));
        }
        Ok(())
    }

    fn report_progress(&mut self) {
        let progress = Progress {
            size: self.best.len(),
            tests: self.stats.tests,
            successes: self.stats.successes,
            pass: self.stats.passes.get(self.current).map_or("", |p| p.name),
        };
        self.observer.progress(&progress);
    }

    /// Whether the memo answers `candidate` as a failure (never on an input
    /// that draws alone describe: see [`super::memo`]).
    fn remembered(&self, candidate: &[u8]) -> bool {
        !self.best.draws_only() && self.memo.remembers(&self.best.bytes, candidate)
    }

    /// Ends the reduction.
    pub(crate) fn finish(mut self, stop: StopReason) -> Reduction {
        self.stats.final_len = self.best.len();
        self.stats.elapsed = self.started.elapsed();
        self.stats.stop = Some(stop);
        let best = Arc::try_unwrap(self.best).unwrap_or_else(|shared| (*shared).clone());
        Reduction { best, stats: self.stats }
    }
}

/// `tc` with what the options leave out dropped: its examples without
/// structure, its draws without draws.
fn configured(mut tc: TestCase, options: &ReduceOptions) -> TestCase {
    if !options.structure {
        tc = TestCase::new(tc.bytes, Vec::new());
    }
    if !options.draws {
        tc.draws.clear();
        tc.text.clear();
    }
    tc
}

pub(crate) fn hash(bytes: &[u8]) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::typed_properties::{decode, encode_value, Recorder, Ty, Val};
    use crate::reduce::{Quiet, ReduceOptions};

    /// A `(String, u8)`, interesting while the `u8` is 7.
    fn ty() -> Ty {
        Ty::Struct("T".into(), vec![Ty::Str, Ty::Int(1)])
    }

    fn input(text: &str, marker: u128) -> Vec<u8> {
        encode_value(&Val::Struct(vec![Val::Str(text.as_bytes().to_vec()), Val::Int(marker)]), &ty(), &[])
    }

    fn holds(value: &Val) -> bool {
        matches!(value, Val::Struct(fields) if fields[1] == Val::Int(7))
    }

    #[test]
    fn a_candidate_runs_only_when_better_and_never_twice_and_the_best_moves_when_it_is_interesting_with_its_reads() {
        let ty = ty();
        let mut oracle = Recorder::new(&ty, holds);
        let (options, mut quiet) = (ReduceOptions::default(), Quiet);
        let start = input("abc", 7);
        let mut sh =
            Shrinker::new(TestCase::new(start.clone(), decode(&ty, &start).1), &mut oracle, &options, &mut quiet);
        sh.add_pass("test");
        let text = |reads: Arc<[Read]>| reads.iter().find(|r| matches!(r, Read::Front(b) if b.len() != 1)).cloned();
        assert_eq!(text(sh.reads().expect("fits")), Some(Read::Front(b"abc".to_vec())));
        assert!(!sh.consider(input("abcd", 7)).unwrap(), "longer: not run");
        assert_eq!((sh.stats.tests, sh.stats.not_better), (1, 1));
        assert!(!sh.consider(input("ab", 8)).unwrap(), "boring");
        assert!(!sh.consider(input("ab", 8)).unwrap(), "the same candidate again");
        assert_eq!((sh.stats.tests, sh.stats.cache_hits), (2, 1));
        assert_eq!(text(sh.reads().expect("fits")), Some(Read::Front(b"abc".to_vec())), "boring: the best stays");
        assert!(sh.consider(input("ab", 7)).unwrap());
        assert_eq!((sh.best().bytes.clone(), sh.generation()), (input("ab", 7), 1));
        assert_eq!(text(sh.reads().expect("fits")), Some(Read::Front(b"ab".to_vec())), "read again for the new best");
    }

    #[test]
    fn a_candidate_that_is_not_better_is_probed_for_what_it_reads_and_never_kept() {
        let ty = ty();
        let mut oracle = Recorder::new(&ty, holds);
        let (options, mut quiet) = (ReduceOptions::default(), Quiet);
        let start = input("a", 7);
        let mut sh =
            Shrinker::new(TestCase::new(start.clone(), decode(&ty, &start).1), &mut oracle, &options, &mut quiet);
        sh.add_pass("test");
        let longer = input("abcdef", 7);
        let (better, run) = sh.consider_learning(longer.clone()).unwrap();
        let run = run.expect("a probe's recording");
        assert!(!better && run.bytes == longer, "interesting, but longer: not kept");
        assert_eq!(run.draws.len(), 3, "its length, contents and marker");
        assert_eq!((sh.best().bytes.clone(), sh.stats.tests), (start, 2), "one test, the best as it was");
        assert!(sh.consider_learning(longer).unwrap().1.is_none(), "run before: nothing new to learn");
        let (better, run) = sh.consider_learning(input("", 9)).unwrap();
        assert!(!better && run.is_some_and(|run| run.draws.len() == 3), "boring and better: what it read");
        assert!(sh.consider_learning(input("", 7)).unwrap().0);
    }
}
