//! Corpus mode: shrink every input of a fuzzing corpus and drop the redundant ones, keeping every coverage feature; the old directory is only read, the new one written as inputs finish.
//!
//! The steps, one file each: [`inputs`] (every file under the directory, each
//! content once) -> on the [`crate::session::workers`], each with a coverage harness
//! and a recording one ([`runner`], [`work`], [`shrink`]): [`drive`] measures each input's features once ->
//! [`rounds`]: [`cover`] keeps a smallest set covering them all, each kept
//! input assigned the features it is kept for -> each kept input shrunk while
//! it still covers those, saved by [`store`] as it finishes -> again over the
//! results while a round pays -> [`join`]: large typed results tried in
//! pairs, one input for both when it is smaller -> [`alone`]: each result
//! shrunk once more for what no other result has -> a last cover over the
//! results, the ones no longer needed removed -> [`report`], with
//! [`display`] showing progress.

pub mod alone;
pub mod cover;
pub mod display;
pub mod drive;
pub mod inputs;
pub mod join;
pub mod joined;
pub mod report;
pub mod rounds;
pub mod runner;
pub mod shrink;
pub mod store;
pub mod work;

use std::collections::HashSet;
use std::time::Instant;

use anyhow::anyhow;

use crate::exit_code::{Exit, Failure, OrExit};
use crate::options::{CorpusOptions, Options};
use crate::reduce::ReduceOptions;
use crate::session::backend::Backend;
use crate::session::interrupt::Interrupt;
use crate::session::progress::Display;
use crate::session::setup::{HarnessSetup, Limits};
use cover::{greedy_cover, intersect, union, Candidate};
use display::Status;
use drive::{measure_all, Item, KeptResult, Phase};
use inputs::CorpusInput;
use report::{CorpusReport, InputReport, InputStatus, Totals, CORPUS_REPORT_VERSION};
use rounds::{shrink_rounds, Rounds};
use runner::Measured;
use store::Store;
use work::CorpusWork;

