//! Validated options: everything a run needs, checked once, with no clap types past this point.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, Context};

use crate::cli::{Cli, SignatureLevel};
use crate::exec::CommandLine;
use crate::exit_code::{Exit, Failure, OrExit};
use crate::reduce::Order;
use crate::signature::Level;

/// One run's settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The fuzz target's name, when given (with `--exec` it only labels the run).
    pub target: Option<String>,
    /// The crash input.
    pub crash: PathBuf,
    /// The command run per test.
    pub command: CommandLine,
    /// Where the result goes (`None`: next to the crash, named after its hash).
    pub output: Option<PathBuf>,
    /// Per-test time limit.
    pub timeout: Duration,
    /// Test budget.
    pub max_tests: Option<u64>,
    /// Time budget.
    pub max_time: Option<Duration>,
    /// Choice order (the seed is chosen here when random and not given).
    pub order: Order,
    /// Use the structure the target reports.
    pub structure: bool,
    /// What counts as the same crash.
    pub signature: Level,
    /// Print the summary as JSON on stdout.
    pub json: bool,
    /// No progress or summary on stderr.
    pub quiet: bool,
}

impl Options {
    /// Checks the arguments and fills in defaults.
    pub fn from_cli(cli: Cli) -> Result<Options, Failure> {
        // `[TARGET] <CRASH>`: a single positional argument is the crash.
        let (target, crash) = match (cli.target, cli.crash) {
            (target, Some(crash)) => (target, crash),
            (Some(crash), None) => (None, crash),
            (None, None) => return Err(Failure::usage(anyhow!("give the crash file to minimize (see --help)"))),
        };
        let target = target
            .map(|t| t.into_string().map_err(|t| anyhow!("the target name {t:?} is not UTF-8")))
            .transpose()
            .or_exit(Exit::Usage)?;
        let Some(exec) = cli.exec else {
            return Err(Failure::new(
                Exit::HarnessUnavailable,
                anyhow!(
                    "the fork-server harness mode (building {target} from the cargo-fuzz project) is not available \
                     in this version.\nRun the target yourself with --exec, e.g. `cargo fuzz build {target}`, then\n  \
                     cargo minimize-crash --exec 'fuzz/target/<triple>/release/{target} -runs=1 @@' {}",
                    crash.to_string_lossy(),
                    target = target.as_deref().unwrap_or("<TARGET>"),
                ),
            ));
        };
        let command = CommandLine::parse(&exec).context("invalid --exec").or_exit(Exit::Usage)?;
        command.locate_program().context("invalid --exec").or_exit(Exit::Usage)?;
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
            target,
            crash: PathBuf::from(crash),
            command,
            output: cli.output,
            timeout: cli.timeout,
            max_tests: cli.max_tests,
            max_time: cli.max_time,
            order,
            structure: !cli.no_structure,
            signature,
            json: cli.json,
            quiet: cli.quiet,
        })
    }
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
    fn without_exec_the_harness_mode_is_reported_unavailable() {
        let failure = options(&["tlv", "crash-1"]).unwrap_err();
        assert_eq!(failure.exit, Exit::HarnessUnavailable);
        assert!(failure.to_string().contains("--exec"), "{failure}");
    }

    #[test]
    fn a_command_that_cannot_run_is_a_usage_error() {
        let failure = options(&["--exec", "no-such-program-xyz @@", "crash-1"]).unwrap_err();
        assert_eq!(failure.exit, Exit::Usage);
        assert!(failure.to_string().contains("no-such-program-xyz"), "{failure}");
        assert_eq!(options(&["--exec", "sh 'oops", "crash-1"]).unwrap_err().exit, Exit::Usage);
    }

    #[test]
    fn exec_mode_options_are_filled_in() {
        let o = options(&["--exec", "sh -c true", "--random-order", "--seed", "7", "--signature", "loose", "t", "c"])
            .unwrap();
        assert_eq!(o.target.as_deref(), Some("t"));
        assert_eq!(o.crash, PathBuf::from("c"));
        assert_eq!(o.order, Order::Random { seed: 7 });
        assert_eq!(o.signature, Level::Loose);
        assert_eq!(o.timeout, Duration::from_secs(5));
    }
}
