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
//! The first round's shrinks of typed inputs stop at their first round of
//! passes that finds nothing, without the final round that proves a result
//! 1-minimal: that proof costs most of a shrink's tests and cuts few bytes,
//! so every kept input is cut early before any is proven (decision 0101).
//! The second round is quick too, its passes at the full budget (decision
//! 0109); the third starts each shrink with the proof and stops it after a
//! few hundred tests, where most of a proof's cuts come (decision 0111);
//! the fourth starts with the proof and goes on to the end. A round runs
//! after one that did not pay only when some shrink of that one stopped
//! before its proof or at its bound of tests ([`effort`]).
//!
//! The second and third rounds shrink only the picks that hold most of
//! their bytes ([`shrunk`]): the small ones cost many tests there for few
//! bytes, so they wait, kept as they are, for the fourth round, which
//! shrinks every pick (decision 0113).
//!
//! A pick is shrunk only for the features assigned to it that the round's
//! results so far do not hold: a result keeps many common features it was
//! not asked for, and a pick they hold entirely is dropped untried
//! (`drive::shrink_kept`, decision 0108).
//!
//! A shrink may split its result in two
//! (`worker::shrink::shrink_and_split`): the part split off becomes an origin
//! of its own, after the corpus inputs, rooted at the input its result came
//! from (the report lists it there).

use std::collections::HashSet;

use crate::corpus::display::Size;
use crate::corpus::drive::{shrink_kept, Item, KeptResult, Phase};
use crate::corpus::features::{intersect, union};
use crate::corpus::jobs::Effort;
use crate::corpus::plan::cover::{assign_to_smallest, greedy_cover, Candidate, Pick};
use crate::corpus::store::Store;
use crate::reduce::Proof;

/// At most this many rounds: two quick ones, a glance at the proof, and three to the end.
pub const MAX_ROUNDS: usize = 6;

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
        let picks = most_bytes_per_feature_first(cover(&items, required), &items);
        let earlier = picks.iter().filter(|p| items[p.index].done).count();
        let shrunk = shrunk(done.rounds, &picks, &items);
        let waiting = picks[shrunk..].iter().filter(|p| !items[p.index].done).count();
        phase.status.line(&announce(done.rounds, (picks.len(), earlier, waiting), items.len()));
        if done.rounds > 1 {
            release_dropped(&items, &picks, store)?;
            phase.status.corpus(store.size());
        }
        let kept = done.adopt_splits(shrink_kept(&items, &picks, (effort(done.rounds), shrunk), store, phase)?);
        let unproven = kept.iter().any(|k| k.unproven);
        record(&mut done.latest, &kept);
        let before: usize = picks.iter().map(|p| items[p.index].bytes.len()).sum();
        items = kept
            .into_iter()
            .filter_map(|k| {
                let sha1 = k.file?;
                let (bytes, features, done, unproven) = (k.bytes, k.features, k.done, k.unproven);
                Some(Item { origin: k.origin, sha1, bytes, features, done, unproven, earlier: false })
            })
            .collect();
        let after: usize = items.iter().map(|i| i.bytes.len()).sum();
        let paid = ((before - after.min(before)) as f64) >= ROUND_GAIN * before as f64;
        if phase.interrupt.is_raised() || (done.rounds > 1 && !paid && !unproven) {
            break;
        }
    }
    done.results = items;
    Ok(done)
}

/// A typed input's shrink in the third round stops after this many tests:
/// its proof's first walk, where most of what a proof cuts comes (decision 0111).
pub const GLANCE_TESTS: u64 = 500;

