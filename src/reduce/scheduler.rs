//! The scheduler: which pass runs when, for how long, demotion, restarts, and the final 1-minimality round.
//!
//! Rounds run the passes in tier order (cheap deletions, costlier shrinking
//! moves, then lowering, which only runs in a round where nothing shorter
//! was found, since shortlex puts size first). Each pass takes steps until
//! its choices are used up on the current test case or it fails its budget
//! of tested steps in a row (`max_failures`, halved each round for a pass
//! that never paid); its place is kept, so the next round resumes it there.
//! A success in a later tier sends the round back to the cheap deletions
//! (multi-course with adaptive restart; after a lowering success, and
//! always on raw bytes, they only glance, with a smaller budget, before the
//! costlier moves run), and after each round passes that paid move ahead of
//! those that did not within their tier. In the rounds an edit that failed
//! before, behind the same bytes, is not run again (`memo.rs`). When a round
//! finds nothing, a final round runs the guarantee passes to exhaustion (and
//! the others that paid in this reduction, with their budgets), running
//! every candidate (minimizing a crash, each pass of it also after one paid:
//! decision 0121); the reduction ends when that finds nothing either
//! (decision 0013).

use super::choice::{ChoiceTree, Chooser, Selection};
use super::passes::{PassDef, Tier, PASSES};
use super::shrinker::{Halt, Shrinker};
use super::speculate::{self, Position};
use super::{Order, Proof, Reduction, StopReason};

/// How many tested steps in a row a pass may fail before it yields (`None`:
/// it runs until its choices are used up).
type Budget = Option<u32>;

/// A deletion's budget in a round after a lowering success (`budget`).
const GLANCE: u32 = 8;

/// What decides whether the deletions only glance in a round.
#[derive(Clone, Copy)]
struct Glance {
    /// Whether the last pass that paid was a lowering pass.
    after_lowering: bool,
    /// Whether the best test case is raw bytes (`TestCase::untyped`).
    raw: bool,
}

impl Glance {
    /// After a lowering success, and always on raw bytes.
    fn applies(self) -> bool {
        self.raw || self.after_lowering
    }
}

/// A pass and where it is in its choices.
struct PassState {
    def: &'static PassDef,
    stats: usize,
    tree: ChoiceTree,
    /// The generation of the test case `tree` belongs to.
    generation: u64,
    /// Where the next step starts (deterministic order).
    prefix: Vec<usize>,
    /// Whether its last run improved the test case.
    paid: bool,
    /// How many tested steps in a row it may fail before it yields.
    budget: u32,
}

struct Scheduler {
    passes: Vec<PassState>,
    rng: fastrand::Rng,
    /// The final round comes before any other (`Proof::First`), until it has run.
    prove_first: bool,
}

/// Runs passes until none improves the best test case or a budget runs out.
pub(crate) fn run(mut shrinker: Shrinker<'_>) -> Reduction {
    let lowering = shrinker.options().lowering;
    let passes = PASSES.iter().filter(|p| lowering || p.shortens()).collect();
    let mut scheduler = Scheduler::new(&mut shrinker, passes);
    let stop = loop {
        // A polish move that made the input shorter sends it back to the
        // rounds, so the result stays 1-minimal.
        match scheduler.rounds(&mut shrinker) {
            StopReason::Done => {}
            stop => break stop,
        }
        let len = shrinker.best().len();
        match scheduler.polish(&mut shrinker) {
            StopReason::Done if shrinker.best().len() < len => {}
            stop => break stop,
        }
    };
    shrinker.finish(stop)
}

/// Runs one pass alone until it stops paying (for tests of a single pass).
pub(crate) fn run_single(mut shrinker: Shrinker<'_>, name: &str) -> Option<Reduction> {
    let def = PASSES.iter().find(|p| p.name == name)?;
    let mut scheduler = Scheduler::new(&mut shrinker, vec![def]);
    let stop = loop {
        match scheduler.run_pass(&mut shrinker, 0, None, &[]) {
            Ok(true) => continue,
            Ok(false) => break StopReason::Done,
            Err(stop) => break stop,
        }
    };
    Some(shrinker.finish(stop))
}

