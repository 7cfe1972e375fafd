//! One run, in either mode: set up the executor (a command per test, or a harness built from the cargo-fuzz project and run as a fork server), then the shared pipeline: confirm the crash, reduce, save, verify, summarize.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, Context};

use crate::exec::process::quote;
use crate::exec::{Executor, ForkServerConfig, ForkServerExecutor, Outcome, ProcessExecutor};
use crate::exit_code::{Exit, Failure, OrExit};
use crate::interrupt::Interrupt;
use crate::options::{Mode, Options, ProjectOptions};
use crate::output;
use crate::progress::{Display, Watcher};
use crate::project::scratch::default_scratch_dir;
use crate::project::{build_harness, BuildOptions, FuzzProject};
use crate::reduce::{reduce_from, Example, Fallible, Order, ReduceOptions, StopReason, TestCase, Verdict};
use crate::report::{ExampleSummary, Summary};
use crate::signature::{Kind, Level, Signature};
use crate::verify::{self, LibFuzzerCheck};

/// How many times the original runs before reducing, to catch a flaky target.
pub const INITIAL_RUNS: usize = 3;

/// What the shared pipeline needs to know about the mode, besides its executor.
struct Plan {
    /// Where the result goes.
    output: PathBuf,
    /// How the original is run, for messages (`./t -runs=1 crash-1`).
    run_line: String,
    /// What to check when the original does not crash.
    no_crash_hint: String,
    /// A command that reproduces the crash from the result.
    reproduce: String,
    /// The harness mode's project, for the checks after the reduction.
    harness: Option<HarnessPlan>,
}

/// What the harness mode checks after the reduction: the result with a plain
/// libFuzzer build, and a typed target's rendering of it.
struct HarnessPlan {
    project: FuzzProject,
    target: String,
    options: ProjectOptions,
    cwd: PathBuf,
    /// The harness binary (its replay mode renders typed inputs).
    binary: PathBuf,
}

/// Runs the whole pipeline; `Ok` carries the exit code of a run that produced
/// a result (minimized, unverified, interrupted).
pub fn run(options: &Options) -> Result<Exit, Failure> {
    let interrupt = Interrupt::install()?;
    let original = read_crash(&options.crash)?;
    match &options.mode {
        Mode::Exec { command, .. } => {
            let output = options.output.clone().unwrap_or_else(|| output::default_path(&options.crash, &original));
            output::check_output_path(&output, &options.crash).or_exit(Exit::Usage)?;
            let file_name = options.crash.file_name().unwrap_or("input".as_ref());
            let mut executor =
                ProcessExecutor::new(command.clone(), options.timeout, file_name, interrupt.running.clone())?;
            let plan = Plan {
                run_line: command.display_for(&options.crash),
                no_crash_hint: String::from(
                    "Check that the command reads the input (put @@ where its path goes) and that it runs the build \
                     that crashed.",
                ),
                reproduce: command.display_for(&output),
                output,
                harness: None,
            };
            minimize(&mut executor, |_| Vec::new(), &original, &plan, options, &interrupt)
        }
        Mode::Harness { target, project } => {
            let (mut executor, plan) = start_harness(target, project, &original, options, &interrupt)?;
            minimize(&mut executor, harness_examples, &original, &plan, options, &interrupt)
        }
    }
}

