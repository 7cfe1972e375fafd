//! One bug on one worker: find a member that still crashes the same way, reduce it (saving every improvement into the bug's folder and noting slips), run the result again, check it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::batch::model::BugStatus;
use crate::batch::triage::Member;
use crate::exec::{Executor, RunningGroup};
use crate::reduce::{Observer, Progress, ReduceOptions, StopReason, TestCase};
use crate::session::backend::{Backend, Check};
use crate::session::interrupt::Interrupt;
use crate::session::output::write_atomically;
use crate::session::pipeline::{self, Slips, Target, INITIAL_RUNS};
use crate::signature::{Level, Signature};
use crate::verify::LibFuzzerCheck;

/// How many members are tried, smallest first, before a bug is called not reproducible.
pub const MEMBERS_TRIED: usize = 3;

/// A bug to minimize.
#[derive(Clone, Debug)]
pub struct BugJob {
    /// Its id.
    pub id: String,
    /// Its signature.
    pub signature: Signature,
    /// The members to try, smallest first.
    pub members: Vec<Member>,
    /// Where the reproducer goes.
    pub reproducer: PathBuf,
    /// The duplicate this job minimizes on its own (`--each`); `None` for the bug's reduction.
    pub duplicate: Option<String>,
}

/// What minimizing a bug gave.
#[derive(Debug)]
pub struct BugDone {
    /// The bug's id.
    pub id: String,
    /// The job's duplicate, when it minimized one (`--each`).
    pub duplicate: Option<String>,
    /// The reproducer's file name in the bug's folder.
    pub file_name: String,
    /// Where it stands.
    pub status: BugStatus,
    /// The member minimized, when one reproduced.
    pub representative: Option<String>,
    /// The reproducer's size, when written.
    pub reproducer_size: Option<usize>,
    /// Tests run (the first runs of each member tried included).
    pub tests: u64,
    /// Wall time.
    pub seconds: f64,
    /// Whether the reproducer crashed the same way again.
    pub verified: Option<bool>,
    /// The libFuzzer cross-check.
    pub libfuzzer: Option<LibFuzzerCheck>,
    /// A typed target's rendering.
    pub value: Option<String>,
}

impl BugDone {
    /// Nothing done yet for `job`, standing at `status`.
    pub fn new(job: &BugJob, status: BugStatus) -> BugDone {
        BugDone {
            id: job.id.clone(),
            duplicate: job.duplicate.clone(),
            file_name: job.reproducer.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            status,
            representative: None,
            reproducer_size: None,
            tests: 0,
            seconds: 0.0,
            verified: None,
            libfuzzer: None,
            value: None,
        }
    }
}

/// What every bug's minimization shares.
#[derive(Debug)]
pub struct Settings<'a> {
    /// The signature level.
    pub level: Level,
    /// Use recorded structure.
    pub structure: bool,
    /// The reducer's options (the cancel flag included).
    pub reduce: ReduceOptions,
    /// Ctrl-C.
    pub interrupt: &'a Interrupt,
}

/// How a bug's minimization tells the coordinator what happens while it runs.
pub struct Reporting<'r> {
    /// Called now and then with the best size and the tests so far.
    pub progress: &'r mut dyn FnMut(usize, u64),
    /// Called with each different crash met (a slip), first time, so another
    /// worker can minimize it meanwhile.
    pub slip: &'r mut dyn FnMut(&Signature, &[u8]),
}

impl std::fmt::Debug for Reporting<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reporting")
    }
}

/// Minimizes `job` on `executor`, reporting as it goes.
pub fn minimize_bug<B: Backend>(
    backend: &B,
    executor: &mut B::Executor,
    job: &BugJob,
    settings: &Settings,
    running: &RunningGroup,
    reporting: Reporting,
) -> BugDone {
    let started = Instant::now();
    let mut done = BugDone::new(job, BugStatus::NotReproducible);
    let result = reproducing_member(executor, job, settings, &mut done)
        .and_then(|member| reduce_member(backend, executor, job, member, settings, running, reporting, &mut done));
    if let Err(error) = result {
        done.status = BugStatus::Failed { error: format!("{error:#}") };
    }
    done.seconds = started.elapsed().as_secs_f64();
    done
}

