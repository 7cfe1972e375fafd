//! Rounds of cover and shrink: the kept inputs are shrunk, then the results are covered and shrunk again while a round still pays, each round held only to the old corpus's features.
//!
//! Why more than one round: a feature is assigned to the smallest kept input
//! that has it *before* shrinking. After it, a result that became small may
//! have features assigned to a larger one, which can then let them go; and
//! a result needs to keep only what the old corpus had, not the features
//! shrinking gave it (those are no loss when they go). The rounds stop when
//! one saves less than [`ROUND_GAIN`] of what it started from
//! (decision 0036).
//!
//! A shrink may split its result in two (`shrink::shrink_and_split`): the
//! part split off becomes an origin of its own, after the corpus inputs,
//! rooted at the input its result came from (the report lists it there).

use std::collections::HashSet;

use crate::corpus::cover::{assign_to_smallest, greedy_cover, intersect, union, Candidate, Pick};
use crate::corpus::display::Size;
use crate::corpus::drive::{shrink_kept, Item, KeptResult, Phase};
use crate::corpus::store::Store;

/// At most this many rounds.
pub const MAX_ROUNDS: usize = 4;

/// Another round runs only when the last one cut its inputs' bytes by at least this share.
pub const ROUND_GAIN: f64 = 0.10;

/// What the rounds leave.
#[derive(Debug, Default)]
pub struct Rounds {
    /// Per origin, the latest result made from it (its tests summed over the
    /// rounds): the corpus inputs first, then each input split off a result.
    pub latest: Vec<Option<KeptResult>>,
    /// Per origin, the corpus input it comes from (itself for the inputs).
    pub roots: Vec<usize>,
    /// The last round's results, as the final cover's candidates.
    pub results: Vec<Item>,
    /// Rounds run.
    pub rounds: usize,
}

