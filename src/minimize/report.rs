//! The final summary: for humans on stderr, as JSON on stdout (`--json`).

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::reduce::{Stats, StopReason};
use crate::signature::{Level, Signature};
use crate::verify::LibFuzzerCheck;

/// What a run did, in one value.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The fuzz target's name, when given.
    pub target: Option<String>,
    /// The crash file that was minimized.
    pub crash: PathBuf,
    /// Where the result is.
    pub output: PathBuf,
    /// The crash's size in bytes.
    pub initial_size: usize,
    /// The result's size in bytes.
    pub final_size: usize,
    /// Tests the reducer ran (the initial test included).
    pub tests: u64,
    /// Improvements found.
    pub improvements: u64,
    /// Tests up to the last improvement; the rest confirmed the result.
    pub tests_to_result: u64,
    /// Each smaller result on the way, with the tests run when it was found.
    pub sizes: Vec<SizeStep>,
    /// A hang's reduction under short test limits gave a result that did not
    /// hang under `--timeout`, so it ran again under that.
    pub redone_at_timeout: bool,
    /// Candidates not run because they had been run before.
    pub cache_hits: u64,
    /// Candidates that decoded to a value already tested (typed targets in
    /// harness mode; not in `tests`): answered without running the target
    /// (or, with `--parallel`, run ahead by a lane that did not know it).
    pub known_values: u64,
    /// Candidates a round did not run because the same edit behind the same
    /// bytes had failed before (the final round, the proof, runs them).
    pub remembered_failures: u64,
    /// The reduction's wall time, in seconds.
    pub seconds: f64,
    /// Tests per second.
    pub tests_per_second: f64,
    /// Testing in parallel (`--parallel`).
    pub parallel: ParallelSummary,
    /// Where the run's time went.
    pub phases: Phases,
    /// The crash being preserved.
    pub signature: Signature,
    /// How closely candidates had to match it.
    pub signature_level: Level,
    /// Whether the original crashed differently (or not at all) on some of its first runs.
    pub flaky: bool,
    /// Why the reduction stopped: `done`, `test-budget`, `time-budget`, `interrupted`, `oracle-failed`.
    pub stop_reason: &'static str,
    /// The same, in words.
    pub stop: String,
    /// Whether the result crashed the same way when run again (absent when interrupted).
    pub verified: Option<bool>,
    /// The cross-check with a plain libFuzzer build (harness mode; absent with --exec or when interrupted).
    pub libfuzzer: Option<LibFuzzerCheck>,
    /// The minimized value as `{:#?}` renders it (typed targets in harness mode).
    pub value: Option<String>,
    /// The values the result is made of, in preorder (harness mode, with structure).
    pub examples: Vec<ExampleSummary>,
    /// The primitive reads `arbitrary` made of the result, in read order
    /// (harness mode, with structure and draws).
    pub draws: Vec<DrawSummary>,
    /// Whether the structure of a typed input was recorded, and if not, why.
    pub structure: StructureSummary,
    /// Show `examples` in the human rendering (`--explain`).
    #[serde(skip)]
    pub explain: bool,
    /// The seed, when the order was random.
    pub seed: Option<u64>,
    /// A command that reproduces the crash from the result.
    pub reproduce: String,
    /// Per-pass counters.
    pub passes: Vec<PassSummary>,
    /// The reducer's statistics, for the human rendering.
    #[serde(skip)]
    pub stats: Stats,
}

/// How the tests ran in parallel: candidates predicted and run ahead on the
/// other lanes, and how many of them the reduction then took (each also
/// counted in `tests`); the rest ran for nothing.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParallelSummary {
    /// Candidates tested at once (1: one at a time).
    pub width: usize,
    /// Times candidates were run ahead at once.
    pub batches: u64,
    /// Candidates run ahead.
    pub run_ahead: u64,
    /// Of those, the ones the reduction took.
    pub used: u64,
}

/// Where a run's wall time went, in seconds, phase by phase (the process's
/// own start and the summary are the rest).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Phases {
    /// Finding the fuzz project, building the harness (cargo's check that
    /// nothing changed, when nothing did) and starting its fork server; with
    /// `--exec`, preparing the command.
    pub setup: f64,
    /// The first runs of the crash, which confirm it and take its signature.
    pub first_runs: f64,
    /// The reduction (`seconds`).
    pub reduction: f64,
    /// Running the result once more (a hang's, under the full time limit).
    pub recheck: f64,
    /// The harness mode's checks of the result: a typed value's rendering,
    /// and the cross-check (the rest of its background `cargo fuzz build`,
    /// then one run of the libFuzzer binary).
    pub checks: f64,
}

