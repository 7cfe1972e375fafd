//! Job 1, one crash at the user's desk: minimized in either mode (a command per test, or a harness built from the cargo-fuzz project and run as a fork server): confirm the crash, reduce, save, verify, summarize.

pub mod report;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};

use crate::exec::process::last_lines;
use crate::exec::{Executor, Lanes, Outcome, ProcessExecutor};
use crate::exit_code::{Exit, Failure, OrExit};
use crate::minimize::report::{
    DrawSummary, ExampleSummary, ParallelSummary, Phases, SizeStep, StructureSummary, Summary,
};
use crate::options::{MinimizeOptions, Options, Runner};
use crate::reduce::{Order, Reduction, StopReason};
use crate::session::interrupt::Interrupt;
use crate::session::output;
use crate::session::pipeline::{self, Runs, Slips, INITIAL_RUNS};
use crate::session::progress::{Display, Watcher};
use crate::session::reduce_options;
use crate::session::setup::{HarnessSetup, LibFuzzerRequest, Limits};
use crate::signature::{Kind, Signature};
use crate::verify::{self, LibFuzzerCheck};

/// What the shared pipeline needs to know about the mode, besides its executor.
struct Plan<'a> {
    /// The crash and this job's settings.
    job: &'a MinimizeOptions,
    /// Where the result goes.
    output: PathBuf,
    /// How the original is run, for messages (`./t -runs=1 crash-1`).
    run_line: String,
    /// What to check when the original does not crash.
    no_crash_hint: String,
    /// A command that reproduces the crash from the result.
    reproduce: String,
    /// The harness mode's set-up, for the checks after the reduction.
    harness: Option<&'a HarnessSetup>,
    /// How long the set-up took.
    setup: Duration,
}

/// Minimizes the one crash the options name, in either mode; `Ok` carries
/// the exit code of a run that produced a result (minimized, unverified,
/// interrupted).
pub fn run(options: &Options, job: &MinimizeOptions, interrupt: &Interrupt) -> Result<Exit, Failure> {
    let original = read_crash(&job.crash)?;
    let started = Instant::now();
    match &job.runner {
        Runner::Exec { command, .. } => {
            let output = match &job.output {
                Some(output) => output::resolve(output.clone(), &original),
                None => output::default_path(&job.crash, &original),
            };
            output::check_output_path(&output, &job.crash).or_exit(Exit::Usage)?;
            let file_name = job.crash.file_name().unwrap_or("input".as_ref());
            let executor =
                ProcessExecutor::new(command.clone(), options.timeout, file_name, interrupt.running.clone())?;
            let lane = || ProcessExecutor::new(command.clone(), options.timeout, file_name, interrupt.worker_group());
            let plan = Plan {
                job,
                run_line: command.display_for(&job.crash),
                no_crash_hint: String::from(
                    "Check that the command reads the input (put @@ where its path goes) and that it runs the build \
                     that crashed.",
                ),
                reproduce: command.display_for(&output),
                output,
                harness: None,
                setup: started.elapsed(),
            };
            minimize(executor, &lane, &original, &plan, options, interrupt)
        }
        Runner::Harness { target, project } => {
            let located = HarnessSetup::locate(project)?;
            let output = match &job.output {
                Some(output) => output::resolve(output.clone(), &original),
                None => {
                    let path = output::artifact_path(&located.project.fuzz_dir, target, &original);
                    let dir = path.parent().expect("a directory");
                    fs::create_dir_all(dir).with_context(|| {
                        format!("cannot create {} for the result; choose another place with --output", dir.display())
                    })?;
                    path
                }
            };
            output::check_output_path(&output, &job.crash).or_exit(Exit::Usage)?;
            let limits = Limits { timeout: options.timeout, rss_limit_mb: options.rss_limit_mb };
            let setup = HarnessSetup::build(located, target, project, limits, options.quiet, interrupt)?;
            let executor = setup.start(interrupt.running.clone())?;
            let lane = || setup.start(interrupt.worker_group());
            let plan = Plan {
                job,
                run_line: setup.run_line(&job.crash),
                no_crash_hint: setup.no_crash_hint(),
                reproduce: setup.reproduce_line(&output),
                output,
                harness: Some(&setup),
                setup: started.elapsed(),
            };
            minimize(executor, &lane, &original, &plan, options, interrupt)
        }
    }
}

