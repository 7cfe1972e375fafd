//! Validated options: everything a run needs, checked once, with no clap types past this point.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, Context};

use crate::cli::{Cli, SignatureLevel};
use crate::exec::CommandLine;
use crate::exit_code::{Exit, Failure, OrExit};
use crate::project::{BuildFlags, Sanitizer};
use crate::reduce::Order;
use crate::signature::Level;

/// One run's settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// How tests run.
    pub mode: Mode,
    /// The crash input.
    pub crash: PathBuf,
    /// Where the result goes (`None`: the mode's default, named after the crash's hash).
    pub output: Option<PathBuf>,
    /// Per-test time limit.
    pub timeout: Duration,
    /// Per-test memory limit in MiB (0: none; harness mode).
    pub rss_limit_mb: u64,
    /// Test budget.
    pub max_tests: Option<u64>,
    /// Time budget.
    pub max_time: Option<Duration>,
    /// Candidates tested at once (`None`: chosen by the crash's run time).
    pub parallel: Option<usize>,
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
    /// Show the result's examples in the summary.
    pub explain: bool,
    /// No progress or summary on stderr.
    pub quiet: bool,
    /// Batch mode (many inputs, one reproducer per bug), when chosen.
    pub batch: Option<BatchOptions>,
    /// Corpus mode (shrink a corpus keeping its coverage), when chosen.
    pub corpus: Option<CorpusOptions>,
}

/// The corpus mode's settings (`output` is the new corpus's directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusOptions {
    /// The corpus directory (only read).
    pub dir: PathBuf,
    /// Workers running tests at once.
    pub workers: usize,
}

/// The batch mode's settings (`crash` is then unused; `output` is the output directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchOptions {
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
    /// Join shard output directories (`paths`) instead of running anything.
    pub merge: bool,
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

