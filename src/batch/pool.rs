//! The batch's jobs (triage an input, minimize a bug) and events on the shared worker threads (`crate::session::workers`), each worker with its own executor (its own fork server).

use crossbeam_channel::{Receiver, Sender};

use crate::batch::minimize::{minimize_bug, BugDone, BugJob, Reporting, Settings};
use crate::exec::{Executor, RunningGroup};
use crate::session::backend::Backend;
use crate::session::workers::{Slot, Work};
use crate::signature::Signature;

/// Work for a worker.
#[derive(Debug)]
pub enum Job {
    /// Run an input once and say how it crashed.
    Triage {
        /// The input's index.
        index: usize,
        /// Its contents.
        bytes: Vec<u8>,
    },
    /// Minimize a bug.
    Minimize(Box<BugJob>),
}

/// What a worker reports.
#[derive(Debug)]
pub enum Event {
    /// An input ran: its crash (`None`: none), or why it could not run.
    Triaged {
        /// The input's index.
        index: usize,
        /// Its crash.
        result: Result<Option<Signature>, String>,
    },
    /// A bug's reduction is under way.
    Progress {
        /// The worker.
        worker: usize,
        /// The bug.
        id: String,
        /// The best size so far.
        size: usize,
        /// Tests so far.
        tests: u64,
    },
    /// A different crash was met while minimizing a bug (a slip), first time.
    Slip {
        /// The bug being minimized.
        id: String,
        /// The crash met.
        signature: Signature,
        /// The input that showed it.
        input: Vec<u8>,
    },
    /// A bug is done.
    Finished(Box<BugDone>),
}

/// Runs `coordinate` on this thread while `workers` threads take jobs from
/// the sender it gets and report on the receiver; returns when it does and
/// the workers have finished their last jobs.
pub fn with_workers<B: Backend, R>(
    backend: &B,
    workers: usize,
    settings: &Settings,
    coordinate: impl FnOnce(&Sender<Job>, &Receiver<Event>) -> R,
) -> R {
    crate::session::workers::with_workers(&BatchWork { backend, settings }, workers, settings.interrupt, coordinate)
}

/// A batch's jobs on a mode's executors.
struct BatchWork<'a, B> {
    backend: &'a B,
    settings: &'a Settings<'a>,
}

impl<B: Backend> Work<Job, Event> for BatchWork<'_, B> {
    type Executor = B::Executor;

    fn start(&self, running: RunningGroup) -> anyhow::Result<B::Executor> {
        self.backend.start(running)
    }

    fn handle(&self, slot: &Slot, executor: &mut B::Executor, job: &Job, events: &Sender<Event>) -> Event {
        match job {
            Job::Triage { index, bytes } => {
                let result = executor.run(bytes).map(|o| Signature::of(&o)).map_err(|e| format!("{e:#}"));
                Event::Triaged { index: *index, result }
            }
            Job::Minimize(job) => {
                let (worker, id) = (slot.index, job.id.clone());
                let mut progress = |size, tests| {
                    let _ = events.send(Event::Progress { worker, id: id.clone(), size, tests });
                };
                let mut slip = |signature: &Signature, input: &[u8]| {
                    let (signature, input) = (signature.clone(), input.to_vec());
                    let _ = events.send(Event::Slip { id: id.clone(), signature, input });
                };
                let reporting = Reporting { progress: &mut progress, slip: &mut slip };
                let done = minimize_bug(self.backend, executor, job, self.settings, &slot.running, reporting);
                Event::Finished(Box::new(done))
            }
        }
    }

    fn failed(&self, job: Job, error: String) -> Event {
        failed(job, error)
    }
}

/// The event for a job that could not run at all.
fn failed(job: Job, error: String) -> Event {
    match job {
        Job::Triage { index, .. } => Event::Triaged { index, result: Err(error) },
        Job::Minimize(job) => {
            Event::Finished(Box::new(BugDone::new(&job, crate::batch::model::BugStatus::Failed { error })))
        }
    }
}
