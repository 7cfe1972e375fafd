//! Validated options: everything a run needs, checked once, with no clap types past this point.
//!
//! Over 600 lines with its unit tests (about 470 of code): every option's validation is tested beside it.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, Context};

use crate::cli::{Cli, SignatureLevel};
use crate::exec::CommandLine;
use crate::exit_code::{Exit, Failure, OrExit};
use crate::project::{BuildFlags, Sanitizer};
use crate::reduce::Order;
use crate::signature::Level;

/// One run's settings: the job, with only the fields that job reads (and
/// how its tests run, for the jobs that run any), and what every job shares.
#[derive(Clone, Debug)]
pub struct Options {
    /// What to do.
    pub job: Job,
    /// Per-test time limit.
    pub timeout: Duration,
    /// Per-test memory limit in MiB (0: none; harness mode).
    pub rss_limit_mb: u64,
    /// Test budget.
    pub max_tests: Option<u64>,
    /// Time budget.
    pub max_time: Option<Duration>,
    /// Choice order (the seed is chosen here when random and not given).
    pub order: Order,
    /// Use the structure the target reports.
    pub structure: bool,
    /// Use the draws the target reports (the typed order, draw-level passes).
    pub draws: bool,
    /// What counts as the same crash.
    pub signature: Level,
    /// Print the summary as JSON on stdout.
    pub json: bool,
    /// No progress or summary on stderr.
    pub quiet: bool,
}

/// The jobs: one crash, many inputs, shards joined, a corpus.
#[derive(Clone, Debug)]
pub enum Job {
    /// One crash minimized (`TARGET CRASH`).
    Minimize(MinimizeOptions),
    /// Many inputs, one reproducer per bug (several inputs, a directory, `--artifacts`).
    Batch(BatchOptions),
    /// Shards' output directories joined (`--merge`): nothing runs.
    Merge(MergeOptions),
    /// A corpus shrunk keeping its coverage (`TARGET --corpus DIR -o NEW`).
    Corpus(CorpusOptions),
}

/// One crash's settings.
#[derive(Clone, Debug)]
pub struct MinimizeOptions {
    /// How each test runs.
    pub runner: Runner<String>,
    /// The crash input.
    pub crash: PathBuf,
    /// Where the result goes (`None`: the runner's default, named after the crash's hash).
    pub output: Option<PathBuf>,
    /// Candidates tested at once (`None`: chosen by the crash's run time).
    pub parallel: Option<usize>,
    /// Show the result's examples in the summary.
    pub explain: bool,
}

/// `--merge`'s settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeOptions {
    /// The shards' output directories.
    pub shards: Vec<PathBuf>,
    /// The merged output directory.
    pub output: PathBuf,
}

/// The corpus mode's settings: the harness mode only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusOptions {
    /// The fuzz target.
    pub target: String,
    /// Where the project is and how to build it.
    pub project: ProjectOptions,
    /// The corpus directory (only read).
    pub dir: PathBuf,
    /// The new corpus's directory.
    pub output: PathBuf,
    /// Workers running tests at once.
    pub workers: usize,
    /// Only this shard of the kept inputs is shrunk (a CI matrix's job).
    pub shard: Option<Shard>,
}

/// The batch mode's settings.
#[derive(Clone, Debug)]
pub struct BatchOptions {
    /// How each test runs: with a harness, one target's or every target's.
    pub runner: Runner<Targets>,
    /// The output directory (`None`: the harness's default under the fuzz dir).
    pub output: Option<PathBuf>,
    /// Which targets' artifacts to take, besides `paths`.
    pub artifacts: Artifacts,
    /// Input files and directories, as given.
    pub paths: Vec<PathBuf>,
    /// Minimize every crashing input, not one per bug.
    pub each: bool,
    /// Workers running tests at once.
    pub workers: usize,
    /// Only this shard of the inputs.
    pub shard: Option<Shard>,
}

/// The targets a batch takes, with a harness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Targets {
    /// One: named.
    One(String),
    /// Every target's artifacts (`--artifacts` without a target).
    All,
}