impl Scheduler {
    fn new(shrinker: &mut Shrinker<'_>, defs: Vec<&'static PassDef>) -> Self {
        let seed = match shrinker.options().order {
            Order::Random { seed } => seed,
            Order::Deterministic => 0,
        };
        let passes = defs
            .into_iter()
            .map(|def| PassState {
                def,
                stats: shrinker.add_pass(def.name),
                tree: ChoiceTree::new(),
                generation: u64::MAX,
                prefix: Vec::new(),
                paid: false,
                budget: shrinker.options().max_failures.max(1),
            })
            .collect();
        let prove_first = shrinker.options().proof == Proof::First;
        Scheduler { passes, rng: fastrand::Rng::with_seed(seed), prove_first }
    }

    /// The polish passes, each to exhaustion, once the rounds are done.
    fn polish(&mut self, sh: &mut Shrinker<'_>) -> StopReason {
        sh.remember_failures(false);
        for p in 0..self.passes.len() {
            if self.passes[p].def.tier == Tier::Polish {
                if let Err(stop) = self.run_pass(sh, p, None, &[]) {
                    return stop;
                }
            }
        }
        StopReason::Done
    }

    fn rounds(&mut self, sh: &mut Shrinker<'_>) -> StopReason {
        let mut order: Vec<usize> =
            (0..self.passes.len()).filter(|&p| self.passes[p].def.tier != Tier::Polish).collect();
        // After a lowering success only the cheap deletions look again (the
        // new values may let one through); the costlier moves wait for a
        // deletion to succeed or for the final round.
        let mut after_lowering = false;
        loop {
            sh.remember_failures(true);
            // `Proof::First`: a quick reduction left the input, where a round finds nothing.
            let progress = if std::mem::take(&mut self.prove_first) {
                false
            } else {
                match self.round(sh, &order, &mut after_lowering) {
                    Ok(progress) => progress,
                    Err(stop) => return stop,
                }
            };
            // Demote what did not pay, within its tier (stable: ties keep their order).
            order.sort_by_key(|&p| (self.passes[p].def.tier, !self.passes[p].paid));
            if progress {
                continue;
            }
            if sh.options().proof == Proof::Skipped {
                return StopReason::Stalled;
            }
            // Nothing paid: prove 1-minimality, or find what the stall limits hid.
            match self.final_round(sh, &order) {
                Ok(true) => {}
                Ok(false) => return StopReason::Done,
                Err(stop) => return stop,
            }
        }
    }

    /// One round over the passes in `order`; returns whether any paid.
    fn round(&mut self, sh: &mut Shrinker<'_>, order: &[usize], after_lowering: &mut bool) -> Result<bool, StopReason> {
        let mut progress = false;
        for (i, &p) in order.iter().enumerate() {
            let tier = self.passes[p].def.tier;
            if progress && tier == Tier::Lower {
                // Size first: lower only once nothing shorter turns up.
                break;
            }
            let glance = Glance { after_lowering: *after_lowering, raw: sh.best().untyped() };
            if glance.after_lowering && tier == Tier::Shrink {
                continue;
            }
            let then = self.following(&order[i + 1..], progress, glance);
            let paid = self.run_pass(sh, p, Some(self.budget(p, glance)), &then)?;
            self.settle(sh, p, paid);
            progress |= paid;
            if paid {
                *after_lowering = tier == Tier::Lower;
                if tier != Tier::Delete {
                    break;
                }
            }
        }
        Ok(progress)
    }

    /// Records whether pass `p` paid: a pass that has not paid once in this
    /// reduction has its budget halved (down to `min_failures`) each time,
    /// so a move the input's format never takes costs less round after
    /// round; one that paid keeps `max_failures`, since its successes come
    /// sporadically (decision 0014).
    fn settle(&mut self, sh: &Shrinker<'_>, p: usize, paid: bool) {
        let max_failures = sh.options().max_failures.max(1);
        let min_failures = sh.options().min_failures.clamp(1, max_failures);
        let state = &mut self.passes[p];
        state.paid = paid;
        if sh.stats.passes[state.stats].successes > 0 {
            state.budget = max_failures;
        } else {
            state.budget = (state.budget / 2).max(min_failures);
        }
    }