/// What round `round` (from 1) asks of its shrinks. Typed inputs: the
/// first two rounds are quick (no proof; the first's passes yield by the
/// input's size, decision 0107, the second's at the full budget, decision
/// 0109); the third starts each shrink with the proof but stops it after
/// [`GLANCE_TESTS`] tests: on a large input the proof's first walk cuts
/// most, and the rest of a proof costs many times that for little
/// (decision 0111); the fourth starts with the proof and goes on to the
/// end, later ones end with it. Raw bytes: the proof ends the first
/// round's shrinks (on bytes the final round is where the deletions find
/// most, decision 0101), starts the second's, ends the later ones'.
pub fn effort(round: usize) -> Effort {
    let bytes = if round == 2 { Proof::First } else { Proof::Last };
    let (typed, by_size, typed_tests) = match round {
        1 => (Proof::Skipped, true, None),
        2 => (Proof::Skipped, false, None),
        3 => (Proof::First, false, Some(GLANCE_TESTS)),
        4 => (Proof::First, false, None),
        _ => (Proof::Last, false, None),
    };
    Effort { typed, by_size, bytes, typed_tests }
}

/// In the rounds that let small picks wait ([`shrunk`]), the picks shrunk
/// are the first, in the round's order, that hold this share of its bytes.
pub const HEAD_SHARE: f64 = 0.85;

/// How many of `picks` (in the round's order) round `round` shrinks: every
/// one, but in the second and third rounds the first that hold
/// [`HEAD_SHARE`] of the bytes of the picks not done; the rest wait for
/// the fourth. On a typed corpus of 2,046 inputs the picks that held the
/// last 15% of those rounds' bytes ran a third of their tests or more for
/// an eighth of the bytes they cut, where the next round's first picks cut
/// 500 to 650 bytes per 1,000 tests (decision 0113).
pub fn shrunk(round: usize, picks: &[Pick], items: &[Item]) -> usize {
    if !matches!(round, 2 | 3) {
        return picks.len();
    }
    let size = |p: &Pick| if items[p.index].done { 0 } else { items[p.index].bytes.len() };
    let total = picks.iter().map(size).sum::<usize>() as f64;
    let mut before = 0;
    let waiting = picks.iter().position(|p| {
        let head = before as f64 >= HEAD_SHARE * total;
        before += size(p);
        head
    });
    waiting.unwrap_or(picks.len())
}

/// The smallest set of `items` covering `required` (greedy), each feature
/// assigned to the smallest kept item that has it. Done items (an earlier
/// run's results) are covered for first and keep what they have: the others
/// are kept, and shrunk, only for what no done item has (an incremental run).
/// Then a stopped run's results (`Item::earlier`), so that its rerun goes on
/// from them, not from a cover of the corpus that is larger (decision 0114);
/// then the rest for what is left.
pub fn cover(items: &[Item], required: &[u32]) -> Vec<Pick> {
    let group = |i: usize| if items[i].done { 0 } else { 1 + usize::from(!items[i].earlier) };
    let mut picks = Vec::new();
    for rank in 0..3 {
        let indices: Vec<usize> = (0..items.len()).filter(|&i| group(i) == rank).collect();
        let held = union(picks.iter().map(|p: &Pick| p.assigned.as_slice()));
        let left: Vec<u32> = required.iter().copied().filter(|f| held.binary_search(f).is_err()).collect();
        picks.extend(cover_of(items, &indices, &left));
    }
    picks
}