/// `--artifacts`: which artifact directories to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Artifacts {
    /// None: only the paths given.
    No,
    /// The target's (harness mode's target).
    Target,
    /// Every target's.
    AllTargets,
}

/// `--shard I/N`: the inputs whose content hash is `I - 1` modulo `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// From 1.
    pub index: u32,
    /// At least 1.
    pub count: u32,
}

impl Shard {
    /// Parses `I/N` with `1 <= I <= N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not a shard: write I/N with 1 <= I <= N, e.g. --shard 2/4");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// How each test runs; `T` names the harness's target (or targets).
#[derive(Clone, Debug)]
pub enum Runner<T> {
    /// `--exec`: the command runs once per test.
    Exec {
        /// The command.
        command: CommandLine,
        /// The target's name when given: a label only.
        label: Option<String>,
    },
    /// The default: the cargo-fuzz target is built as a fork-server harness.
    Harness {
        /// The fuzz target (a `[[bin]]` of the fuzz crate).
        target: T,
        /// Where the project is and how to build it.
        project: ProjectOptions,
    },
}

/// The harness mode's project and build settings, as `cargo fuzz build` takes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectOptions {
    /// `--fuzz-dir` (relative to the working directory), else found as cargo-fuzz does.
    pub fuzz_dir: Option<PathBuf>,
    /// The flags `cargo fuzz build` would take.
    pub flags: BuildFlags,
    /// `--target-dir`: cargo's target directory for the harness and its scratch files.
    pub target_dir: Option<PathBuf>,
    /// Cross-check the result with a plain libFuzzer build (`cargo fuzz build`) when cargo-fuzz is installed.
    pub verify_libfuzzer: bool,
    /// Build the harness with coverage instrumentation (the corpus mode's).
    pub coverage: bool,
}

impl ProjectOptions {
    /// The build flags as `cargo fuzz` takes them, for a reproduce line.
    pub fn cargo_fuzz_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(dir) = &self.fuzz_dir {
            args.extend(["--fuzz-dir".to_string(), dir.to_string_lossy().into_owned()]);
        }
        args.extend(self.flags.cargo_fuzz_args());
        args
    }
}

impl MinimizeOptions {
    /// The fuzz target's name, when known (with `--exec` it only labels the run).
    pub fn target(&self) -> Option<&str> {
        match &self.runner {
            Runner::Exec { label, .. } => label.as_deref(),
            Runner::Harness { target, .. } => Some(target),
        }
    }
}

impl Options {
    /// Whether the job's tests run a command (`--exec`).
    pub fn runs_a_command(&self) -> bool {
        match &self.job {
            Job::Minimize(m) => matches!(m.runner, Runner::Exec { .. }),
            Job::Batch(b) => matches!(b.runner, Runner::Exec { .. }),
            Job::Merge(_) | Job::Corpus(_) => false,
        }
    }

    /// Checks the arguments and fills in defaults.
    pub fn from_cli(cli: Cli) -> Result<Options, Failure> {
        if cli.corpus.is_some() {
            return corpus_options(cli);
        }
        let Positionals { target, inputs } = Positionals::sort(&cli)?;
        let job = match inputs {
            Inputs::Merge(shards) => {
                let output = cli
                    .output
                    .clone()
                    .ok_or_else(|| Failure::usage(anyhow!("give the output directory with -o DIR")))?;
                Job::Merge(MergeOptions { shards, output })
            }
            Inputs::Crash(crash) => {
                let runner = runner(&cli, target, |target| target.ok_or_else(|| missing_target(&crash)))?;
                let parallel = cli.parallel.map(|n| n as usize);
                Job::Minimize(MinimizeOptions {
                    runner,
                    crash,
                    output: cli.output.clone(),
                    parallel,
                    explain: cli.explain,
                })
            }
            Inputs::Batch(paths) => {
                let all = cli.artifacts && target.is_none();
                let has_target = target.is_some();
                check_batch(&cli, &paths, has_target)?;
                let runner = runner(&cli, target, |target| match target {
                    Some(name) => Ok(Targets::One(name)),
                    None if all => Ok(Targets::All),
                    None => Err(missing_target(paths.first().map_or(std::path::Path::new(""), |p| p.as_path()))),
                })?;
                Job::Batch(batch_options(&cli, runner, paths, has_target)?)
            }
        };
        Ok(Options { job, ..common(cli)? })
    }
}

