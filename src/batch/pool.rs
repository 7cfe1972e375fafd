//! Worker threads, each with its own executor (its own fork server), fed jobs and drained of events through crossbeam channels; the caller's thread coordinates.

use crossbeam_channel::{unbounded, Receiver, Sender};

use crate::batch::backend::Backend;
use crate::batch::minimize::{minimize_bug, BugDone, BugJob, Reporting, Settings};
use crate::exec::{Executor, RunningGroup};
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
    let (job_tx, job_rx) = unbounded::<Job>();
    let (event_tx, event_rx) = unbounded::<Event>();
    std::thread::scope(|scope| {
        for worker in 0..workers.max(1) {
            let (jobs, events) = (job_rx.clone(), event_tx.clone());
            let running = settings.interrupt.worker_group();
            scope.spawn(move || work(backend, worker, settings, running, &jobs, &events));
        }
        drop(event_tx);
        let result = coordinate(&job_tx, &event_rx);
        drop(job_tx);
        result
    })
}

/// One worker: starts its executor at the first job and keeps it.
fn work<B: Backend>(
    backend: &B,
    worker: usize,
    settings: &Settings,
    running: RunningGroup,
    jobs: &Receiver<Job>,
    events: &Sender<Event>,
) {
    let mut executor: Option<B::Executor> = None;
    for job in jobs {
        if executor.is_none() {
            match backend.start(running.clone()) {
                Ok(started) => executor = Some(started),
                Err(error) => {
                    let _ = events.send(failed(job, format!("{error:#}")));
                    continue;
                }
            }
        }
        let executor = executor.as_mut().expect("started");
        let event = match job {
            Job::Triage { index, bytes } => {
                let result = executor.run(&bytes).map(|o| Signature::of(&o)).map_err(|e| format!("{e:#}"));
                Event::Triaged { index, result }
            }
            Job::Minimize(job) => {
                let id = job.id.clone();
                let mut progress = |size, tests| {
                    let _ = events.send(Event::Progress { worker, id: id.clone(), size, tests });
                };
                let mut slip = |signature: &Signature, input: &[u8]| {
                    let (signature, input) = (signature.clone(), input.to_vec());
                    let _ = events.send(Event::Slip { id: id.clone(), signature, input });
                };
                let reporting = Reporting { progress: &mut progress, slip: &mut slip };
                Event::Finished(Box::new(minimize_bug(backend, executor, &job, settings, &running, reporting)))
            }
        };
        if events.send(event).is_err() {
            return;
        }
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
