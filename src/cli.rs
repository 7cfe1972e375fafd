//! The command line: clap definitions and help text only. Nothing else knows clap; `options.rs` turns a [`Cli`] into validated `Options`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

const ABOUT: &str = "Minimize a fuzzer's crash input: the smallest input that still triggers the same bug";

const LONG_ABOUT: &str = "\
Minimize a fuzzer's crash input: the smallest input that still triggers the same bug.

By default TARGET is a cargo-fuzz target: its fuzz crate (found as `cargo fuzz`
finds it, or --fuzz-dir) is built as a harness, with libfuzzer-sys swapped for a
fork server, in a scratch directory under the fuzz project's target directory;
your files are never written. Each candidate then runs in a forked child (a
fraction of a millisecond per test) and is kept when it crashes the same way as
the original (see --signature). The result goes to
<fuzz dir>/artifacts/TARGET/minimized-from-<sha1 of CRASH> unless -o says otherwise.

With --exec, any command that reads the input file works instead: a libFuzzer
binary (`./fuzz_target -runs=1 @@`), a replay binary, a script; it runs once per
candidate.

Either way the best result so far is always on disk: Ctrl-C stops early and keeps it.";

const AFTER_HELP: &str = "\
Examples:
  cargo minimize-crash parse_header fuzz/artifacts/parse_header/crash-3f2a…
  cargo minimize-crash --exec 'target/release/planted-replay tlv @@' corpus-samples/tlv/crash-…
  cargo minimize-crash --exec './fuzz/target/x86_64-unknown-linux-gnu/release/parse -runs=1' crash-3f2a…
  cargo minimize-crash --artifacts parse_header -o triaged/      # batch: one reproducer per bug
  cargo minimize-crash --artifacts --shard 2/4 -o shard-2/        # one job of a CI matrix
  cargo minimize-crash --merge -o triaged/ shard-1/ shard-2/ shard-3/ shard-4/
  cargo minimize-crash parse_header --corpus fuzz/corpus/parse_header -o corpus-min/

Exit codes:
    0  minimized: the result is written and reproduces the same crash
       (batch: no input crashes; corpus: every feature kept)
    1  internal or other error
    2  usage error: bad arguments, missing/unreadable/empty crash file, command cannot be started
    3  the input does not crash: nothing to minimize
    4  the fuzz target is unknown or could not be built (not a cargo-fuzz project, compile error)
    6  minimized, but the result did not reproduce when run again (flaky); written anyway
       (batch: some bug's reproducer did not crash the same way again;
       corpus: the new corpus misses a feature, as coverage varied between runs)
    7  batch: bugs found, each minimized and verified (see the output directory's report)
  130  interrupted; the best result so far is written";

/// `cargo minimize-crash`'s arguments.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-minimize-crash",
    bin_name = "cargo minimize-crash",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    override_usage = "cargo minimize-crash [OPTIONS] <TARGET> <CRASH>\n       \
                      cargo minimize-crash [OPTIONS] --exec <COMMAND> [TARGET] <CRASH>\n       \
                      cargo minimize-crash [OPTIONS] [TARGET] <CRASH|DIR>... | --artifacts [TARGET]\n       \
                      cargo minimize-crash --merge -o <DIR> <SHARD DIR>...\n       \
                      cargo minimize-crash [OPTIONS] <TARGET> --corpus <DIR> -o <NEW DIR>"
)]
pub struct Cli {
    /// The cargo-fuzz target's name, as given to `cargo fuzz run` (optional with
    /// --exec, where it only labels the run).
    #[arg(value_name = "TARGET")]
    pub target: Option<OsString>,

    /// The crash input to minimize. (With --exec and a single positional argument, it is this one.)
    /// Give several, or a directory (every file in it), to triage them all: one minimized
    /// reproducer per distinct bug, in an output directory with reports (batch mode).
    #[arg(value_name = "CRASH")]
    pub crash: Vec<OsString>,

    /// Batch mode over the target's artifacts directory (`<fuzz dir>/artifacts/TARGET/`: the
    /// files named crash-*, timeout-*, oom-*, leak-*, slow-unit-*); with no TARGET, every target's.
    #[arg(long, conflicts_with = "exec", help_heading = BATCH)]
    pub artifacts: bool,

    /// Batch mode: minimize every crashing input, not only one per bug (each duplicate gets a
    /// reproducer of its own in its bug's folder).
    #[arg(long, help_heading = BATCH)]
    pub each: bool,

    /// Batch and corpus modes: tests run on this many workers at once, each with its own fork server
    /// [default: the number of cores].
    #[arg(long, value_name = "N", help_heading = BATCH, value_parser = clap::value_parser!(u32).range(1..))]
    pub workers: Option<u32>,

    /// Batch mode: take only shard I of N (1-based) of the inputs, split by content hash, for a CI
    /// job matrix; join the shards' output directories with --merge. Corpus mode: shrink only
    /// shard I of the inputs the cover keeps; join the shards by copying their files into one
    /// directory and running the corpus mode again with it as -o.
    #[arg(long, value_name = "I/N", help_heading = BATCH)]
    pub shard: Option<String>,