    /// The round after one where nothing paid: the guarantee passes run to
    /// exhaustion, the others that paid in this reduction with their budget;
    /// returns whether any pass paid. When minimizing a crash every pass of
    /// it runs, also after one paid: going back to the rounds at once left
    /// the passes after it for a whole new proof to reach (decision 0121;
    /// the corpus mode, lowering off, still goes back). It runs every candidate:
    /// the memo of failed edits (`memo.rs`), which answers some in the
    /// rounds, is off.
    /// When minimizing a crash a pass that never paid is left out (it never
    /// paid there on the samples); the corpus mode, whose coverage oracle
    /// pays late, keeps it (decision 0016).
    fn final_round(&mut self, sh: &mut Shrinker<'_>, order: &[usize]) -> Result<bool, StopReason> {
        let order = self.final_passes(sh, order);
        sh.remember_failures(false);
        if sh.memo_answered_now() {
            // The choices the memo answered were not run: walk them all
            // again (those run come back as cache hits, at no test).
            for state in &mut self.passes {
                state.generation = u64::MAX;
            }
        }
        let mut any = false;
        for (i, &p) in order.iter().enumerate() {
            let then: Vec<(usize, Budget)> = order[i + 1..].iter().map(|&q| (q, self.final_budget(q))).collect();
            let paid = self.run_pass(sh, p, self.final_budget(p), &then)?;
            self.settle(sh, p, paid);
            any |= paid;
            if paid && !sh.options().lowering {
                // The corpus mode goes back to its rounds at once, as measured there.
                return Ok(true);
            }
        }
        Ok(any)
    }

    /// The passes of `order` the final round runs: the guarantee passes and
    /// those that paid in this reduction; in the corpus mode (lowering off), all.
    fn final_passes(&self, sh: &Shrinker<'_>, order: &[usize]) -> Vec<usize> {
        let paid = |p: usize| sh.stats.passes[self.passes[p].stats].successes > 0;
        let runs = |p: usize| !sh.options().lowering || self.passes[p].def.guarantee || paid(p);
        order.iter().copied().filter(|&p| runs(p)).collect()
    }

    /// Pass `p`'s failure budget in a round: its own, or for a deletion
    /// after a lowering success or on raw bytes, at most `GLANCE`: after
    /// lowering the deletions only look whether the new values let one
    /// through (the final round proves every byte once), and on raw bytes a
    /// deletion's failure streak most often comes just before a shrinking
    /// move jumps (decision 0015).
    fn budget(&self, p: usize, glance: Glance) -> u32 {
        let pass = &self.passes[p];
        if pass.def.tier == Tier::Delete && glance.applies() {
            pass.budget.min(GLANCE)
        } else {
            pass.budget
        }
    }

    /// Pass `p`'s budget in the final round: none for a guarantee pass,
    /// which runs to exhaustion.
    fn final_budget(&self, p: usize) -> Budget {
        (!self.passes[p].def.guarantee).then_some(self.passes[p].budget)
    }

    /// The passes a round runs after one that does not pay (`rest` follows it
    /// in the round's order), each with its budget.
    fn following(&self, rest: &[usize], progress: bool, glance: Glance) -> Vec<(usize, Budget)> {
        rest.iter()
            .map(|&q| (q, self.passes[q].def.tier))
            .take_while(|&(_, tier)| !(progress && tier == Tier::Lower))
            .filter(|&(_, tier)| !(glance.after_lowering && tier == Tier::Shrink))
            .map(|(q, _)| (q, Some(self.budget(q, glance))))
            .collect()
    }

    /// Runs steps of pass `p` until its choices are used up or it fails
    /// `budget` tested steps in a row (`None`: no limit). Returns whether it
    /// improved the test case. `then` are the passes that run next if it
    /// does not (with their budgets), for predictions.
    fn run_pass(
        &mut self,
        sh: &mut Shrinker<'_>,
        p: usize,
        budget: Budget,
        then: &[(usize, Budget)],
    ) -> Result<bool, StopReason> {
        sh.enter_pass(self.passes[p].stats);
        let mut paid = false;
        let mut failures = 0;
        loop {
            let generation = sh.generation();
            let state = &mut self.passes[p];
            if state.generation != generation {
                state.tree = ChoiceTree::new();
                state.generation = generation;
            }
            if state.tree.exhausted() {
                return Ok(paid);
            }
            if let Err(Halt::Stop(stop)) = sh.check_budget() {
                return Err(stop);
            }
            if sh.wants_prediction() > 0 {
                self.predict(sh, p, budget.map(|budget| budget - failures), then);
            }
            // A known value is a failure too, though the target did not run:
            // the pass moves as it would without them, only cheaper.
            let tried = sh.stats.tried();
            self.step(sh, p)?;
            if sh.generation() != generation {
                paid = true;
                failures = 0;
            } else if sh.stats.tried() != tried {
                failures += 1;
                if budget.is_some_and(|budget| failures >= budget) {
                    return Ok(paid);
                }
            }
        }
    }