/// The usage error for a harness run without a target.
fn missing_target(crash: &std::path::Path) -> Failure {
    Failure::usage(anyhow!(
        "give the fuzz target's name before the crash file: `cargo minimize-crash TARGET {}` \
         (the targets are the [[bin]] names in fuzz/Cargo.toml), or run a command per test with --exec",
        crash.to_string_lossy()
    ))
}

/// How tests run: `--exec`'s command (the target a label), else a harness
/// for the target(s) `harness_target` makes of the name given.
fn runner<T>(
    cli: &Cli,
    target: Option<String>,
    harness_target: impl FnOnce(Option<String>) -> Result<T, Failure>,
) -> Result<Runner<T>, Failure> {
    match cli.exec.clone() {
        Some(exec) => {
            let command = CommandLine::parse(&exec).context("invalid --exec").or_exit(Exit::Usage)?;
            command.locate_program().context("invalid --exec").or_exit(Exit::Usage)?;
            Ok(Runner::Exec { command, label: target })
        }
        None => {
            let target = harness_target(target)?;
            Ok(Runner::Harness { target, project: project_options(cli, Sanitizer::None)? })
        }
    }
}

/// The options every job shares (the job a placeholder).
fn common(cli: Cli) -> Result<Options, Failure> {
    if cli.timeout.is_zero() {
        return Err(Failure::usage(anyhow!("--timeout must be more than zero")));
    }
    let order = if cli.random_order {
        Order::Random { seed: cli.seed.unwrap_or_else(|| fastrand::u64(..)) }
    } else {
        Order::Deterministic
    };
    let signature = match cli.signature {
        SignatureLevel::Strict => Level::Strict,
        SignatureLevel::Default => Level::Default,
        SignatureLevel::Loose => Level::Loose,
        SignatureLevel::Any => Level::Any,
    };
    Ok(Options {
        job: Job::Merge(MergeOptions { shards: Vec::new(), output: PathBuf::new() }),
        timeout: cli.timeout,
        rss_limit_mb: cli.rss_limit_mb,
        max_tests: cli.max_tests,
        max_time: cli.max_time,
        order,
        structure: !cli.no_structure,
        draws: !cli.no_draws,
        signature,
        json: cli.json,
        quiet: cli.quiet,
    })
}

/// `TARGET --corpus DIR -o NEW`: the harness mode only, no crash inputs.
fn corpus_options(cli: Cli) -> Result<Options, Failure> {
    let dir = cli.corpus.clone().expect("called with --corpus");
    let Some(target) = cli.target.clone() else {
        return Err(Failure::usage(anyhow!(
            "give the fuzz target's name: `cargo minimize-crash TARGET --corpus DIR -o NEW_DIR`"
        )));
    };
    let target =
        target.into_string().map_err(|t| anyhow!("the target name {t:?} is not UTF-8")).or_exit(Exit::Usage)?;
    let Some(output) = cli.output.clone() else {
        return Err(Failure::usage(anyhow!(
            "give the new corpus's directory with -o DIR (the corpus itself is never written)"
        )));
    };
    if !dir.is_dir() {
        return Err(Failure::usage(anyhow!("the corpus {} is not a directory", dir.display())));
    }
    let workers = cli.workers.map_or_else(crate::exec::cores, |w| w as usize);
    // Coverage is counted on the build `cargo fuzz run` fuzzes with.
    let project = project_options(&cli, Sanitizer::Address)?;
    let shard = cli.shard.as_deref().map(Shard::parse).transpose().map_err(|e| anyhow!(e)).or_exit(Exit::Usage)?;
    Ok(Options { job: Job::Corpus(CorpusOptions { target, project, dir, output, workers, shard }), ..common(cli)? })
}

