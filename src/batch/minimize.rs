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

#[cfg(test)]
pub(crate) mod tests {
    //! Also the batch's simulated backend and target, which `drive`'s tests share.

    use std::collections::HashMap;
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::exec::fake::{self, clean, panic_at};
    use crate::exec::Outcome;

    /// A mode whose workers run `target` on the fake executor, counting every run in `runs`.
    pub(crate) struct Simulated {
        /// What a run of an input does (`Err`: the run itself failed).
        pub(crate) target: fn(&[u8]) -> anyhow::Result<Outcome>,
        /// The build's identity (the triage cache and the finished bugs are per build).
        pub(crate) build: &'static str,
        /// Runs so far, on every worker.
        pub(crate) runs: Arc<AtomicUsize>,
    }

    impl Backend for Simulated {
        type Executor = fake::Boxed;

        fn target(&self) -> &str {
            "t"
        }

        fn start(&self, _running: RunningGroup) -> anyhow::Result<fake::Boxed> {
            let (target, runs) = (self.target, self.runs.clone());
            Ok(fake::boxed(move |input: &[u8], _| {
                runs.fetch_add(1, Ordering::SeqCst);
                target(input)
            }))
        }

        fn build_id(&self) -> anyhow::Result<String> {
            Ok(self.build.to_owned())
        }

        fn reproduce_line(&self, file: &Path) -> String {
            format!("t {}", file.display())
        }

        /// No cross-check; the "typed rendering" is the bytes as a string.
        fn check(&self, check: Check, _interrupt: &Interrupt) -> (Option<LibFuzzerCheck>, Option<String>) {
            (None, Some(format!("{:?}", String::from_utf8_lossy(check.bytes))))
        }

        fn fuzz_dir(&self) -> Option<&Path> {
            None
        }
    }

    /// A simulated target: panics at `src/lib.rs:<byte>:1` for the input's
    /// last uppercase letter, runs clean without one; the run fails on a `!`.
    pub(crate) fn letters(input: &[u8]) -> anyhow::Result<Outcome> {
        if input.contains(&b'!') {
            anyhow::bail!("cannot write the input");
        }
        Ok(match input.iter().rev().find(|b| b.is_ascii_uppercase()) {
            Some(&letter) => panic_at(&format!("src/lib.rs:{letter}:1"), "boom"),
            None => clean(Duration::ZERO),
        })
    }

    /// The crash `letters` shows for `letter`.
    pub(crate) fn crash_of(letter: u8) -> Signature {
        Signature::of(&letters(&[letter]).unwrap()).expect("a panic")
    }

    /// The bug of letter `A`, with these members, its reproducer in `dir`.
    fn job(dir: &Path, members: &[(&str, &[u8])]) -> BugJob {
        BugJob {
            id: String::from("t-panic-0123456789"),
            signature: crash_of(b'A'),
            members: members
                .iter()
                .map(|(name, bytes)| Member { name: (*name).into(), bytes: bytes.to_vec() })
                .collect(),
            reproducer: dir.join("reproducer"),
            duplicate: None,
        }
    }

    /// Minimizes `job` on `executor` (with `letters`' backend for the
    /// checks): what it gave, and the slips it reported.
    fn minimize(executor: &mut fake::Boxed, job: &BugJob, interrupt: &Interrupt) -> (BugDone, Vec<Signature>) {
        let reduce = ReduceOptions { cancel: Some(interrupt.cancel.clone()), ..ReduceOptions::default() };
        let settings = Settings { level: Level::Default, structure: false, reduce, interrupt };
        let backend = Simulated { target: letters, build: "b", runs: Arc::default() };
        let mut slips = Vec::new();
        let mut slip = |signature: &Signature, _: &[u8]| slips.push(signature.clone());
        let reporting = Reporting { progress: &mut |_, _| {}, slip: &mut slip };
        let done = minimize_bug(&backend, executor, job, &settings, &RunningGroup::default(), reporting);
        (done, slips)
    }

