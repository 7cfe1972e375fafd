//! Corpus mode: shrink every input of a fuzzing corpus and drop the redundant ones, keeping every coverage feature; the old directory is only read, the new one is a complete corpus from the first cover on, each input replaced by its result as it finishes.
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
pub mod deadline;
pub mod display;
pub mod drive;
pub mod inputs;
pub mod join;
pub mod joined;
pub mod outcome;
pub mod report;
pub mod rounds;
pub mod runner;
pub mod shrink;
pub mod store;
pub mod varying;
pub mod work;

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Instant;

use anyhow::anyhow;

use crate::exit_code::{Exit, Failure, OrExit};
use crate::options::{CorpusOptions, Options, Shard};
use crate::project::Sanitizer;
use crate::reduce::ReduceOptions;
use crate::session::backend::Backend;
use crate::session::interrupt::Interrupt;
use crate::session::progress::Display;
use crate::session::setup::{HarnessSetup, Limits, Located};
use cover::{greedy_cover, intersect, union, Candidate, Pick};
use deadline::Deadline;
use display::Size;
use display::Status;
use drive::{measure_all, Item, Measures, Phase};
use inputs::CorpusInput;
use join::Results;
use outcome::{build_report, Ended, Parts};
use report::PhaseSeconds;
use rounds::{shrink_rounds, Rounds};
use runner::Measured;
use store::Store;
use varying::Pinned;
use work::CorpusWork;

/// Runs the corpus mode; the exit code is 0 when done (or stopped at
/// `--max-time`), 6 when the new corpus misses a feature of the old one
/// (coverage that varies run to run), 130 when interrupted.
pub fn run(options: &Options, corpus: &CorpusOptions, interrupt: &Interrupt) -> Result<Exit, Failure> {
    let started = Instant::now();
    let (target, output) = (&corpus.target, corpus.output.as_path());
    let mut inputs = inputs::collect(&corpus.dir).or_exit(Exit::Usage)?;
    if inputs.is_empty() {
        return Err(Failure::usage(anyhow!("the corpus {} has no files", corpus.dir.display())));
    }
    let located = HarnessSetup::locate(&corpus.project)?;
    let setup = coverage_build(located.clone(), options, corpus, interrupt)?;
    let mut store =
        Store::open(output, &corpus.dir, &setup.harness.scratch_dir, &setup.build_id()?).or_exit(Exit::Usage)?;
    // An earlier output in the directory: its results are kept as they are (an incremental run).
    inputs::add_previous(&mut inputs, store.previous());
    let mut status = Status::new(Display::choose(options.quiet), started);
    let deadline = Deadline::new(options.max_time, started);
    let reduce = reduce_options(options, interrupt);
    let recording = OnceLock::new();
    let work = CorpusWork { setup: &setup, recording: &recording, reduce, interrupt };
    let build_recording = || -> Result<(), Failure> {
        if options.structure {
            let _ = recording.set(recording_build(located.clone(), options, corpus, interrupt)?);
        }
        Ok(())
    };
    let (workers, structure, shard) = (corpus.workers, options.structure, corpus.shard);
    let setting = Setting { workers, structure, shard, build_recording: &build_recording };
    let Phased { measured, measure_runs, required, pinned, rounds, seconds } =
        crate::session::workers::with_workers(&work, corpus.workers, interrupt, |jobs, events| {
            let mut phase = Phase { jobs, events, status: &mut status, interrupt, deadline: &deadline };
            phases(&inputs, &setting, &mut store, &mut phase)
        })?;
    status.clear();
    let interrupted = interrupt.is_raised() && !deadline.reached();
    let kept = match interrupt.is_raised() {
        true => store.held(),
        false => final_cover(&rounds.results, &required, &store)?
            .into_iter()
            .chain(pinned.inputs.iter().map(|&i| inputs[i].sha1.clone()))
            .collect(),
    };
    store.prune(&kept)?;
    let sanitizer = corpus.project.flags.sanitizer;
    let (varying, rounds, measured) = (pinned.features.len(), &rounds, &measured);
    let (inputs, required, pinned) = (&inputs, &required, &pinned.inputs);
    let shard = corpus.shard;
    let parts = Parts { inputs, measured, measure_runs, required, rounds, kept, sanitizer, varying, pinned, shard };
    let ended = Ended { started, first: status.first_complete(), interrupted, deadline: deadline.reached(), seconds };
    let report = build_report(target, corpus, &store.dir().display().to_string(), &parts, &ended);
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

/// What the phases need of the run's options.
struct Setting<'a> {
    workers: usize,
    structure: bool,
    shard: Option<Shard>,
    /// Builds the crash build (with structure), which the shrinks need.
    build_recording: &'a dyn Fn() -> Result<(), Failure>,
}