/// The harness mode's set-up: find the project, settle the output path, build
/// the harness, start it as a fork server.
fn start_harness(
    target: &str,
    project_options: &ProjectOptions,
    original: &[u8],
    options: &Options,
    interrupt: &Interrupt,
) -> Result<(ForkServerExecutor, Plan), Failure> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let project = FuzzProject::locate(project_options.fuzz_dir.as_deref(), &cwd)?;
    project.target(target)?;
    let output = match &options.output {
        Some(output) => output.clone(),
        None => {
            let path = output::artifact_path(&project.fuzz_dir, target, original);
            let dir = path.parent().expect("a directory");
            fs::create_dir_all(dir).with_context(|| {
                format!("cannot create {} for the result; choose another place with --output", dir.display())
            })?;
            path
        }
    };
    output::check_output_path(&output, &options.crash).or_exit(Exit::Usage)?;

    let build = BuildOptions {
        flags: project_options.flags.clone(),
        // The harness never goes into cargo's own target directory: it would
        // replace `cargo fuzz build`'s binary of the same name.
        scratch_dir: project_options.target_dir.as_deref().map(|dir| default_scratch_dir(&project, &cwd.join(dir))),
        ..BuildOptions::default()
    };
    if !options.quiet {
        eprintln!("building {target} harness...");
    }
    let harness = build_harness(&project, target, &build).map_err(|error| {
        // Ctrl-C reaches cargo too (same process group): report the interrupt, not cargo's failure.
        if interrupt.is_raised() {
            Failure::new(
                Exit::Interrupted,
                anyhow!("interrupted while building the {target} harness; nothing was written"),
            )
        } else {
            Failure::from(error)
        }
    })?;
    if !options.quiet {
        eprintln!("built {} in {:.1?}", harness.binary.display(), harness.duration);
    }

    let mut config = ForkServerConfig::new(&harness.binary, options.timeout);
    config.running = interrupt.running.clone();
    config.rss_limit_mb = options.rss_limit_mb;
    config.env = project_options.flags.sanitizer.runtime_env().into_iter().map(|(k, v)| (k.into(), v.into())).collect();
    let executor = ForkServerExecutor::start(config)
        .with_context(|| format!("cannot start the {target} harness as a fork server"))?;
    if let Some(hello) = executor.hello().filter(|hello| hello.threads > 1) {
        eprintln!(
            "warning: the {target} harness had {} threads when it started forking (the target's init code \
             started threads?); forking a multi-threaded process is unsafe: tests may hang or behave oddly",
            hello.threads
        );
    }

    let mut reproduce = vec![String::from("cargo fuzz run")];
    reproduce.extend(project_options.cargo_fuzz_args().iter().map(|a| quote(a)));
    reproduce.push(quote(target));
    reproduce.push(quote(&std::path::absolute(&output).unwrap_or_else(|_| output.clone()).to_string_lossy()));
    let plan = Plan {
        run_line: format!("{} {}", quote(&harness.binary.to_string_lossy()), quote(&options.crash.to_string_lossy())),
        no_crash_hint: format!(
            "Check that it is a crash of `{target}` and that the build options (features, --dev, --release) \
             match the build that crashed; a stack overflow found with a smaller stack (a thread's, or \
             `ulimit -s`) needs the same limit here; a memory error that only a sanitizer reports does not show \
             in a harness built without one: minimize it with --exec and a `cargo fuzz build` binary."
        ),
        reproduce: reproduce.join(" "),
        output,
        harness: Some(HarnessPlan {
            target: target.to_owned(),
            options: project_options.clone(),
            cwd,
            binary: harness.binary.clone(),
            project,
        }),
    };
    Ok((executor, plan))
}

/// The structure the harness recorded in its last run (the values `arbitrary` built).
fn harness_examples(executor: &ForkServerExecutor) -> Vec<Example> {
    executor.examples()
}

