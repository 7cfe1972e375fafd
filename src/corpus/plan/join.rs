//! Joining results: two large typed results put into one input (one's collection elements after the other's), shrunk for the features no other kept result has, taken when it is smaller than the two.
//!
//! Why: the largest results are kept for counts of many hits (an edge run
//! 128 times or more), each by its own kind of element repeated, and every
//! deletion keeps them near the floor of what that count takes in
//! `arbitrary`'s encoding. Features of different inputs may count the same
//! elements (a layer drawn is also a layer dropped), so one input holding
//! both inputs' elements can lose some of them and still have both counts.
//!
//! Most joins fail: counters wrap at 256 (two counts of 128+ of one edge sum
//! past it) and a count of few hits moves to another bucket with any element
//! added, so a joined input is run first, with all of the second input's
//! elements, then the first half of them, and so on, and shrunk only when
//! one keeps what the two must: every feature that no other kept result
//! has (decision 0039). Each failed pair costs a handful of runs.
//!
//! Pairs are tried largest first among the kept results of at least
//! [`JOIN_MIN_BYTES`], one at a time; a joined result takes both places and
//! is tried with the next ones. Each joined result is saved under the pair's
//! key, so a rerun takes it back after one run.

use crate::corpus::drive::{Item, KeptResult, Phase};
use crate::corpus::jobs::{Event, Job, Joined};
use crate::corpus::plan::rounds::{cover, release_dropped, Rounds};
use crate::corpus::store::Store;
use crate::reduce::StopReason;
use crate::session::progress::counted;

/// Only results at least this large are joined: a small one holds few alike
/// elements to share, and a join costs a shrink (decision 0039).
pub const JOIN_MIN_BYTES: usize = 128;

/// A kept result and what it stands for.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The result.
    pub item: Item,
    /// The origins whose latest result it is.
    pub origins: Vec<usize>,
}

/// The results as the joins and the last shrinks change them: what each
/// origin's latest result is, and the new corpus's files. The callers build
/// it once, for both phases.
#[derive(Debug)]
pub struct Results<'a> {
    /// Per origin, its latest result (the rounds' record).
    pub done: &'a mut Rounds,
    /// The new corpus's files and the journal.
    pub store: &'a mut Store,
}

/// Where a join's (or a lone shrink's) result is journaled: its key, and
/// the complete result an earlier run saved under it, if any.
#[derive(Debug)]
pub struct Journaled {
    /// The key: the two results' names joined by `+` (`SHA1+` for a lone shrink).
    pub key: String,
    /// The earlier run's result, which a worker tries first.
    pub saved: Option<Vec<u8>>,
}

impl Journaled {
    /// What `store`'s journal holds under `key`.
    pub fn look_up(key: String, store: &Store) -> Journaled {
        let saved = store.finished(&key).filter(|s| s.complete).map(|s| s.bytes);
        Journaled { key, saved }
    }
}

/// A smaller result taken ([`decide`]), as its origin's item, and the tests that made it.
#[derive(Debug)]
pub struct Taken {
    /// The result.
    pub item: Item,
    /// The tests it took.
    pub tests: u64,
}

/// Two entries to join, and what their joined input must keep ([`pair_required`]).
#[derive(Debug)]
struct Pair<'a> {
    /// The first: its elements go first, and its origin asks for the join.
    a: &'a Entry,
    /// The second.
    b: &'a Entry,
    /// The features no other entry has.
    required: Vec<u32>,
}

/// What the joins tried so far left: the tests of those tried on the current
/// result, and whether the last one found no examples in its first input.
#[derive(Debug, Default)]
struct Tally {
    /// Tests of the joins tried on the current result and not taken (counted on it).
    spent: u64,
    /// The last join's first input has no examples (a bytes target): nothing joins, the joins stop.
    untyped: bool,
}

/// The last round's results that a cover keeps, largest first, each
/// standing for its origin; the files of the others go.
pub fn entries(done: &Rounds, required: &[u32], store: &mut Store) -> anyhow::Result<Vec<Entry>> {
    let picks = cover(&done.results, required);
    let mut entries: Vec<Entry> = picks
        .iter()
        .map(|p| {
            let item = done.results[p.index].clone();
            Entry { origins: vec![item.origin], item }
        })
        .collect();
    release_dropped(&done.results, &picks, store)?;
    entries.sort_by_key(|e| std::cmp::Reverse(e.item.bytes.len()));
    Ok(entries)
}