/// Whether the run could record what `arbitrary` read (the draws and derived
/// values a typed target's input is reduced by), and if not, why: a typed
/// input is then reduced as bytes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StructureSummary {
    /// Examples (derived values) and draws were recorded when the target read them.
    pub recorded: bool,
    /// Primitive reads were recorded as draws.
    pub draws: bool,
    /// Why not (or why without draws); absent when everything was recorded.
    pub reason: Option<String>,
}

impl StructureSummary {
    /// Nothing recorded, for `reason`.
    pub fn off(reason: impl Into<String>) -> Self {
        StructureSummary { recorded: false, draws: false, reason: Some(reason.into()) }
    }

    /// What a harness built with `structure` records (unless `--no-structure`).
    pub fn of(structure: &crate::project::Structure, asked: bool) -> Self {
        use crate::project::Structure;
        match structure {
            _ if !asked => StructureSummary::off("--no-structure"),
            Structure::Recorded { draws, .. } => {
                StructureSummary { recorded: true, draws: *draws, reason: structure.reason() }
            }
            Structure::Off(reason) => StructureSummary::off(reason.clone()),
        }
    }
}

/// A smaller result found on the way.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SizeStep {
    /// Tests run when it was found (the initial test included).
    pub tests: u64,
    /// Its size in bytes.
    pub size: usize,
}

/// One pass's counters.
#[derive(Clone, Debug, Serialize)]
pub struct PassSummary {
    /// The pass.
    pub name: &'static str,
    /// Choices explored.
    pub steps: u64,
    /// Candidates run.
    pub tests: u64,
    /// Improvements.
    pub successes: u64,
    /// Bytes removed.
    pub bytes_removed: u64,
}

impl Summary {
    /// Fills in the numbers that come straight from the reducer's statistics.
    pub fn pass_summaries(stats: &Stats) -> Vec<PassSummary> {
        stats
            .passes
            .iter()
            .map(|p| PassSummary {
                name: p.name,
                steps: p.steps,
                tests: p.tests,
                successes: p.successes,
                bytes_removed: p.bytes_removed,
            })
            .collect()
    }

    /// A stop reason's short name.
    pub fn stop_name(stop: Option<&StopReason>) -> &'static str {
        match stop {
            Some(StopReason::Done) | None => "done",
            Some(StopReason::TestBudget) => "test-budget",
            Some(StopReason::TimeBudget) => "time-budget",
            Some(StopReason::Cancelled) => "interrupted",
            Some(StopReason::OracleFailed(_)) => "oracle-failed",
        }
    }

    /// The summary as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a summary always serializes")
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let saved = 100.0 * (1.0 - self.final_size as f64 / self.initial_size.max(1) as f64);
        writeln!(f)?;
        writeln!(f, "{}", self.stats)?;
        writeln!(f)?;
        writeln!(f, "  size       {} -> {} bytes ({saved:.1}% smaller)", self.initial_size, self.final_size)?;
        writeln!(
            f,
            "  tests      {} in {:.2}s ({:.1} tests/s), {} improvements, the last at test {}",
            self.tests, self.seconds, self.tests_per_second, self.improvements, self.tests_to_result
        )?;
        if self.redone_at_timeout {
            writeln!(
                f,
                "  hang       reduced again under --timeout: the result under shorter test limits did not hang"
            )?;
        }
        if self.known_values > 0 {
            let known = self.known_values;
            writeln!(f, "  known      {known} more candidates decoded to values already tested, or printed as one that did not crash: they needed no run")?;
        }
        if self.parallel.width > 1 {
            let ParallelSummary { width, run_ahead, used, .. } = self.parallel;
            writeln!(f, "  parallel   {width} at once: {run_ahead} candidates run ahead, {used} of them used")?;
        }
        writeln!(f, "  signature  {} (--signature {})", self.signature, self.signature_level)?;
        if self.flaky {
            writeln!(f, "  flaky      the original did not crash this way on every run")?;
        }
        if let (Some(reason), true) = (&self.structure.reason, self.value.is_some()) {
            writeln!(f, "  structure  not recorded, reduced as bytes: {reason}")?;
        }
        if let Some(seed) = self.seed {
            writeln!(f, "  seed       {seed} (--random-order --seed {seed})")?;
        }
        let verified = match self.verified {
            Some(true) => "yes: the result crashes the same way when run again",
            Some(false) => "NO: the result did not crash the same way when run again (flaky target?)",
            None => "not re-run (interrupted)",
        };
        writeln!(f, "  verified   {verified}")?;
        if let Some(check) = &self.libfuzzer {
            writeln!(f, "  libFuzzer  verified with libFuzzer: {check}")?;
        }
        writeln!(f, "  stopped    {}", self.stop)?;
        writeln!(f, "  output     {}", self.output.display())?;
        write!(f, "  reproduce  {}", self.reproduce)?;
        if let Some(value) = &self.value {
            write!(f, "\n  value      (the minimized input as the target sees it)")?;
            for line in value.lines() {
                write!(f, "\n    {line}")?;
            }
        }
        if self.explain {
            self.explain_examples(f)?;
            self.explain_draws(f)?;
        }
        Ok(())
    }
}