    /// One step of pass `p`.
    fn step(&mut self, sh: &mut Shrinker<'_>, p: usize) -> Result<(), StopReason> {
        sh.count_step();
        let state = &mut self.passes[p];
        let selection = match sh.options().order {
            Order::Deterministic => Selection::Prefix(&state.prefix),
            Order::Random { .. } => Selection::Random(&mut self.rng),
        };
        let mut chooser = Chooser::new(&mut state.tree, selection);
        let result = (state.def.step)(sh, &mut chooser);
        state.prefix = chooser.finish();
        sh.end_step();
        match result {
            Err(Halt::Stop(stop)) => Err(stop),
            _ => Ok(()),
        }
    }

    /// Predicts the candidates the next steps try if every one fails: pass
    /// `p`'s own (with `failures_left` failing steps before it yields), then
    /// the passes in `then`; hands them to the oracle to test at once.
    fn predict(&self, sh: &mut Shrinker<'_>, p: usize, failures_left: Budget, then: &[(usize, Budget)]) {
        let generation = sh.generation();
        let mut positions = vec![self.position(p, generation, failures_left)];
        positions.extend(then.iter().map(|&(q, budget)| self.position(q, generation, budget)));
        let rng = matches!(sh.options().order, Order::Random { .. }).then(|| self.rng.clone());
        speculate::predict(sh, &positions, rng);
    }