/// The harness mode's project and build settings.
fn project_options(cli: &Cli, default: Sanitizer) -> Result<ProjectOptions, Failure> {
    let sanitizer = match cli.sanitizer.as_deref().unwrap_or(default.name()) {
        "none" => Sanitizer::None,
        "address" => Sanitizer::Address,
        other => {
            return Err(Failure::usage(anyhow!(
                "--sanitizer {other} is not supported yet: the harness is built with `none` (which \
                 catches panics, aborts, stack overflows and other signals) or `address`; for another \
                 sanitizer's report, build with `cargo fuzz build --sanitizer {other}` and use --exec"
            )));
        }
    };
    Ok(ProjectOptions {
        fuzz_dir: cli.fuzz_dir.clone(),
        flags: BuildFlags {
            dev: cli.dev,
            release: cli.release,
            debug_assertions: cli.debug_assertions,
            features: cli.features.clone(),
            no_default_features: cli.no_default_features,
            all_features: cli.all_features,
            jobs: cli.jobs,
            sanitizer,
        },
        target_dir: cli.target_dir.clone(),
        verify_libfuzzer: !cli.no_verify_libfuzzer,
        coverage: false,
    })
}

/// The positional arguments sorted into a target and the inputs.
struct Positionals {
    target: Option<String>,
    inputs: Inputs,
}

/// What the inputs make of the run.
enum Inputs {
    /// One crash file.
    Crash(PathBuf),
    /// A batch's inputs (files and directories; none with `--artifacts`).
    Batch(Vec<PathBuf>),
    /// Shards' output directories to join.
    Merge(Vec<PathBuf>),
}

impl Positionals {
    /// `TARGET CRASH` (or `[TARGET] CRASH` with --exec) is one crash; several
    /// inputs, a directory, or a batch flag make a batch.
    fn sort(cli: &Cli) -> Result<Positionals, Failure> {
        let utf8 = |t: &std::ffi::OsString| {
            t.clone().into_string().map_err(|t| anyhow!("the target name {t:?} is not UTF-8")).or_exit(Exit::Usage)
        };
        let mut words: Vec<PathBuf> = cli.target.iter().chain(&cli.crash).map(PathBuf::from).collect();
        let flagged = cli.artifacts || cli.each || cli.shard.is_some() || cli.merge || cli.workers.is_some();
        let exec = cli.exec.is_some();
        // With --exec the first word labels the run unless it is an input (or the only word).
        let first_is_target = match (exec, cli.merge) {
            (_, true) => false,
            (true, _) => words.len() >= 2 && !words[0].exists(),
            // A lone word is the crash (the target is then missing), unless a batch flag names a target.
            (false, _) => words.len() >= 2 || (words.len() == 1 && cli.artifacts),
        };
        let target = if first_is_target && !words.is_empty() {
            let word = cli.target.as_ref().expect("the first word");
            words.remove(0);
            Some(utf8(word)?)
        } else {
            None
        };
        let is_batch = flagged || words.len() > 1 || words.first().is_some_and(|p| p.is_dir());
        let inputs = if cli.merge {
            if words.is_empty() {
                return Err(Failure::usage(anyhow!("give the shards' output directories to merge (see --help)")));
            }
            Inputs::Merge(words)
        } else if is_batch {
            Inputs::Batch(words)
        } else {
            let Some(crash) = words.pop() else {
                return Err(Failure::usage(anyhow!("give the crash file to minimize (see --help)")));
            };
            Inputs::Crash(crash)
        };
        Ok(Positionals { target, inputs })
    }
}

/// The `--artifacts` setting the flags and a target name make.
fn artifacts(cli: &Cli, has_target: bool) -> Artifacts {
    match (cli.artifacts, has_target) {
        (false, _) => Artifacts::No,
        (true, true) => Artifacts::Target,
        (true, false) => Artifacts::AllTargets,
    }
}

