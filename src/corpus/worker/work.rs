//! The corpus mode's jobs handled on the shared worker threads (measure an input, check an earlier run's results, shrink a kept one, join two results), each worker with its own fork servers (`runner`); the jobs and events are `jobs.rs`'s.

use std::sync::{Arc, OnceLock};

use crossbeam_channel::Sender;

use crate::corpus::jobs::{Event, Job, Joined, Measured};
use crate::corpus::worker::failures::Failures;
use crate::corpus::worker::joined::join_and_shrink;
use crate::corpus::worker::runner::Runner;
use crate::corpus::worker::shrink::{shrink_and_split, Budget};
use crate::exec::RunningGroup;
use crate::reduce::ReduceOptions;
use crate::session::interrupt::Interrupt;
use crate::session::setup::HarnessSetup;
use crate::session::workers::{Slot, Work};

/// Corpus jobs on coverage harnesses.
#[derive(Debug)]
pub struct CorpusWork<'a> {
    /// The coverage harness.
    pub setup: &'a HarnessSetup,
    /// The crash build, which records examples (`None` without structure).
    pub recording: &'a OnceLock<HarnessSetup>,
    /// Each shrink's reduction options (budgets apply per input).
    pub reduce: ReduceOptions,
    /// Ctrl-C: shrinks not started yet are skipped.
    pub interrupt: &'a Interrupt,
    /// The failures each shrink keeps for the next shrink of its result, on any worker.
    pub failures: Arc<Failures>,
}

impl Work<Job, Event> for CorpusWork<'_> {
    type Executor = Runner;

    fn start(&self, running: RunningGroup) -> anyhow::Result<Runner> {
        Ok(Runner::new(self.setup.start(running.clone())?, running, Arc::clone(&self.failures)))
    }

    fn handle(&self, slot: &Slot, runner: &mut Runner, job: &Job, events: &Sender<Event>) -> Event {
        match job {
            Job::Measure { index, bytes, first: None } => {
                Event::Measured { index: *index, result: runner.measure(bytes), varying: Vec::new(), runs: 1 }
            }
            // Stopped: what the first run covered stands.
            Job::Measure { index, first: Some(first), .. } if self.interrupt.is_raised() => Event::Measured {
                index: *index,
                result: Measured::Covered(first.clone()),
                varying: Vec::new(),
                runs: 0,
            },
            Job::Measure { index, bytes, first: Some(first) } => {
                let (result, varying, runs) = runner.measure_again(bytes, first);
                Event::Measured { index: *index, result, varying, runs }
            }
            Job::Check { index, parts } => {
                Event::Checked { index: *index, results: parts.iter().map(|bytes| runner.measure(bytes)).collect() }
            }
            Job::Shrink { index, .. } if self.interrupt.is_raised() => {
                Event::Shrunk { index: *index, result: Err(String::from("interrupted")) }
            }
            Job::Shrink { index, bytes, required, effort } => {
                let (worker, index) = (slot.index, *index);
                if let Err(error) = runner.start_shrinking(self.setup, self.recording.get()) {
                    return Event::Shrunk { index, result: Err(error) };
                }
                let mut progress = |size, tests| {
                    let _ = events.send(Event::Progress { worker, index, size, tests });
                };
                let budget = Budget { options: self.reduce.clone(), effort: *effort };
                let result = shrink_and_split(runner, bytes, required, &budget, &mut progress);
                Event::Shrunk { index, result }
            }
            Job::Join { index, .. } if self.interrupt.is_raised() => {
                Event::Joined { index: *index, result: Ok(Joined::default()) }
            }
            Job::Join { index, a, b, required, saved } => {
                let (worker, index) = (slot.index, *index);
                if let Err(error) = runner.start_shrinking(self.setup, self.recording.get()) {
                    return Event::Joined { index, result: Err(error) };
                }
                let mut progress = |size, tests| {
                    let _ = events.send(Event::Progress { worker, index, size, tests });
                };
                let result =
                    join_and_shrink(runner, a, b.as_deref(), required, saved.as_deref(), &self.reduce, &mut progress);
                Event::Joined { index, result }
            }
        }
    }

    fn failed(&self, job: Job, error: String) -> Event {
        match job {
            Job::Measure { index, .. } => {
                Event::Measured { index, result: Measured::Failed(error), varying: Vec::new(), runs: 1 }
            }
            Job::Check { index, parts } => {
                Event::Checked { index, results: parts.iter().map(|_| Measured::Failed(error.clone())).collect() }
            }
            Job::Shrink { index, .. } => Event::Shrunk { index, result: Err(error) },
            Job::Join { index, .. } => Event::Joined { index, result: Err(error) },
        }
    }
}