/// The pipeline both modes share: confirm the crash, reduce (on more lanes
/// from `lane` when testing in parallel), save, verify, summarize.
fn minimize<E: Executor + Send>(
    first: E,
    lane: &dyn Fn() -> anyhow::Result<E>,
    original: &[u8],
    plan: &Plan,
    options: &Options,
    interrupt: &Interrupt,
) -> Result<Exit, Failure> {
    let output = &plan.output;
    let mut executor = Lanes::new(first);
    let executor = &mut executor;
    let started = Instant::now();
    let baseline = baseline(executor, original, plan, options, interrupt)?;
    let first_runs = started.elapsed();
    let expected = baseline.signature.clone();
    if !options.quiet {
        eprintln!(
            "minimizing {} ({} bytes): {expected} [{}/{INITIAL_RUNS} runs, {:.0?} each]",
            plan.job.crash.display(),
            original.len(),
            baseline.matching_runs,
            baseline.duration,
        );
    }
    widen(executor, parallel_width(plan.job.parallel, baseline.duration), lane);
    if let Some(setup) = plan.harness {
        // After the first runs: started before, its no-op check slowed them
        // past the 1 ms that turns parallel tests on (decision 0053).
        setup.start_libfuzzer_build(interrupt, options.quiet);
    }
    let level = options.signature;
    // The last baseline run was the original's.
    let initial = pipeline::initial_test_case(executor, original, options.structure);
    let mut watcher = Watcher::new(output, Display::choose(options.quiet), interrupt, original.len());
    let target = pipeline::Target { expected: &expected, level, structure: options.structure };
    let reduce_options = reduce_options(options, interrupt);
    let started = Instant::now();
    let reduction =
        pipeline::reduce_crash(executor, initial, target, &reduce_options, &mut watcher, &mut Slips::default());
    let reducing = started.elapsed();
    watcher.finish();
    if let Some(error) = watcher.write_error.take() {
        return Err(error.context("cannot save the minimized input; nothing better than the original was kept").into());
    }
    // Saved on every improvement; once more so the file exists even without one.
    output::write_atomically(output, &reduction.best.bytes).context("cannot save the minimized input")?;

    let checks = check(executor, plan, &reduction, &expected, options, interrupt, Elapsed { first_runs, reducing })?;
    let (stop, verified) = (checks.stop.clone(), checks.verified);
    let summary = summary(plan, options, &baseline, reduction, checks);
    report(&summary, options, plan.harness.is_none());
    if let StopReason::OracleFailed(why) = &stop {
        return Err(Failure::from(anyhow!(
            "running the target failed, so the reduction stopped early: {why}\nthe best result so far is in {}",
            output.display()
        )));
    }
    Ok(exit_for(verified, output))
}

/// How long the runs before the checks took.
struct Elapsed {
    /// The first runs of the crash.
    first_runs: Duration,
    /// The reduction (a hang's result was run once more within it, its re-check).
    reducing: Duration,
}

/// After the reduction (unless interrupted): the result run again, and the
/// harness mode's checks; with where the time went (`elapsed` before them).
fn check<E: Executor + Send>(
    executor: &mut Lanes<E>,
    plan: &Plan,
    reduction: &Reduction,
    expected: &Signature,
    options: &Options,
    interrupt: &Interrupt,
    elapsed: Elapsed,
) -> Result<Checks, Failure> {
    let stop = reduction.stats.stop.clone().unwrap_or(StopReason::Done);
    let interrupted = stop == StopReason::Cancelled || interrupt.is_raised();
    let started = Instant::now();
    let verified =
        if interrupted { None } else { crashes_again(executor.first(), reduction, expected, options, interrupt)? };
    let recheck = started.elapsed();
    let started = Instant::now();
    let (libfuzzer, value) = match plan.harness {
        Some(setup) if !interrupted => check_result(setup, &plan.output, reduction, expected, options, interrupt),
        _ => (None, None),
    };
    let phases = Phases {
        setup: plan.setup.as_secs_f64(),
        first_runs: elapsed.first_runs.as_secs_f64(),
        reduction: reduction.stats.elapsed.as_secs_f64(),
        recheck: (recheck + elapsed.reducing.saturating_sub(reduction.stats.elapsed)).as_secs_f64(),
        checks: started.elapsed().as_secs_f64(),
    };
    Ok(Checks { stop, verified, libfuzzer, value, width: executor.width(), phases })
}

