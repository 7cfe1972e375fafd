//! The corpus run's report: totals before and after (files, bytes, features), time and tests, and what happened to each input; as JSON (`--json`) and as a summary on stderr.

use serde::Serialize;

/// The version of the JSON report's shape.
pub const CORPUS_REPORT_VERSION: u32 = 1;

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct CorpusReport {
    /// [`CORPUS_REPORT_VERSION`].
    pub version: u32,
    /// The fuzz target.
    pub target: String,
    /// The corpus directory read.
    pub corpus: String,
    /// The directory written.
    pub output: String,
    /// The old corpus.
    pub before: Totals,
    /// The new one.
    pub after: Totals,
    /// Whether the new corpus covers every feature of the old one.
    pub covers_every_feature: bool,
    /// Features that only some runs of the inputs showed (coverage that
    /// varies from run to run): the inputs that show them are kept as they are.
    pub varying_features: usize,
    /// The sanitizer of the coverage build the features were counted on
    /// (`address`: `cargo fuzz build`'s default, what `cargo fuzz run` fuzzes with).
    pub coverage_build: String,
    /// Tests run in all.
    pub tests: u64,
    /// Rounds of cover and shrink run.
    pub rounds: usize,
    /// Wall time, harness build included.
    pub seconds: f64,
    /// Where the time went, phase by phase.
    pub phase_seconds: PhaseSeconds,
    /// Seconds from the start (harness builds included) to the first
    /// complete corpus in the output directory (the inputs the cover keeps, as they are).
    pub first_complete_seconds: Option<f64>,
    /// Stopped by Ctrl-C before the end (the output is a complete corpus, shrunk as far as it got).
    pub interrupted: bool,
    /// Stopped at `--max-time` (the output is a complete corpus, shrunk as far as it got).
    pub stopped_at_max_time: bool,
    /// Every distinct input, in path order.
    pub inputs: Vec<InputReport>,
}

/// Seconds spent in each phase of the run (the coverage build before them
/// is the rest of `seconds`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PhaseSeconds {
    /// Every input run once on the coverage build.
    pub measure: f64,
    /// The first complete corpus written.
    pub first_corpus: f64,
    /// Every input run again (more when its coverage varies), and the
    /// corpus settled on what every run showed.
    pub measure_again: f64,
    /// The crash build (records examples), when anything is to be shrunk.
    pub crash_build: f64,
    /// The rounds of cover and shrink.
    pub rounds: f64,
    /// The joins of pairs of results.
    pub joins: f64,
    /// The last shrinks, each result for what no other has.
    pub alone: f64,
}

/// A corpus's size and coverage.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Files.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Distinct coverage features (libFuzzer's numbering) of the inputs that run normally.
    pub features: usize,
}

/// What happened to one input (one content: duplicates are listed with it).
#[derive(Clone, Debug, Serialize)]
pub struct InputReport {
    /// Its path.
    pub name: String,
    /// Its size.
    pub size: usize,
    /// Its SHA-1.
    pub sha1: String,
    /// What happened.
    pub status: InputStatus,
    /// The file it became in the new corpus.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// That file's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_size: Option<usize>,
    /// Tests its shrinking took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<u64>,
    /// The crash, the failure, or why it was kept unshrunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Other files with the same content.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<String>,
    /// Inputs split off its result (a part that keeps the features of few
    /// hits, the result those of many), in the new corpus: their files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub split_off: Vec<String>,
}

/// An input's fate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputStatus {
    /// Kept for features no other input covers (shrunk, unless `detail` says why not).
    Kept,
    /// Dropped: inputs kept for coverage cover all its features.
    Covered,
    /// Kept and shrunk, then dropped: other shrunk inputs cover its features.
    CoveredAfterShrinking,
    /// Left out: it crashes the target.
    Crash,
    /// Left out: it runs past the time limit.
    Timeout,
    /// Left out: the target rejects it (`Corpus::Reject`).
    Rejected,
    /// Left out: empty (libFuzzer never counts an empty input's coverage).
    Empty,
    /// Left out: it could not be read or run.
    Failed,
    /// Not finished: interrupted.
    Interrupted,
}

