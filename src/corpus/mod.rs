//! Corpus mode: shrink every input of a fuzzing corpus and drop the redundant ones, keeping every coverage feature; the old directory is only read, the new one is a complete corpus from the first cover on, each input replaced by its result as it finishes.
//!
//! Two folders, which meet only in [`jobs`] (and the feature sets of
//! [`features`]): [`plan`] decides what to keep, shrink and join; [`worker`]
//! runs it; [`drive`] sends the plan's jobs to the workers.
//!
//! The steps, one file each: [`inputs`] (every file under the directory, each
//! content once) -> on the [`crate::session::workers`], each with a coverage
//! harness and a recording one ([`worker::runner`], [`worker::work`],
//! [`worker::shrink`]): [`drive`] measures each input's features once ->
//! [`plan::rounds`]: [`plan::cover`] keeps a smallest set covering them all,
//! each kept input assigned the features it is kept for -> each kept input
//! shrunk while it still covers those, saved by [`store`] as it finishes ->
//! again over the results while a round pays -> [`plan::join`]: large typed
//! results tried in pairs, one input for both when it is smaller ->
//! [`plan::alone`]: each result shrunk once more for what no other result has
//! -> a last cover over the results, the ones no longer needed removed ->
//! [`report`], with [`display`] showing progress.

pub mod deadline;
pub mod display;
pub mod drive;
pub mod features;
pub mod inputs;
pub mod jobs;
pub mod outcome;
pub mod plan;
pub mod report;
pub mod store;
pub mod worker;

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
use deadline::Deadline;
use display::Size;
use display::Status;
use drive::{measure_all, Item, Measures, Phase};
use features::{intersect, union};
use inputs::CorpusInput;
use jobs::Measured;
use outcome::{build_report, Ended, Parts};
use plan::cover::{greedy_cover, Candidate, Pick};
use plan::join::Results;
use plan::rounds::{shrink_rounds, Rounds};
use plan::varying::Pinned;
use plan::{alone, join, rounds, varying};
use report::{CorpusReport, PhaseSeconds};
use store::Store;
use worker::runner;
use worker::work::CorpusWork;

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
    let work = CorpusWork { setup: &setup, recording: &recording, reduce, interrupt, failures: Default::default() };
    let build_recording = || -> Result<(), Failure> {
        if options.structure {
            let _ = recording.set(recording_build(located.clone(), options, corpus, interrupt)?);
        }
        Ok(())
    };
    let (workers, structure, shard) = (corpus.workers, options.structure, corpus.shard);
    let setting = Setting { workers, structure, shard, build_recording: &build_recording };
    let phased = crate::session::workers::with_workers(&work, corpus.workers, interrupt, |jobs, events| {
        let mut phase = Phase { jobs, events, status: &mut status, interrupt, deadline: &deadline, workers };
        phases(&inputs, &setting, &mut store, &mut phase)
    })?;
    status.clear();
    let interrupted = interrupt.is_raised() && !deadline.reached();
    let kept = kept_files(&phased, &inputs, &store, interrupt)?;
    store.prune(&kept)?;
    if !interrupt.is_raised() {
        store.finish()?;
    }
    let Phased { measured, measure_runs, required, pinned, rounds, seconds } = phased;
    let sanitizer = corpus.project.flags.sanitizer;
    let (varying, rounds, measured) = (pinned.features.len(), &rounds, &measured);
    let (inputs, required, pinned) = (&inputs, &required, &pinned.inputs);
    let shard = corpus.shard;
    let parts = Parts { inputs, measured, measure_runs, required, rounds, kept, sanitizer, varying, pinned, shard };
    let ended = Ended { started, first: status.first_complete(), interrupted, deadline: deadline.reached(), seconds };
    let report = build_report(target, corpus, &store.dir().display().to_string(), &parts, &ended);
    show(&report, options)?;
    Ok(exit_code(interrupted, report.covers_every_feature))
}

/// The files the new corpus keeps: when stopped (Ctrl-C or `--max-time`),
/// every one it holds; else a last cover over the results, and the inputs
/// pinned for features that vary.
fn kept_files(
    phased: &Phased,
    inputs: &[CorpusInput],
    store: &Store,
    interrupt: &Interrupt,
) -> Result<HashSet<String>, Failure> {
    Ok(match interrupt.is_raised() {
        true => store.held(),
        false => final_cover(&phased.rounds.results, &phased.required, store)?
            .into_iter()
            .chain(phased.pinned.inputs.iter().map(|&i| inputs[i].sha1.clone()))
            .collect(),
    })
}