/// A batch needs inputs (or `--artifacts`), and with `--exec` an output directory.
fn check_batch(cli: &Cli, paths: &[PathBuf], has_target: bool) -> Result<(), Failure> {
    if paths.is_empty() && artifacts(cli, has_target) == Artifacts::No {
        return Err(Failure::usage(anyhow!("give the inputs (files or directories), or --artifacts (see --help)")));
    }
    if cli.exec.is_some() && cli.output.is_none() {
        return Err(Failure::usage(anyhow!("give the output directory with -o DIR")));
    }
    Ok(())
}

/// The batch mode's settings from the flags and the inputs.
fn batch_options(
    cli: &Cli,
    runner: Runner<Targets>,
    paths: Vec<PathBuf>,
    has_target: bool,
) -> Result<BatchOptions, Failure> {
    let shard = cli.shard.as_deref().map(Shard::parse).transpose().map_err(|e| anyhow!(e)).or_exit(Exit::Usage)?;
    let workers = cli.workers.map_or_else(crate::exec::cores, |w| w as usize);
    let artifacts = artifacts(cli, has_target);
    Ok(BatchOptions { runner, output: cli.output.clone(), artifacts, paths, each: cli.each, workers, shard })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn options(args: &[&str]) -> Result<Options, Failure> {
        Options::from_cli(
            Cli::try_parse_from(std::iter::once("cargo-minimize-crash").chain(args.iter().copied())).unwrap(),
        )
    }

    /// The one-crash job the arguments make.
    fn minimize(args: &[&str]) -> MinimizeOptions {
        match options(args).unwrap().job {
            Job::Minimize(job) => job,
            job => panic!("{job:?}"),
        }
    }

    /// The batch job the arguments make, if they make one.
    fn batch(args: &[&str]) -> Option<BatchOptions> {
        match options(args).unwrap().job {
            Job::Batch(job) => Some(job),
            _ => None,
        }
    }

    /// A batch's target, as `MinimizeOptions::target` names one.
    fn batch_target(batch: &BatchOptions) -> Option<&str> {
        match &batch.runner {
            Runner::Exec { label, .. } => label.as_deref(),
            Runner::Harness { target: Targets::One(name), .. } => Some(name),
            Runner::Harness { target: Targets::All, .. } => None,
        }
    }

    #[test]
    fn without_exec_the_target_is_required() {
        let failure = options(&["crash-1"]).unwrap_err();
        assert_eq!(failure.exit, Exit::Usage);
        assert!(failure.to_string().contains("give the fuzz target's name"), "{failure}");
    }

    #[test]
    fn harness_mode_options_are_filled_in() {
        let o = minimize(&["--fuzz-dir", "f", "-O", "--no-default-features", "tlv", "crash-1"]);
        assert_eq!(o.target(), Some("tlv"));
        let Runner::Harness { target, project } = &o.runner else { panic!("{:?}", o.runner) };
        assert_eq!(target, "tlv");
        assert_eq!(project.fuzz_dir, Some(PathBuf::from("f")));
        assert!(project.flags.release && project.flags.no_default_features && !project.flags.dev);
        assert_eq!(project.cargo_fuzz_args(), ["--fuzz-dir", "f", "--release", "--no-default-features"]);
    }

    #[test]
    fn no_sanitizer_and_address_sanitizer_are_supported() {
        let sanitizer = |args: &[&str]| match minimize(args).runner {
            Runner::Harness { project, .. } => project.flags.sanitizer,
            Runner::Exec { .. } => unreachable!(),
        };
        assert_eq!(sanitizer(&["tlv", "crash-1"]), Sanitizer::None);
        assert_eq!(sanitizer(&["-s", "none", "tlv", "crash-1"]), Sanitizer::None);
        assert_eq!(sanitizer(&["--sanitizer", "address", "tlv", "crash-1"]), Sanitizer::Address);
        let failure = options(&["--sanitizer", "memory", "tlv", "crash-1"]).unwrap_err();
        assert_eq!(failure.exit, Exit::Usage);
        assert!(failure.to_string().contains("--sanitizer memory is not supported yet"), "{failure}");
    }

    #[test]
    fn a_command_that_cannot_run_is_a_usage_error() {
        let failure = options(&["--exec", "no-such-program-xyz @@", "crash-1"]).unwrap_err();
        assert_eq!(failure.exit, Exit::Usage);
        assert!(failure.to_string().contains("no-such-program-xyz"), "{failure}");
        assert_eq!(options(&["--exec", "sh 'oops", "crash-1"]).unwrap_err().exit, Exit::Usage);
    }

    #[test]
    fn several_inputs_a_directory_or_a_batch_flag_make_a_batch() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        assert!(batch(&["tlv", "crash-1"]).is_none(), "one file is one crash, as always");
        let several = batch(&["tlv", "a", "b"]).unwrap();
        assert_eq!(batch_target(&several), Some("tlv"));
        assert_eq!((several.paths.len(), several.artifacts), (2, Artifacts::No));
        assert!(batch(&["tlv", d]).is_some(), "a directory");
        let all = batch(&["--artifacts", "--shard", "2/3", "--workers", "4"]).unwrap();
        assert_eq!(all.artifacts, Artifacts::AllTargets);
        assert!(matches!(all.runner, Runner::Harness { target: Targets::All, .. }));
        assert_eq!((all.shard, all.workers), (Some(Shard { index: 2, count: 3 }), 4));
        assert_eq!(batch(&["--artifacts", "tlv"]).unwrap().artifacts, Artifacts::Target);
        let exec = batch(&["--exec", "sh -c true", "-o", "out", "label", d]).unwrap();
        assert_eq!((batch_target(&exec), exec.paths.len()), (Some("label"), 1));
        assert_eq!(options(&["--exec", "sh -c true", d]).unwrap_err().exit, Exit::Usage, "--exec batches need -o");
        assert_eq!(options(&["--merge", "a", "b"]).unwrap_err().exit, Exit::Usage, "--merge needs -o");
        let merge = options(&["--merge", "-o", "m", "a", "b"]).unwrap().job;
        assert!(matches!(merge, Job::Merge(MergeOptions { ref shards, .. }) if shards.len() == 2));
    }

    #[test]
    fn a_corpus_needs_a_harness() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let args = ["cargo-minimize-crash", "--exec", "sh -c true", "--corpus", d, "-o", "new", "tlv"];
        assert!(Cli::try_parse_from(args).is_err(), "the command line refuses --exec with --corpus");
        let Job::Corpus(corpus) = options(&["--corpus", d, "-o", "new", "tlv"]).unwrap().job else { panic!() };
        assert_eq!((corpus.target.as_str(), corpus.output.as_path()), ("tlv", std::path::Path::new("new")));
        assert_eq!(corpus.project.flags.sanitizer, Sanitizer::Address, "counted on the build users fuzz with");
        assert_eq!(corpus.shard, None);
        let given = ["-s", "none", "--shard", "2/3", "--corpus", d, "-o", "new", "tlv"];
        let Job::Corpus(corpus) = options(&given).unwrap().job else { panic!() };
        assert_eq!(
            (corpus.project.flags.sanitizer, corpus.shard),
            (Sanitizer::None, Some(Shard { index: 2, count: 3 }))
        );
    }

    #[test]
    fn shards_parse_as_i_of_n() {
        assert_eq!(Shard::parse("1/1"), Ok(Shard { index: 1, count: 1 }));
        assert_eq!(Shard::parse(" 3 / 4 "), Ok(Shard { index: 3, count: 4 }));
        for bad in ["0/2", "3/2", "2", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn exec_mode_options_are_filled_in() {
        let o = options(&["--exec", "sh -c true", "--random-order", "--seed", "7", "--signature", "loose", "t", "c"])
            .unwrap();
        let Job::Minimize(job) = &o.job else { panic!("{:?}", o.job) };
        assert_eq!(job.target(), Some("t"));
        assert!(matches!(job.runner, Runner::Exec { .. }));
        assert_eq!(job.crash, PathBuf::from("c"));
        assert_eq!(o.order, Order::Random { seed: 7 });
        assert_eq!(o.signature, Level::Loose);
        assert_eq!(o.timeout, Duration::from_secs(5));
    }
}
