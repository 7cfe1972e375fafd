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
            Some(StopReason::Stalled) => "stalled",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Structure;
    use crate::reduce::{Example, TestCase};
    use crate::signature::Kind;

    /// A finished, verified reduction of 200 bytes to 50, with nothing optional.
    fn summary() -> Summary {
        let signature = Signature {
            kind: Kind::Panic,
            location: Some("src/a.rs:1:2".into()),
            message: Some("boom".into()),
            raised_in: None,
        };
        Summary {
            target: Some("t".into()),
            crash: "crash-1".into(),
            output: "out/r".into(),
            initial_size: 200,
            final_size: 50,
            tests: 40,
            improvements: 3,
            tests_to_result: 31,
            sizes: vec![SizeStep { tests: 1, size: 200 }, SizeStep { tests: 31, size: 50 }],
            redone_at_timeout: false,
            cache_hits: 0,
            known_values: 0,
            remembered_failures: 0,
            seconds: 2.0,
            tests_per_second: 20.0,
            parallel: ParallelSummary { width: 1, batches: 0, run_ahead: 0, used: 0 },
            phases: Phases::default(),
            signature,
            signature_level: Level::Default,
            flaky: false,
            stop_reason: "done",
            stop: StopReason::Done.to_string(),
            verified: Some(true),
            libfuzzer: None,
            value: None,
            examples: Vec::new(),
            draws: Vec::new(),
            structure: StructureSummary { recorded: true, draws: true, reason: None },
            explain: false,
            seed: None,
            reproduce: "t out/r".into(),
            passes: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// The human rendering's lines after the reducer's statistics.
    fn lines(summary: &Summary) -> Vec<String> {
        let text = summary.to_string();
        let own = text.split_once("\n\n  ").map_or(&text[..], |(_, rest)| rest);
        own.lines().map(|l| l.trim_start().to_owned()).collect()
    }

    #[test]
    fn stop_reasons_have_the_short_names_the_json_uses() {
        let names: Vec<&str> = [
            None,
            Some(StopReason::Done),
            Some(StopReason::TestBudget),
            Some(StopReason::TimeBudget),
            Some(StopReason::Cancelled),
            Some(StopReason::OracleFailed("died".into())),
        ]
        .iter()
        .map(|stop| Summary::stop_name(stop.as_ref()))
        .collect();
        assert_eq!(names, ["done", "done", "test-budget", "time-budget", "interrupted", "oracle-failed"]);
    }

    #[test]
    fn the_human_summary_has_one_line_per_fact_and_ends_with_the_reproduce_line() {
        let expected = [
            "size       200 -> 50 bytes (75.0% smaller)",
            "tests      40 in 2.00s (20.0 tests/s), 3 improvements, the last at test 31",
            "signature  panic at src/a.rs:1:2: boom (--signature default)",
            "verified   yes: the result crashes the same way when run again",
            "stopped    done: no pass can improve the result",
            "output     out/r",
            "reproduce  t out/r",
        ];
        assert_eq!(lines(&summary()), expected);
        assert!(summary().to_string().ends_with("reproduce  t out/r"), "no newline after the last line");
    }

    #[test]
    fn optional_lines_show_only_when_they_apply() {
        let mut s = summary();
        s.redone_at_timeout = true;
        s.known_values = 7;
        s.parallel = ParallelSummary { width: 4, batches: 2, run_ahead: 10, used: 3 };
        s.flaky = true;
        s.seed = Some(42);
        s.libfuzzer = Some(LibFuzzerCheck::skipped("--no-verify-libfuzzer"));
        let all = lines(&s);
        let starts: Vec<&str> = all.iter().filter_map(|l| l.split_whitespace().next()).collect();
        let order = ["size", "tests", "hang", "known", "parallel", "signature", "flaky", "seed", "verified"];
        assert_eq!(starts[..9], order);
        assert_eq!(all[4], "parallel   4 at once: 10 candidates run ahead, 3 of them used");
        assert_eq!(all[7], "seed       42 (--random-order --seed 42)");
        assert_eq!(all[9], "libFuzzer  verified with libFuzzer: skipped (--no-verify-libfuzzer)");
        assert!(all[3].starts_with("known      7 more candidates"), "{}", all[3]);
        s.parallel.width = 1;
        assert!(!s.to_string().contains("parallel"), "one at a time says nothing of it");
    }

    #[test]
    fn the_verified_line_says_no_or_not_rerun_when_the_result_was_not_seen_crashing_again() {
        let verified = |verified| lines(&Summary { verified, ..summary() })[3].clone();
        assert!(verified(Some(false)).starts_with("verified   NO: the result did not crash the same way"));
        assert_eq!(verified(None), "verified   not re-run (interrupted)");
    }

    #[test]
    fn a_typed_value_is_shown_indented_last_and_only_then_why_its_structure_was_not_recorded() {
        let off = StructureSummary::off("no arbitrary");
        let bytes = Summary { structure: off.clone(), ..summary() };
        assert!(!bytes.to_string().contains("structure"), "a raw-bytes target loses nothing");
        let typed = Summary { structure: off, value: Some("Foo {\n    a: 1,\n}".into()), ..summary() };
        let text = typed.to_string();
        assert!(text.contains("\n  structure  not recorded, reduced as bytes: no arbitrary\n"), "{text}");
        let value = "\n  value      (the minimized input as the target sees it)\n    Foo {\n        a: 1,\n    }";
        assert!(text.ends_with(value), "{text}");
    }

    /// Two examples (the whole input, a field at depth 1) and two draws of `AB\x01\x02`.
    fn typed_case() -> TestCase {
        let examples = vec![
            Example::new(0..4, 4..4, "Foo", 0),
            Example::new(0..2, 4..4, "String", 1),
            Example::new(0..2, 4..4, "draw:bytes", 2),
            Example::new(2..4, 4..4, "draw:le:2", 1),
        ];
        TestCase::new(b"AB\x01\x02".to_vec(), examples)
    }

    #[test]
    fn example_and_draw_summaries_read_their_bytes_from_the_result() {
        let best = typed_case();
        let examples = ExampleSummary::of(&best);
        let examples: Vec<_> = examples.iter().map(|e| (e.label.as_str(), e.depth, e.front_hex.as_str())).collect();
        assert_eq!(examples, [("Foo", 0, "41 42 01 02"), ("String", 1, "41 42")]);
        let draws = DrawSummary::of(&best);
        let read: Vec<_> = draws.iter().map(|d| (d.kind, d.width, d.span, d.hex.as_str(), d.value)).collect();
        assert_eq!(read, [("bytes", None, [0, 2], "41 42", None), ("int", Some(2), [2, 4], "01 02", Some(0x0201))]);
    }

    #[test]
    fn explain_lists_examples_by_depth_and_draws_and_says_whether_the_result_is_proven_minimal() {
        let best = typed_case();
        let mut s =
            Summary { explain: true, examples: ExampleSummary::of(&best), draws: DrawSummary::of(&best), ..summary() };
        let text = s.to_string();
        let explained = text.split_once("\n  examples   ").expect("the examples").1;
        let expected = [
            "front bytes | back bytes, by depth (no single deletion, zeroing or lowering of any of them keeps the crash)",
            "    Foo 41 42 01 02 | ",
            "      String 41 42 | ",
            "  draws      the primitive reads, in read order: kind [bytes] = value as read",
            "    bytes [0..2] 41 42",
            "    int:2 [2..4] 01 02 = 513",
        ]
        .join("\n");
        assert_eq!(explained, expected);
        s.stop_reason = "test-budget";
        assert!(s.to_string().contains("(not proven minimal: the reduction stopped early)"));
        let none = Summary { explain: true, ..summary() }.to_string();
        assert!(none.ends_with("\n  examples   none recorded (a raw-bytes target)"), "{none}");
    }

    #[test]
    fn the_json_summary_has_the_machine_fields_and_not_the_human_only_ones() {
        let json: serde_json::Value = serde_json::from_str(&summary().to_json()).unwrap();
        assert_eq!((json["final_size"].as_u64(), json["stop_reason"].as_str()), (Some(50), Some("done")));
        assert_eq!(json["sizes"][1], serde_json::json!({ "tests": 31, "size": 50 }));
        assert_eq!(json["signature"]["location"], "src/a.rs:1:2");
        assert!(json.get("explain").is_none() && json.get("stats").is_none(), "{json}");
    }

    #[test]
    fn structure_is_what_the_harness_records_unless_turned_off() {
        let all = Structure::Recorded { arbitrary: "1.4.1".into(), draws: true };
        let of = |structure: &Structure, asked| {
            let s = StructureSummary::of(structure, asked);
            (s.recorded, s.draws, s.reason)
        };
        assert_eq!(of(&all, true), (true, true, None));
        assert_eq!(of(&all, false), (false, false, Some("--no-structure".into())));
        let values_only = Structure::Recorded { arbitrary: "1.3.2".into(), draws: false };
        assert_eq!(of(&values_only, true), (true, false, values_only.reason()));
        assert_eq!(of(&Structure::Off("no arbitrary".into()), true), (false, false, Some("no arbitrary".into())));
    }
}
