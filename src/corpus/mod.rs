//! Corpus mode: shrink every input of a fuzzing corpus and drop the redundant ones, keeping every coverage feature; the old directory is only read, the new one written as inputs finish.
//!
//! The steps, one file each: [`inputs`] (every file under the directory, each
//! content once) -> on the [`crate::workers`] with a coverage harness
//! ([`work`], [`shrink`]): [`drive`] measures each input's features once ->
//! [`cover`] keeps a smallest set covering them all, each kept input assigned
//! the features it is kept for -> each kept input shrunk while it still covers
//! those, saved by [`store`] as it finishes -> cover again over the shrunk
//! inputs, the ones no longer needed removed -> [`report`], with [`display`]
//! showing progress.

pub mod cover;
pub mod display;
pub mod drive;
pub mod inputs;
pub mod report;
pub mod shrink;
pub mod store;
pub mod work;

use std::collections::HashSet;
use std::time::Instant;

use anyhow::anyhow;

use crate::batch::backend::Backend;
use crate::exit_code::{Exit, Failure, OrExit};
use crate::interrupt::Interrupt;
use crate::options::{CorpusOptions, Mode, Options};
use crate::progress::Display;
use crate::reduce::ReduceOptions;
use crate::setup::{HarnessSetup, Limits};
use cover::{assign_to_smallest, greedy_cover, union, Candidate, Pick};
use display::Status;
use drive::{measure_all, shrink_kept, KeptResult, Phase};
use inputs::CorpusInput;
use report::{CorpusReport, InputReport, InputStatus, Totals, CORPUS_REPORT_VERSION};
use shrink::Measured;
use store::Store;
use work::CorpusWork;

/// Runs the corpus mode; the exit code is 0 when done, 6 when the new corpus
/// misses a feature of the old one (coverage that varies run to run), 130 when interrupted.
pub fn run(options: &Options, corpus: &CorpusOptions, interrupt: &Interrupt) -> Result<Exit, Failure> {
    let started = Instant::now();
    let Mode::Harness { target, project } = &options.mode else {
        return Err(Failure::usage(anyhow!("--corpus needs a cargo-fuzz target (it cannot work with --exec)")));
    };
    let output = options
        .output
        .as_deref()
        .ok_or_else(|| Failure::usage(anyhow!("give the new corpus's directory with -o DIR")))?;
    let inputs = inputs::collect(&corpus.dir).or_exit(Exit::Usage)?;
    if inputs.is_empty() {
        return Err(Failure::usage(anyhow!("the corpus {} has no files", corpus.dir.display())));
    }
    let project = crate::options::ProjectOptions { coverage: true, ..project.clone() };
    let located = HarnessSetup::locate(&project)?;
    let limits = Limits { timeout: options.timeout, rss_limit_mb: options.rss_limit_mb };
    let setup = HarnessSetup::build(located, target, &project, limits, options.quiet, interrupt)?;
    let mut store =
        Store::open(output, &corpus.dir, &setup.harness.scratch_dir, &setup.build_id()?).or_exit(Exit::Usage)?;
    let mut status = Status::new(Display::choose(options.quiet));
    // Bytes are what a corpus costs: lowering values of the same size would only spend tests.
    let reduce = ReduceOptions { lowering: false, ..crate::run::reduce_options(options, interrupt) };
    let work = CorpusWork { setup: &setup, reduce, interrupt };
    let (measured, kept) = crate::workers::with_workers(&work, corpus.workers, interrupt, |jobs, events| {
        let mut phase = Phase { jobs, events, status: &mut status, interrupt };
        let measured = measure_all(&inputs, &mut phase);
        instrumented(&measured)?;
        let picks = cover_inputs(&inputs, &measured);
        phase.status.line(&format!(
            "{} distinct inputs measured; {} keep every feature; shrinking them on {} workers",
            inputs.len(),
            picks.len(),
            corpus.workers
        ));
        let kept = shrink_kept(&inputs, &measured, &picks, &mut store, &mut phase)?;
        Ok::<_, Failure>((measured, kept))
    })?;
    status.clear();
    let interrupted = interrupt.is_raised();
    let final_files = if interrupted { None } else { Some(final_cover(&kept, &store)?) };
    let parts = Parts { inputs: &inputs, measured: &measured, kept: &kept, final_files: final_files.as_ref() };
    let report = build_report(target, corpus, &store, &parts, started, interrupted);
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?);
    }
    if !options.quiet {
        eprint!("{}", report.summary());
    }
    Ok(match (interrupted, report.covers_every_feature) {
        (true, _) => Exit::Interrupted,
        (false, true) => Exit::Minimized,
        // Coverage that varies from run to run: the new corpus is written, but short.
        (false, false) => Exit::Unverified,
    })
}

/// Fails when no input could be measured because the harness reports no coverage.
fn instrumented(measured: &[Measured]) -> Result<(), Failure> {
    let blind = |m: &Measured| matches!(m, Measured::Failed(why) if why == shrink::NOT_INSTRUMENTED);
    if measured.iter().any(blind) && !measured.iter().any(|m| matches!(m, Measured::Covered(_))) {
        return Err(Failure::new(Exit::Error, anyhow!("the coverage harness reports no coverage counters")));
    }
    Ok(())
}