/// Runs the corpus mode; the exit code is 0 when done, 6 when the new corpus
/// misses a feature of the old one (coverage that varies run to run), 130 when interrupted.
pub fn run(options: &Options, corpus: &CorpusOptions, interrupt: &Interrupt) -> Result<Exit, Failure> {
    let started = Instant::now();
    let (target, output) = (&corpus.target, corpus.output.as_path());
    let inputs = inputs::collect(&corpus.dir).or_exit(Exit::Usage)?;
    if inputs.is_empty() {
        return Err(Failure::usage(anyhow!("the corpus {} has no files", corpus.dir.display())));
    }
    let (setup, recording) = builds(options, corpus, interrupt)?;
    let mut store =
        Store::open(output, &corpus.dir, &setup.harness.scratch_dir, &setup.build_id()?).or_exit(Exit::Usage)?;
    let mut status = Status::new(Display::choose(options.quiet));
    let reduce = reduce_options(options, interrupt);
    let work = CorpusWork { setup: &setup, recording: recording.as_ref(), reduce, interrupt };
    let (measured, required, rounds) =
        crate::session::workers::with_workers(&work, corpus.workers, interrupt, |jobs, events| {
            let mut phase = Phase { jobs, events, status: &mut status, interrupt };
            let measured = measure_all(&inputs, &mut phase);
            instrumented(&measured)?;
            let required = union(measured.iter().filter_map(|m| match m {
                Measured::Covered(features) => Some(features.as_slice()),
                _ => None,
            }));
            phase.status.line(&format!("{} distinct inputs measured on {} workers", inputs.len(), corpus.workers));
            let items = normal_items(&inputs, &measured);
            let mut rounds = shrink_rounds(items, &required, inputs.len(), &mut store, &mut phase)?;
            if !interrupt.is_raised() {
                let mut entries = join::entries(&rounds, &required);
                if work.reduce.structure {
                    join::join_results(&mut rounds, &mut entries, &required, &mut store, &mut phase)?;
                }
                alone::shrink_alone(&mut rounds, &mut entries, &required, corpus.workers, &mut store, &mut phase)?;
                rounds.results = entries.into_iter().map(|e| e.item).collect();
            }
            Ok::<_, Failure>((measured, required, rounds))
        })?;
    status.clear();
    let interrupted = interrupt.is_raised();
    let final_files = if interrupted { None } else { Some(final_cover(&rounds.results, &required, &store)?) };
    let parts = Parts { inputs: &inputs, measured: &measured, required: &required, rounds: &rounds, final_files };
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

/// The coverage build (which only counts) and, with structure on, the
/// crash build (which records examples for the reducer).
fn builds(
    options: &Options,
    corpus: &CorpusOptions,
    interrupt: &Interrupt,
) -> Result<(HarnessSetup, Option<HarnessSetup>), Failure> {
    let (target, project) = (&corpus.target, &corpus.project);
    let limits = Limits { timeout: options.timeout, rss_limit_mb: options.rss_limit_mb };
    let located = HarnessSetup::locate(project)?;
    let recording = options
        .structure
        .then(|| HarnessSetup::build(located.clone(), target, project, limits, options.quiet, interrupt))
        .transpose()?;
    let project = crate::options::ProjectOptions { coverage: true, ..project.clone() };
    let setup = HarnessSetup::build(located, target, &project, limits, options.quiet, interrupt)?;
    Ok((setup, recording))
}

/// The reducer's settings for a corpus. Bytes are what a corpus costs:
/// lowering values of the same size would only spend tests (decision 0035).
/// Draws stay on (unless --no-draws): deleting a typed element with its
/// length at the back and shrinking strings take them; coverage counters
/// wrap at 256: deleting 256 alike elements at once keeps them
/// (decision 0037). A pass that never paid keeps its failure budget:
/// coverage successes come late (decision 0014).
fn reduce_options(options: &Options, interrupt: &Interrupt) -> ReduceOptions {
    ReduceOptions {
        lowering: false,
        wrapping_counters: true,
        min_failures: u32::MAX,
        ..crate::session::reduce_options(options, interrupt)
    }
}

/// Fails when no input could be measured because the harness reports no coverage.
fn instrumented(measured: &[Measured]) -> Result<(), Failure> {
    let blind = |m: &Measured| matches!(m, Measured::Failed(why) if why == runner::NOT_INSTRUMENTED);
    if measured.iter().any(blind) && !measured.iter().any(|m| matches!(m, Measured::Covered(_))) {
        return Err(Failure::new(Exit::Error, anyhow!("the coverage harness reports no coverage counters")));
    }
    Ok(())
}

/// The inputs that ran normally, with their features: the first round's items.
fn normal_items(inputs: &[CorpusInput], measured: &[Measured]) -> Vec<Item> {
    inputs
        .iter()
        .zip(measured)
        .enumerate()
        .filter_map(|(origin, (input, m))| match m {
            Measured::Covered(features) => Some(Item {
                origin,
                sha1: input.sha1.clone(),
                bytes: input.bytes().to_vec(),
                features: features.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Covers `required` once more over the last round's results and removes
/// the files no longer needed; returns the names kept.
fn final_cover(results: &[Item], required: &[u32], store: &Store) -> Result<HashSet<String>, Failure> {
    let features: Vec<Vec<u32>> = results.iter().map(|r| intersect(&r.features, required)).collect();
    let candidates: Vec<Candidate> =
        results.iter().zip(&features).map(|(r, f)| Candidate { size: r.bytes.len(), features: f }).collect();
    let names: HashSet<String> = greedy_cover(&candidates).iter().map(|p| results[p.index].sha1.clone()).collect();
    store.prune(&names)?;
    Ok(names)
}

/// What the report is made of.
struct Parts<'a> {
    inputs: &'a [CorpusInput],
    measured: &'a [Measured],
    /// The old corpus's features.
    required: &'a [u32],
    rounds: &'a Rounds,
    final_files: Option<HashSet<String>>,
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
    let before = Totals {
        files: parts.inputs.iter().map(file_count).sum(),
        bytes: parts.inputs.iter().map(|i| (i.bytes().len() * file_count(i)) as u64).sum(),
        features: parts.required.len(),
    };
    let present: Vec<&KeptResult> = parts
        .rounds
        .latest
        .iter()
        .flatten()
        .filter(|k| k.file.as_ref().is_some_and(|f| parts.final_files.as_ref().map_or(true, |names| names.contains(f))))
        .collect();
    let mut seen = HashSet::new();
    let distinct: Vec<&&KeptResult> = present.iter().filter(|k| seen.insert(k.file.clone())).collect();
    let after_features = union(present.iter().map(|k| k.features.as_slice()));
    let after = Totals {
        files: distinct.len(),
        bytes: distinct.iter().map(|k| k.bytes.len() as u64).sum(),
        features: after_features.len(),
    };
    CorpusReport {
        version: CORPUS_REPORT_VERSION,
        target: target.to_owned(),
        corpus: corpus.dir.display().to_string(),
        output: store.dir().display().to_string(),
        covers_every_feature: cover::is_subset(parts.required, &after_features),
        before,
        after,
        tests: parts.measured.len() as u64 + parts.rounds.latest.iter().flatten().map(|k| k.tests).sum::<u64>(),
        rounds: parts.rounds.rounds,
        seconds: started.elapsed().as_secs_f64(),
        interrupted,
        inputs,
    }
}

/// One input's line of the report.
fn input_report(parts: &Parts, index: usize) -> InputReport {
    let input = &parts.inputs[index];
    let kept = parts.rounds.latest[index].as_ref();
    let (status, detail) = match (&parts.measured[index], kept) {
        (Measured::Crashed(signature), _) => (InputStatus::Crash, Some(signature.clone())),
        (Measured::TimedOut, _) => (InputStatus::Timeout, Some(String::from("runs past the time limit"))),
        (Measured::Rejected, _) => (InputStatus::Rejected, None),
        (Measured::Empty, _) => (InputStatus::Empty, None),
        (Measured::Failed(why), _) => (InputStatus::Failed, Some(why.clone())),
        (Measured::Covered(_), None) => (InputStatus::Covered, None),
        (Measured::Covered(_), Some(k)) => match (&k.file, &parts.final_files) {
            (None, _) => (InputStatus::Interrupted, None),
            (Some(file), Some(names)) if !names.contains(file) => {
                (InputStatus::CoveredAfterShrinking, k.detail.clone())
            }
            _ => (InputStatus::Kept, k.detail.clone()),
        },
    };
    let split_off = (parts.inputs.len()..parts.rounds.latest.len())
        .filter(|&origin| parts.rounds.roots[origin] == index)
        .filter_map(|origin| parts.rounds.latest[origin].as_ref()?.file.clone())
        .filter(|file| parts.final_files.as_ref().map_or(true, |names| names.contains(file)))
        .collect();
    InputReport {
        name: input.input.name.clone(),
        size: input.bytes().len(),
        sha1: input.sha1.clone(),
        status,
        result: kept.and_then(|k| k.file.clone()),
        result_size: kept.filter(|k| k.file.is_some()).map(|k| k.bytes.len()),
        tests: kept.map(|k| k.tests),
        detail,
        duplicates: input.duplicates.clone(),
        split_off,
    }
}