/// The first member (smallest first) that crashes as the bug on most of its first runs.
fn reproducing_member<'j, E: Executor>(
    executor: &mut E,
    job: &'j BugJob,
    settings: &Settings,
    done: &mut BugDone,
) -> anyhow::Result<Option<&'j Member>> {
    for member in job.members.iter().take(MEMBERS_TRIED) {
        let runs = pipeline::run_times(executor, &member.bytes, INITIAL_RUNS, || settings.interrupt.is_raised())?;
        done.tests += runs.outcomes.len() as u64;
        if settings.interrupt.is_raised() {
            return Ok(None);
        }
        if runs.matching(&job.signature, settings.level) * 2 > INITIAL_RUNS {
            return Ok(Some(member));
        }
    }
    Ok(None)
}

/// Reduces `member` into the bug's reproducer, then runs and checks it.
#[allow(clippy::too_many_arguments)]
fn reduce_member<B: Backend>(
    backend: &B,
    executor: &mut B::Executor,
    job: &BugJob,
    member: Option<&Member>,
    settings: &Settings,
    running: &RunningGroup,
    reporting: Reporting,
    done: &mut BugDone,
) -> anyhow::Result<()> {
    let interrupted = || settings.interrupt.is_raised();
    let Some(member) = member else {
        done.status = if interrupted() { BugStatus::Interrupted } else { BugStatus::NotReproducible };
        return Ok(());
    };
    done.representative = Some(member.name.clone());
    // The last run was the member's: its structure is the executor's last record.
    let initial = pipeline::initial_test_case(executor, &member.bytes, settings.structure);
    let target = Target { expected: &job.signature, level: settings.level, structure: settings.structure };
    let mut saver = Saver { job, progress: reporting.progress, last: None, error: None };
    let mut slips = Slips::with_hook(reporting.slip);
    let reduction = pipeline::reduce_crash(executor, initial, target, &settings.reduce, &mut saver, &mut slips);
    if let Some(error) = saver.error {
        return Err(error);
    }
    write_atomically(&job.reproducer, &reduction.best.bytes)?;
    done.tests += reduction.stats.tests;
    done.reproducer_size = Some(reduction.best.bytes.len());
    let stop = reduction.stats.stop.clone().unwrap_or(StopReason::Done);
    if let StopReason::OracleFailed(why) = stop {
        anyhow::bail!("running the target failed during the reduction: {why}");
    }
    if stop == StopReason::Cancelled || interrupted() {
        done.status = BugStatus::Interrupted;
        return Ok(());
    }
    let verified = reduction.stats.confirmed
        || pipeline::same_crash(&job.signature, &executor.run(&reduction.best.bytes)?, settings.level);
    done.verified = Some(verified);
    let check = Check {
        file: &job.reproducer,
        bytes: &reduction.best.bytes,
        expected: &job.signature,
        level: settings.level,
        running: running.clone(),
    };
    (done.libfuzzer, done.value) = backend.check(check, settings.interrupt);
    done.status = if verified { BugStatus::Minimized } else { BugStatus::NotReproducible };
    Ok(())
}

/// Saves each improvement into the bug's folder and reports progress now and then.
struct Saver<'a, 'p> {
    job: &'a BugJob,
    progress: &'p mut dyn FnMut(usize, u64),
    last: Option<Instant>,
    error: Option<anyhow::Error>,
}

impl Observer for Saver<'_, '_> {
    fn progress(&mut self, progress: &Progress) {
        if self.last.is_some_and(|t| t.elapsed() < Duration::from_millis(200)) {
            return;
        }
        self.last = Some(Instant::now());
        (self.progress)(progress.size, progress.tests);
    }

    fn improved(&mut self, best: &TestCase) {
        if self.error.is_none() {
            if let Err(error) = write_atomically(&self.job.reproducer, &best.bytes) {
                self.error = Some(error);
            }
        }
    }
}
