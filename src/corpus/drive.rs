//! The corpus run's phases on the workers: measure every input (once, then again for coverage that varies); then, each round, shrink each kept input (or take its result from an earlier run) and save it as it finishes, with the input split off it if any.

use anyhow::anyhow;
use crossbeam_channel::{Receiver, Sender};

use crate::corpus::deadline::Deadline;
use crate::corpus::display::Status;
use crate::corpus::features::{is_subset, union};
use crate::corpus::inputs::CorpusInput;
use crate::corpus::jobs::{Effort, Event, Job, Measured, Shrunk};
use crate::corpus::plan::cover::Pick;
use crate::corpus::store::{Saved, Store};
use crate::reduce::StopReason;
use crate::session::interrupt::Interrupt;

/// What a round shrinks: an input of the corpus, or a result of the round before.
#[derive(Clone, Debug)]
pub struct Item {
    /// The corpus input it comes from (its index).
    pub origin: usize,
    /// Its SHA-1 (the journal's key).
    pub sha1: String,
    /// Its contents.
    pub bytes: Vec<u8>,
    /// Its features (ascending).
    pub features: Vec<u32>,
    /// An earlier run's result: kept as it is, never shrunk again.
    pub done: bool,
    /// The round before's shrink of it stopped before its proof or at its
    /// bound of tests: when that shrink found nothing, the result saved for
    /// it is itself, which is shrunk again, not taken as a finished result.
    pub unproven: bool,
    /// A stopped run's result, read from its output (`CorpusInput::from_output`):
    /// the first cover takes these before the corpus's inputs (decision 0114).
    pub earlier: bool,
}

/// A kept item's end.
#[derive(Clone, Debug, Default)]
pub struct KeptResult {
    /// The item's index.
    pub index: usize,
    /// The corpus input it comes from.
    pub origin: usize,
    /// Its file in the new corpus (`None`: not finished, interrupted).
    pub file: Option<String>,
    /// That file's contents.
    pub bytes: Vec<u8>,
    /// That file's features.
    pub features: Vec<u32>,
    /// Tests spent on it.
    pub tests: u64,
    /// Why it was kept as it was, when it was not shrunk.
    pub detail: Option<String>,
    /// The input split off it, saved too (see [`crate::corpus::worker::shrink::shrink_and_split`]).
    pub split: Option<SplitPart>,
    /// An earlier run's result, kept as it is.
    pub done: bool,
    /// Dropped before its shrink: the round's other results hold its features.
    pub held_elsewhere: bool,
    /// Its shrink stopped before the proof (a quick shrink, `StopReason::Stalled`)
    /// or at the round's bound of tests (`StopReason::TestBudget`, decision 0111).
    pub unproven: bool,
}

/// An input split off a kept one, as saved.
#[derive(Clone, Debug, Default)]
pub struct SplitPart {
    /// Its file in the new corpus.
    pub file: String,
    /// Its contents.
    pub bytes: Vec<u8>,
    /// Its features.
    pub features: Vec<u32>,
}

/// The journal's key for the input split off the result of the item with this SHA-1.
fn split_key(sha1: &str) -> String {
    format!("{sha1}+split")
}

/// The channels and what the phases share.
#[derive(Debug)]
pub struct Phase<'a> {
    /// Jobs out.
    pub jobs: &'a Sender<Job>,
    /// Events in.
    pub events: &'a Receiver<Event>,
    /// Progress.
    pub status: &'a mut Status,
    /// Ctrl-C.
    pub interrupt: &'a Interrupt,
    /// `--max-time`, armed once the first complete corpus is in place.
    pub deadline: &'a Deadline,
    /// The worker threads: a round sends each one job at a time.
    pub workers: usize,
}

/// Every input measured: what its runs showed, and the features only some
/// of its runs had.
#[derive(Debug, Default)]
pub struct Measures {
    /// Per input: what it showed (`Covered`: the features every run had).
    pub measured: Vec<Measured>,
    /// Per input: the features only some of its runs had (ascending).
    pub varying: Vec<Vec<u32>>,
    /// Runs made.
    pub runs: u64,
}

