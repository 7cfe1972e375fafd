//! The last shrinks: each kept result shrunk once more for the features that no other kept result has, the largest first, a batch of them at once (one per worker).
//!
//! Why, after the rounds and the joins: a round assigns each feature to one
//! kept input before any of them is shrunk, so an input keeps what it was
//! assigned even when another result came out of its shrink still holding
//! the same feature. Here a result is held only to what no other result has
//! *now*: the larger ones, shrunk before it, often kept such features
//! without being asked, and it may let them go, which one more round
//! instead would not see (decision 0040).
//!
//! Results shrunk at once must not both let a feature go that only they
//! have: such a feature is held to the smallest result of the batch that has
//! it. A result that has nothing to let go is not shrunk. Each result is
//! journaled under `SHA1+`, so a rerun takes it back in one run.

use std::ops::Range;

use crate::corpus::drive::Phase;
use crate::corpus::jobs::{Event, Job, Joined};
use crate::corpus::plan::join::{decide, held_only_by, take, Entry, Journaled, Results};

/// Shrinks each of `entries` (largest first) for what no other entry has,
/// `batch` at a time; a smaller result takes the entry's place and becomes
/// the latest result of every origin it stands for, in `results`.
pub fn shrink_alone(
    results: &mut Results<'_>,
    entries: &mut [Entry],
    required: &[u32],
    batch: usize,
    phase: &mut Phase,
) -> anyhow::Result<()> {
    let batch = batch.max(1);
    let mut taken = 0;
    let mut start = 0;
    while start < entries.len() && !phase.interrupt.is_raised() {
        let end = (start + batch).min(entries.len());
        taken += shrink_batch(results, entries, start..end, required, phase)?;
        start = end;
    }
    phase.status.line(&format!("{taken} results shrunk again for what no other result has"));
    Ok(())
}

/// What each of `entries[batch]` must keep: the features of `required`
/// that no entry outside the batch has, each held by the last (smallest)
/// entry of the batch that has it.
fn batch_required(entries: &[Entry], batch: Range<usize>, required: &[u32]) -> Vec<Vec<u32>> {
    let has = |k: usize, f: &u32| entries[k].item.features.binary_search(f).is_ok();
    let free = held_only_by(entries, |k| batch.contains(&k), required);
    let end = batch.end;
    batch.map(|m| free.iter().copied().filter(|f| has(m, f) && !(m + 1..end).any(|n| has(n, f))).collect()).collect()
}

/// One batch on the workers, `entries[batch]`; how many of its results were taken.
fn shrink_batch(
    results: &mut Results<'_>,
    entries: &mut [Entry],
    batch: Range<usize>,
    required: &[u32],
    phase: &mut Phase,
) -> anyhow::Result<usize> {
    let mut pending = Vec::new();
    for (m, keep) in batch.clone().zip(batch_required(entries, batch, required)) {
        let item = &entries[m].item;
        let held = item.features.iter().filter(|f| required.binary_search(f).is_ok()).count();
        // Nothing to let go, or an earlier run's result, kept as it is.
        if keep.len() == held || item.done {
            continue;
        }
        let journaled = Journaled::look_up(format!("{}+", item.sha1), results.store);
        let saved = journaled.saved.clone();
        let job = Job::Join { index: item.origin, a: item.bytes.clone(), b: None, required: keep, saved };
        phase.jobs.send(job).expect("the workers are running");
        pending.push((m, journaled));
    }
    let mut taken = 0;
    while !pending.is_empty() {
        let (origin, joined) = match phase.events.recv() {
            Ok(Event::Joined { index, result }) => (index, result.unwrap_or_default()),
            Ok(Event::Progress { worker, index, size, tests }) => {
                phase.status.worker(worker, index, size, tests);
                continue;
            }
            Ok(_) => continue,
            Err(_) => break,
        };
        phase.status.idle(origin);
        let at = pending.iter().position(|(m, ..)| entries[*m].item.origin == origin).expect("a job of the batch");
        let (m, journaled) = pending.swap_remove(at);
        taken += usize::from(settle(results, &mut entries[m], &journaled, joined)?);
        phase.status.corpus(results.store.size());
    }
    Ok(taken)
}

/// Takes a lone shrink's result when it is smaller; else counts its tests on the entry's origin.
fn settle(results: &mut Results<'_>, entry: &mut Entry, journaled: &Journaled, joined: Joined) -> anyhow::Result<bool> {
    let mut spent = 0;
    let limit = entry.item.bytes.len();
    match decide(journaled, entry.item.origin, joined, limit, &mut spent, results.store)? {
        Some(shrunk) => {
            take(results, entry, None, shrunk)?;
            Ok(true)
        }
        None => {
            if let Some(latest) = results.done.latest[entry.item.origin].as_mut() {
                latest.tests += spent;
            }
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::plan::join::tests::entry;

    #[test]
    fn a_batch_keeps_what_no_other_result_has_each_shared_one_in_its_smallest() {
        let entries = [entry(0, &[1, 2, 3]), entry(1, &[2, 3, 4]), entry(2, &[3, 5]), entry(3, &[1, 6])];
        let required = [1, 2, 3, 4, 5, 6];
        // 1 is held outside the batch (by 3); 2 only by 0 and 1: the smaller, 1; 3 by 2, the smallest.
        assert_eq!(batch_required(&entries, 0..3, &required), [vec![], vec![2, 4], vec![3, 5]]);
        // Alone: what no other has.
        assert_eq!(batch_required(&entries, 0..1, &required), [Vec::<u32>::new()]);
        assert_eq!(batch_required(&entries, 3..4, &required), [vec![6]]);
    }
}
