//! The corpus mode's jobs (measure an input, check an earlier run's results, shrink a kept one, join two results) and events, on the shared worker threads, each worker with its own fork servers (`runner`).

use std::sync::OnceLock;

use crossbeam_channel::Sender;

use crate::corpus::joined::{join_and_shrink, Joined};
use crate::corpus::runner::{Measured, Runner};
use crate::corpus::shrink::{shrink_and_split, Shrunk};
use crate::exec::RunningGroup;
use crate::reduce::ReduceOptions;
use crate::session::interrupt::Interrupt;
use crate::session::setup::HarnessSetup;
use crate::session::workers::{Slot, Work};

/// Work for a worker.
#[derive(Debug)]
pub enum Job {
    /// Run an input for its features: once (`first` is `None`), or again
    /// after a first run that covered `first` (more when they vary).
    Measure {
        /// The input's index.
        index: usize,
        /// Its contents.
        bytes: Vec<u8>,
        /// What its first run covered, when this is the run again.
        first: Option<Vec<u32>>,
    },
    /// Run the results an earlier run saved for a kept input (its result,
    /// and the input split off it if any) for their features.
    Check {
        /// The input's index.
        index: usize,
        /// The results' contents.
        parts: Vec<Vec<u8>>,
    },
    /// Shrink a kept input (and split it when that pays).
    Shrink {
        /// The input's index.
        index: usize,
        /// Its contents.
        bytes: Vec<u8>,
        /// The features it must keep.
        required: Vec<u32>,
    },
    /// Join two results into one and shrink it (`crate::corpus::join`).
    Join {
        /// The first one's origin (for progress).
        index: usize,
        /// The result whose collection takes the other's elements.
        a: Vec<u8>,
        /// The other; `None`: `a` is shrunk alone (`crate::corpus::alone`).
        b: Option<Vec<u8>>,
        /// The features the result must keep (those no other kept result has).
        required: Vec<u32>,
        /// An earlier run's result for the pair (or for `a` alone).
        saved: Option<Vec<u8>>,
    },
}

/// What a worker reports.
#[derive(Debug)]
pub enum Event {
    /// An input ran (once, or again after its first run).
    Measured {
        /// The input's index.
        index: usize,
        /// What the runs showed (the features every run had).
        result: Measured,
        /// The features only some runs had.
        varying: Vec<u32>,
        /// Runs made.
        runs: u64,
    },
    /// An earlier run's results ran.
    Checked {
        /// The input's index.
        index: usize,
        /// What each run showed, in the order given.
        results: Vec<Measured>,
    },
    /// A shrink is under way.
    Progress {
        /// The worker.
        worker: usize,
        /// The input's index.
        index: usize,
        /// The best size so far.
        size: usize,
        /// Tests so far.
        tests: u64,
    },
    /// A shrink ended.
    Shrunk {
        /// The input's index.
        index: usize,
        /// Its result, or why it failed (the input is then kept as it is).
        result: Result<Shrunk, String>,
    },
    /// A join ended.
    Joined {
        /// The first one's origin.
        index: usize,
        /// The joined input shrunk, if any, and the runs it took.
        result: Result<Joined, String>,
    },
}

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
}

impl Work<Job, Event> for CorpusWork<'_> {
    type Executor = Runner;

    fn start(&self, running: RunningGroup) -> anyhow::Result<Runner> {
        Ok(Runner::new(self.setup.start(running.clone())?, running))
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
            Job::Shrink { index, bytes, required } => {
                let (worker, index) = (slot.index, *index);
                if let Err(error) = runner.start_recording(self.recording.get()) {
                    return Event::Shrunk { index, result: Err(error) };
                }
                let mut progress = |size, tests| {
                    let _ = events.send(Event::Progress { worker, index, size, tests });
                };
                let result = shrink_and_split(runner, bytes, required, &self.reduce, &mut progress);
                Event::Shrunk { index, result }
            }
            Job::Join { index, .. } if self.interrupt.is_raised() => {
                Event::Joined { index: *index, result: Ok(Joined::default()) }
            }
            Job::Join { index, a, b, required, saved } => {
                let (worker, index) = (slot.index, *index);
                if let Err(error) = runner.start_recording(self.recording.get()) {
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