/// Runs every readable input once (unreadable ones are `Failed`); or, given
/// those `first` runs, again every input they covered (more when its
/// coverage varies: decision 0088), the others left as they were. Stopped
/// (Ctrl-C, `--max-time`), the runs not made again leave the first ones.
pub fn measure_all(inputs: &[CorpusInput], first: Option<&Measures>, phase: &mut Phase) -> Measures {
    let mut measured: Vec<Option<Measured>> = vec![None; inputs.len()];
    let mut varying = vec![Vec::new(); inputs.len()];
    let mut pending = 0;
    for (index, input) in inputs.iter().enumerate() {
        let job = match (first.map(|f| &f.measured[index]), &input.input.bytes) {
            (Some(Measured::Covered(features)), Ok(bytes)) => {
                Job::Measure { index, bytes: bytes.clone(), first: Some(features.clone()) }
            }
            (Some(earlier), _) => {
                measured[index] = Some(earlier.clone());
                continue;
            }
            (None, Ok(bytes)) => Job::Measure { index, bytes: bytes.clone(), first: None },
            (None, Err(error)) => {
                measured[index] = Some(Measured::Failed(format!("cannot read it: {error}")));
                continue;
            }
        };
        phase.jobs.send(job).expect("the workers are running");
        pending += 1;
    }
    let (total, mut runs) = (pending, first.map_or(0, |f| f.runs));
    while pending > 0 {
        let Ok(event) = phase.events.recv() else { break };
        if let Event::Measured { index, result, varying: some, runs: made } = event {
            (measured[index], varying[index]) = (Some(result), some);
            runs += made;
            pending -= 1;
            phase.status.measuring(total - pending, total, first.is_some());
        }
    }
    let measured = measured.into_iter().map(|m| m.unwrap_or_else(|| Measured::Failed(String::from("not run"))));
    Measures { measured: measured.collect(), varying, runs }
}

/// Shrinks the first `shrunk` picked items (or checks the result an earlier
/// run saved) and saves each as it finishes; the picks after them wait, kept
/// as they are for the next round. Returns one result per pick, in pick
/// order. The picks go out as workers free up, each to keep only what the
/// round's results so far do not hold ([`Dispatch`]).
pub fn shrink_kept(
    items: &[Item],
    picks: &[Pick],
    (effort, shrunk): (Effort, usize),
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<Vec<KeptResult>> {
    let mut round = Dispatch::new(items, picks, effort, shrunk);
    round.fill(store, phase)?;
    let slot_of = |index: usize| picks.iter().position(|p| p.index == index).expect("a picked input");
    while round.in_flight > 0 {
        let Ok(event) = phase.events.recv() else { break };
        let (slot, result) = match event {
            Event::Progress { worker, index, size, tests } => {
                phase.status.worker(worker, items[index].origin, size, tests);
                continue;
            }
            Event::Checked { index, results: runs } => {
                let slot = slot_of(index);
                let parts = std::mem::take(&mut round.saved[slot]);
                match resumed(index, &items[index], &round.required[slot], parts, runs, store)? {
                    Some(result) => {
                        store.release(&items[index].sha1)?;
                        (slot, result)
                    }
                    None => {
                        let job = shrink_job(index, &round.required[slot], items[index].bytes.clone(), effort);
                        phase.jobs.send(job).expect("the workers are running");
                        continue;
                    }
                }
            }
            Event::Measured { .. } | Event::Joined { .. } => continue,
            Event::Shrunk { index, result } => {
                phase.status.idle(items[index].origin);
                (slot_of(index), finished(index, &items[index], result, store, phase)?)
            }
        };
        round.in_flight -= 1;
        round.done(slot, result);
        round.fill(store, phase)?;
        phase.status.corpus(store.size());
    }
    Ok(round.results)
}

/// A round's picks on their way to the workers: sent in order, at most one
/// per worker at a time, each asked to keep only the features assigned to
/// it that no result of the round holds yet. A shrink's result keeps more
/// than it was asked for (most of a small input's features are common ones),
/// so a later pick is held to less, or to nothing: then it is dropped, its
/// file let go, and no test run (decision 0108).
struct Dispatch<'a> {
    items: &'a [Item],
    picks: &'a [Pick],
    effort: Effort,
    /// Per pick, its result (in pick order).
    results: Vec<KeptResult>,
    /// Per pick, what it was sent to keep.
    required: Vec<Vec<u32>>,
    /// Per pick, an earlier run's saved results being checked.
    saved: Vec<Vec<Vec<u8>>>,
    /// The features the round's results in the new corpus hold.
    held: Vec<u32>,
    /// The next pick to send.
    next: usize,
    /// Jobs out.
    in_flight: usize,
    /// The picks from here on wait for the next round.
    waiting: usize,
}