/// A run of the crash at least this long makes testing in parallel the
/// default: the time a test saves then outweighs the prediction, the threads
/// and the candidates run ahead for nothing (decision 0021).
const SLOW_RUN: Duration = Duration::from_millis(1);

/// How many candidates to test at once: as asked, else every core for a slow target.
fn parallel_width(asked: Option<usize>, run: Duration) -> usize {
    asked.unwrap_or_else(|| if run >= SLOW_RUN { crate::exec::cores() } else { 1 })
}

/// Starts lanes until `lanes` has `width`; one that cannot start is warned
/// about and the reduction goes on with fewer.
fn widen<E: Executor + Send>(lanes: &mut Lanes<E>, width: usize, lane: &dyn Fn() -> anyhow::Result<E>) {
    while lanes.width() < width {
        match lane() {
            Ok(executor) => lanes.add(executor),
            Err(e) => {
                eprintln!("warning: testing {} at once instead of {width}: {e:#}", lanes.width());
                return;
            }
        }
    }
}

/// The exit code of a finished reduction, by whether its result crashed again.
fn exit_for(verified: Option<bool>, output: &Path) -> Exit {
    match verified {
        None => {
            eprintln!("interrupted: the best result so far is in {}", output.display());
            Exit::Interrupted
        }
        Some(true) => Exit::Minimized,
        Some(false) => {
            eprintln!(
                "warning: {} did not crash with the same signature when run again; the target may be flaky",
                output.display()
            );
            Exit::Unverified
        }
    }
}

/// Whether the result crashes the same way once more (`None`: interrupted).
fn crashes_again<E: Executor>(
    executor: &mut E,
    reduction: &Reduction,
    expected: &Signature,
    options: &Options,
    interrupt: &Interrupt,
) -> anyhow::Result<Option<bool>> {
    if reduction.stats.confirmed {
        return Ok(Some(true));
    }
    let outcome = executor.run(&reduction.best.bytes).context("re-running the result failed")?;
    Ok((!interrupt.is_raised()).then(|| pipeline::same_crash(expected, &outcome, options.signature)))
}

/// The harness mode's checks of the result: a plain libFuzzer build, and a typed target's rendering.
fn check_result(
    setup: &HarnessSetup,
    output: &Path,
    reduction: &Reduction,
    expected: &Signature,
    options: &Options,
    interrupt: &Interrupt,
) -> (Option<LibFuzzerCheck>, Option<String>) {
    let value = verify::debug_rendering(&setup.harness.binary, output, &reduction.best.bytes, options.timeout);
    let request = LibFuzzerRequest {
        result: output,
        expected,
        level: options.signature,
        running: interrupt.running.clone(),
        verbose: !options.quiet,
    };
    (Some(setup.check_with_libfuzzer(request, interrupt)), value)
}

/// What the end of a run found out about the result.
struct Checks {
    stop: StopReason,
    verified: Option<bool>,
    libfuzzer: Option<LibFuzzerCheck>,
    value: Option<String>,
    /// Candidates tested at once.
    width: usize,
    /// Where the time went.
    phases: Phases,
}

fn summary(plan: &Plan, options: &Options, baseline: &Baseline, reduction: Reduction, checks: Checks) -> Summary {
    let stats = reduction.stats;
    let seconds = stats.elapsed.as_secs_f64();
    Summary {
        target: plan.job.target().map(str::to_owned),
        crash: plan.job.crash.clone(),
        output: plan.output.clone(),
        initial_size: stats.initial_len,
        final_size: stats.final_len,
        tests: stats.tests,
        improvements: stats.successes,
        tests_to_result: stats.tests_to_result,
        sizes: stats.sizes.iter().map(|&(tests, size)| SizeStep { tests, size }).collect(),
        redone_at_timeout: stats.redone_at_timeout,
        cache_hits: stats.cache_hits,
        known_values: stats.known_values,
        remembered_failures: stats.remembered_failures,
        seconds,
        tests_per_second: stats.tests as f64 / seconds.max(1e-6),
        parallel: ParallelSummary {
            width: checks.width,
            batches: stats.speculation.batches,
            run_ahead: stats.speculation.run,
            used: stats.speculation.used,
        },
        phases: checks.phases,
        signature: baseline.signature.clone(),
        signature_level: options.signature,
        flaky: baseline.matching_runs < INITIAL_RUNS,
        stop_reason: Summary::stop_name(Some(&checks.stop)),
        stop: checks.stop.to_string(),
        verified: checks.verified,
        libfuzzer: checks.libfuzzer,
        value: checks.value,
        examples: ExampleSummary::of(&reduction.best),
        draws: DrawSummary::of(&reduction.best),
        structure: match plan.harness {
            Some(setup) => StructureSummary::of(&setup.harness.structure, options.structure),
            None => StructureSummary::off("--exec: a command's reads of its input are not seen"),
        },
        explain: plan.job.explain,
        seed: match options.order {
            Order::Random { seed } => Some(seed),
            Order::Deterministic => None,
        },
        reproduce: plan.reproduce.clone(),
        passes: Summary::pass_summaries(&stats),
        stats,
    }
}

