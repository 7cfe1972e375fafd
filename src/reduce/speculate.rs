//! Speculative tests: the candidates a pass would try next if each one failed, found by running its steps dry on a copy of its choices, so an oracle that tests several at once can run them ahead.
//!
//! Most candidates fail, so the serial run usually meets exactly the
//! predicted ones, in order, and takes their verdicts from the oracle
//! without waiting. At the first success it leaves the prediction (the rest
//! of it was wasted work) and the next step predicts afresh from the new
//! best. The serial run decides everything, so the result is the one a
//! serial reduction gives, test for test.

use super::choice::{ChoiceTree, Chooser, Selection};
use super::shrinker::{Halt, Shrinker, StepResult};

/// At most this many dry steps per prediction (steps that propose nothing
/// new cost no test, so a pass can take many of them) ...
const MAX_DRY_STEPS: usize = 4096;

/// ... and at most this many bytes of candidates made by them: each dry step
/// copies and hashes a candidate the size of the input (decision 0019).
const MAX_DRY_BYTES: usize = 4 << 20;

/// How many dry steps a prediction may take on an input of `len` bytes.
fn max_dry_steps(len: usize) -> usize {
    (MAX_DRY_BYTES / len.max(1)).clamp(16, MAX_DRY_STEPS)
}

/// The dry steps a prediction takes, against its maximum ([`max_dry_steps`]).
struct Steps {
    /// Taken so far, by every pass.
    taken: usize,
    /// At most.
    max: usize,
}

impl Steps {
    /// Whether no step is left.
    fn used_up(&self) -> bool {
        self.taken >= self.max
    }
}

/// A pass where it stands: what its next steps start from.
pub(crate) struct Position<'a> {
    pub(crate) step: fn(&mut Shrinker<'_>, &mut Chooser<'_>) -> StepResult,
    /// Its choices on the current test case (`None`: it has not run on it yet).
    pub(crate) tree: Option<&'a ChoiceTree>,
    pub(crate) prefix: &'a [usize],
    /// Its statistics row (its steps read their own counters).
    pub(crate) stats: usize,
    /// Failing steps it may take before it yields (`None`: it runs to exhaustion).
    pub(crate) failures_left: Option<u32>,
}

/// Predicts the next candidates, as many as the oracle tests at once: the
/// steps of each pass in `passes` in turn, as they run when every candidate
/// fails (`rng`: the scheduler's generator, in random order); hands them to
/// the oracle. Does nothing when it tests one at a time or is still testing
/// an earlier prediction.
pub(crate) fn predict(sh: &mut Shrinker<'_>, passes: &[Position<'_>], mut rng: Option<fastrand::Rng>) {
    let limit = sh.wants_prediction();
    if limit == 0 {
        return;
    }
    let mut steps = Steps { taken: 0, max: max_dry_steps(sh.best().len()) };
    let saved = sh.begin_prediction(limit);
    for pass in passes {
        if steps.used_up() || sh.predicted() >= limit {
            break;
        }
        dry_run(sh, pass, rng.as_mut(), &mut steps, limit);
    }
    sh.end_prediction(saved);
}

/// Runs `pass`'s steps dry until its choices or failures are used up, `limit`
/// candidates are collected or the prediction's `steps` are. The steps
/// see the pass's own statistics, as they do when it runs.
fn dry_run(
    sh: &mut Shrinker<'_>,
    pass: &Position<'_>,
    mut rng: Option<&mut fastrand::Rng>,
    steps: &mut Steps,
    limit: usize,
) {
    let mut tree = pass.tree.cloned().unwrap_or_else(ChoiceTree::new);
    let mut prefix = pass.prefix.to_vec();
    let mut failures = 0;
    let running = sh.swap_current(pass.stats);
    while !tree.exhausted() && pass.failures_left.map_or(true, |left| failures < left) {
        if steps.used_up() || sh.predicted() >= limit {
            break;
        }
        steps.taken += 1;
        let before = sh.predicted();
        let selection = match &mut rng {
            Some(rng) => Selection::Random(rng),
            None => Selection::Prefix(&prefix),
        };
        let mut chooser = Chooser::new(&mut tree, selection);
        let result = (pass.step)(sh, &mut chooser);
        prefix = chooser.finish();
        // A step that proposed a candidate is a failing step, as it would
        // be if the prediction holds.
        failures += u32::from(sh.predicted() > before);
        if matches!(result, Err(Halt::Stop(_))) {
            break;
        }
    }
    sh.swap_current(running);
}
