//! The corpus run's phases on the workers: measure every input once; then, each round, shrink each kept input (or take its result from an earlier run) and save it as it finishes.

use anyhow::anyhow;
use crossbeam_channel::{Receiver, Sender};

use crate::corpus::cover::{is_subset, Pick};
use crate::corpus::display::Status;
use crate::corpus::inputs::CorpusInput;
use crate::corpus::shrink::Measured;
use crate::corpus::store::{Saved, Store};
use crate::corpus::work::{Event, Job};
use crate::interrupt::Interrupt;
use crate::reduce::StopReason;

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
}

/// Runs every readable input once; unreadable ones are `Failed`.
pub fn measure_all(inputs: &[CorpusInput], phase: &mut Phase) -> Vec<Measured> {
    let mut measured: Vec<Option<Measured>> = vec![None; inputs.len()];
    let mut pending = 0;
    for (index, input) in inputs.iter().enumerate() {
        match &input.input.bytes {
            Ok(bytes) => {
                phase.jobs.send(Job::Measure { index, bytes: bytes.clone() }).expect("the workers are running");
                pending += 1;
            }
            Err(error) => measured[index] = Some(Measured::Failed(format!("cannot read it: {error}"))),
        }
    }
    let total = pending;
    while pending > 0 {
        let Ok(event) = phase.events.recv() else { break };
        if let Event::Measured { index, result } = event {
            measured[index] = Some(result);
            pending -= 1;
            phase.status.measuring(total - pending, total);
        }
    }
    measured.into_iter().map(|m| m.unwrap_or_else(|| Measured::Failed(String::from("not run")))).collect()
}

/// Shrinks each picked item (or checks the result an earlier run saved) and
/// saves it as it finishes; returns one result per pick, in pick order.
pub fn shrink_kept(
    items: &[Item],
    picks: &[Pick],
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<Vec<KeptResult>> {
    let mut results: Vec<KeptResult> = picks
        .iter()
        .map(|p| KeptResult { index: p.index, origin: items[p.index].origin, ..KeptResult::default() })
        .collect();
    let slot_of = |index: usize| picks.iter().position(|p| p.index == index).expect("a picked input");
    // The results earlier runs saved, read once: checked by a run, shrunk on when cut short.
    let mut saved: Vec<Option<Vec<u8>>> = vec![None; picks.len()];
    for (slot, pick) in picks.iter().enumerate() {
        let job = match store.finished(&items[pick.index].sha1) {
            Some(Saved { bytes, complete: true }) => {
                saved[slot] = Some(bytes.clone());
                Job::Measure { index: pick.index, bytes }
            }
            // Cut short by Ctrl-C: go on from where it got.
            Some(Saved { bytes, complete: false }) => shrink_job(pick, bytes),
            None => shrink_job(pick, items[pick.index].bytes.clone()),
        };
        phase.jobs.send(job).expect("the workers are running");
    }
    let mut pending = picks.len();
    while pending > 0 {
        let Ok(event) = phase.events.recv() else { break };
        match event {
            Event::Progress { worker, index, size, tests } => {
                phase.status.worker(worker, items[index].origin, size, tests);
                phase.status.shrinking(picks.len() - pending, picks.len());
                continue;
            }
            Event::Measured { index, result } => {
                let slot = slot_of(index);
                match result {
                    // An earlier run's result, still good.
                    Measured::Covered(features) if is_subset(&picks[slot].assigned, &features) => {
                        let bytes = saved[slot].take().unwrap_or_default();
                        let file = Some(store.restore(&bytes)?);
                        let origin = items[index].origin;
                        results[slot] = KeptResult { index, origin, file, bytes, features, tests: 1, detail: None };
                    }
                    _ => {
                        let job = shrink_job(&picks[slot], items[index].bytes.clone());
                        phase.jobs.send(job).expect("the workers are running");
                        continue;
                    }
                }
            }
            Event::Shrunk { index, result } => {
                phase.status.idle(items[index].origin);
                results[slot_of(index)] = finished(index, &items[index], result, store, phase)?;
            }
        }
        pending -= 1;
        phase.status.shrinking(picks.len() - pending, picks.len());
    }
    Ok(results)
}

/// Shrinks `bytes` (the input, or a result cut short) for `pick`'s features.
fn shrink_job(pick: &Pick, bytes: Vec<u8>) -> Job {
    Job::Shrink { index: pick.index, bytes, required: pick.assigned.clone() }
}

/// Saves a shrink's result; a failed shrink keeps the item as it is, an
/// interrupted one saves nothing.
fn finished(
    index: usize,
    item: &Item,
    result: Result<crate::corpus::shrink::Shrunk, String>,
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<KeptResult> {
    let mut complete = true;
    let (bytes, features, tests, detail) = match result {
        Ok(shrunk) => {
            let detail = shrunk.unstable.then(|| String::from("its coverage varies from run to run: kept as it is"));
            complete = shrunk.stop != Some(StopReason::Cancelled);
            (shrunk.bytes, shrunk.features, shrunk.tests, detail)
        }
        Err(_) if phase.interrupt.is_raised() => {
            return Ok(KeptResult { index, origin: item.origin, ..KeptResult::default() })
        }
        Err(error) => (item.bytes.clone(), item.features.clone(), 0, Some(format!("not shrunk: {error}"))),
    };
    let file = store.save(&item.sha1, &bytes, complete).map_err(|e| {
        phase.interrupt.raise();
        anyhow!("{e:#}")
    })?;
    Ok(KeptResult { index, origin: item.origin, file: Some(file), bytes, features, tests, detail })
}