/// Measures every input once and writes the first complete corpus; runs
/// every input again (coverage that varies) and settles the corpus on what
/// every run showed; then the rounds, the joins and the last shrinks (these
/// two skipped when stopped); what the report is made of.
fn phases(inputs: &[CorpusInput], setting: &Setting, store: &mut Store, phase: &mut Phase) -> Result<Phased, Failure> {
    let mut lap = Lap(Instant::now());
    let mut seconds = PhaseSeconds::default();
    let once = measure_all(inputs, None, phase);
    seconds.measure = lap.next();
    instrumented(&once.measured)?;
    let workers = if setting.workers == 1 { "1 worker".to_owned() } else { format!("{} workers", setting.workers) };
    phase.status.line(&format!("{} distinct inputs measured on {workers}", inputs.len()));
    let (items, required) = kept_items(inputs, &once.measured, setting.shard);
    let (files, bytes) = old_size(inputs);
    phase.status.old_corpus(Size { files, bytes, features: required.len() });
    let first = rounds::first_corpus(&items, &required, store, phase)?;
    seconds.first_corpus = lap.next();
    // Stopped while measuring again: inputs not run again keep their first run's features.
    let Measures { measured, varying, runs } = measure_all(inputs, Some(&once), phase);
    seconds.measure_again = lap.next();
    let (items, required) = kept_items(inputs, &measured, setting.shard);
    let sizes: Vec<usize> = inputs.iter().map(|i| i.bytes().len()).collect();
    let pinned = varying::pinned(&sizes, &measured, &varying, &covered_features(&measured));
    let mut phased =
        Phased { measured, measure_runs: runs, required, pinned, rounds: Rounds::none(inputs.len()), seconds };
    let pins: Vec<&[u8]> = phased.pinned.inputs.iter().map(|&i| inputs[i].bytes()).collect();
    let shrinking = rounds::settle(&first, &items, &pins, &phased.required, store, phase)?;
    if shrinking {
        phase.status.clear();
        (setting.build_recording)()?;
    }
    phased.seconds.crash_build = lap.next();
    shrink_phases(items, setting, inputs.len(), &mut lap, store, phase, &mut phased)?;
    Ok(phased)
}

/// The rounds over `origins` corpus inputs, then (unless stopped) the joins
/// and the last shrinks, into `phased`, each timed by `lap`.
fn shrink_phases(
    items: Vec<Item>,
    setting: &Setting,
    origins: usize,
    lap: &mut Lap,
    store: &mut Store,
    phase: &mut Phase,
    phased: &mut Phased,
) -> Result<(), Failure> {
    let required = &phased.required;
    let mut rounds = shrink_rounds(items, required, origins, store, phase)?;
    phased.seconds.rounds = lap.next();
    if !phase.interrupt.is_raised() {
        let mut entries = join::entries(&rounds, required, store)?;
        let mut results = Results { done: &mut rounds, store };
        if setting.structure {
            join::join_results(&mut results, &mut entries, required, phase)?;
        }
        phased.seconds.joins = lap.next();
        alone::shrink_alone(&mut results, &mut entries, required, setting.workers, phase)?;
        phased.seconds.alone = lap.next();
        rounds.results = entries.into_iter().map(|e| e.item).collect();
    }
    phased.rounds = rounds;
    Ok(())
}

/// The inputs that ran normally as items, and the features they cover
/// (with `--shard`, this shard's share of both).
fn kept_items(inputs: &[CorpusInput], measured: &[Measured], shard: Option<Shard>) -> (Vec<Item>, Vec<u32>) {
    let required = covered_features(measured);
    let items = normal_items(inputs, measured);
    match shard {
        Some(shard) => share(inputs, items, &required, shard),
        None => (items, required),
    }
}