    /// Join the output directories of several shards (the positional arguments) into the one given
    /// by -o: each bug once, with every shard's duplicates, and the reports.
    #[arg(long, help_heading = BATCH, conflicts_with_all = ["artifacts", "each", "shard", "exec"])]
    pub merge: bool,

    /// Corpus mode: shrink every input of the corpus in DIR and drop the redundant ones, keeping
    /// every coverage feature (edges with their hit-count buckets, as libFuzzer counts them);
    /// the new corpus goes to the directory given by -o, DIR is never written. The -o directory is
    /// a complete corpus from the moment the first one is written (the inputs the cover keeps, as
    /// they are), each input replaced by its result as it finishes; --max-time bounds the whole
    /// run. A rerun with the same -o goes on where an interrupted one stopped, and an earlier
    /// output there (files named by their SHA-1) is kept as it is: only what it lacks is shrunk.
    #[arg(long, value_name = "DIR", help_heading = CORPUS,
          conflicts_with_all = ["exec", "artifacts", "each", "merge", "crash"])]
    pub corpus: Option<PathBuf>,

    /// Run COMMAND per test instead of building a harness. It is split into words
    /// like a shell would (no shell runs it); `@@` is replaced by the candidate's
    /// path, or the path is appended when there is no `@@`. For a libFuzzer binary:
    /// './fuzz_target -runs=1 @@'.
    #[arg(long, value_name = "COMMAND")]
    pub exec: Option<String>,

    /// Per-test time limit: a test running longer is killed with its process group
    /// and counts as a timeout (its own kind of crash). Seconds, or with a unit:
    /// 500ms, 2s, 1m. While reducing, a test also ends once it runs 20 times as
    /// long as the slowest run that finished (at least 100 ms; its CPU time in
    /// harness mode, at least a quarter of its wall-clock time); a hang found
    /// that way is checked under this limit before it is kept or reported.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,

    /// The memory limit of one test in MiB, as libFuzzer's -rss_limit_mb (0: none). A test whose
    /// resident set grows past it counts as out of memory, its own kind of crash (harness mode;
    /// with --exec, pass -rss_limit_mb to a libFuzzer binary yourself).
    #[arg(long, value_name = "MB", default_value_t = 2048)]
    pub rss_limit_mb: u64,

    /// Stop after this many tests.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tests: Option<u64>,

    /// Test up to N candidates at once, each on a fork server (or command) of its own: the ones
    /// a serial run would try next if each failed, so the result is the same as with 1
    /// [default: the number of cores when a run of the crash takes 1 ms or more, else 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub parallel: Option<u32>,

    /// Stop after this much time (e.g. 90s, 5m); the best result so far is kept.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_time: Option<Duration>,

    /// Where to write the result [default: <fuzz dir>/artifacts/TARGET/minimized-from-<sha1 of CRASH>;
    /// with --exec, next to CRASH]; a directory takes it under that default name. In batch mode, the output directory [default:
    /// <fuzz dir>/artifacts/minimize-crash/; required with --exec].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Explore each pass's choices in a random order (reproducible with --seed).
    #[arg(long)]
    pub random_order: bool,

    /// The seed for --random-order [default: a random one, printed in the summary].
    #[arg(long, value_name = "SEED", requires = "random_order")]
    pub seed: Option<u64>,

    /// Reduce bytes only, ignoring the structure the target reports (harness mode).
    #[arg(long)]
    pub no_structure: bool,

    /// Compare typed inputs byte by byte, as before draws were recorded: no
    /// ordering by the values `arbitrary` read, no draw-level passes (for comparisons).
    #[arg(long)]
    pub no_draws: bool,

    /// What counts as the same crash: `default` compares the kind (panic, signal,
    /// sanitizer bug type, timeout, ...) and location; `strict` also the message
    /// (numbers masked); `loose` only the kind; `any` accepts any crash.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = SignatureLevel::Default)]
    pub signature: SignatureLevel,

    /// Do not cross-check the result with a plain libFuzzer build (`cargo fuzz build TARGET
    /// --sanitizer none`, then `BINARY -runs=1 RESULT`); it runs at the end of a harness-mode
    /// run when cargo-fuzz is installed.
    #[arg(long, conflicts_with = "exec")]
    pub no_verify_libfuzzer: bool,

    /// Print the final summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,

    /// Also show the values the result is made of (the examples recorded in
    /// harness mode), which no single deletion or lowering could simplify.
    #[arg(long)]
    pub explain: bool,

    /// Print no progress and no summary on stderr (errors and warnings still).
    #[arg(short, long)]
    pub quiet: bool,

    /// The cargo-fuzz project's directory [default: `fuzz` under the nearest Cargo project], as with `cargo fuzz`.
    #[arg(long, value_name = "DIR", conflicts_with = "exec", help_heading = BUILD)]
    pub fuzz_dir: Option<PathBuf>,

    /// Build the harness in the dev profile (unoptimized) instead of release.
    #[arg(short = 'D', long, conflicts_with_all = ["exec", "release"], help_heading = BUILD)]
    pub dev: bool,

    /// Build optimized without debug assertions (the default is optimized with them, as with `cargo fuzz`).
    #[arg(short = 'O', long, conflicts_with = "exec", help_heading = BUILD)]
    pub release: bool,

    /// Keep debug assertions with --release.
    #[arg(short = 'a', long, conflicts_with = "exec", help_heading = BUILD)]
    pub debug_assertions: bool,

    /// Features of the fuzz crate to enable (comma separated).
    #[arg(long, value_name = "FEATURES", conflicts_with = "exec", help_heading = BUILD)]
    pub features: Option<String>,

    /// Do not enable the fuzz crate's default features.
    #[arg(long, conflicts_with = "exec", help_heading = BUILD)]
    pub no_default_features: bool,

    /// Enable all the fuzz crate's features.
    #[arg(long, conflicts_with = "exec", help_heading = BUILD)]
    pub all_features: bool,

    /// Parallel jobs for cargo's builds (passed as -j).
    #[arg(short = 'j', long, value_name = "N", conflicts_with = "exec", help_heading = BUILD,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,

    /// cargo's target directory for the harness build: it goes in DIR/minimize-crash/, never over
    /// `cargo fuzz build`'s binaries [default: the fuzz project's own target directory].
    #[arg(long, value_name = "DIR", conflicts_with = "exec", help_heading = BUILD)]
    pub target_dir: Option<PathBuf>,

    /// The sanitizer to build with: `none` (panics, aborts, stack overflows and
    /// other signals are caught without one) or `address` (AddressSanitizer:
    /// `-Zsanitizer=address`, with `RUSTC_BOOTSTRAP=1` on a stable toolchain). Corpus mode counts
    /// coverage on the build users fuzz with, `cargo fuzz build`'s default: `address` unless given
    /// [default: none; corpus mode: address].
    #[arg(short, long, value_name = "SANITIZER", conflicts_with = "exec", help_heading = BUILD)]
    pub sanitizer: Option<String>,
}