/// The greedy cover of the inputs that ran normally.
fn cover_inputs(inputs: &[CorpusInput], measured: &[Measured]) -> Vec<Pick> {
    let empty: &[u32] = &[];
    let candidates: Vec<Candidate> = inputs
        .iter()
        .zip(measured)
        .map(|(input, m)| Candidate {
            size: input.bytes().len(),
            features: if let Measured::Covered(f) = m { f } else { empty },
        })
        .collect();
    assign_to_smallest(greedy_cover(&candidates), &candidates)
}

/// Covers again over the shrunk inputs and removes the files no longer
/// needed; returns the names kept.
fn final_cover(kept: &[KeptResult], store: &Store) -> Result<HashSet<String>, Failure> {
    let candidates: Vec<Candidate> = kept.iter().map(|k| Candidate { size: k.size, features: &k.features }).collect();
    let mut names: HashSet<String> =
        greedy_cover(&candidates).iter().filter_map(|p| kept[p.index].file.clone()).collect();
    // A result whose features are unknown (kept as it was after a failure) stays.
    names.extend(kept.iter().filter(|k| k.features.is_empty()).filter_map(|k| k.file.clone()));
    store.prune(&names)?;
    Ok(names)
}

/// What the report is made of.
struct Parts<'a> {
    inputs: &'a [CorpusInput],
    measured: &'a [Measured],
    kept: &'a [KeptResult],
    final_files: Option<&'a HashSet<String>>,
}

fn build_report(
    target: &str,
    corpus: &CorpusOptions,
    store: &Store,
    parts: &Parts,
    started: Instant,
    interrupted: bool,
) -> CorpusReport {
    let inputs: Vec<InputReport> = (0..parts.inputs.len()).map(|i| input_report(parts, i)).collect();
    let file_count = |input: &CorpusInput| 1 + input.duplicates.len();
    let before_features = union(parts.measured.iter().filter_map(|m| match m {
        Measured::Covered(features) => Some(features.as_slice()),
        _ => None,
    }));
    let before = Totals {
        files: parts.inputs.iter().map(file_count).sum(),
        bytes: parts.inputs.iter().map(|i| (i.bytes().len() * file_count(i)) as u64).sum(),
        features: before_features.len(),
    };
    let present: Vec<&KeptResult> = parts
        .kept
        .iter()
        .filter(|k| k.file.as_ref().is_some_and(|f| parts.final_files.map_or(true, |names| names.contains(f))))
        .collect();
    let mut seen = HashSet::new();
    let distinct: Vec<&&KeptResult> = present.iter().filter(|k| seen.insert(k.file.clone())).collect();
    let after_features = union(present.iter().map(|k| k.features.as_slice()));
    let after = Totals {
        files: distinct.len(),
        bytes: distinct.iter().map(|k| k.size as u64).sum(),
        features: after_features.len(),
    };
    CorpusReport {
        version: CORPUS_REPORT_VERSION,
        target: target.to_owned(),
        corpus: corpus.dir.display().to_string(),
        output: store.dir().display().to_string(),
        covers_every_feature: cover::is_subset(&before_features, &after_features),
        before,
        after,
        tests: parts.measured.len() as u64 + parts.kept.iter().map(|k| k.tests).sum::<u64>(),
        seconds: started.elapsed().as_secs_f64(),
        interrupted,
        inputs,
    }
}

/// One input's line of the report.
fn input_report(parts: &Parts, index: usize) -> InputReport {
    let input = &parts.inputs[index];
    let kept = parts.kept.iter().find(|k| k.index == index);
    let (status, detail) = match (&parts.measured[index], kept) {
        (Measured::Crashed(signature), _) => (InputStatus::Crash, Some(signature.clone())),
        (Measured::TimedOut, _) => (InputStatus::Timeout, Some(String::from("runs past the time limit"))),
        (Measured::Rejected, _) => (InputStatus::Rejected, None),
        (Measured::Empty, _) => (InputStatus::Empty, None),
        (Measured::Failed(why), _) => (InputStatus::Failed, Some(why.clone())),
        (Measured::Covered(_), None) => (InputStatus::Covered, None),
        (Measured::Covered(_), Some(k)) => match (&k.file, parts.final_files) {
            (None, _) => (InputStatus::Interrupted, None),
            (Some(file), Some(names)) if !names.contains(file) => {
                (InputStatus::CoveredAfterShrinking, k.detail.clone())
            }
            _ => (InputStatus::Kept, k.detail.clone()),
        },
    };
    InputReport {
        name: input.input.name.clone(),
        size: input.bytes().len(),
        sha1: input.sha1.clone(),
        status,
        result: kept.and_then(|k| k.file.clone()),
        result_size: kept.filter(|k| k.file.is_some()).map(|k| k.size),
        tests: kept.map(|k| k.tests),
        detail,
        duplicates: input.duplicates.clone(),
    }
}