    /// Where pass `q` stands on the best test case of `generation`, with
    /// `failures_left` failing steps before it yields.
    fn position(&self, q: usize, generation: u64, failures_left: Budget) -> Position<'_> {
        let pass = &self.passes[q];
        Position {
            step: pass.def.step,
            tree: (pass.generation == generation).then_some(&pass.tree),
            prefix: &pass.prefix,
            stats: pass.stats,
            failures_left,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::reduce::{reduce_with, Proof, Quiet, ReduceOptions, Reduction, Verdict};

    /// Noise holding `F`, `U` and `Z` in that order, far apart, reduced with `options`.
    fn reduce_markers(options: &ReduceOptions) -> Reduction {
        let (input, in_order) = markers();
        reduce_with(&input, in_order, options, &mut Quiet).unwrap()
    }

    /// An oracle of plain bytes.
    type Wants = fn(&[u8]) -> Verdict;

    /// Noise holding `F`, `U` and `Z` in that order, far apart, and the
    /// oracle that wants them so and 40 bytes from `q` on.
    fn markers() -> (Vec<u8>, Wants) {
        let mut rng = fastrand::Rng::with_seed(5);
        let mut input: Vec<u8> = (0..2000).map(|_| rng.u8(b'a'..=b'z')).collect();
        input.retain(|b| !b"FUZ".contains(b));
        for (at, marker) in [(300, b'F'), (1100, b'U'), (1700, b'Z')] {
            input.insert(at, marker);
        }
        // And at least 40 bytes from `q` on: many rounds, each a few bytes.
        let in_order = |input: &[u8]| {
            let mut rest = input.iter();
            let markers = b"FUZ".iter().all(|marker| rest.any(|b| b == marker));
            Verdict::from_bool(markers && input.iter().filter(|&&b| b >= b'q').count() >= 40)
        };
        (input, in_order)
    }

    fn reduce(min_failures: u32) -> Reduction {
        reduce_markers(&ReduceOptions { min_failures, ..ReduceOptions::default() })
    }

    /// Runs `check` on a scheduler of every pass, made for 8 zero bytes that
    /// nothing makes interesting, with its shrinker.
    fn with_scheduler(options: &ReduceOptions, check: impl FnOnce(&mut super::Shrinker<'_>, &mut super::Scheduler)) {
        with_scheduler_on(&[0; 8], |_| Verdict::Boring, options, check);
    }

    /// Runs `check` on a scheduler of every pass, made for `input` and `oracle`, with its shrinker.
    fn with_scheduler_on(
        input: &[u8],
        mut oracle: impl FnMut(&[u8]) -> Verdict,
        options: &ReduceOptions,
        check: impl FnOnce(&mut super::Shrinker<'_>, &mut super::Scheduler),
    ) {
        use super::{Scheduler, Shrinker, PASSES};
        use crate::reduce::TestCase;
        let mut quiet = Quiet;
        let mut shrinker = Shrinker::new(TestCase::new(input.to_vec(), Vec::new()), &mut oracle, options, &mut quiet);
        let mut scheduler = Scheduler::new(&mut shrinker, PASSES.iter().collect());
        check(&mut shrinker, &mut scheduler);
    }

    /// Tests of the passes that never paid.
    fn fruitless(reduction: &Reduction) -> u64 {
        reduction.stats.passes.iter().filter(|p| p.successes == 0).map(|p| p.tests).sum()
    }

    /// After a lowering success, and on raw bytes always, the deletions
    /// glance (at most `GLANCE` failures); every other pass, and on typed
    /// inputs every pass otherwise, keeps its own budget.
    #[test]
    fn deletions_only_glance_after_a_lowering_success_or_on_raw_bytes() {
        use super::{Glance, Tier, GLANCE, PASSES};
        let options = ReduceOptions::default();
        with_scheduler(&options, |_, scheduler| {
            for (p, pass) in PASSES.iter().enumerate() {
                let glance = if pass.tier == Tier::Delete { GLANCE } else { options.max_failures };
                for after_lowering in [false, true] {
                    let typed = if after_lowering { glance } else { options.max_failures };
                    let (name, typed_case) = (pass.name, Glance { after_lowering, raw: false });
                    assert_eq!(scheduler.budget(p, typed_case), typed, "{name} after lowering: {after_lowering}");
                    let raw_case = Glance { after_lowering, raw: true };
                    assert_eq!(scheduler.budget(p, raw_case), glance, "{name} after lowering: {after_lowering}");
                }
            }
        });
        assert!(GLANCE < options.max_failures);
    }

    #[test]
    fn the_final_round_runs_the_guarantee_passes_and_those_that_paid() {
        use super::PASSES;
        let all: Vec<usize> = (0..PASSES.len()).collect();
        let names = |passes: Vec<usize>| passes.into_iter().map(|p| PASSES[p].name).collect::<Vec<_>>();
        let guarantee: Vec<&str> = PASSES.iter().filter(|p| p.guarantee).map(|p| p.name).collect();
        assert!(!guarantee.is_empty() && guarantee.len() < PASSES.len());
        with_scheduler(&ReduceOptions::default(), |shrinker, scheduler| {
            assert_eq!(names(scheduler.final_passes(shrinker, &all)), guarantee, "nothing paid yet");
            let chunks = PASSES.iter().position(|p| p.name == "delete-chunks").unwrap();
            shrinker.stats.passes[scheduler.passes[chunks].stats].successes = 1;
            let with_chunks = names(scheduler.final_passes(shrinker, &all));
            assert!(with_chunks.contains(&"delete-chunks") && with_chunks.len() == guarantee.len() + 1);
        });
        let corpus = ReduceOptions { lowering: false, ..ReduceOptions::default() };
        with_scheduler(&corpus, |shrinker, scheduler| {
            assert_eq!(scheduler.final_passes(shrinker, &all), all, "a corpus's shrink runs every pass");
        });
    }

    /// When minimizing a crash, a final round where a deletion paid goes
    /// on to the lowering after it (decision 0121); the corpus mode goes
    /// back to its rounds at the first pass that pays.
    #[test]
    fn a_final_round_where_a_deletion_paid_goes_on_to_the_passes_after_it() {
        use super::PASSES;
        let paid_in_one_final_round = |options: &ReduceOptions| {
            let oracle = |bytes: &[u8]| Verdict::from_bool(bytes.len() >= 2 && bytes.contains(&b'A'));
            let mut paid = Vec::new();
            with_scheduler_on(b"xxAy", oracle, options, |shrinker, scheduler| {
                let all: Vec<usize> = (0..PASSES.len()).collect();
                assert!(matches!(scheduler.final_round(shrinker, &all), Ok(true)));
                let passes = shrinker.stats.passes.iter().filter(|p| p.successes > 0);
                paid = passes.map(|p| p.name).collect();
            });
            paid
        };
        let crash = paid_in_one_final_round(&ReduceOptions::default());
        assert!(crash.contains(&"delete-blocks") && crash.contains(&"lower-bytes"), "{crash:?}");
        let corpus = paid_in_one_final_round(&ReduceOptions { lowering: false, ..ReduceOptions::default() });
        assert_eq!(corpus.len(), 1, "{corpus:?}");
    }

    /// Only the size counts in the corpus mode: no lowering, no `switch-variants` (decision 0113).
    #[test]
    fn where_only_the_size_counts_the_passes_that_make_values_simpler_are_left_out() {
        use super::{Tier, PASSES};
        let shortening: Vec<&str> = PASSES.iter().filter(|p| p.shortens()).map(|p| p.name).collect();
        assert!(!shortening.contains(&"switch-variants"));
        assert!(PASSES.iter().any(|p| p.name == "switch-variants"), "the pass left out exists");
        let before_lowering = PASSES.iter().filter(|p| p.tier < Tier::Lower).count();
        assert_eq!(shortening.len(), before_lowering - 1);
        let mut oracle =
            |bytes: &[u8]| if bytes.contains(&b'x') { Verdict::Interesting(Vec::new()) } else { Verdict::Boring };
        let corpus = ReduceOptions { lowering: false, ..ReduceOptions::default() };
        let reduction = reduce_with(b"aaxbb", &mut oracle, &corpus, &mut Quiet).unwrap();
        let ran: Vec<&str> = reduction.stats.passes.iter().map(|p| p.name).collect();
        assert_eq!(ran, shortening, "the passes a corpus shrink runs");
    }

    #[test]
    fn a_pass_that_never_pays_costs_less_round_after_round() {
        let (halved, kept) = (reduce(4), reduce(u32::MAX));
        assert_eq!(halved.best.bytes, kept.best.bytes);
        assert!(halved.stats.tests < kept.stats.tests, "{} against {}", halved.stats.tests, kept.stats.tests);
        assert!(fruitless(&halved) < fruitless(&kept), "{} against {}", fruitless(&halved), fruitless(&kept));
    }

    #[test]
    fn without_the_final_round_a_reduction_stops_at_its_first_round_that_finds_nothing() {
        use crate::reduce::StopReason;
        let proven = reduce_markers(&ReduceOptions::default());
        let quick = reduce_markers(&ReduceOptions { proof: Proof::Skipped, ..ReduceOptions::default() });
        assert_eq!((proven.stats.stop, quick.stats.stop), (Some(StopReason::Done), Some(StopReason::Stalled)));
        assert!(quick.stats.tests < proven.stats.tests, "{} against {}", quick.stats.tests, proven.stats.tests);
        assert!(quick.best.len() >= proven.best.len());
    }

    #[test]
    fn a_reduction_proven_first_goes_on_from_a_quick_one_to_a_1_minimal_result() {
        use crate::reduce::StopReason;
        let (input, in_order) = markers();
        let proven = reduce_with(&input, in_order, &ReduceOptions::default(), &mut Quiet).unwrap();
        let options = |proof| ReduceOptions { proof, ..ReduceOptions::default() };
        let quick = reduce_with(&input, in_order, &options(Proof::Skipped), &mut Quiet).unwrap();
        let then = reduce_with(&quick.best.bytes, in_order, &options(Proof::First), &mut Quiet).unwrap();
        assert_eq!(then.stats.stop, Some(StopReason::Done));
        assert_eq!(then.best.len(), proven.best.len(), "{:?} against {:?}", then.best.bytes, proven.best.bytes);
        let again = reduce_with(&quick.best.bytes, in_order, &options(Proof::Last), &mut Quiet).unwrap();
        assert!(then.stats.tests < again.stats.tests, "{} against {}", then.stats.tests, again.stats.tests);
    }
}