/// Tries to join `entries` in pairs (see the module's comment); each join
/// taken replaces the two and becomes the latest result of every origin
/// either stood for.
pub fn join_results(
    results: &mut Results<'_>,
    entries: &mut Vec<Entry>,
    required: &[u32],
    phase: &mut Phase,
) -> anyhow::Result<()> {
    // An earlier run's result is kept as it is.
    let large = |e: &Entry| e.item.bytes.len() >= JOIN_MIN_BYTES && !e.item.done;
    let count = entries.iter().filter(|e| large(e)).count();
    if count < 2 {
        return Ok(());
    }
    phase.status.line(&format!("joining the {count} results of {JOIN_MIN_BYTES} bytes or more in pairs"));
    let (mut i, mut taken, mut tally) = (0, 0, Tally::default());
    while i < entries.len() && !phase.interrupt.is_raised() && !tally.untyped {
        let mut j = i + 1;
        tally.spent = 0;
        while j < entries.len() && !phase.interrupt.is_raised() && !tally.untyped {
            // What the pair must keep is worked out only for a pair that is tried.
            let tried = (large(&entries[i]) && large(&entries[j])).then(|| {
                let pair = Pair { a: &entries[i], b: &entries[j], required: pair_required(entries, i, j, required) };
                attempt(pair, &mut tally, results.store, phase)
            });
            match tried {
                Some(Ok(Some(joined))) => {
                    let other = entries.remove(j);
                    take(results, &mut entries[i], Some(other), joined)?;
                    phase.status.corpus(results.store.size());
                    taken += 1;
                }
                Some(Err(error)) => return Err(error),
                _ => j += 1,
            }
        }
        // Joins tried and not taken count as tests of the result they were tried on.
        if let Some(latest) = results.done.latest[entries[i].item.origin].as_mut() {
            latest.tests += tally.spent;
        }
        i += 1;
    }
    phase.status.line(&format!("{taken} joined results taken"));
    Ok(())
}

/// What the input joining `entries[i]` and `entries[j]` must keep: the
/// features of `required` no other entry has. A feature the cover assigned to
/// one of the two but another entry has too may go (most joins lose some
/// counts of few hits, and common ones are held elsewhere).
fn pair_required(entries: &[Entry], i: usize, j: usize, required: &[u32]) -> Vec<u32> {
    held_only_by(entries, |k| k == i || k == j, required)
}

/// The features of `required` that no entry outside `inside` has.
pub fn held_only_by(entries: &[Entry], inside: impl Fn(usize) -> bool, required: &[u32]) -> Vec<u32> {
    let others: Vec<&[u32]> =
        entries.iter().enumerate().filter(|&(k, _)| !inside(k)).map(|(_, e)| &e.item.features[..]).collect();
    required.iter().copied().filter(|f| others.iter().all(|o| o.binary_search(f).is_err())).collect()
}

/// One pair on a worker: the joined result saved, when it is smaller than the
/// two; else its tests go to `tally`, which also learns whether the first has no examples.
fn attempt(pair: Pair<'_>, tally: &mut Tally, store: &mut Store, phase: &mut Phase) -> anyhow::Result<Option<Taken>> {
    let Pair { a, b, required } = pair;
    let journaled = Journaled::look_up(format!("{}+{}", a.item.sha1, b.item.sha1), store);
    let job = Job::Join {
        index: a.item.origin,
        a: a.item.bytes.clone(),
        b: Some(b.item.bytes.clone()),
        required,
        saved: journaled.saved.clone(),
    };
    phase.jobs.send(job).expect("the workers are running");
    let result = loop {
        match phase.events.recv() {
            Ok(Event::Joined { result, .. }) => break result,
            Ok(Event::Progress { worker, index, size, tests }) => {
                phase.status.worker(worker, index, size, tests);
                phase.status.shrinking(0, 1);
            }
            Ok(_) => {}
            Err(_) => return Ok(None),
        }
    };
    phase.status.idle(a.item.origin);
    let joined = result.unwrap_or_default();
    tally.untyped = joined.untyped;
    let limit = a.item.bytes.len() + b.item.bytes.len();
    decide(&journaled, a.item.origin, joined, limit, &mut tally.spent, store)
}