/// The help heading of the batch mode's options.
const BATCH: &str = "Batch mode (many inputs: one reproducer per bug, reports for CI)";

/// The help heading of the corpus mode's options.
const CORPUS: &str = "Corpus mode (shrink a fuzzing corpus, keeping its coverage)";

/// The help heading of the options that shape the harness build.
const BUILD: &str = "Harness build (as with `cargo fuzz build`)";

/// `--signature`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SignatureLevel {
    /// Kind, location and message.
    Strict,
    /// Kind and location.
    Default,
    /// Kind only.
    Loose,
    /// Any crash.
    Any,
}

/// Parses the process's arguments; on a usage error prints it and exits with 2
/// (`--help` and `--version` exit 0).
pub fn parse() -> Cli {
    Cli::parse_from(without_subcommand_name(std::env::args_os()))
}

/// Cargo runs `cargo-minimize-crash minimize-crash ARGS` for `cargo minimize-crash
/// ARGS`; drop that word so both invocations parse alike.
pub fn without_subcommand_name(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).is_some_and(|a| a == "minimize-crash") {
        args.remove(1);
    }
    args
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
    use clap::CommandFactory;

    use super::*;

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
    fn the_clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_cargo_subcommand_word_is_dropped() {
        let args = without_subcommand_name(["cargo-minimize-crash", "minimize-crash", "x"].map(OsString::from));
        assert_eq!(args, ["cargo-minimize-crash", "x"].map(OsString::from));
        let direct = without_subcommand_name(["cargo-minimize-crash", "crash-1"].map(OsString::from));
        assert_eq!(direct.len(), 2);
    }

    #[test]
    fn positionals_fill_target_then_crash() {
        let one = Cli::try_parse_from(["c", "--exec", "t", "crash"]).unwrap();
        assert_eq!((one.target, one.crash), (Some("crash".into()), vec![]));
        let two = Cli::try_parse_from(["c", "tlv", "crash"]).unwrap();
        assert_eq!((two.target, two.crash), (Some("tlv".into()), vec!["crash".into()]));
        let three = Cli::try_parse_from(["c", "a", "b", "c"]).unwrap();
        assert_eq!(three.crash, ["b", "c"].map(OsString::from));
        assert!(Cli::try_parse_from(["c", "--seed", "3", "x"]).is_err(), "--seed needs --random-order");
    }

    #[test]
    fn build_options_belong_to_the_harness_mode() {
        let cli = Cli::try_parse_from(["c", "--fuzz-dir", "f", "-O", "-a", "--features", "x,y", "t", "crash"]).unwrap();
        assert_eq!(cli.fuzz_dir, Some(PathBuf::from("f")));
        assert!(cli.release && cli.debug_assertions && !cli.dev);
        assert_eq!(cli.features.as_deref(), Some("x,y"));
        assert!(Cli::try_parse_from(["c", "--exec", "t", "--dev", "crash"]).is_err());
        assert!(Cli::try_parse_from(["c", "--dev", "--release", "t", "crash"]).is_err());
    }
}
