//! Worker threads, each with an executor of its own (its own fork server) started at its first job, fed jobs and drained of events through crossbeam channels while the caller's thread coordinates; shared by the batch and the corpus modes.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crossbeam_channel::{unbounded, Receiver, Sender};

use crate::exec::RunningGroup;
use crate::session::interrupt::Interrupt;

/// What a mode's workers do with their jobs.
pub trait Work<J, V>: Sync {
    /// The executor each worker keeps for all its jobs.
    type Executor;
    /// Starts a worker's executor; its running test is published in `running` (for Ctrl-C).
    fn start(&self, running: RunningGroup) -> anyhow::Result<Self::Executor>;
    /// Does one job on `slot`'s worker; `events` takes reports sent while it runs.
    fn handle(&self, slot: &Slot, executor: &mut Self::Executor, job: &J, events: &Sender<V>) -> V;
    /// The event for a job that could not run: the executor did not start, or
    /// the job panicked (a bug of ours; the others go on).
    fn failed(&self, job: J, error: String) -> V;
}

/// A worker, as its jobs see it.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Its number, from 0.
    pub index: usize,
    /// Where its running test is published (Ctrl-C stops it).
    pub running: RunningGroup,
}

/// Runs `coordinate` on this thread while `workers` threads take jobs from the
/// sender it gets and report on the receiver; returns when it does and the
/// workers have finished their last jobs.
pub fn with_workers<J: Send, V: Send, W: Work<J, V>, R>(
    work: &W,
    workers: usize,
    interrupt: &Interrupt,
    coordinate: impl FnOnce(&Sender<J>, &Receiver<V>) -> R,
) -> R {
    let (job_tx, job_rx) = unbounded::<J>();
    let (event_tx, event_rx) = unbounded::<V>();
    std::thread::scope(|scope| {
        for index in 0..workers.max(1) {
            let (jobs, events) = (job_rx.clone(), event_tx.clone());
            let slot = Slot { index, running: interrupt.worker_group() };
            scope.spawn(move || serve(work, &slot, &jobs, &events));
        }
        drop(event_tx);
        let result = coordinate(&job_tx, &event_rx);
        drop(job_tx);
        result
    })
}

/// One worker: starts its executor at the first job and keeps it; a failed
/// start fails that job and is tried again at the next. A job that panics
/// fails with the panic's message (printed too, by the panic hook) and the
/// worker goes on with a new executor: a dead worker would leave the
/// coordinator waiting for its event forever.
fn serve<J, V, W: Work<J, V>>(work: &W, slot: &Slot, jobs: &Receiver<J>, events: &Sender<V>) {
    let mut executor: Option<W::Executor> = None;
    for job in jobs {
        if executor.is_none() {
            match work.start(slot.running.clone()) {
                Ok(started) => executor = Some(started),
                Err(error) => {
                    let _ = events.send(work.failed(job, format!("{error:#}")));
                    continue;
                }
            }
        }
        let running = executor.as_mut().expect("started");
        let handled = catch_unwind(AssertUnwindSafe(|| work.handle(slot, running, &job, events)));
        let event = handled.unwrap_or_else(|panic| {
            executor = None;
            work.failed(job, format!("internal error (please report it): {}", panic_message(&*panic)))
        });
        if events.send(event).is_err() {
            return;
        }
    }
}

/// What a panic said, when it said it with a string.
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic.downcast_ref::<&str>().copied().or(panic.downcast_ref::<String>().map(String::as_str)).unwrap_or("a panic")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Squares numbers; starting fails for the first call on each worker when asked.
    struct Squares {
        fail_start: bool,
    }

    impl Work<u64, Result<u64, String>> for Squares {
        type Executor = u64;

        fn start(&self, _running: RunningGroup) -> anyhow::Result<u64> {
            if self.fail_start {
                anyhow::bail!("no executor");
            }
            Ok(0)
        }

        fn handle(
            &self,
            _slot: &Slot,
            runs: &mut u64,
            job: &u64,
            _events: &Sender<Result<u64, String>>,
        ) -> Result<u64, String> {
            *runs += 1;
            assert_ne!(*job, 13, "unlucky");
            Ok(job * job)
        }

        fn failed(&self, _job: u64, error: String) -> Result<u64, String> {
            Err(error)
        }
    }

    #[test]
    fn every_job_gets_its_event_and_a_failed_start_fails_the_job() {
        let interrupt = Interrupt::default();
        let mut results: Vec<u64> = with_workers(&Squares { fail_start: false }, 2, &interrupt, |jobs, events| {
            (1..=10).for_each(|n| jobs.send(n).unwrap());
            (0..10).map(|_| events.recv().unwrap().unwrap()).collect()
        });
        results.sort_unstable();
        assert_eq!(results, [1, 4, 9, 16, 25, 36, 49, 64, 81, 100]);
        let failed: Vec<_> = with_workers(&Squares { fail_start: true }, 1, &interrupt, |jobs, events| {
            jobs.send(3).unwrap();
            vec![events.recv().unwrap()]
        });
        assert_eq!(failed, [Err(String::from("no executor"))]);
    }

    #[test]
    fn a_job_that_panics_fails_and_the_worker_goes_on() {
        let interrupt = Interrupt::default();
        let results: Vec<_> = with_workers(&Squares { fail_start: false }, 1, &interrupt, |jobs, events| {
            [13, 3].into_iter().for_each(|n| jobs.send(n).unwrap());
            (0..2).map(|_| events.recv().unwrap()).collect()
        });
        assert!(matches!(&results[0], Err(e) if e.contains("unlucky")), "{results:?}");
        assert_eq!(results[1], Ok(9));
    }
}