/// Prints the summary (stderr, and JSON on stdout with `--json`) and its
/// warnings (one when `runs_a_command` fails the same way on nothing).
fn report(summary: &Summary, options: &Options, runs_a_command: bool) {
    if !options.quiet {
        eprintln!("{summary}");
    }
    if options.json {
        // A closed pipe (`| head`) is the reader's choice, not an error of the run.
        let _ = writeln!(std::io::stdout(), "{}", summary.to_json());
    }
    if let Some(check) = summary.libfuzzer.as_ref().filter(|c| c.verified == verify::Verdict::No) {
        eprintln!(
            "warning: `cargo fuzz run` may not reproduce the result: {}; the harness and the cargo fuzz build differ \
             (build options, stack size, memory limit?)",
            check.reason
        );
    }
    if summary.final_size == 0 && matches!(summary.signature.kind, Kind::Exit { .. }) && runs_a_command {
        eprintln!(
            "warning: the command fails the same way on an empty input; check that it reads the input file \
             (put @@ where its path goes) and that its exit code means a crash"
        );
    }
}

/// Reads the crash file; missing, unreadable and empty files are usage errors.
fn read_crash(path: &Path) -> Result<Vec<u8>, Failure> {
    let bytes = crate::session::input::read_input(path)
        .with_context(|| format!("cannot read the crash file {}", path.display()))
        .or_exit(Exit::Usage)?;
    if bytes.is_empty() {
        return Err(Failure::usage(anyhow!(
            "the crash file {} is empty: there is nothing to minimize",
            path.display()
        )));
    }
    Ok(bytes)
}

/// The crash the original input shows.
struct Baseline {
    signature: Signature,
    /// Runs that crashed with this signature.
    matching_runs: usize,
    /// The slowest run.
    duration: std::time::Duration,
}

/// Runs the original [`INITIAL_RUNS`] times: a crash on none is an error, a
/// crash on some (or different crashes) is flaky: warn and take the majority.
fn baseline<E: Executor + ?Sized>(
    executor: &mut E,
    original: &[u8],
    plan: &Plan,
    options: &Options,
    interrupt: &Interrupt,
) -> Result<Baseline, Failure> {
    let runs = pipeline::run_times(executor, original, INITIAL_RUNS, || interrupt.is_raised())
        .with_context(|| format!("cannot run `{}`", plan.run_line))?;
    if interrupt.is_raised() {
        return Err(Failure::new(Exit::Interrupted, anyhow!("interrupted before minimizing; nothing was written")));
    }
    let duration = runs.outcomes.iter().map(|o| o.duration).max().unwrap_or_default();
    let Some((signature, matching_runs)) = runs.majority(options.signature) else {
        return Err(does_not_crash(&runs, plan));
    };
    if matching_runs < INITIAL_RUNS {
        let others: Vec<String> = runs
            .signatures
            .iter()
            .map(|s| s.as_ref().map_or_else(|| "no crash".to_owned(), |s| s.to_string()))
            .collect();
        eprintln!(
            "warning: the original crashed this way on {matching_runs} of {INITIAL_RUNS} runs only ({}); \
             minimizing against the most common crash: {signature}",
            others.join("; ")
        );
    }
    Ok(Baseline { signature: signature.clone(), matching_runs, duration })
}