/// How each test runs.
#[derive(Clone, Debug)]
pub enum Mode {
    /// `--exec`: the command runs once per test.
    Exec {
        /// The command.
        command: CommandLine,
        /// The target's name when given: a label only.
        target: Option<String>,
    },
    /// The default: the cargo-fuzz target is built as a fork-server harness.
    Harness {
        /// The fuzz target (a `[[bin]]` of the fuzz crate).
        target: String,
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

impl Options {
    /// The fuzz target's name, when known (with `--exec` it only labels the run).
    pub fn target(&self) -> Option<&str> {
        match &self.mode {
            Mode::Exec { target, .. } => target.as_deref(),
            Mode::Harness { target, .. } => Some(target),
        }
    }

    /// Checks the arguments and fills in defaults.
    pub fn from_cli(cli: Cli) -> Result<Options, Failure> {
        if cli.corpus.is_some() {
            return corpus_options(cli);
        }
        let positionals = Positionals::sort(&cli)?;
        let target = positionals.target;
        let batch = positionals.batch;
        let crash = positionals.crash;
        let mode = match cli.exec.clone() {
            Some(exec) => {
                let command = CommandLine::parse(&exec).context("invalid --exec").or_exit(Exit::Usage)?;
                command.locate_program().context("invalid --exec").or_exit(Exit::Usage)?;
                Mode::Exec { command, target }
            }
            None => {
                let all_targets = batch.as_ref().is_some_and(|b| b.artifacts == Artifacts::AllTargets || b.merge);
                let Some(target) = target.or_else(|| all_targets.then(String::new)) else {
                    return Err(Failure::usage(anyhow!(
                        "give the fuzz target's name before the crash file: `cargo minimize-crash TARGET {}` \
                         (the targets are the [[bin]] names in fuzz/Cargo.toml), or run a command per test with --exec",
                        crash.to_string_lossy()
                    )));
                };
                let project = project_options(&cli)?;
                Mode::Harness { target, project }
            }
        };
        Ok(Options { mode, crash, batch, ..common(cli)? })
    }
}

/// The options every mode shares (mode, crash and batch left empty).
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
        mode: Mode::Harness { target: String::new(), project: ProjectOptions::default() },
        crash: PathBuf::new(),
        output: cli.output,
        timeout: cli.timeout,
        rss_limit_mb: cli.rss_limit_mb,
        max_tests: cli.max_tests,
        max_time: cli.max_time,
        parallel: cli.parallel.map(|n| n as usize),
        order,
        structure: !cli.no_structure,
        draws: !cli.no_draws,
        signature,
        json: cli.json,
        explain: cli.explain,
        quiet: cli.quiet,
        batch: None,
        corpus: None,
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
    if cli.output.is_none() {
        return Err(Failure::usage(anyhow!(
            "give the new corpus's directory with -o DIR (the corpus itself is never written)"
        )));
    }
    if !dir.is_dir() {
        return Err(Failure::usage(anyhow!("the corpus {} is not a directory", dir.display())));
    }
    let workers = cli.workers.map_or_else(cores, |w| w as usize);
    let project = project_options(&cli)?;
    let mode = Mode::Harness { target, project };
    Ok(Options { mode, corpus: Some(CorpusOptions { dir, workers }), ..common(cli)? })
}

/// The harness mode's project and build settings.
fn project_options(cli: &Cli) -> Result<ProjectOptions, Failure> {
    let sanitizer = match cli.sanitizer.as_str() {
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

/// The positional arguments sorted into a target, a crash and batch inputs.
struct Positionals {
    target: Option<String>,
    crash: PathBuf,
    batch: Option<BatchOptions>,
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
        if !is_batch {
            let Some(crash) = words.pop() else {
                return Err(Failure::usage(anyhow!("give the crash file to minimize (see --help)")));
            };
            return Ok(Positionals { target, crash, batch: None });
        }
        let batch = batch_options(cli, words, target.is_some())?;
        Ok(Positionals { target, crash: PathBuf::new(), batch: Some(batch) })
    }
}

/// The batch mode's settings from the flags and the inputs.
fn batch_options(cli: &Cli, paths: Vec<PathBuf>, has_target: bool) -> Result<BatchOptions, Failure> {
    let artifacts = match (cli.artifacts, has_target) {
        (false, _) => Artifacts::No,
        (true, true) => Artifacts::Target,
        (true, false) => Artifacts::AllTargets,
    };
    if paths.is_empty() && artifacts == Artifacts::No {
        let what = if cli.merge {
            "the shards' output directories to merge"
        } else {
            "the inputs (files or directories), or --artifacts"
        };
        return Err(Failure::usage(anyhow!("give {what} (see --help)")));
    }
    if (cli.merge || cli.exec.is_some()) && cli.output.is_none() {
        return Err(Failure::usage(anyhow!("give the output directory with -o DIR")));
    }
    let shard = cli.shard.as_deref().map(Shard::parse).transpose().map_err(|e| anyhow!(e)).or_exit(Exit::Usage)?;
    let workers = cli.workers.map_or_else(cores, |w| w as usize);
    Ok(BatchOptions { artifacts, paths, each: cli.each, workers, shard, merge: cli.merge })
}

/// The cores this process may use (its CPU affinity and quota; 1 when
/// unknown): the default number of workers, and of tests at once for a slow
/// target; whether a fork-server client may poll (`exec::spin`, every test).
/// Read once: the quota comes from cgroup files.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Parses a duration: plain seconds (`5`, `0.5`) or a number with a unit
/// (`500ms`, `2s`, `3m`, `1h`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("`{text}` is not a duration (examples: 5, 0.5, 500ms, 2m)"))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("unknown unit `{other}` in `{text}` (use ms, s, m or h)")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{text}` is out of range"))
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

    #[test]
    fn durations_parse_with_and_without_units() {
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3 days").is_err());
    }

    #[test]
    fn without_exec_the_target_is_required() {
        let failure = options(&["crash-1"]).unwrap_err();
        assert_eq!(failure.exit, Exit::Usage);
        assert!(failure.to_string().contains("give the fuzz target's name"), "{failure}");
    }

    #[test]
    fn harness_mode_options_are_filled_in() {
        let o = options(&["--fuzz-dir", "f", "-O", "--no-default-features", "tlv", "crash-1"]).unwrap();
        assert_eq!(o.target(), Some("tlv"));
        let Mode::Harness { target, project } = &o.mode else { panic!("{:?}", o.mode) };
        assert_eq!(target, "tlv");
        assert_eq!(project.fuzz_dir, Some(PathBuf::from("f")));
        assert!(project.flags.release && project.flags.no_default_features && !project.flags.dev);
        assert_eq!(project.cargo_fuzz_args(), ["--fuzz-dir", "f", "--release", "--no-default-features"]);
    }

    #[test]
    fn no_sanitizer_and_address_sanitizer_are_supported() {
        let sanitizer = |args: &[&str]| match options(args).unwrap().mode {
            Mode::Harness { project, .. } => project.flags.sanitizer,
            Mode::Exec { .. } => unreachable!(),
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
        assert!(options(&["tlv", "crash-1"]).unwrap().batch.is_none(), "one file is one crash, as always");
        let several = options(&["tlv", "a", "b"]).unwrap();
        assert_eq!(several.target(), Some("tlv"));
        let batch = several.batch.unwrap();
        assert_eq!((batch.paths.len(), batch.artifacts), (2, Artifacts::No));
        assert!(options(&["tlv", d]).unwrap().batch.is_some(), "a directory");
        let all = options(&["--artifacts", "--shard", "2/3", "--workers", "4"]).unwrap();
        let batch = all.batch.unwrap();
        assert_eq!(batch.artifacts, Artifacts::AllTargets);
        assert_eq!((batch.shard, batch.workers), (Some(Shard { index: 2, count: 3 }), 4));
        assert_eq!(options(&["--artifacts", "tlv"]).unwrap().batch.unwrap().artifacts, Artifacts::Target);
        let exec = options(&["--exec", "sh -c true", "-o", "out", "label", d]).unwrap();
        assert_eq!((exec.target(), exec.batch.as_ref().map(|b| b.paths.len())), (Some("label"), Some(1)));
        assert_eq!(options(&["--exec", "sh -c true", d]).unwrap_err().exit, Exit::Usage, "--exec batches need -o");
        assert_eq!(options(&["--merge", "a", "b"]).unwrap_err().exit, Exit::Usage, "--merge needs -o");
        assert!(options(&["--merge", "-o", "m", "a", "b"]).unwrap().batch.unwrap().merge);
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
        assert_eq!(o.target(), Some("t"));
        assert!(matches!(o.mode, Mode::Exec { .. }));
        assert_eq!(o.crash, PathBuf::from("c"));
        assert_eq!(o.order, Order::Random { seed: 7 });
        assert_eq!(o.signature, Level::Loose);
        assert_eq!(o.timeout, Duration::from_secs(5));
    }
}