/// The pipeline both modes share: confirm the crash, reduce, save, verify,
/// summarize. `examples` reads the structure the executor's last run recorded.
fn minimize<E: Executor>(
    executor: &mut E,
    examples: fn(&E) -> Vec<Example>,
    original: &[u8],
    plan: &Plan,
    options: &Options,
    interrupt: &Interrupt,
) -> Result<Exit, Failure> {
    let output = &plan.output;
    let baseline = baseline(executor, original, plan, options, interrupt)?;
    let expected = baseline.signature.clone();
    if !options.quiet {
        eprintln!(
            "minimizing {} ({} bytes): {} [{}/{} runs, {:.0?} each]",
            options.crash.display(),
            original.len(),
            expected,
            baseline.matching_runs,
            INITIAL_RUNS,
            baseline.duration,
        );
    }

    let reduce_options = ReduceOptions {
        max_tests: options.max_tests,
        max_time: options.max_time,
        order: options.order,
        structure: options.structure,
        cancel: Some(interrupt.cancel.clone()),
        ..ReduceOptions::default()
    };
    let level = options.signature;
    let structure = options.structure;
    // The last baseline run was the original's.
    let initial_examples = if structure { examples(executor) } else { Vec::new() };
    let mut watcher = Watcher::new(output, Display::choose(options.quiet), interrupt, original.len());
    let oracle = Fallible(|candidate: &[u8]| -> anyhow::Result<Verdict> {
        let outcome = executor.run(candidate)?;
        Ok(if !same_crash(&expected, &outcome, level) {
            Verdict::Boring
        } else if structure {
            Verdict::Interesting(examples(executor))
        } else {
            Verdict::Interesting(Vec::new())
        })
    });
    let reduction =
        reduce_from(TestCase::new(original.to_vec(), initial_examples), oracle, &reduce_options, &mut watcher);
    watcher.finish();
    if let Some(error) = watcher.write_error.take() {
        return Err(error.context("cannot save the minimized input; nothing better than the original was kept").into());
    }
    // Saved on every improvement; once more so the file exists even without one.
    output::write_atomically(output, &reduction.best.bytes).context("cannot save the minimized input")?;

    let stop = reduction.stats.stop.clone().unwrap_or(StopReason::Done);
    let interrupted = stop == StopReason::Cancelled || interrupt.is_raised();
    let verified = if interrupted {
        None
    } else {
        let outcome = executor.run(&reduction.best.bytes).context("re-running the result failed")?;
        if interrupt.is_raised() {
            None
        } else {
            Some(same_crash(&expected, &outcome, level))
        }
    };

    let (libfuzzer, value) = match &plan.harness {
        Some(harness) if !interrupted => {
            let value = verify::debug_rendering(&harness.binary, output, &reduction.best.bytes, options.timeout);
            (Some(check_with_libfuzzer(harness, output, &expected, options, interrupt)), value)
        }
        _ => (None, None),
    };

    let stats = reduction.stats;
    let seconds = stats.elapsed.as_secs_f64();
    let summary = Summary {
        target: options.target().map(str::to_owned),
        crash: options.crash.clone(),
        output: output.clone(),
        initial_size: stats.initial_len,
        final_size: stats.final_len,
        tests: stats.tests,
        improvements: stats.successes,
        cache_hits: stats.cache_hits,
        seconds,
        tests_per_second: stats.tests as f64 / seconds.max(1e-6),
        signature: expected.clone(),
        signature_level: level,
        flaky: baseline.matching_runs < INITIAL_RUNS,
        stop_reason: Summary::stop_name(Some(&stop)),
        stop: stop.to_string(),
        verified,
        libfuzzer,
        value,
        examples: ExampleSummary::of(&reduction.best),
        explain: options.explain,
        seed: match options.order {
            Order::Random { seed } => Some(seed),
            Order::Deterministic => None,
        },
        reproduce: plan.reproduce.clone(),
        passes: Summary::pass_summaries(&stats),
        stats,
    };
    if !options.quiet {
        eprintln!("{summary}");
    }
    if options.json {
        println!("{}", summary.to_json());
    }
    if let Some(check) = summary.libfuzzer.as_ref().filter(|c| c.verified == verify::Verdict::No) {
        eprintln!(
            "warning: `cargo fuzz run` may not reproduce the result: {}; the harness and the cargo fuzz build differ \
             (build options, stack size, memory limit?)",
            check.reason
        );
    }
    if summary.final_size == 0
        && matches!(expected.kind, Kind::Exit { .. })
        && matches!(options.mode, Mode::Exec { .. })
    {
        eprintln!(
            "warning: the command fails the same way on an empty input; check that it reads the input file \
             (put @@ where its path goes) and that its exit code means a crash"
        );
    }

    if let StopReason::OracleFailed(why) = &stop {
        return Err(Failure::from(anyhow!(
            "running the target failed, so the reduction stopped early: {why}\nthe best result so far is in {}",
            output.display()
        )));
    }
    Ok(match verified {
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
    })
}

/// The result run once with a plain libFuzzer build of the target, unless turned off.
fn check_with_libfuzzer(
    harness: &HarnessPlan,
    output: &Path,
    expected: &Signature,
    options: &Options,
    interrupt: &Interrupt,
) -> LibFuzzerCheck {
    if !harness.options.verify_libfuzzer {
        return LibFuzzerCheck::skipped("--no-verify-libfuzzer");
    }
    let absolute = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let check = verify::with_libfuzzer(&verify::Request {
        project: &harness.project,
        target: &harness.target,
        options: &harness.options,
        cwd: &harness.cwd,
        result: &absolute,
        expected,
        level: options.signature,
        timeout: options.timeout,
        rss_limit_mb: options.rss_limit_mb,
        running: interrupt.running.clone(),
        verbose: !options.quiet,
    });
    if interrupt.is_raised() {
        return LibFuzzerCheck::skipped("interrupted");
    }
    check
}