fn does_not_crash(runs: &Runs, plan: &Plan) -> Failure {
    let last = runs.outcomes.last().expect("at least one run");
    Failure::new(
        Exit::DoesNotCrash,
        anyhow!(
            "{} does not crash: `{}` {} on all {INITIAL_RUNS} runs.\n{}{}",
            plan.job.crash.display(),
            plan.run_line,
            last.status,
            plan.no_crash_hint,
            stderr_excerpt(last),
        ),
    )
}

/// The last lines of a run's stderr, for an error message.
pub fn stderr_excerpt(outcome: &Outcome) -> String {
    let text = outcome.stderr_text();
    let tail = last_lines(&text, 5);
    if tail.is_empty() {
        return String::from("\nIt printed nothing on stderr.");
    }
    format!("\nThe last lines it printed on stderr:\n  {}", tail.join("\n  "))
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::time::Duration;

    use super::*;
    use crate::exec::fake::Fake;
    use crate::exec::{CommandLine, Status};
    use crate::signature::Level;

    /// Plays back scripted outcomes, whatever the input.
    fn script(outcomes: &[(Status, &'static str)]) -> Fake<impl crate::exec::fake::Target> {
        let mut outcomes: VecDeque<(Status, &'static str)> = outcomes.iter().copied().collect();
        Fake::new(move |_: &[u8], _| {
            let (status, stderr) = outcomes.pop_front().expect("a scripted outcome");
            Ok(Outcome::new(status, stderr.as_bytes().to_vec(), Duration::from_millis(1)))
        })
    }

    fn job() -> MinimizeOptions {
        MinimizeOptions {
            runner: Runner::Exec { command: CommandLine::parse("./t -runs=1").unwrap(), label: None },
            crash: "crash-1".into(),
            output: None,
            parallel: None,
            explain: false,
        }
    }

    fn options() -> Options {
        Options {
            job: crate::options::Job::Minimize(job()),
            timeout: Duration::from_secs(1),
            rss_limit_mb: 0,
            max_tests: None,
            max_time: None,
            order: Order::Deterministic,
            structure: true,
            draws: true,
            signature: Level::Default,
            json: false,
            quiet: true,
        }
    }

    fn baseline_of(outcomes: &[(Status, &'static str)]) -> Result<Baseline, Failure> {
        let mut script = script(outcomes);
        let job = job();
        let plan = Plan {
            job: &job,
            output: "out".into(),
            run_line: "./t -runs=1 crash-1".into(),
            no_crash_hint: "Check the command.".into(),
            reproduce: String::new(),
            harness: None,
            setup: Duration::ZERO,
        };
        baseline(&mut script, b"x", &plan, &options(), &Interrupt::default())
    }

    const PANIC: &str = "thread 'main' panicked at src/a.rs:1:2:\nboom\n";

    #[test]
    fn a_steady_crash_matches_on_every_run() {
        let b = baseline_of(&[(Status::Exited(101), PANIC); 3]).unwrap();
        assert_eq!((b.signature.kind, b.matching_runs), (Kind::Panic, 3));
    }

    #[test]
    fn a_flaky_crash_takes_the_majority() {
        let runs = [(Status::Signaled(11), ""), (Status::Exited(101), PANIC), (Status::Exited(101), PANIC)];
        let b = baseline_of(&runs).unwrap();
        assert_eq!((b.signature.kind, b.matching_runs), (Kind::Panic, 2));
        let once = [(Status::Exited(0), ""), (Status::Exited(101), PANIC), (Status::Exited(0), "")];
        assert_eq!(baseline_of(&once).unwrap().matching_runs, 1);
    }

    #[test]
    fn ties_go_to_the_first_crash() {
        let runs = [(Status::Signaled(6), ""), (Status::Exited(101), PANIC), (Status::Exited(0), "")];
        assert_eq!(baseline_of(&runs).unwrap().signature.kind, Kind::Signal { signal: 6 });
    }

    #[test]
    fn no_crash_on_any_run_is_its_own_exit_code_with_the_command_and_its_stderr() {
        let failure = baseline_of(&[(Status::Exited(0), "parsed 3 records\n"); 3]).err().unwrap();
        assert_eq!(failure.exit, Exit::DoesNotCrash);
        let message = failure.to_string();
        assert!(message.contains("crash-1 does not crash: `./t -runs=1 crash-1` exited with code 0"), "{message}");
        assert!(message.contains("parsed 3 records"), "{message}");
    }
}