/// `picks` in the order a round shrinks them: most bytes per feature
/// assigned first, the inputs where a shrink cuts most (a 3 KB input kept
/// for one feature goes to a few dozen bytes; a 100-byte one kept for forty
/// hardly moves), so a run stopped early has cut the most it could; the
/// cover's order on ties (decision 0107).
fn most_bytes_per_feature_first(mut picks: Vec<Pick>, items: &[Item]) -> Vec<Pick> {
    picks.sort_by_key(|p| std::cmp::Reverse(items[p.index].bytes.len() / p.assigned.len().max(1)));
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
/// of `items` keeps (of what every run showed) and those `pinned` for
/// features that vary, as they are, then lets go of the `first` corpus's
/// files (a file both keep stays). Whether any of them is to be shrunk (not
/// all an earlier run's results).
pub fn settle(
    first: &[String],
    items: &[Item],
    pinned: &[&[u8]],
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

/// A round's first line: `kept` inputs keep every feature, `earlier` of
/// them an earlier run's results, `waiting` others wait.
fn announce(round: usize, (kept, earlier, waiting): (usize, usize, usize), items: usize) -> String {
    let again = if round > 1 { " again" } else { "" };
    let mut shrinking = match earlier {
        0 => format!("shrinking them{again}"),
        _ => format!(
            "{earlier} are an earlier run's results, kept as they are; shrinking the other {}{again}",
            kept - earlier
        ),
    };
    if waiting > 0 {
        let last = (1.0 - HEAD_SHARE) * 100.0;
        shrinking +=
            &format!(" but the {waiting} that hold the last {last:.0}% of their bytes, which wait a round or two");
    }
    match round {
        1 => format!("{kept} of the {items} inputs that run normally keep every feature; {shrinking}"),
        _ => format!("round {round}: {kept} of the {items} results keep every feature; {shrinking}"),
    }
}

/// Takes a round's results as the latest of their corpus inputs; an
/// unfinished one (interrupted) leaves the latest as it was, and a pick
/// dropped for what other results hold leaves it untouched.
fn record(latest: &mut [Option<KeptResult>], kept: &[KeptResult]) {
    for result in kept.iter().filter(|k| !k.held_elsewhere) {
        let entry = &mut latest[result.origin];
        let earlier_tests = entry.as_ref().map_or(0, |e| e.tests);
        match entry {
            Some(earlier) if result.file.is_none() => earlier.tests += result.tests,
            _ => *entry = Some(KeptResult { tests: result.tests + earlier_tests, ..result.clone() }),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;
    use std::time::Instant;

    use super::*;
    use crate::corpus::deadline::Deadline;
    use crate::corpus::display::Status;
    use crate::corpus::drive::SplitPart;
    use crate::corpus::jobs::{Event, Job, Shrunk};
    use crate::reduce::StopReason;
    use crate::session::interrupt::Interrupt;
    use crate::session::output::sha1_hex;
    use crate::session::progress::Display;

    /// An item of `bytes` covering `features` (`done`: a result of this run).
    pub(crate) fn item(origin: usize, bytes: &[u8], features: &[u32], done: bool) -> Item {
        Item {
            origin,
            sha1: sha1_hex(bytes),
            bytes: bytes.to_vec(),
            features: features.to_vec(),
            done,
            unproven: false,
            earlier: false,
        }
    }

    /// Runs `body` with a new corpus under `root` and a phase whose shrink
    /// jobs a worker thread answers: the result is what `shrink` makes of
    /// the bytes, with the features it was asked to keep (a typed input's
    /// shrink: stalled when the effort skips the proof, stopped at its bound
    /// when it has one, else done). Also each shrink's
    /// effort, in the order they came.
    fn with_phase<R>(
        root: &Path,
        shrink: fn(&[u8]) -> Vec<u8>,
        body: impl FnOnce(&mut Store, &mut Phase) -> R,
    ) -> (R, Vec<Effort>) {
        std::fs::create_dir_all(root.join("corpus")).unwrap();
        let mut store = Store::open(&root.join("new"), &root.join("corpus"), &root.join("scratch"), "build").unwrap();
        let (jobs, worker_jobs) = crossbeam_channel::unbounded();
        let (worker_events, events) = crossbeam_channel::unbounded();
        std::thread::scope(|scope| {
            let worker = scope.spawn(move || {
                let mut efforts = Vec::new();
                for job in worker_jobs {
                    let Job::Shrink { index, bytes, required, effort } = job else { panic!("only shrinks: {job:?}") };
                    efforts.push(effort);
                    let proof = effort.typed;
                    let shrunk = Shrunk {
                        bytes: shrink(&bytes),
                        features: required,
                        tests: 1,
                        stop: Some(match (proof, effort.typed_tests) {
                            (Proof::Skipped, _) => StopReason::Stalled,
                            (_, Some(_)) => StopReason::TestBudget,
                            _ => StopReason::Done,
                        }),
                        unstable: false,
                        split: None,
                    };
                    worker_events.send(Event::Shrunk { index, result: Ok(shrunk) }).unwrap();
                }
                efforts
            });
            let (interrupt, deadline) = (Interrupt::default(), Deadline::new(None, Instant::now()));
            let status = &mut Status::new(Display::Off, Instant::now());
            let mut phase =
                Phase { jobs: &jobs, events: &events, status, interrupt: &interrupt, deadline: &deadline, workers: 1 };
            let result = body(&mut store, &mut phase);
            drop(jobs);
            (result, worker.join().unwrap())
        })
    }

    /// The rounds over two 64-byte inputs of a feature each, shrunk by `shrink`:
    /// the rounds run, the results' sizes, the tests of the first, and the
    /// files of the new corpus; each round's shrinks go with its [`effort`].
    fn rounds_of(shrink: fn(&[u8]) -> Vec<u8>) -> (usize, Vec<usize>, u64, usize) {
        let root = tempfile::tempdir().unwrap();
        let items = vec![item(0, &[b'a'; 64], &[1], false), item(1, &[b'b'; 64], &[2], false)];
        let ran = with_phase(root.path(), shrink, |store, phase| {
            store.seed(items.iter().map(|i| i.bytes.as_slice())).unwrap();
            let done = shrink_rounds(items, &[1, 2], 2, store, phase).unwrap();
            let files = std::fs::read_dir(store.dir()).unwrap().count();
            let tests = done.latest[0].as_ref().unwrap().tests;
            (done.rounds, done.results.iter().map(|r| r.bytes.len()).collect(), tests, files)
        });
        let (rounds, efforts) = ran;
        let expected = (1..=rounds.0).flat_map(|round| [effort(round); 2]);
        assert_eq!(efforts, expected.collect::<Vec<_>>(), "two shrinks a round");
        rounds
    }

    #[test]
    fn rounds_go_on_while_each_cuts_a_tenth_of_the_bytes_and_stop_at_the_last() {
        let halve = |bytes: &[u8]| bytes[..bytes.len() / 2].to_vec();
        assert_eq!(
            rounds_of(halve),
            (MAX_ROUNDS, vec![1, 1], 6, 2),
            "64 -> 32 -> 16 -> 8 -> 4 -> 2 -> 1, one file each"
        );
        let to_twenty = |bytes: &[u8]| bytes[..bytes.len().min(20)].to_vec();
        assert_eq!(rounds_of(to_twenty), (4, vec![20, 20], 4, 2), "saved nothing after 1, proven in 4");
        let by_a_twentieth = |bytes: &[u8]| bytes[..bytes.len() * 19 / 20].to_vec();
        assert_eq!(
            rounds_of(by_a_twentieth),
            (4, vec![51, 51], 4, 2),
            "a quick or bounded round is always followed; 5% after the proof is not worth a fifth"
        );
    }

    #[test]
    fn typed_inputs_get_two_quick_rounds_a_glance_at_the_proof_then_the_proof_and_raw_bytes_the_proof_from_the_first() {
        let typed = |round| (effort(round).typed, effort(round).by_size, effort(round).typed_tests);
        let efforts: Vec<_> = (1..=6).map(typed).collect();
        let (quick, first, last, glance) = (Proof::Skipped, Proof::First, Proof::Last, Some(GLANCE_TESTS));
        assert_eq!(efforts[..3], [(quick, true, None), (quick, false, None), (first, false, glance)]);
        assert_eq!(efforts[3..], [(first, false, None), (last, false, None), (last, false, None)]);
        let bytes: Vec<_> = (1..=6).map(|round| effort(round).bytes).collect();
        assert_eq!(bytes, [last, first, last, last, last, last]);
    }

    #[test]
    fn a_round_shrinks_the_inputs_with_the_most_bytes_per_feature_first() {
        let items = [
            item(0, &[0; 100], &[1, 2, 3, 4], false),
            item(1, &[1; 3000], &[5], false),
            item(2, &[2; 40], &[6, 7], false),
            item(3, &[3; 900], &[8, 9, 10], false),
        ];
        let picks = cover(&items, &(1..=10).collect::<Vec<u32>>());
        let order: Vec<usize> = most_bytes_per_feature_first(picks, &items).iter().map(|p| p.index).collect();
        assert_eq!(order, [1, 3, 0, 2], "3,000 bytes for one feature, 300 a feature, 25, 20");
    }

    #[test]
    fn the_cover_keeps_done_items_for_what_they_have_and_fresh_ones_only_for_the_rest() {
        let items = [
            item(0, b"an earlier result", &[1, 2], true),
            item(1, b"ab", &[1, 2, 3, 9], false),
            item(2, b"abc", &[3], false),
        ];
        let picks: Vec<(usize, Vec<u32>)> =
            cover(&items, &[1, 2, 3]).into_iter().map(|p| (p.index, p.assigned)).collect();
        assert_eq!(picks, [(0, vec![1, 2]), (1, vec![3])], "the smallest fresh item takes what is left");
        let fresh: Vec<Item> = items.iter().map(|i| Item { done: false, ..i.clone() }).collect();
        let picks: Vec<(usize, Vec<u32>)> =
            cover(&fresh, &[1, 2, 3]).into_iter().map(|p| (p.index, p.assigned)).collect();
        assert_eq!(picks, [(1, vec![1, 2, 3])], "features not required are not assigned");
    }

    /// A rerun after a stop goes on from the stopped run's results: they are
    /// covered for before the corpus's inputs, which keep only the rest
    /// (decision 0114).
    #[test]
    fn the_cover_takes_a_stopped_runs_results_after_the_done_items_and_before_the_corpus() {
        let earlier = |mut item: Item| {
            item.earlier = true;
            item
        };
        let items = [
            item(0, b"a corpus input of every feature", &[1, 2, 3, 4], false),
            earlier(item(1, b"stopped result", &[1, 2], false)),
            earlier(item(2, b"another one", &[3], false)),
            item(3, b"done", &[2], true),
        ];
        let picks: Vec<(usize, Vec<u32>)> =
            cover(&items, &[1, 2, 3, 4]).into_iter().map(|p| (p.index, p.assigned)).collect();
        assert_eq!(picks, [(3, vec![2]), (2, vec![3]), (1, vec![1]), (0, vec![4])], "the corpus input keeps only 4");
    }

    /// A shrink that keeps its input as it is.
    fn as_it_is(bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }

    #[test]
    fn settling_writes_the_new_cover_and_the_pinned_inputs_then_lets_the_first_cover_go() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (item(0, b"aaaa", &[1], false), item(1, b"bbbbbb", &[1, 2], true));
        with_phase(root.path(), as_it_is, |store, phase| {
            let first = first_corpus(std::slice::from_ref(&a), &[1], store, phase).unwrap();
            assert_eq!((first.as_slice(), store.size()), (std::slice::from_ref(&a.sha1), (1, 4)));
            // Run again, `a` lost feature 1 (it varies), `b` kept both: `a` stays, pinned.
            let again = [Item { features: Vec::new(), ..a.clone() }, b.clone()];
            let shrink = settle(&first, &again, &[&a.bytes], &[1, 2], store, phase).unwrap();
            assert!(!shrink, "the one kept is an earlier run's result");
            assert_eq!(store.held(), [a.sha1.clone(), b.sha1.clone()].into());
            let first = [b.sha1.clone(), a.sha1.clone()];
            let settled = settle(&first, std::slice::from_ref(&a), &[], &[1], store, phase).unwrap();
            assert!(settled, "a fresh input is kept");
            assert_eq!(store.held(), [a.sha1.clone()].into(), "b's file went");
            assert!(!store.dir().join(&b.sha1).exists());
        });
    }

    #[test]
    fn a_split_part_is_an_origin_of_its_own_rooted_at_the_corpus_input_of_its_result() {
        let mut rounds = Rounds::none(2);
        rounds.roots.push(1); // origin 2 was split off origin 1's result in an earlier round
        rounds.latest.push(None);
        let part = SplitPart { file: "p".into(), bytes: b"part".to_vec(), features: vec![7] };
        let kept = vec![
            KeptResult { index: 0, origin: 2, file: Some("r".into()), split: Some(part), ..KeptResult::default() },
            KeptResult { index: 1, origin: 0, file: Some("s".into()), ..KeptResult::default() },
        ];
        let kept = rounds.adopt_splits(kept);
        let after: Vec<_> = kept.iter().map(|k| (k.index, k.origin, k.file.as_deref(), k.split.is_some())).collect();
        assert_eq!(after, [(0, 2, Some("r"), false), (1, 0, Some("s"), false), (0, 3, Some("p"), false)]);
        assert_eq!((rounds.roots, rounds.latest.len()), (vec![0, 1, 1, 1], 4));
        assert_eq!(kept[2].features, [7]);
    }

    #[test]
    fn a_result_replaces_the_latest_with_the_tests_summed_and_an_unfinished_one_only_adds_its_tests() {
        let result =
            |file: Option<&str>, tests| KeptResult { file: file.map(Into::into), tests, ..KeptResult::default() };
        let mut latest = vec![None];
        record(&mut latest, &[result(Some("first"), 5)]);
        record(&mut latest, &[result(Some("second"), 3)]);
        record(&mut latest, &[result(None, 2)]);
        let latest = latest[0].as_ref().unwrap();
        assert_eq!((latest.file.as_deref(), latest.tests), (Some("second"), 10));
        let mut never = vec![None];
        record(&mut never, &[result(None, 4)]);
        assert_eq!(never[0].as_ref().map(|r| (r.file.is_none(), r.tests)), Some((true, 4)), "the tests are kept");
        let held = KeptResult { held_elsewhere: true, ..KeptResult::default() };
        let mut untouched = vec![None];
        record(&mut untouched, std::slice::from_ref(&held));
        assert!(untouched[0].is_none(), "a pick other results hold is no result of its input");
    }

    #[test]
    fn a_round_says_how_many_inputs_keep_every_feature_and_which_are_earlier_results() {
        assert_eq!(
            announce(1, (3, 0, 0), 10),
            "3 of the 10 inputs that run normally keep every feature; shrinking them"
        );
        assert_eq!(
            announce(2, (3, 1, 0), 4),
            "round 2: 3 of the 4 results keep every feature; 1 are an earlier run's results, kept as they are; \
             shrinking the other 2 again"
        );
        assert_eq!(
            announce(3, (9, 0, 5), 9),
            "round 3: 9 of the 9 results keep every feature; shrinking them again but the 5 that hold the last 15% \
             of their bytes, which wait a round or two"
        );
    }

    /// Rounds 2 and 3 shrink the first picks that hold 85% of the bytes of
    /// those not done; the others shrink every pick (decision 0113).
    #[test]
    fn the_second_and_third_rounds_shrink_the_picks_that_hold_most_of_their_bytes_and_the_rest_wait() {
        let sizes = [600, 200, 50, 100, 40, 10];
        let items: Vec<Item> =
            sizes.iter().enumerate().map(|(i, &n)| item(i, &vec![b'x'; n], &[i as u32], false)).collect();
        let picks: Vec<Pick> = (0..items.len()).map(|index| Pick { index, assigned: vec![index as u32] }).collect();
        for round in 1..=MAX_ROUNDS {
            let expected = if matches!(round, 2 | 3) { 3 } else { picks.len() };
            assert_eq!(shrunk(round, &picks, &items), expected, "round {round}: 850 of 1,000 bytes in three picks");
        }
        let mut with_done = items.clone();
        with_done[0].done = true;
        assert_eq!(shrunk(2, &picks, &with_done), 4, "a done pick's bytes are not counted: 340 of 400 in 4 picks");
        assert_eq!(shrunk(2, &picks[..1], &items[..1]), 1, "a lone pick is shrunk");
    }
}