/// A join's (or a lone shrink's) result, saved under its `journaled` key
/// when it is smaller than `limit` (and returned, as `origin`'s item with
/// its tests), else saved aside; the tests of one not taken go to `spent`.
pub fn decide(
    journaled: &Journaled,
    origin: usize,
    joined: Joined,
    limit: usize,
    spent: &mut u64,
    store: &mut Store,
) -> anyhow::Result<Option<Taken>> {
    let Journaled { key, saved } = journaled;
    let Joined { tests, shrunk: Some(shrunk), .. } = joined else {
        *spent += joined.tests;
        return Ok(None);
    };
    if shrunk.stop == Some(StopReason::Cancelled) {
        *spent += tests;
        return Ok(None);
    }
    if shrunk.bytes.len() >= limit {
        // Saved aside, so that a rerun finds it not smaller in one run.
        if saved.as_ref() != Some(&shrunk.bytes) {
            store.save_aside(key, &shrunk.bytes, true)?;
        }
        *spent += tests;
        return Ok(None);
    }
    let sha1 = store.save(key, &shrunk.bytes, true)?;
    let item = Item {
        origin,
        sha1,
        bytes: shrunk.bytes,
        features: shrunk.features,
        done: false,
        unproven: false,
        earlier: false,
    };
    Ok(Some(Taken { item, tests }))
}

/// `joined` stands for `kept` and `other` (if any; else `kept` was shrunk
/// alone) from now on, in `results`.
/// Their files go: `joined`'s is in place.
pub fn take(results: &mut Results<'_>, kept: &mut Entry, other: Option<Entry>, joined: Taken) -> anyhow::Result<()> {
    let Results { done, store } = results;
    let Taken { item: joined, tests: joined_tests } = joined;
    let alone = other.is_none();
    store.release(&kept.item.sha1)?;
    if let Some(other) = &other {
        store.release(&other.item.sha1)?;
    }
    kept.origins.extend(other.into_iter().flat_map(|o| o.origins));
    let count = kept.origins.len();
    let detail = match (alone, count) {
        (true, 1) => String::from("its result was shrunk again for what no other result has"),
        (true, _) => format!("its result was joined with {}, then shrunk again", counted(count - 1, "other result")),
        (false, _) => format!("its result was joined with {}", counted(count - 1, "other result")),
    };
    for &origin in &kept.origins {
        let latest = &mut done.latest[origin];
        let earlier = latest.as_ref().map_or(0, |k| k.tests);
        // The join's tests once, on the origin that asked for it.
        let tests = earlier + if origin == kept.item.origin { joined_tests } else { 0 };
        *latest = Some(KeptResult {
            origin,
            file: Some(joined.sha1.clone()),
            bytes: joined.bytes.clone(),
            features: joined.features.clone(),
            tests,
            detail: Some(detail.clone()),
            ..KeptResult::default()
        });
    }
    kept.item = joined;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An entry of `origin` with `features` (the fixture `alone`'s tests share).
    pub(crate) fn entry(origin: usize, features: &[u32]) -> Entry {
        let item = Item {
            origin,
            sha1: String::new(),
            bytes: Vec::new(),
            features: features.to_vec(),
            done: false,
            unproven: false,
            earlier: false,
        };
        Entry { item, origins: vec![origin] }
    }

    #[test]
    fn a_joined_pair_must_keep_only_what_no_other_result_has() {
        let entries = [entry(0, &[1, 2, 3, 7]), entry(1, &[3, 4, 5]), entry(2, &[2, 5, 6]), entry(3, &[7])];
        let required = [1, 2, 3, 4, 5, 6, 7];
        assert_eq!(pair_required(&entries, 0, 1, &required), [1, 3, 4]);
        assert_eq!(pair_required(&entries, 1, 2, &required), [4, 5, 6]);
        assert_eq!(pair_required(&entries, 0, 3, &required), [1, 7]);
    }
}
