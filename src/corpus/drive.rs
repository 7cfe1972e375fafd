//! The corpus run's phases on the workers: measure every input once, cover, shrink each kept input (or take its result from an earlier run) and save it as it finishes.

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

/// A kept input's end.
#[derive(Clone, Debug, Default)]
pub struct KeptResult {
    /// The input's index.
    pub index: usize,
    /// Its file in the new corpus (`None`: not finished, interrupted).
    pub file: Option<String>,
    /// That file's size.
    pub size: usize,
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

/// Shrinks each picked input (or checks the result an earlier run saved) and
/// saves it as it finishes; returns one result per pick, in pick order.
pub fn shrink_kept(
    inputs: &[CorpusInput],
    measured: &[Measured],
    picks: &[Pick],
    store: &mut Store,
    phase: &mut Phase,
) -> anyhow::Result<Vec<KeptResult>> {
    let mut results: Vec<KeptResult> =
        picks.iter().map(|p| KeptResult { index: p.index, ..KeptResult::default() }).collect();
    let slot_of = |index: usize| picks.iter().position(|p| p.index == index).expect("a picked input");
    for pick in picks {
        let input = &inputs[pick.index];
        let job = match store.finished(&input.sha1) {
            Some(Saved { bytes, complete: true }) => Job::Measure { index: pick.index, bytes },
            // Cut short by Ctrl-C: go on from where it got.
            Some(Saved { bytes, complete: false }) => {
                Job::Shrink { index: pick.index, bytes, required: pick.assigned.clone() }
            }
            None => shrink_job(input, pick),
        };
        phase.jobs.send(job).expect("the workers are running");
    }
    let mut pending = picks.len();
    while pending > 0 {
        let Ok(event) = phase.events.recv() else { break };
        match event {
            Event::Progress { worker, index, size, tests } => {
                phase.status.worker(worker, index, size, tests);
                phase.status.shrinking(picks.len() - pending, picks.len());
                continue;
            }
            Event::Measured { index, result } => {
                let (pick, input) = (&picks[slot_of(index)], &inputs[index]);
                match result {
                    // An earlier run's result, still good.
                    Measured::Covered(features) if is_subset(&pick.assigned, &features) => {
                        let bytes = store.finished(&input.sha1).map(|s| s.bytes).unwrap_or_default();
                        let (file, size) = (Some(crate::output::sha1_hex(&bytes)), bytes.len());
                        results[slot_of(index)] = KeptResult { index, file, size, features, tests: 1, detail: None };
                    }
                    _ => {
                        phase.jobs.send(shrink_job(input, pick)).expect("the workers are running");
                        continue;
                    }
                }
            }
            Event::Shrunk { index, result } => {
                phase.status.idle(index);
                let original = match &measured[index] {
                    Measured::Covered(features) => features.clone(),
                    _ => Vec::new(),
                };
                results[slot_of(index)] = finished(index, (&inputs[index], original), result, store, phase)?;
            }
        }
        pending -= 1;
        phase.status.shrinking(picks.len() - pending, picks.len());
    }
    Ok(results)
}

fn shrink_job(input: &CorpusInput, pick: &Pick) -> Job {
    Job::Shrink { index: pick.index, bytes: input.bytes().to_vec(), required: pick.assigned.clone() }
}

/// Saves a shrink's result; a failed shrink keeps the input as it is, an
/// interrupted one saves nothing.
fn finished(
    index: usize,
    (input, original): (&CorpusInput, Vec<u32>),
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
        Err(_) if phase.interrupt.is_raised() => return Ok(KeptResult { index, ..KeptResult::default() }),
        Err(error) => (input.bytes().to_vec(), original, 0, Some(format!("not shrunk: {error}"))),
    };
    let file = store.save(&input.sha1, &bytes, complete).map_err(|e| {
        phase.interrupt.raise();
        anyhow!("{e:#}")
    })?;
    Ok(KeptResult { index, file: Some(file), size: bytes.len(), features, tests, detail })
}