/// Every feature some input covered (ascending).
fn covered_features(measured: &[Measured]) -> Vec<u32> {
    union(measured.iter().filter_map(|m| match m {
        Measured::Covered(features) => Some(features.as_slice()),
        _ => None,
    }))
}

/// What the phases leave for the report.
struct Phased {
    measured: Vec<Measured>,
    /// The runs measuring took.
    measure_runs: u64,
    /// The old corpus's features (this shard's share of them with `--shard`).
    required: Vec<u32>,
    /// The inputs kept as they are for features that vary from run to run.
    pinned: Pinned,
    rounds: Rounds,
    seconds: PhaseSeconds,
}

/// Seconds since the last lap.
struct Lap(Instant);

impl Lap {
    fn next(&mut self) -> f64 {
        let now = Instant::now();
        let seconds = now.duration_since(self.0).as_secs_f64();
        self.0 = now;
        seconds
    }
}

/// `--shard`: the kept inputs of this shard (by content hash) and the
/// features assigned to them. The shards' shares cover every feature; a
/// feature that a shard's measure saw and another's did not (coverage that
/// varies) is found again by the run that joins them.
fn share(inputs: &[CorpusInput], items: Vec<Item>, required: &[u32], shard: Shard) -> (Vec<Item>, Vec<u32>) {
    let picks = rounds::cover(&items, required);
    let mine: Vec<&Pick> = picks.iter().filter(|p| inputs[items[p.index].origin].input.in_shard(Some(shard))).collect();
    let required = union(mine.iter().map(|p| p.assigned.as_slice()));
    let items = mine.iter().map(|p| items[p.index].clone()).collect();
    (items, required)
}

/// The old corpus's files (duplicates too) and bytes.
fn old_size(inputs: &[CorpusInput]) -> (usize, u64) {
    let file_count = |input: &CorpusInput| 1 + input.duplicates.len();
    let files = inputs.iter().map(file_count).sum();
    (files, inputs.iter().map(|i| (i.bytes().len() * file_count(i)) as u64).sum())
}

/// The coverage build, which only counts.
fn coverage_build(
    located: Located,
    options: &Options,
    corpus: &CorpusOptions,
    interrupt: &Interrupt,
) -> Result<HarnessSetup, Failure> {
    let project = crate::options::ProjectOptions { coverage: true, ..corpus.project.clone() };
    HarnessSetup::build(located, &corpus.target, &project, limits(options), options.quiet, interrupt)
}

/// The crash build, which records examples for the reducer: built once
/// the first complete corpus is written, since measuring does not need it;
/// without a sanitizer (its runs only record, and the one crash mode's
/// build is shared).
fn recording_build(
    located: Located,
    options: &Options,
    corpus: &CorpusOptions,
    interrupt: &Interrupt,
) -> Result<HarnessSetup, Failure> {
    let mut project = corpus.project.clone();
    project.flags.sanitizer = Sanitizer::None;
    HarnessSetup::build(located, &corpus.target, &project, limits(options), options.quiet, interrupt)
}

fn limits(options: &Options) -> Limits {
    Limits { timeout: options.timeout, rss_limit_mb: options.rss_limit_mb }
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
        // --max-time bounds the whole run (`deadline`), not each shrink.
        max_time: None,
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
                done: input.done,
            }),
            _ => None,
        })
        .collect()
}

/// Covers `required` once more over the last round's results; returns the
/// names kept (the files of the others go).
fn final_cover(results: &[Item], required: &[u32], store: &Store) -> Result<HashSet<String>, Failure> {
    let features: Vec<Vec<u32>> = results.iter().map(|r| intersect(&r.features, required)).collect();
    let candidates: Vec<Candidate> =
        results.iter().zip(&features).map(|(r, f)| Candidate { size: r.bytes.len(), features: f }).collect();
    let names: HashSet<String> = greedy_cover(&candidates).iter().map(|p| results[p.index].sha1.clone()).collect();
    // A result of ours the cover takes is held: nothing it needs went.
    debug_assert!(names.is_subset(&store.held()), "the final cover takes held files");
    Ok(names)
}