    /// `letters`, except that the inputs `once` crash on their first run only;
    /// every input run is logged.
    fn logged(once: &'static [&'static [u8]], log: Arc<Mutex<Vec<Vec<u8>>>>) -> fake::Boxed {
        let mut runs = HashMap::<Vec<u8>, usize>::new();
        fake::boxed(move |input: &[u8], _| {
            log.lock().unwrap().push(input.to_vec());
            let run = runs.entry(input.to_vec()).or_default();
            *run += 1;
            if once.contains(&input) && *run > 1 {
                return Ok(clean(Duration::ZERO));
            }
            letters(input)
        })
    }

    #[test]
    fn the_first_member_that_crashes_as_the_bug_on_most_of_its_first_runs_is_minimized_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::default();
        let mut executor = logged(&[b"flaky A"], Arc::clone(&log));
        let members: [(&str, &[u8]); 3] = [("flaky", b"flaky A"), ("other", b"B"), ("steady", b".B.A")];
        let (done, slips) = minimize(&mut executor, &job(dir.path(), &members), &Interrupt::default());
        assert_eq!(done.representative.as_deref(), Some("steady"), "1 of 3 runs is no majority; B is another bug");
        assert_eq!(std::fs::read(dir.path().join("reproducer")).unwrap(), b"A");
        assert_eq!((done.reproducer_size, &done.status, done.verified), (Some(1), &BugStatus::Minimized, Some(true)));
        assert_eq!(done.value.as_deref(), Some("\"A\""), "the backend checked the reproducer's bytes");
        assert_eq!(done.file_name, "reproducer");
        assert_eq!(slips, [crash_of(b'B')], "deleting the A of .B.A met the B bug");
        // Every run is counted but the re-check, and the initial test of the reduction once.
        assert_eq!(done.tests as usize, log.lock().unwrap().len());
    }

    #[test]
    fn a_bug_none_of_whose_first_three_members_reproduces_is_not_reproducible_and_the_fourth_is_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::default();
        let mut executor = logged(&[], Arc::clone(&log));
        let members: [(&str, &[u8]); 4] = [("b", b"B"), ("c", b"C"), ("clean", b"x"), ("a", b"A")];
        let (done, _) = minimize(&mut executor, &job(dir.path(), &members), &Interrupt::default());
        assert_eq!(done.status, BugStatus::NotReproducible);
        assert_eq!((done.representative, done.reproducer_size, done.tests), (None, None, 9));
        assert!(!log.lock().unwrap().contains(&b"A".to_vec()), "only the first {MEMBERS_TRIED} are tried");
        assert!(!dir.path().join("reproducer").exists());
    }

    #[test]
    fn a_reproducer_that_does_not_crash_again_is_written_but_not_reproducible() {
        let dir = tempfile::tempdir().unwrap();
        let mut executor = logged(&[b"A"], Arc::default());
        let (done, _) = minimize(&mut executor, &job(dir.path(), &[("a", b"xA")]), &Interrupt::default());
        assert_eq!((done.status, done.verified), (BugStatus::NotReproducible, Some(false)));
        assert_eq!(std::fs::read(dir.path().join("reproducer")).unwrap(), b"A");
    }

    #[test]
    fn an_interrupt_before_the_first_runs_end_leaves_the_bug_interrupted_with_nothing_written() {
        let dir = tempfile::tempdir().unwrap();
        let interrupt = Interrupt::default();
        interrupt.raise();
        let (done, _) = minimize(&mut logged(&[], Arc::default()), &job(dir.path(), &[("a", b"xA")]), &interrupt);
        assert_eq!((done.status, done.tests, done.representative), (BugStatus::Interrupted, 1, None));
        assert!(!dir.path().join("reproducer").exists());
    }

    #[test]
    fn an_interrupt_during_the_reduction_keeps_the_best_so_far_unchecked() {
        let dir = tempfile::tempdir().unwrap();
        let interrupt = Interrupt::default();
        let (raise, mut runs) = (interrupt.clone(), 0);
        let mut executor = fake::boxed(move |input: &[u8], _| {
            runs += 1;
            if runs == 6 {
                raise.raise();
            }
            letters(input)
        });
        let (done, _) = minimize(&mut executor, &job(dir.path(), &[("a", b"..........A")]), &interrupt);
        assert_eq!((&done.status, done.verified, done.value.as_deref()), (&BugStatus::Interrupted, None, None));
        let kept = std::fs::read(dir.path().join("reproducer")).unwrap();
        assert!(kept.ends_with(b"A") && kept.len() > 1, "reduced a little, not to the end: {kept:?}");
        assert_eq!(done.reproducer_size, Some(kept.len()));
    }

    #[test]
    fn a_run_that_fails_during_the_reduction_fails_the_bug_with_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut executor = fake::boxed(|input: &[u8], _| {
            anyhow::ensure!(input.len() > 2, "the fork server died");
            letters(input)
        });
        let (done, _) = minimize(&mut executor, &job(dir.path(), &[("a", b"xxA")]), &Interrupt::default());
        let BugStatus::Failed { error } = &done.status else { panic!("{:?}", done.status) };
        assert_eq!(error, "running the target failed during the reduction: the fork server died");
        assert_eq!(std::fs::read(dir.path().join("reproducer")).unwrap(), b"xxA", "the best so far is kept");
    }

    #[test]
    fn a_reproducer_that_cannot_be_written_fails_the_bug_with_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let (done, _) =
            minimize(&mut logged(&[], Arc::default()), &job(&missing, &[("a", b"xA")]), &Interrupt::default());
        let BugStatus::Failed { error } = &done.status else { panic!("{:?}", done.status) };
        assert!(error.starts_with(&format!("cannot create a temporary file in {}", missing.display())), "{error}");
        assert_eq!(done.representative.as_deref(), Some("a"));
    }

    #[test]
    fn the_saver_writes_every_improvement_and_reports_progress_at_most_every_200_ms() {
        let dir = tempfile::tempdir().unwrap();
        let job = job(dir.path(), &[]);
        let mut heard = Vec::new();
        let mut progress = |size, tests| heard.push((size, tests));
        let mut saver = Saver { job: &job, progress: &mut progress, last: None, error: None };
        let at = |size, tests| Progress { size, tests, successes: 0, pass: "p" };
        saver.improved(&TestCase::new(b"ab".to_vec(), Vec::new()));
        saver.progress(&at(9, 1));
        saver.progress(&at(2, 2));
        assert_eq!(std::fs::read(&job.reproducer).unwrap(), b"ab");
        saver.last = Some(Instant::now() - Duration::from_millis(200));
        saver.progress(&at(1, 3));
        assert!(saver.error.is_none());
        assert_eq!(heard, [(9, 1), (1, 3)]);
    }
}