/// Covers `items` (the inputs that ran normally) for the features in
/// `required`, shrinks the kept ones, and again over the results while a
/// round pays; `origins` is the number of corpus inputs.
pub fn shrink_rounds(
    mut items: Vec<Item>,
    required: &[u32],
    origins: usize,
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<Rounds> {
    let mut done = Rounds::none(origins);
    while done.rounds < MAX_ROUNDS {
        done.rounds += 1;
        let picks = cover(&items, required);
        let earlier = picks.iter().filter(|p| items[p.index].done).count();
        phase.status.line(&announce(done.rounds, (picks.len(), earlier), items.len()));
        if done.rounds > 1 {
            release_dropped(&items, &picks, store)?;
            phase.status.corpus(store.size());
        }
        let kept = done.adopt_splits(shrink_kept(&items, &picks, store, phase)?);
        record(&mut done.latest, &kept);
        let before: usize = picks.iter().map(|p| items[p.index].bytes.len()).sum();
        items = kept
            .into_iter()
            .filter_map(|k| {
                let sha1 = k.file?;
                Some(Item { origin: k.origin, sha1, bytes: k.bytes, features: k.features, done: k.done })
            })
            .collect();
        let after: usize = items.iter().map(|i| i.bytes.len()).sum();
        if phase.interrupt.is_raised() || ((before - after.min(before)) as f64) < ROUND_GAIN * before as f64 {
            break;
        }
    }
    done.results = items;
    Ok(done)
}

/// The smallest set of `items` covering `required` (greedy), each feature
/// assigned to the smallest kept item that has it. Done items (an earlier
/// run's results) are covered for first and keep what they have: the others
/// are kept, and shrunk, only for what no done item has (an incremental run).
pub fn cover(items: &[Item], required: &[u32]) -> Vec<Pick> {
    let (done, fresh): (Vec<usize>, Vec<usize>) = (0..items.len()).partition(|&i| items[i].done);
    let mut picks = cover_of(items, &done, required);
    let held = union(picks.iter().map(|p| p.assigned.as_slice()));
    let left: Vec<u32> = required.iter().copied().filter(|f| held.binary_search(f).is_err()).collect();
    picks.extend(cover_of(items, &fresh, &left));
    picks
}

/// The greedy cover of `required` by the items at `indices`, assigned to the smallest.
fn cover_of(items: &[Item], indices: &[usize], required: &[u32]) -> Vec<Pick> {
    let features: Vec<Vec<u32>> = indices.iter().map(|&i| intersect(&items[i].features, required)).collect();
    let candidates: Vec<Candidate> =
        indices.iter().zip(&features).map(|(&i, f)| Candidate { size: items[i].bytes.len(), features: f }).collect();
    let picks = assign_to_smallest(greedy_cover(&candidates), &candidates);
    picks.into_iter().map(|p| Pick { index: indices[p.index], assigned: p.assigned }).collect()
}

/// Writes the first complete corpus: the inputs a cover of `items` keeps,
/// as they are, after one run each. From then on `--max-time` may stop the
/// run. Returns the files it holds, for [`settle`].
pub fn first_corpus(
    items: &[Item],
    required: &[u32],
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<Vec<String>> {
    let picks = cover(items, required);
    store.seed(picks.iter().map(|p| items[p.index].bytes.as_slice()))?;
    let (files, bytes) = store.size();
    phase.status.first_corpus(Size { files, bytes, features: required.len() });
    phase.deadline.arm(phase.interrupt);
    Ok(picks.iter().map(|p| items[p.index].sha1.clone()).collect())
}

/// Once every input ran again: writes the inputs the first round's cover
/// keeps (of what every run showed) and those `pinned` for features that
/// vary, as they are, then lets go of the `first` corpus's files (a file
/// both keep stays). Whether any of them is to be shrunk (not all an
/// earlier run's results).
pub fn settle(
    first: &[String],
    (items, pinned): (&[Item], &[&[u8]]),
    required: &[u32],
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<bool> {
    let picks = cover(items, required);
    store.seed(picks.iter().map(|p| items[p.index].bytes.as_slice()).chain(pinned.iter().copied()))?;
    for name in first {
        store.release(name)?;
    }
    phase.status.corpus(store.size());
    Ok(picks.iter().any(|p| !items[p.index].done))
}

/// The files of the items a cover does not keep go (a round's, or the
/// joins'; in the first round none was written).
pub fn release_dropped(items: &[Item], picks: &[Pick], store: &mut Store) -> anyhow::Result<()> {
    let picked: HashSet<usize> = picks.iter().map(|p| p.index).collect();
    for (index, item) in items.iter().enumerate() {
        if !picked.contains(&index) {
            store.release(&item.sha1)?;
        }
    }
    Ok(())
}

impl Rounds {
    /// No round run, over `origins` corpus inputs.
    pub fn none(origins: usize) -> Rounds {
        Rounds { latest: vec![None; origins], roots: (0..origins).collect(), ..Rounds::default() }
    }

    /// Gives each input split off a result an origin of its own (rooted where
    /// the result is), as a result after the round's others.
    fn adopt_splits(&mut self, mut kept: Vec<KeptResult>) -> Vec<KeptResult> {
        let mut parts = Vec::new();
        for result in &mut kept {
            let Some(part) = result.split.take() else { continue };
            let origin = self.latest.len();
            self.latest.push(None);
            self.roots.push(self.roots[result.origin]);
            let (file, bytes, features) = (Some(part.file), part.bytes, part.features);
            parts.push(KeptResult { index: result.index, origin, file, bytes, features, ..KeptResult::default() });
        }
        kept.extend(parts);
        kept
    }
}

/// A round's first line: `kept` inputs keep every feature, `earlier` of them an earlier run's results.
fn announce(round: usize, (kept, earlier): (usize, usize), items: usize) -> String {
    let shrinking = match earlier {
        0 => String::from("shrinking them"),
        _ => {
            format!("{earlier} are an earlier run's results, kept as they are; shrinking the other {}", kept - earlier)
        }
    };
    match round {
        1 => format!("{kept} of the {items} inputs that run normally keep every feature; {shrinking}"),
        _ => format!("round {round}: {kept} of the {items} results keep every feature; {shrinking} again"),
    }
}

/// Takes a round's results as the latest of their corpus inputs; an
/// unfinished one (interrupted) leaves the latest as it was.
fn record(latest: &mut [Option<KeptResult>], kept: &[KeptResult]) {
    for result in kept {
        let entry = &mut latest[result.origin];
        let earlier_tests = entry.as_ref().map_or(0, |e| e.tests);
        match entry {
            Some(earlier) if result.file.is_none() => earlier.tests += result.tests,
            _ => *entry = Some(KeptResult { tests: result.tests + earlier_tests, ..result.clone() }),
        }
    }
}