impl CorpusReport {
    /// Inputs with `status`.
    pub fn count(&self, status: InputStatus) -> usize {
        self.inputs.iter().filter(|i| i.status == status).count()
    }

    /// The summary for stderr.
    pub fn summary(&self) -> String {
        let (before, after) = (&self.before, &self.after);
        let mut text = format!(
            "{}: {} files, {} bytes, {} features -> {} files, {} bytes, {} features ({:.1}% of the bytes) in \
             {:.1}s, {} tests, {} rounds\n",
            self.target,
            before.files,
            before.bytes,
            before.features,
            after.files,
            after.bytes,
            after.features,
            100.0 * after.bytes as f64 / before.bytes.max(1) as f64,
            self.seconds,
            self.tests,
            self.rounds
        );
        let coverage = match (self.covers_every_feature, self.interrupted) {
            (true, _) => "covers every feature of the old one",
            (false, true) => "does not cover every feature: interrupted before the first complete corpus was written",
            (false, false) => "DOES NOT cover every feature of the old one",
        };
        let build = match self.coverage_build.as_str() {
            "address" => String::from("AddressSanitizer, `cargo fuzz build`'s default"),
            "none" => String::from("no sanitizer, as `cargo fuzz build --sanitizer none`"),
            other => format!("--sanitizer {other}"),
        };
        text += &format!("the new corpus in {} {coverage} (features counted on the build with {build})\n", self.output);
        if self.varying_features > 0 {
            text += &format!(
                "{} features vary from run to run (a HashMap's random keys, a cache): the inputs that show them are \
                 kept as they are\n",
                self.varying_features
            );
        }
        let left_out: Vec<&InputReport> = self
            .inputs
            .iter()
            .filter(|i| matches!(i.status, InputStatus::Crash | InputStatus::Timeout | InputStatus::Failed))
            .collect();
        if !left_out.is_empty() {
            text += &format!("{} inputs left out (they crash, hang or cannot run):\n", left_out.len());
            for input in left_out {
                text += &format!("  {}: {}\n", input.name, input.detail.as_deref().unwrap_or("?"));
            }
        }
        if self.interrupted {
            text += "interrupted: run the same command again to go on shrinking from here\n";
        }
        if self.stopped_at_max_time {
            text += "stopped at --max-time: run the same command again to go on shrinking from here\n";
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_the_totals_and_the_inputs_left_out() {
        let input = |name: &str, status, detail: Option<&str>| InputReport {
            name: name.into(),
            size: 10,
            sha1: "0".into(),
            status,
            result: None,
            result_size: None,
            tests: None,
            detail: detail.map(str::to_owned),
            duplicates: Vec::new(),
            split_off: Vec::new(),
        };
        let report = CorpusReport {
            version: CORPUS_REPORT_VERSION,
            target: "tlv".into(),
            corpus: "in".into(),
            output: "out".into(),
            before: Totals { files: 3, bytes: 3000, features: 90 },
            after: Totals { files: 1, bytes: 30, features: 91 },
            covers_every_feature: true,
            coverage_build: "address".into(),
            varying_features: 0,
            tests: 500,
            rounds: 2,
            seconds: 2.0,
            phase_seconds: PhaseSeconds::default(),
            first_complete_seconds: Some(1.0),
            interrupted: false,
            stopped_at_max_time: false,
            inputs: vec![input("a", InputStatus::Kept, None), input("b", InputStatus::Crash, Some("panic at x"))],
        };
        let summary = report.summary();
        assert!(summary.starts_with("tlv: 3 files, 3000 bytes, 90 features -> 1 files, 30 bytes, 91 features (1.0%"));
        assert!(summary.contains("covers every feature"), "{summary}");
        assert!(summary.contains("counted on the build with AddressSanitizer"), "{summary}");
        assert!(summary.contains("  b: panic at x"), "{summary}");
        assert_eq!(report.count(InputStatus::Kept), 1);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["inputs"][1]["status"], "crash");
        assert!(json["inputs"][0].get("result").is_none());
    }
}
