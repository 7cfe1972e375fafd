//! The scheduler: which pass runs when, for how long, demotion, restarts, and the final 1-minimality round.
//!
//! Rounds run the passes in tier order (cheap deletions, costlier shrinking
//! moves, then lowering, which only runs in a round where nothing shorter was
//! found, since shortlex puts size first). Each pass takes steps until its choices are used up on the
//! current test case or it fails `max_failures` tested steps in a row; its
//! place is kept, so the next round resumes it there. A success in a later
//! tier sends the round back to the cheap deletions (multi-course with
//! adaptive restart), and after each round passes that paid move ahead of
//! those that did not within their tier. When a round finds nothing, a final
//! round runs the guarantee passes to exhaustion; the reduction ends when
//! that finds nothing either.

use super::choice::{ChoiceTree, Chooser, Selection};
use super::passes::{PassDef, Tier, PASSES};
use super::shrinker::{Halt, Shrinker};
use super::{Order, Reduction, StopReason};

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
}

struct Scheduler {
    passes: Vec<PassState>,
    rng: fastrand::Rng,
}

/// Runs passes until none improves the best test case or a budget runs out.
pub(crate) fn run(mut shrinker: Shrinker<'_>) -> Reduction {
    let lowering = shrinker.options().lowering;
    let passes = PASSES.iter().filter(|p| lowering || p.tier != Tier::Lower).collect();
    let mut scheduler = Scheduler::new(&mut shrinker, passes);
    let stop = scheduler.rounds(&mut shrinker);
    shrinker.finish(stop)
}

/// Runs one pass alone until it stops paying (for tests of a single pass).
pub(crate) fn run_single(mut shrinker: Shrinker<'_>, name: &str) -> Option<Reduction> {
    let def = PASSES.iter().find(|p| p.name == name)?;
    let mut scheduler = Scheduler::new(&mut shrinker, vec![def]);
    let stop = loop {
        match scheduler.run_pass(&mut shrinker, 0, true) {
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
            })
            .collect();
        Scheduler { passes, rng: fastrand::Rng::with_seed(seed) }
    }

    fn rounds(&mut self, sh: &mut Shrinker<'_>) -> StopReason {
        let mut order: Vec<usize> = (0..self.passes.len()).collect();
        // After a lowering success only the cheap deletions look again (the
        // new values may let one through); the costlier moves wait for a
        // deletion to succeed or for the final round.
        let mut after_lowering = false;
        loop {
            let mut progress = false;
            for &p in &order {
                let tier = self.passes[p].def.tier;
                if progress && tier == Tier::Lower {
                    // Size first: lower only once nothing shorter turns up.
                    break;
                }
                if after_lowering && tier == Tier::Shrink {
                    continue;
                }
                match self.run_pass(sh, p, false) {
                    Err(stop) => return stop,
                    Ok(paid) => {
                        self.passes[p].paid = paid;
                        progress |= paid;
                        if paid {
                            after_lowering = tier == Tier::Lower;
                            if tier != Tier::Delete {
                                break;
                            }
                        }
                    }
                }
            }
            // Demote what did not pay, within its tier (stable: ties keep their order).
            order.sort_by_key(|&p| (self.passes[p].def.tier, !self.passes[p].paid));
            if progress {
                continue;
            }
            // Nothing paid: prove 1-minimality, or find what the stall limits hid.
            let mut found = false;
            for &p in &order {
                let exhaustive = self.passes[p].def.guarantee;
                match self.run_pass(sh, p, exhaustive) {
                    Err(stop) => return stop,
                    Ok(paid) => {
                        self.passes[p].paid = paid;
                        if paid {
                            found = true;
                            break;
                        }
                    }
                }
            }
            if !found {
                return StopReason::Done;
            }
        }
    }

    /// Runs steps of pass `p` until its choices are used up or, unless
    /// `exhaustive`, it fails `max_failures` tested steps in a row. Returns
    /// whether it improved the test case.
    fn run_pass(&mut self, sh: &mut Shrinker<'_>, p: usize, exhaustive: bool) -> Result<bool, StopReason> {
        let state = &mut self.passes[p];
        sh.enter_pass(state.stats);
        let max_failures = sh.options().max_failures.max(1);
        let mut paid = false;
        let mut failures = 0;
        loop {
            if state.generation != sh.generation() {
                state.tree = ChoiceTree::new();
                state.generation = sh.generation();
            }
            if state.tree.exhausted() {
                return Ok(paid);
            }
            if let Err(Halt::Stop(stop)) = sh.check_budget() {
                return Err(stop);
            }
            let (generation, tests) = (sh.generation(), sh.stats.tests);
            sh.count_step();
            let selection = match sh.options().order {
                Order::Deterministic => Selection::Prefix(&state.prefix),
                Order::Random { .. } => Selection::Random(&mut self.rng),
            };
            let mut chooser = Chooser::new(&mut state.tree, selection);
            let result = (state.def.step)(sh, &mut chooser);
            state.prefix = chooser.finish();
            if let Err(Halt::Stop(stop)) = result {
                return Err(stop);
            }
            if sh.generation() != generation {
                paid = true;
                failures = 0;
            } else if sh.stats.tests != tests {
                failures += 1;
                if !exhaustive && failures >= max_failures {
                    return Ok(paid);
                }
            }
        }
    }
}
