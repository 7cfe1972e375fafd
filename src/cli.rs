//! The command line: clap definitions and help text only. Nothing else knows clap; `options.rs` turns a [`Cli`] into validated `Options`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::options::parse_duration;

const ABOUT: &str = "Minimize a fuzzer's crash input: the smallest input that still triggers the same bug";

const LONG_ABOUT: &str = "\
Minimize a fuzzer's crash input: the smallest input that still triggers the same bug.

With --exec, any command that reads the input file works: a libFuzzer binary
(`./fuzz_target -runs=1 @@`), a replay binary, a script. Each candidate is
written to a scratch file, the command runs once per candidate, and the
candidate is kept when the command crashes the same way as on the original
(see --signature). The best result so far is always on disk: Ctrl-C stops
early and keeps it.

Without --exec, the fork-server harness mode would build TARGET from the cargo-fuzz
project; it is not available in this version.";

const AFTER_HELP: &str = "\
Examples:
  cargo minimize-crash --exec 'target/release/planted-replay tlv @@' corpus-samples/tlv/crash-…
  cargo minimize-crash --exec './fuzz/target/x86_64-unknown-linux-gnu/release/parse -runs=1' crash-3f2a…

Exit codes:
    0  minimized: the result is written and reproduces the same crash
    1  internal or other error
    2  usage error: bad arguments, missing/unreadable/empty crash file, command cannot be started
    3  the input does not crash: nothing to minimize
    4  the fuzz target could not be built or is unknown (harness mode; reserved)
    5  harness mode unavailable in this version: use --exec
    6  minimized, but the result did not reproduce when run again (flaky); written anyway
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
    override_usage = "cargo minimize-crash [OPTIONS] --exec <COMMAND> [TARGET] <CRASH>"
)]
pub struct Cli {
    /// The fuzz target's name (optional with --exec, where it only labels the run).
    #[arg(value_name = "TARGET")]
    pub target: Option<OsString>,

    /// The crash input to minimize. (With a single positional argument, it is this one.)
    #[arg(value_name = "CRASH")]
    pub crash: Option<OsString>,

    /// Run COMMAND per test instead of building a harness. It is split into words
    /// like a shell would (no shell runs it); `@@` is replaced by the candidate's
    /// path, or the path is appended when there is no `@@`. For a libFuzzer binary:
    /// './fuzz_target -runs=1 @@'.
    #[arg(long, value_name = "COMMAND")]
    pub exec: Option<String>,

    /// Per-test time limit: a test running longer is killed with its process group
    /// and counts as a timeout (its own kind of crash). Seconds, or with a unit:
    /// 500ms, 2s, 1m.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,

    /// Stop after this many tests.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tests: Option<u64>,

    /// Stop after this much time (e.g. 90s, 5m); the best result so far is kept.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_time: Option<Duration>,

    /// Where to write the result [default: minimized-from-<sha1 of CRASH> next to CRASH].
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

    /// What counts as the same crash: `default` compares the kind (panic, signal,
    /// sanitizer bug type, timeout, ...) and location; `strict` also the message
    /// (numbers masked); `loose` only the kind; `any` accepts any crash.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = SignatureLevel::Default)]
    pub signature: SignatureLevel,

    /// Print the final summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,

    /// Print no progress and no summary on stderr (errors and warnings still).
    #[arg(short, long)]
    pub quiet: bool,
}

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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

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
        assert_eq!((one.target, one.crash), (Some("crash".into()), None));
        let two = Cli::try_parse_from(["c", "tlv", "crash"]).unwrap();
        assert_eq!((two.target, two.crash), (Some("tlv".into()), Some("crash".into())));
        assert!(Cli::try_parse_from(["c", "a", "b", "c"]).is_err());
        assert!(Cli::try_parse_from(["c", "--seed", "3", "x"]).is_err(), "--seed needs --random-order");
    }
}
