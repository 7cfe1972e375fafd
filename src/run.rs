//! One run of the `--exec` mode: read the crash, confirm it crashes, reduce, save, verify, summarize.

use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, Context};

use crate::exec::{Executor, Outcome, ProcessExecutor};
use crate::exit_code::{Exit, Failure, OrExit};
use crate::interrupt::Interrupt;
use crate::options::Options;
use crate::output;
use crate::progress::{Display, Watcher};
use crate::reduce::{reduce_from, Fallible, Order, ReduceOptions, StopReason, TestCase, Verdict};
use crate::report::Summary;
use crate::signature::{Kind, Level, Signature};

/// How many times the original runs before reducing, to catch a flaky target.
pub const INITIAL_RUNS: usize = 3;

/// Runs the whole pipeline; `Ok` carries the exit code of a run that produced
/// a result (minimized, unverified, interrupted).
pub fn run(options: &Options) -> Result<Exit, Failure> {
    let interrupt = Interrupt::install()?;
    let original = read_crash(&options.crash)?;
    let output = options.output.clone().unwrap_or_else(|| output::default_path(&options.crash, &original));
    output::check_output_path(&output, &options.crash).or_exit(Exit::Usage)?;
    let file_name = options.crash.file_name().unwrap_or("input".as_ref());
    let mut executor =
        ProcessExecutor::new(options.command.clone(), options.timeout, file_name, interrupt.running.clone())?;

    let baseline = baseline(&mut executor, &original, options, &interrupt)?;
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
    let mut watcher = Watcher::new(&output, Display::choose(options.quiet), &interrupt, original.len());
    let oracle = Fallible(|candidate: &[u8]| -> anyhow::Result<Verdict> {
        let outcome = executor.run(candidate)?;
        Ok(Verdict::from_bool(same_crash(&expected, &outcome, level)))
    });
    let reduction = reduce_from(TestCase::new(original.clone(), Vec::new()), oracle, &reduce_options, &mut watcher);
    watcher.finish();
    if let Some(error) = watcher.write_error.take() {
        return Err(error.context("cannot save the minimized input; nothing better than the original was kept").into());
    }
    // Saved on every improvement; once more so the file exists even without one.
    output::write_atomically(&output, &reduction.best.bytes).context("cannot save the minimized input")?;

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

    let stats = reduction.stats;
    let seconds = stats.elapsed.as_secs_f64();
    let summary = Summary {
        target: options.target.clone(),
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
        seed: match options.order {
            Order::Random { seed } => Some(seed),
            Order::Deterministic => None,
        },
        reproduce: options.command.display_for(&output),
        passes: Summary::pass_summaries(&stats),
        stats,
    };
    if !options.quiet {
        eprintln!("{summary}");
    }
    if options.json {
        println!("{}", summary.to_json());
    }
    if summary.final_size == 0 && matches!(expected.kind, Kind::Exit { .. }) {
        eprintln!(
            "warning: the command fails the same way on an empty input; check that it reads the input file \
             (put @@ where its path goes) and that its exit code means a crash"
        );
    }

    if let StopReason::OracleFailed(why) = &stop {
        return Err(Failure::from(anyhow!(
            "running the command failed, so the reduction stopped early: {why}\nthe best result so far is in {}",
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
fn baseline(
    executor: &mut dyn Executor,
    original: &[u8],
    options: &Options,
    interrupt: &Interrupt,
) -> Result<Baseline, Failure> {
    let mut outcomes = Vec::with_capacity(INITIAL_RUNS);
    for _ in 0..INITIAL_RUNS {
        let outcome = executor
            .run(original)
            .with_context(|| format!("cannot run `{}`", options.command.display_for(&options.crash)))?;
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
                "{} does not crash: `{}` {} on all {INITIAL_RUNS} runs.\n\
                 Check that the command reads the input (put @@ where its path goes) and that it runs the build that crashed.{}",
                options.crash.display(),
                options.command.display_for(&options.crash),
                last.status,
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
            Ok(Outcome { status, stderr: stderr.as_bytes().to_vec(), duration: Duration::from_millis(1) })
        }
    }

    fn options() -> Options {
        Options {
            target: None,
            crash: "crash-1".into(),
            command: CommandLine::parse("./t -runs=1").unwrap(),
            output: None,
            timeout: Duration::from_secs(1),
            max_tests: None,
            max_time: None,
            order: Order::Deterministic,
            structure: true,
            signature: Level::Default,
            json: false,
            quiet: true,
        }
    }

    fn baseline_of(outcomes: &[(Status, &'static str)]) -> Result<Baseline, Failure> {
        let mut script = Script(outcomes.iter().copied().collect());
        baseline(&mut script, b"x", &options(), &Interrupt::default())
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