impl<'a> Dispatch<'a> {
    fn new(items: &'a [Item], picks: &'a [Pick], effort: Effort, waiting: usize) -> Dispatch<'a> {
        let results = picks
            .iter()
            .map(|p| KeptResult { index: p.index, origin: items[p.index].origin, ..KeptResult::default() })
            .collect();
        let (required, saved) = (vec![Vec::new(); picks.len()], vec![Vec::new(); picks.len()]);
        Dispatch { items, picks, effort, results, required, saved, held: Vec::new(), next: 0, in_flight: 0, waiting }
    }

    /// Sends picks until each worker has one (or none is left); the ones
    /// that need no job (done, held by results, or waiting) end at once.
    fn fill(&mut self, store: &mut Store, phase: &mut Phase) -> anyhow::Result<()> {
        while self.in_flight < phase.workers && self.next < self.picks.len() {
            let slot = self.next;
            self.next += 1;
            let (pick, item) = (&self.picks[slot], &self.items[self.picks[slot].index]);
            if item.done {
                self.done(slot, as_it_is(pick.index, item));
                continue;
            }
            self.required[slot] =
                pick.assigned.iter().copied().filter(|f| self.held.binary_search(f).is_err()).collect();
            if self.required[slot].is_empty() && !phase.interrupt.is_raised() {
                store.release(&item.sha1)?;
                self.done(slot, held_elsewhere(pick.index, item));
                continue;
            }
            if slot >= self.waiting {
                self.done(slot, waits(pick.index, item));
                continue;
            }
            let job = match store.finished(&item.sha1) {
                Some(Saved { bytes, complete: true }) if !(item.unproven && bytes == item.bytes) => {
                    let split = store.finished(&split_key(&item.sha1)).filter(|s| s.complete).map(|s| s.bytes);
                    self.saved[slot] = std::iter::once(bytes).chain(split).collect();
                    Job::Check { index: pick.index, parts: self.saved[slot].clone() }
                }
                Some(Saved { bytes, complete: false }) => {
                    shrink_job(pick.index, &self.required[slot], bytes, self.effort)
                }
                Some(_) | None => shrink_job(pick.index, &self.required[slot], item.bytes.clone(), self.effort),
            };
            phase.jobs.send(job).expect("the workers are running");
            self.in_flight += 1;
        }
        phase.status.shrinking(self.next - self.in_flight, self.picks.len());
        Ok(())
    }

    /// Takes `result` as the pick's: what its file (and the part split off) holds is held from now on.
    fn done(&mut self, slot: usize, result: KeptResult) {
        if result.file.is_some() {
            let split = result.split.as_ref().map_or(&[][..], |s| s.features.as_slice());
            self.held = union([&self.held[..], &result.features[..], split]);
        }
        self.results[slot] = result;
    }
}

/// A pick whose assigned features the round's results all hold: no file, no test.
fn held_elsewhere(index: usize, item: &Item) -> KeptResult {
    KeptResult { index, origin: item.origin, held_elsewhere: true, ..KeptResult::default() }
}

/// A done item (an earlier run's result) as its own result: no test.
fn as_it_is(index: usize, item: &Item) -> KeptResult {
    KeptResult {
        index,
        origin: item.origin,
        file: Some(item.sha1.clone()),
        bytes: item.bytes.clone(),
        features: item.features.clone(),
        detail: Some(String::from("an earlier run's result, kept as it is")),
        done: true,
        ..KeptResult::default()
    }
}

/// A pick that waits for the next round: its file as it is, as a done item's, but unproven.
fn waits(index: usize, item: &Item) -> KeptResult {
    KeptResult { detail: None, done: false, unproven: true, ..as_it_is(index, item) }
}

/// An earlier run's results for a kept item, when they still cover the
/// features assigned to it: its result alone, or with the input split off it.
fn resumed(
    index: usize,
    item: &Item,
    assigned: &[u32],
    parts: Vec<Vec<u8>>,
    runs: Vec<Measured>,
    store: &mut Store,
) -> anyhow::Result<Option<KeptResult>> {
    let mut covered = parts.into_iter().zip(runs).map_while(|(bytes, run)| match run {
        Measured::Covered(features) => Some((bytes, features)),
        _ => None,
    });
    let Some((bytes, features)) = covered.next() else { return Ok(None) };
    let split = if is_subset(assigned, &features) {
        None
    } else {
        match covered.next() {
            Some((part, part_features)) if is_subset(assigned, &union([&features[..], &part_features[..]])) => {
                Some(SplitPart { file: store.restore(&part)?, bytes: part, features: part_features })
            }
            _ => return Ok(None),
        }
    };
    let (origin, file, tests) = (item.origin, Some(store.restore(&bytes)?), 1 + u64::from(split.is_some()));
    Ok(Some(KeptResult { index, origin, file, bytes, features, tests, split, ..KeptResult::default() }))
}