impl Summary {
    /// The `--explain` lines of the examples: each derived value's bytes, by depth.
    fn explain_examples(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.examples.is_empty() {
            let why = self.structure.reason.as_deref().unwrap_or("a raw-bytes target");
            return write!(f, "\n  examples   none recorded ({why})");
        }
        let proven = if self.stop_reason == "done" {
            "no single deletion, zeroing or lowering of any of them keeps the crash"
        } else {
            "not proven minimal: the reduction stopped early"
        };
        write!(f, "\n  examples   front bytes | back bytes, by depth ({proven})")?;
        for e in &self.examples {
            let indent = "  ".repeat(e.depth as usize);
            write!(f, "\n    {indent}{} {} | {}", e.label, e.front_hex, e.back_hex)?;
        }
        Ok(())
    }

    /// The `--explain` lines of the draws: what each primitive read took and its value.
    fn explain_draws(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.draws.is_empty() {
            return Ok(());
        }
        write!(f, "\n  draws      the primitive reads, in read order: kind [bytes] = value as read")?;
        for d in &self.draws {
            let kind = d.width.map_or_else(|| d.kind.to_owned(), |w| format!("{}:{w}", d.kind));
            let value = d.value.map_or_else(String::new, |v| format!(" = {v}"));
            let hex = if d.hex.is_empty() { "(none)" } else { &d.hex };
            write!(f, "\n    {kind} [{}..{}] {hex}{value}", d.span[0], d.span[1])?;
        }
        Ok(())
    }
}

/// One example of the result, for `--explain` and the JSON summary.
#[derive(Clone, Debug, Serialize)]
pub struct ExampleSummary {
    /// The type it was built as.
    pub label: String,
    /// Nesting depth (0: the whole input).
    pub depth: u32,
    /// Bytes read from the front: `[start, end)`.
    pub front: [usize; 2],
    /// Bytes read from the back: `[start, end)`.
    pub back: [usize; 2],
    /// The front bytes, in hex.
    pub front_hex: String,
    /// The back bytes, in hex.
    pub back_hex: String,
}

/// One primitive read of the result (a *draw*), for `--explain` and the JSON summary.
#[derive(Clone, Debug, Serialize)]
pub struct DrawSummary {
    /// How it was read: `int` (a fixed-width integer, little-endian), `range`
    /// (`int_in_range`, big-endian), `len` (a collection's or string's length,
    /// from the back, big-endian) or `bytes` (contents).
    pub kind: &'static str,
    /// An integer's width in bytes, as asked for (the span is shorter when
    /// the data ran out: the rest reads as zeros).
    pub width: Option<u8>,
    /// The bytes it read: `[start, end)`.
    pub span: [usize; 2],
    /// Those bytes, in hex.
    pub hex: String,
    /// The number as read (before `arbitrary` maps a range's or a length's
    /// value into its range); none for contents.
    pub value: Option<u128>,
}

impl DrawSummary {
    /// The draws of a test case.
    pub fn of(best: &crate::reduce::TestCase) -> Vec<DrawSummary> {
        use crate::reduce::draws::DrawKind;
        best.draws
            .iter()
            .map(|d| {
                let (kind, width) = match d.kind {
                    DrawKind::Int { width } => ("int", (width > 0).then_some(width)),
                    DrawKind::Range => ("range", None),
                    DrawKind::Len => ("len", None),
                    DrawKind::Bytes => ("bytes", None),
                };
                let hex = hex(best.bytes.get(d.span.clone()).unwrap_or_default());
                DrawSummary { kind, width, span: [d.span.start, d.span.end], hex, value: d.value(&best.bytes) }
            })
            .collect()
    }
}

impl ExampleSummary {
    /// The examples of a test case.
    pub fn of(best: &crate::reduce::TestCase) -> Vec<ExampleSummary> {
        best.examples
            .iter()
            .map(|e| ExampleSummary {
                label: e.label.to_string(),
                depth: e.depth,
                front: [e.front.start, e.front.end],
                back: [e.back.start, e.back.end],
                front_hex: hex(&best.bytes[e.front.clone()]),
                back_hex: hex(&best.bytes[e.back.clone()]),
            })
            .collect()
    }
}

/// Bytes as space-separated hex pairs (`3a 2f 2f`).
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}