/// Shows the `report`: as JSON on stdout with `--json`, its summary on
/// stderr unless `--quiet`.
fn show(report: &CorpusReport, options: &Options) -> Result<(), Failure> {
    if options.json {
        println!("{}", serde_json::to_string_pretty(report).map_err(anyhow::Error::from)?);
    }
    if !options.quiet {
        eprint!("{}", report.summary());
    }
    Ok(())
}

/// The run's exit code (see [`run`]), from whether Ctrl-C stopped it and
/// whether the new corpus covers every feature of the old one.
fn exit_code(interrupted: bool, covers_every_feature: bool) -> Exit {
    match (interrupted, covers_every_feature) {
        (true, _) => Exit::Interrupted,
        (false, true) => Exit::Minimized,
        // Coverage that varies from run to run: the new corpus is written, but short.
        (false, false) => Exit::Unverified,
    }
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
                unproven: false,
                earlier: input.from_output,
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::options::{Job, ProjectOptions};
    use crate::reduce::Order;
    use crate::session::inputs::Input;
    use crate::session::output::sha1_hex;
    use crate::signature::Level;

    /// A corpus input of `bytes` (no duplicates, not done).
    fn input(bytes: &[u8]) -> CorpusInput {
        let input = Input { name: format!("corpus/{}", sha1_hex(bytes)), bytes: Ok(bytes.to_vec()) };
        CorpusInput { input, sha1: sha1_hex(bytes), duplicates: Vec::new(), done: false, from_output: false }
    }

    /// Each item's origin and features, to compare.
    fn origins_and_features(items: &[Item]) -> Vec<(usize, Vec<u32>)> {
        items.iter().map(|i| (i.origin, i.features.clone())).collect()
    }

    /// A corpus run's options with these budgets.
    fn options(max_tests: Option<u64>, max_time: Option<Duration>) -> Options {
        let corpus = CorpusOptions {
            target: "t".into(),
            project: ProjectOptions::default(),
            dir: "corpus".into(),
            output: "new".into(),
            workers: 2,
            shard: None,
        };
        Options {
            job: Job::Corpus(corpus),
            timeout: Duration::from_secs(3),
            rss_limit_mb: 2048,
            max_tests,
            max_time,
            order: Order::Deterministic,
            structure: false,
            draws: false,
            signature: Level::Default,
            json: false,
            quiet: true,
        }
    }

    /// `--shard I/2`.
    fn half(index: u32) -> Shard {
        Shard { index, count: 2 }
    }

    #[test]
    fn an_input_that_crashed_or_timed_out_is_no_item_and_adds_no_required_feature() {
        let inputs: Vec<CorpusInput> = [&b"a"[..], b"b", b"c", b"d", b"e", b"f"].into_iter().map(input).collect();
        let measured = [
            Measured::Covered(vec![1, 4]),
            Measured::Crashed("panicked at src/lib.rs:3".into()),
            Measured::TimedOut,
            Measured::Rejected,
            Measured::Empty,
            Measured::Covered(vec![2, 4]),
        ];
        let (items, required) = kept_items(&inputs, &measured, None);
        assert_eq!(origins_and_features(&items), [(0, vec![1, 4]), (5, vec![2, 4])]);
        assert_eq!(required, [1, 2, 4]);
    }

    #[test]
    fn a_normal_item_carries_its_inputs_hash_bytes_and_done_mark() {
        let mut inputs = vec![input(b"first"), input(b"second")];
        inputs[1].done = true;
        let measured = [Measured::Failed("cannot run".into()), Measured::Covered(vec![7])];
        let items = normal_items(&inputs, &measured);
        assert_eq!(items.len(), 1, "a failed run is no item");
        assert_eq!((items[0].origin, items[0].sha1.as_str()), (1, sha1_hex(b"second").as_str()));
        assert_eq!((items[0].bytes.as_slice(), items[0].done), (&b"second"[..], true));
    }

    #[test]
    fn the_covered_features_are_the_ascending_union_of_the_normal_runs_only() {
        let measured = [
            Measured::Covered(vec![3, 9]),
            Measured::Failed(runner::NOT_INSTRUMENTED.into()),
            Measured::Covered(vec![1, 3]),
            Measured::Covered(Vec::new()),
        ];
        assert_eq!(covered_features(&measured), [1, 3, 9]);
        assert_eq!(covered_features(&[Measured::TimedOut, Measured::Empty]), Vec::<u32>::new());
    }

    /// A large input of three features, a small one (shard 2) of its third
    /// and a fourth, and a redundant one (shard 1): `b"cccccc"` and `b"big"`
    /// hash into shard 1 of 2, `b"b"` into shard 2.
    fn three_inputs() -> (Vec<CorpusInput>, Vec<Measured>) {
        let inputs: Vec<CorpusInput> = [&b"cccccc"[..], b"b", b"big"].into_iter().map(input).collect();
        let measured =
            vec![Measured::Covered(vec![1, 2, 3]), Measured::Covered(vec![3, 4]), Measured::Covered(vec![2])];
        (inputs, measured)
    }

    #[test]
    fn each_shard_keeps_its_picked_inputs_with_only_the_features_assigned_to_them() {
        let (inputs, measured) = three_inputs();
        let items = normal_items(&inputs, &measured);
        assert!(inputs[0].input.in_shard(Some(half(1))) && inputs[1].input.in_shard(Some(half(2))));
        let (first, first_required) = share(&inputs, items.clone(), &[1, 2, 3, 4], half(1));
        assert_eq!(origins_and_features(&first), [(0, vec![1, 2, 3])], "the redundant input is in no share");
        assert_eq!(first_required, [1, 2], "the smaller input of shard 2 keeps feature 3");
        let (second, second_required) = share(&inputs, items, &[1, 2, 3, 4], half(2));
        assert_eq!(origins_and_features(&second), [(1, vec![3, 4])]);
        assert_eq!(second_required, [3, 4]);
    }

    #[test]
    fn with_a_shard_the_kept_items_are_its_share_and_without_one_every_normal_input() {
        let (inputs, mut measured) = three_inputs();
        let (all, required) = kept_items(&inputs, &measured, None);
        assert_eq!(all.iter().map(|i| i.origin).collect::<Vec<_>>(), [0, 1, 2], "the redundant input too");
        assert_eq!(required, [1, 2, 3, 4]);
        measured[1] = Measured::TimedOut;
        let (mine, required) = kept_items(&inputs, &measured, Some(half(1)));
        assert_eq!(origins_and_features(&mine), [(0, vec![1, 2, 3])]);
        assert_eq!(required, [1, 2, 3], "shard 2's input timed out: feature 3 is shard 1's");
        let (theirs, required) = kept_items(&inputs, &measured, Some(half(2)));
        assert!(theirs.is_empty() && required.is_empty(), "{theirs:?} {required:?}");
    }

    #[test]
    fn the_old_size_counts_every_duplicate_file_and_its_bytes() {
        let mut inputs = vec![input(b"abc"), input(b"de")];
        inputs[0].duplicates = vec!["corpus/copy-1".into(), "corpus/copy-2".into()];
        let unreadable = Input { name: "corpus/gone".into(), bytes: Err("no such file".into()) };
        inputs.push(CorpusInput { input: unreadable, ..input(b"") });
        assert_eq!(old_size(&inputs), (5, 3 * 3 + 2), "an unreadable file counts, with no bytes");
        assert_eq!(old_size(&[]), (0, 0));
    }

    #[test]
    fn the_builds_take_the_time_and_memory_limits_from_the_options() {
        let limits = limits(&options(None, None));
        assert_eq!((limits.timeout, limits.rss_limit_mb), (Duration::from_secs(3), 2048));
    }

    #[test]
    fn a_corpus_shrink_only_makes_inputs_smaller_and_leaves_the_time_limit_to_the_whole_run() {
        let interrupt = Interrupt::default();
        let reduce = reduce_options(&options(Some(500), Some(Duration::from_secs(60))), &interrupt);
        assert!(!reduce.lowering, "values of the same size are not lowered (decision 0035)");
        assert!(reduce.wrapping_counters, "256 alike elements are deleted at once (decision 0037)");
        assert_eq!(reduce.min_failures, u32::MAX, "a pass that never paid keeps its budget (decision 0014)");
        assert_eq!(reduce.max_time, None, "--max-time bounds the run, not each shrink");
        assert_eq!(reduce.max_tests, Some(500));
        assert_eq!((reduce.order, reduce.structure, reduce.draws), (Order::Deterministic, false, false));
        assert_eq!((reduce.max_failures, reduce.exhaustive_lowering), (16, false));
        assert!(Arc::ptr_eq(reduce.cancel.as_ref().unwrap(), &interrupt.cancel), "Ctrl-C stops a shrink");
    }

    #[test]
    fn a_harness_without_coverage_counters_fails_with_an_error_saying_so() {
        let blind = Measured::Failed(runner::NOT_INSTRUMENTED.into());
        let failure = instrumented(&[blind.clone(), Measured::Crashed("boom".into()), blind]).unwrap_err();
        assert_eq!(failure.exit, Exit::Error);
        assert_eq!(failure.to_string(), "the coverage harness reports no coverage counters");
    }

    #[test]
    fn one_measured_input_or_other_failures_are_not_a_missing_instrumentation() {
        let blind = Measured::Failed(runner::NOT_INSTRUMENTED.into());
        assert!(instrumented(&[blind, Measured::Covered(vec![1])]).is_ok(), "one input showed counters");
        assert!(instrumented(&[Measured::Failed("cannot run".into()), Measured::TimedOut]).is_ok());
        assert!(instrumented(&[]).is_ok());
    }

    /// A result of `bytes` with `features`.
    fn result(origin: usize, bytes: &[u8], features: &[u32]) -> Item {
        crate::corpus::plan::rounds::tests::item(origin, bytes, features, true)
    }

    /// A new store for a corpus in `root` (empty, as the tests seed it).
    fn empty_store(root: &std::path::Path) -> Store {
        let (source, out, scratch) = (root.join("corpus"), root.join("new"), root.join("s"));
        std::fs::create_dir(&source).unwrap();
        Store::open(&out, &source, &scratch, "build").unwrap()
    }

    #[test]
    fn the_last_cover_keeps_only_the_results_the_required_features_need() {
        let root = tempfile::tempdir().unwrap();
        let mut store = empty_store(root.path());
        let results =
            [result(0, b"aaaa", &[1, 2, 9]), result(1, b"bb", &[2]), result(2, b"c", &[9]), result(3, b"dd", &[1, 3])];
        store.seed(results.iter().map(|r| r.bytes.as_slice())).unwrap();
        let kept = final_cover(&results, &[1, 2, 3], &store).unwrap();
        // Feature 9 is not required: the result kept only for it goes, and the
        // largest goes since the two smaller ones cover what it has.
        assert_eq!(kept, HashSet::from([sha1_hex(b"dd"), sha1_hex(b"bb")]));
        assert!(final_cover(&results, &[], &store).unwrap().is_empty(), "nothing required, nothing kept");
    }

    #[test]
    fn stopped_the_corpus_keeps_every_file_it_holds_else_the_last_cover_and_the_pinned_inputs() {
        let root = tempfile::tempdir().unwrap();
        let mut store = empty_store(root.path());
        let inputs = vec![input(b"aaaa"), input(b"bb"), input(b"varies")];
        let results = vec![result(0, b"aaaa", &[1, 2]), result(1, b"bb", &[2])];
        store.seed(results.iter().map(|r| r.bytes.as_slice())).unwrap();
        let pinned = Pinned { inputs: vec![2], features: vec![7] };
        let rounds = Rounds { results, ..Rounds::none(inputs.len()) };
        let (measured, seconds) = (Vec::new(), PhaseSeconds::default());
        let phased = Phased { measured, measure_runs: 0, required: vec![1, 2], pinned, rounds, seconds };
        let interrupt = Interrupt::default();
        let kept = kept_files(&phased, &inputs, &store, &interrupt).unwrap();
        assert_eq!(kept, HashSet::from([sha1_hex(b"aaaa"), sha1_hex(b"varies")]), "the cover and the pinned input");
        interrupt.raise();
        let held = kept_files(&phased, &inputs, &store, &interrupt).unwrap();
        assert_eq!(held, HashSet::from([sha1_hex(b"aaaa"), sha1_hex(b"bb")]), "every file held, no cover");
    }

    #[test]
    fn the_exit_code_says_stopped_then_whether_every_feature_is_covered() {
        assert_eq!(exit_code(true, true), Exit::Interrupted);
        assert_eq!(exit_code(true, false), Exit::Interrupted);
        assert_eq!(exit_code(false, true), Exit::Minimized);
        assert_eq!(exit_code(false, false), Exit::Unverified, "coverage that varies: written, but short");
    }

    #[test]
    fn each_lap_counts_the_seconds_since_the_one_before() {
        let mut lap = Lap(Instant::now().checked_sub(Duration::from_secs(5)).unwrap());
        let first = lap.next();
        assert!((5.0..60.0).contains(&first), "{first}");
        let second = lap.next();
        assert!(second < 5.0, "counted from the last lap, not the start: {second}");
    }
}