/// Shrinks `bytes` (the input of item `index`, or a result cut short) for `required`.
fn shrink_job(index: usize, required: &[u32], bytes: Vec<u8>, effort: Effort) -> Job {
    Job::Shrink { index, bytes, required: required.to_vec(), effort }
}

/// Saves a shrink's result in place of the item's file; a failed shrink
/// keeps the item as it is, an interrupted one saves nothing.
fn finished(
    index: usize,
    item: &Item,
    result: Result<Shrunk, String>,
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<KeptResult> {
    let mut complete = true;
    let (mut split, mut unproven) = (None, false);
    let (bytes, features, tests, detail) = match result {
        Ok(shrunk) => {
            let detail = shrunk.unstable.then(|| String::from("its coverage varies from run to run: kept as it is"));
            // A stalled or bounded result (a quick round's, a glance's) is
            // complete for its round: a rerun checks it, and the next round
            // goes on from it.
            complete = shrunk.stop != Some(StopReason::Cancelled);
            unproven = matches!(shrunk.stop, Some(StopReason::Stalled | StopReason::TestBudget));
            split = shrunk.split;
            (shrunk.bytes, shrunk.features, shrunk.tests, detail)
        }
        Err(_) if phase.interrupt.is_raised() => {
            return Ok(KeptResult { index, origin: item.origin, ..KeptResult::default() })
        }
        Err(error) => (item.bytes.clone(), item.features.clone(), 0, Some(format!("not shrunk: {error}"))),
    };
    let mut save = |key: &str, bytes: &[u8]| {
        store.save(key, bytes, complete).map_err(|e| {
            phase.interrupt.raise();
            anyhow!("{e:#}")
        })
    };
    // The part first: a result saved complete has its part saved already.
    let split = match split {
        Some(part) => {
            let file = save(&split_key(&item.sha1), &part.bytes)?;
            Some(SplitPart { file, bytes: part.bytes, features: part.features })
        }
        None => None,
    };
    let file = save(&item.sha1, &bytes)?;
    store.release(&item.sha1)?;
    Ok(KeptResult {
        index,
        origin: item.origin,
        file: Some(file),
        bytes,
        features,
        tests,
        detail,
        split,
        unproven,
        ..KeptResult::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(root: &std::path::Path) -> Store {
        let source = root.join("corpus");
        std::fs::create_dir_all(&source).unwrap();
        Store::open(&root.join("new"), &source, &root.join("scratch"), "build").unwrap()
    }

    /// Runs a round of `picks` over `items` on one fake worker, whose shrink
    /// halves its input and keeps the original's features, the first `shrunk`
    /// picks shrunk: the round's results and the jobs sent (index, required).
    fn fake_round(
        items: &[Item],
        picks: &[Pick],
        shrunk: usize,
        store: &mut Store,
    ) -> (Vec<KeptResult>, Vec<(usize, Vec<u32>)>) {
        use crate::corpus::display::Status;
        use crate::corpus::plan::rounds::effort;
        use std::time::Instant;

        let (jobs, worker_jobs) = crossbeam_channel::unbounded();
        let (worker_events, events) = crossbeam_channel::unbounded();
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let mut sent = Vec::new();
                for job in worker_jobs {
                    let Job::Shrink { index, bytes, required, .. } = job else { panic!("only shrinks: {job:?}") };
                    sent.push((index, required));
                    let (bytes, features) = (bytes[..bytes.len() / 2].to_vec(), items[index].features.clone());
                    let shrunk = Shrunk { bytes, features, tests: 1, stop: None, unstable: false, split: None };
                    worker_events.send(Event::Shrunk { index, result: Ok(shrunk) }).unwrap();
                }
                sent
            });
            let (interrupt, deadline) = (Interrupt::default(), Deadline::new(None, Instant::now()));
            let status = &mut Status::new(crate::session::progress::Display::Off, Instant::now());
            let mut phase =
                Phase { jobs: &jobs, events: &events, status, interrupt: &interrupt, deadline: &deadline, workers: 1 };
            let results = shrink_kept(items, picks, (effort(1), shrunk), store, &mut phase).unwrap();
            drop(jobs);
            (results, worker.join().unwrap())
        })
    }

    fn pick(index: usize, assigned: &[u32]) -> Pick {
        Pick { index, assigned: assigned.to_vec() }
    }

    /// Three items in a store, and a pick of each.
    fn three_picks(root: &std::path::Path) -> (Store, [Item; 3], [Pick; 3]) {
        use crate::corpus::plan::rounds::tests::item;
        let mut store = store(root);
        let items = [
            item(0, &[b'a'; 300], &[1, 2, 3], false),
            item(1, b"bbb", &[2, 3], false),
            item(2, b"cc", &[3, 4, 5], false),
        ];
        store.seed(items.iter().map(|i| i.bytes.as_slice())).unwrap();
        (store, items, [pick(0, &[1]), pick(1, &[2]), pick(2, &[4, 5])])
    }

    #[test]
    fn a_pick_keeps_only_what_the_rounds_results_do_not_hold_and_is_dropped_when_they_hold_it_all() {
        let root = tempfile::tempdir().unwrap();
        let (mut store, items, picks) = three_picks(root.path());
        // A shrink halves its input, which keeps the features of the original (the first one's, 2 and 3 too).
        let (results, sent) = fake_round(&items, &picks, picks.len(), &mut store);
        let ends: Vec<(bool, bool)> = results.iter().map(|r| (r.file.is_some(), r.held_elsewhere)).collect();
        assert_eq!(ends, [(true, false), (false, true), (true, false)], "the second is held by the first's result");
        assert_eq!(sent, [(0, vec![1]), (2, vec![4, 5])], "no job for the dropped pick");
        let held = store.held();
        assert!(!held.contains(&items[1].sha1), "the dropped pick's file went");
        assert_eq!(held.len(), 2, "the two results: {held:?}");
    }

    #[test]
    fn a_pick_that_waits_keeps_its_file_unproven_for_the_next_round_and_one_held_elsewhere_still_goes() {
        let root = tempfile::tempdir().unwrap();
        let (mut store, items, picks) = three_picks(root.path());
        let (results, sent) = fake_round(&items, &picks, 1, &mut store);
        assert_eq!(sent, [(0, vec![1])], "only the first pick is shrunk");
        assert!(results[1].held_elsewhere && results[1].file.is_none(), "held by the first's result: {:?}", results[1]);
        let waiting = &results[2];
        assert_eq!(waiting.file.as_deref(), Some(items[2].sha1.as_str()), "its file as it is");
        assert_eq!((waiting.bytes.as_slice(), waiting.features.as_slice()), (&b"cc"[..], &[3, 4, 5][..]));
        assert!(waiting.unproven && !waiting.done && waiting.tests == 0, "shrunk in a later round: {waiting:?}");
        assert!(store.held().contains(&items[2].sha1), "its file stays in the new corpus");
    }

    #[test]
    fn a_saved_result_resumes_alone_or_with_its_split_part_when_they_cover_the_features() {
        let root = tempfile::tempdir().unwrap();
        let mut store = store(root.path());
        let item = Item {
            origin: 7,
            sha1: "abc".into(),
            bytes: b"original".to_vec(),
            features: vec![1, 2, 3],
            done: false,
            unproven: false,
            earlier: false,
        };
        let covered = |features: &[u32]| Measured::Covered(features.to_vec());
        let parts = || vec![b"high".to_vec(), b"low".to_vec()];

        let alone = resumed(0, &item, &[1, 2], parts(), vec![covered(&[1, 2]), covered(&[3])], &mut store).unwrap();
        let alone = alone.expect("the result covers them alone");
        assert!(alone.split.is_none(), "a stale part is not taken: {alone:?}");
        assert_eq!((alone.origin, alone.bytes.as_slice(), alone.tests), (7, &b"high"[..], 1));

        let both = resumed(0, &item, &[1, 2, 3], parts(), vec![covered(&[1, 2]), covered(&[3])], &mut store).unwrap();
        let both = both.expect("the result and its part cover them");
        let part = both.split.expect("the part is kept");
        assert_eq!((part.bytes.as_slice(), part.features.as_slice()), (&b"low"[..], &[3][..]));
        assert!(root.path().join("new").join(&part.file).exists(), "the part is back in the new corpus");
        assert_eq!(both.tests, 2);

        let short =
            resumed(0, &item, &[1, 2, 3, 4], parts(), vec![covered(&[1, 2]), covered(&[3])], &mut store).unwrap();
        assert!(short.is_none(), "a feature neither covers: shrunk again");
        let crashed = vec![covered(&[1, 2]), Measured::Crashed("boom".into())];
        assert!(resumed(0, &item, &[1, 2, 3], parts(), crashed, &mut store).unwrap().is_none());
        let no_part =
            resumed(0, &item, &[1, 2, 3], vec![b"high".to_vec()], vec![covered(&[1, 2])], &mut store).unwrap();
        assert!(no_part.is_none(), "killed between the part and the result: shrunk again");
    }
}
