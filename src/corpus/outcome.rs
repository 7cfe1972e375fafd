//! The corpus run's report from what the phases left: the files kept (by the final cover, or held when the run stopped early), their sizes and features, and each input's fate.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use crate::corpus::features::{is_subset, union};
use crate::corpus::inputs::CorpusInput;
use crate::corpus::jobs::Measured;
use crate::corpus::plan::rounds::Rounds;
use crate::corpus::report::{CorpusReport, InputReport, InputStatus, PhaseSeconds, Totals, CORPUS_REPORT_VERSION};
use crate::options::{CorpusOptions, Shard};
use crate::project::Sanitizer;

/// What the report is made of.
#[derive(Debug)]
pub struct Parts<'a> {
    /// The corpus's distinct inputs.
    pub inputs: &'a [CorpusInput],
    /// What each showed when measured.
    pub measured: &'a [Measured],
    /// The old corpus's features.
    pub required: &'a [u32],
    /// The rounds' results.
    pub rounds: &'a Rounds,
    /// The files in the new corpus.
    pub kept: HashSet<String>,
    /// The sanitizer of the build the features were counted on.
    pub sanitizer: Sanitizer,
    /// Features that only some runs showed (no input showed them on every run).
    pub varying: usize,
    /// The inputs kept as they are for them (ascending).
    pub pinned: &'a [usize],
    /// The runs measuring the inputs took.
    pub measure_runs: u64,
    /// `--shard`: the inputs of other shards are theirs to keep.
    pub shard: Option<Shard>,
}

/// How the run ended.
#[derive(Debug)]
pub struct Ended {
    /// When it started.
    pub started: Instant,
    /// Seconds to the first complete corpus, when it was written.
    pub first: Option<f64>,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// Stopped at `--max-time`.
    pub deadline: bool,
    /// Where the time went.
    pub seconds: PhaseSeconds,
}

/// The report of a run of `corpus` for `target` that wrote `output`.
pub fn build_report(target: &str, corpus: &CorpusOptions, output: &str, parts: &Parts, ended: &Ended) -> CorpusReport {
    let inputs: Vec<InputReport> = (0..parts.inputs.len()).map(|i| input_report(parts, i)).collect();
    let file_count = |input: &CorpusInput| 1 + input.duplicates.len();
    let before = Totals {
        files: parts.inputs.iter().map(file_count).sum(),
        bytes: parts.inputs.iter().map(|i| (i.bytes().len() * file_count(i)) as u64).sum(),
        features: parts.required.len(),
    };
    let (after, after_features) = after_totals(parts);
    CorpusReport {
        version: CORPUS_REPORT_VERSION,
        target: target.to_owned(),
        corpus: corpus.dir.display().to_string(),
        output: output.to_owned(),
        covers_every_feature: is_subset(parts.required, &after_features),
        coverage_build: parts.sanitizer.name().to_owned(),
        varying_features: parts.varying,
        before,
        after,
        tests: parts.measure_runs + parts.rounds.latest.iter().flatten().map(|k| k.tests).sum::<u64>(),
        rounds: parts.rounds.rounds,
        seconds: ended.started.elapsed().as_secs_f64(),
        phase_seconds: ended.seconds.clone(),
        first_complete_seconds: ended.first,
        interrupted: ended.interrupted,
        stopped_at_max_time: ended.deadline,
        inputs,
    }
}

/// The new corpus's totals and features: each kept file's size and
/// features, known from the input it is (a first-cover input left as it
/// was, an input kept for features that vary) or the result it is.
fn after_totals(parts: &Parts) -> (Totals, Vec<u32>) {
    let mut known: HashMap<&str, (usize, &[u32])> = HashMap::new();
    for (input, measured) in parts.inputs.iter().zip(parts.measured) {
        if let Measured::Covered(features) = measured {
            known.insert(&input.sha1, (input.bytes().len(), features));
        }
    }
    for result in parts.rounds.latest.iter().flatten() {
        if let Some(file) = &result.file {
            known.insert(file, (result.bytes.len(), &result.features));
        }
    }
    // Last, what the final cover took each result for: a file measured
    // twice may show other features the second time (coverage that varies).
    for result in &parts.rounds.results {
        known.insert(&result.sha1, (result.bytes.len(), &result.features));
    }
    let present: Vec<(usize, &[u32])> =
        parts.kept.iter().filter_map(|name| known.get(name.as_str()).copied()).collect();
    let features = union(present.iter().map(|(_, features)| *features));
    let bytes = present.iter().map(|(size, _)| *size as u64).sum();
    (Totals { files: parts.kept.len(), bytes, features: features.len() }, features)
}

/// One input's line of the report.
fn input_report(parts: &Parts, index: usize) -> InputReport {
    let input = &parts.inputs[index];
    let kept = parts.rounds.latest[index].as_ref();
    let as_it_is = parts.kept.contains(&input.sha1);
    let (status, detail) = match (&parts.measured[index], kept) {
        (Measured::Crashed(signature), _) => (InputStatus::Crash, Some(signature.clone())),
        (Measured::TimedOut, _) => (InputStatus::Timeout, Some(String::from("runs past the time limit"))),
        (Measured::Rejected, _) => (InputStatus::Rejected, None),
        (Measured::Empty, _) => (InputStatus::Empty, None),
        (Measured::Failed(why), _) => (InputStatus::Failed, Some(why.clone())),
        (Measured::Covered(_), None) if parts.pinned.binary_search(&index).is_ok() => {
            (InputStatus::Kept, Some(String::from("kept as it is: it shows features that vary from run to run")))
        }
        (Measured::Covered(_), None) => match parts.shard.filter(|&shard| !input.input.in_shard(Some(shard))) {
            Some(Shard { index, count }) => (
                InputStatus::Covered,
                Some(format!("in another shard than {index}/{count}: that shard's run keeps or covers it")),
            ),
            None => (InputStatus::Covered, None),
        },
        (Measured::Covered(_), Some(k)) => match &k.file {
            None if as_it_is => (InputStatus::Kept, Some(String::from("kept as it is: the run stopped first"))),
            None => (InputStatus::Interrupted, None),
            Some(file) if !parts.kept.contains(file) => (InputStatus::CoveredAfterShrinking, k.detail.clone()),
            Some(_) => (InputStatus::Kept, k.detail.clone()),
        },
    };
    let split_off = (parts.inputs.len()..parts.rounds.latest.len())
        .filter(|&origin| parts.rounds.roots[origin] == index)
        .filter_map(|origin| parts.rounds.latest[origin].as_ref()?.file.clone())
        .filter(|file| parts.kept.contains(file))
        .collect();
    let result = kept.and_then(|k| k.file.clone()).or_else(|| as_it_is.then(|| input.sha1.clone()));
    InputReport {
        name: input.input.name.clone(),
        size: input.bytes().len(),
        sha1: input.sha1.clone(),
        status,
        result_size: kept.filter(|k| k.file.is_some()).map(|k| k.bytes.len()).or(as_it_is.then(|| input.bytes().len())),
        result,
        tests: kept.map(|k| k.tests),
        detail,
        duplicates: input.duplicates.clone(),
        split_off,
    }
}