/// Whether `outcome` is the crash `expected` at `level`.
fn same_crash(expected: &Signature, outcome: &Outcome, level: Level) -> bool {
    Signature::of(outcome).is_some_and(|actual| expected.matches(&actual, level))
}

/// Reads the crash file; missing, unreadable and empty files are usage errors.
fn read_crash(path: &Path) -> Result<Vec<u8>, Failure> {
    let bytes = fs::read(path)
        .with_context(|| format!("cannot read the crash file {}; check the path", path.display()))
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
    duration: Duration,
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
    let mut outcomes = Vec::with_capacity(INITIAL_RUNS);
    for _ in 0..INITIAL_RUNS {
        let outcome = executor.run(original).with_context(|| format!("cannot run `{}`", plan.run_line))?;
        if interrupt.is_raised() {
            return Err(Failure::new(Exit::Interrupted, anyhow!("interrupted before minimizing; nothing was written")));
        }
        outcomes.push(outcome);
    }
    let signatures: Vec<Option<Signature>> = outcomes.iter().map(Signature::of).collect();
    let level = options.signature;
    let best = signatures
        .iter()
        .flatten()
        .map(|s| (s, signatures.iter().flatten().filter(|other| s.matches(other, level)).count()))
        // max_by_key keeps the last of equals; reverse so the earliest run wins ties.
        .rev()
        .max_by_key(|&(_, count)| count);
    let duration = outcomes.iter().map(|o| o.duration).max().unwrap_or_default();
    let Some((signature, matching_runs)) = best else {
        let last = outcomes.last().expect("at least one run");
        return Err(Failure::new(
            Exit::DoesNotCrash,
            anyhow!(
                "{} does not crash: `{}` {} on all {INITIAL_RUNS} runs.\n{}{}",
                options.crash.display(),
                plan.run_line,
                last.status,
                plan.no_crash_hint,
                stderr_excerpt(last),
            ),
        ));
    };
    if matching_runs < INITIAL_RUNS {
        let others: Vec<String> =
            signatures.iter().map(|s| s.as_ref().map_or_else(|| "no crash".to_owned(), |s| s.to_string())).collect();
        eprintln!(
            "warning: the original crashed this way on {matching_runs} of {INITIAL_RUNS} runs only ({}); \
             minimizing against the most common crash: {signature}",
            others.join("; ")
        );
    }
    Ok(Baseline { signature: signature.clone(), matching_runs, duration })
}

/// The last lines of a run's stderr, for an error message.
fn stderr_excerpt(outcome: &Outcome) -> String {
    let text = outcome.stderr_text();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::from("\nIt printed nothing on stderr.");
    }
    let tail = &lines[lines.len().saturating_sub(5)..];
    format!("\nThe last lines it printed on stderr:\n  {}", tail.join("\n  "))
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::exec::{CommandLine, Status};

    /// Plays back scripted outcomes.
    struct Script(VecDeque<(Status, &'static str)>);

    impl Executor for Script {
        fn run(&mut self, _input: &[u8]) -> anyhow::Result<Outcome> {
            let (status, stderr) = self.0.pop_front().expect("a scripted outcome");
            Ok(Outcome {
                status,
                stderr: stderr.as_bytes().to_vec(),
                duration: Duration::from_millis(1),
                panic: None,
                frames: None,
            })
        }
    }

    fn options() -> Options {
        Options {
            mode: Mode::Exec { command: CommandLine::parse("./t -runs=1").unwrap(), target: None },
            crash: "crash-1".into(),
            output: None,
            timeout: Duration::from_secs(1),
            rss_limit_mb: 0,
            max_tests: None,
            max_time: None,
            order: Order::Deterministic,
            structure: true,
            signature: Level::Default,
            json: false,
            explain: false,
            quiet: true,
        }
    }

    fn baseline_of(outcomes: &[(Status, &'static str)]) -> Result<Baseline, Failure> {
        let mut script = Script(outcomes.iter().copied().collect());
        let plan = Plan {
            output: "out".into(),
            run_line: "./t -runs=1 crash-1".into(),
            no_crash_hint: "Check the command.".into(),
            reproduce: String::new(),
            harness: None,
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
