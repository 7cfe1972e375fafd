//! The corpus mode end to end on generated corpora (`planted-corpus`: hundreds of kilobyte inputs) of a typed and a bytes target: a small fraction of the bytes, every feature kept (by our count and by libFuzzer's own, `-runs=0`), the old directory untouched, a crashing input reported and left out, a rerun resuming, a SIGKILL mid-run, a result split in two, and the usage errors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use super::*;

/// The typed target the generated corpus is for.
const TYPED: &str = "config";

/// `planted-corpus`, built once per test run like `planted-replay`.
fn planted_corpus() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    // The typed targets' encoders need the `arbitrary` derives.
    PATH.get_or_init(|| planted_binary_with("planted-corpus", &["arbitrary"]))
}

/// A generated corpus of `count` inputs for `target` in a new directory (`<tmp>/corpus`).
fn generate(target: &str, count: usize, seed: u64) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(planted_corpus())
        .arg(target)
        .arg(dir.path().join("corpus"))
        .args(["--count", &count.to_string(), "--seed", &seed.to_string()])
        .output()
        .unwrap();
    assert!(output.status.success(), "planted-corpus failed:\n{}", String::from_utf8_lossy(&output.stderr));
    dir
}

/// A finished corpus run.
struct CorpusRun {
    code: Option<i32>,
    stderr: String,
    report: Value,
}

fn run_corpus(target: &str, corpus: &Path, output: &Path, extra: &[&str]) -> CorpusRun {
    let _lock = harness_lock();
    let assert = tool()
        .timeout(Duration::from_secs(900))
        .current_dir(root())
        // libFuzzer's counts here are the `--sanitizer none` build's (`libfuzzer_binary`).
        .args(["--timeout", "1s", "--sanitizer", "none", "--json", target, "--corpus"])
        .arg(corpus)
        .arg("-o")
        .arg(output)
        .args(extra)
        .assert();
    let out = assert.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    CorpusRun { code: out.status.code(), stderr, report }
}

/// Every file in `dir` (not recursively) with its bytes' SHA-1, sorted by name.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), sha1_hex(&std::fs::read(&p).unwrap())))
        .collect();
    files.sort();
    files
}

/// `cov:` and `ft:` of libFuzzer's `INITED` line for a plain `cargo fuzz build` of `target` over `dirs`.
fn libfuzzer_counts(target: &str, dirs: &[&Path]) -> (u64, u64) {
    inited_counts(&libfuzzer_binary(target), dirs)
}

/// The `cargo fuzz build --sanitizer none` binary of `target`.
fn libfuzzer_binary(target: &str) -> PathBuf {
    let _lock = harness_lock();
    super::cargo_fuzz::binary(root(), target)
}

/// Runs the corpus mode on a generated corpus of `target` plus a crashing
/// sample and a duplicate, and checks everything the mode promises.
/// `percent`: the most the new corpus's bytes may be of the old's (a bytes
/// target keeps more: a hit-count bucket of 128+ needs a loop run that often).
fn check_corpus(target: &str, crash: &[u8], percent: u64) {
    let dir = generate(target, 300, 11);
    let corpus = dir.path().join("corpus");
    let crash_copy = corpus.join("crash-from-the-fuzzer");
    std::fs::write(&crash_copy, crash).unwrap();
    let first = files(&corpus).into_iter().next().unwrap().0;
    std::fs::copy(corpus.join(&first), corpus.join("a-duplicate")).unwrap();
    std::fs::write(corpus.join("empty"), b"").unwrap();
    let before = files(&corpus);
    let output = dir.path().join("new");
    let started = Instant::now();
    let run = run_corpus(target, &corpus, &output, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let report = &run.report;
    eprintln!("{target}: {} in {:.1?}", run.stderr.trim(), started.elapsed());

    assert_eq!(files(&corpus), before, "the old corpus is untouched");
    assert_eq!(report["covers_every_feature"], true, "{report:#}");
    let (old, new) = (&report["before"], &report["after"]);
    assert_eq!(old["files"], before.len());
    let features = |side: &Value| side["features"].as_u64().expect("a feature count");
    assert!(features(new) >= features(old), "{old} -> {new}");
    let (old_bytes, new_bytes) = (old["bytes"].as_u64().unwrap(), new["bytes"].as_u64().unwrap());
    assert!(new_bytes * 100 <= old_bytes * percent, "at most {percent}% of the bytes: {old} -> {new}");
    let written = files(&output);
    assert_eq!(written.len() as u64, new["files"].as_u64().unwrap());
    assert!(written.iter().all(|(name, hash)| name == hash), "files are named by their SHA-1: {written:?}");

    let inputs = report["inputs"].as_array().unwrap();
    let crashing = inputs.iter().find(|i| i["name"].as_str().unwrap().ends_with("crash-from-the-fuzzer")).unwrap();
    assert_eq!(crashing["status"], "crash", "{crashing:#}");
    assert!(!written.iter().any(|(_, hash)| *hash == crashing["sha1"]), "the crash is not in the new corpus");
    assert!(run.stderr.contains("crash-from-the-fuzzer"), "the crash is reported:\n{}", run.stderr);
    let empty = inputs.iter().find(|i| i["name"].as_str().unwrap().ends_with("/empty")).unwrap();
    assert_eq!(empty["status"], "empty", "libFuzzer never counts an empty input: {empty:#}");
    assert!(written.iter().all(|(name, _)| std::fs::metadata(output.join(name)).unwrap().len() > 0), "no empty result");
    let duplicated = inputs.iter().find(|i| i["duplicates"].as_array().is_some_and(|d| !d.is_empty())).unwrap();
    assert!(duplicated["duplicates"][0].as_str().unwrap().ends_with("a-duplicate"), "{duplicated:#}");
    // The last shrinks: some result let go of what another one holds now.
    let again =
        |i: &&Value| i["detail"].as_str().is_some_and(|d| d.contains("shrunk again for what no other result has"));
    assert!(inputs.iter().any(|i| again(&i)), "no result was shrunk alone: {inputs:#?}");

    if cargo_fuzz_installed() {
        // libFuzzer stops at a crash: the old corpus without it.
        std::fs::remove_file(&crash_copy).unwrap();
        let old_counts = libfuzzer_counts(target, &[&corpus]);
        let new_counts = libfuzzer_counts(target, &[&output]);
        let both = libfuzzer_counts(target, &[&output, &corpus]);
        eprintln!("{target}: libFuzzer's cov/ft: old {old_counts:?}, new {new_counts:?}, new then old {both:?}");
        assert_eq!(both, new_counts, "libFuzzer finds nothing in the old corpus that the new one lacks");
        assert!(new_counts.0 >= old_counts.0 && new_counts.1 >= old_counts.1, "{old_counts:?} -> {new_counts:?}");
    } else {
        eprintln!("the libFuzzer cross-check was skipped: cargo-fuzz is not installed (`cargo install cargo-fuzz`)");
    }
}

#[test]
fn a_typed_corpus_shrinks_to_a_fraction_of_its_bytes_keeping_every_feature() {
    check_corpus(TYPED, &std::fs::read(Sample::copy(TYPED).crash).unwrap(), 3);
}

#[test]
fn a_bytes_corpus_shrinks_to_a_fraction_of_its_bytes_keeping_every_feature() {
    // The triage target's first byte picks the parser: 0 is tlv's.
    let tlv = std::fs::read(Sample::copy("tlv").crash).unwrap();
    check_corpus("triage", &[&[0u8][..], &tlv].concat(), 15);
}

/// A run on a fixture corpus into `output`, which covers every feature: its report and the names written.
fn covering_run(target: &str, corpus: &Path, output: &Path) -> (Value, BTreeSet<String>) {
    let run = run_corpus(target, corpus, output, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.report["covers_every_feature"], true, "{:#}", run.report);
    (run.report, files(output).into_iter().map(|(name, _)| name).collect())
}

/// The run again into the same `output`: the same files as the `first`
/// run wrote, taken from the saved results in a tenth of its tests.
fn rerun_keeps(target: &str, corpus: &Path, output: &Path, first: (&Value, &BTreeSet<String>)) {
    let (again, rerun) = covering_run(target, corpus, output);
    assert_eq!(&rerun, first.1, "the rerun keeps the same files");
    let (before, after) = (first.0["tests"].as_u64().unwrap(), again["tests"].as_u64().unwrap());
    assert!(after * 10 < before, "the rerun takes the saved results: {before} then {after} tests");
}

/// Three `commands` programs from a corpus run before results were split:
/// the largest (2,274 bytes) is kept both for counts of 32 hits or more and
/// for counts of a few hits, which pinned it.
fn split_corpus() -> PathBuf {
    root().join("tests/data/split-corpus")
}

#[test]
fn a_result_pinned_by_counts_of_few_hits_is_split_in_two_and_a_rerun_keeps_both() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("new");
    let (report, written) = covering_run("commands", &split_corpus(), &output);
    let inputs = report["inputs"].as_array().unwrap();
    let split = inputs.iter().find(|i| i["split_off"].as_array().is_some_and(|s| !s.is_empty()));
    let split = split.unwrap_or_else(|| panic!("no input was split: {report:#}"));
    assert_eq!(split["size"], 2274, "{split:#}");
    let part = split["split_off"][0].as_str().unwrap().to_owned();
    let result = split["result"].as_str().unwrap().to_owned();
    assert!(written.contains(&part) && written.contains(&result), "both parts are in the new corpus: {written:?}");
    assert_eq!(written.len() as u64, report["after"]["files"].as_u64().unwrap());
    let sizes = split["result_size"].as_u64().unwrap() + std::fs::metadata(output.join(&part)).unwrap().len();
    assert!(sizes < 2274, "the two parts are smaller together than the input: {sizes}");

    rerun_keeps("commands", &split_corpus(), &output, (&report, &written));
}

#[test]
fn a_rerun_resumes_and_a_run_killed_midway_loses_nothing_done() {
    let dir = generate(TYPED, 120, 5);
    let corpus = dir.path().join("corpus");
    let output = dir.path().join("new");
    let complete = run_corpus(TYPED, &corpus, &output, &["--workers", "1"]);
    assert_eq!(complete.code, Some(0), "{}", complete.stderr);
    let again = run_corpus(TYPED, &corpus, &output, &[]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(files(&output).len() as u64, again.report["after"]["files"].as_u64().unwrap());
    let (first_tests, rerun_tests) =
        (complete.report["tests"].as_u64().unwrap(), again.report["tests"].as_u64().unwrap());
    assert!(rerun_tests * 3 < first_tests, "the rerun takes the saved results: {first_tests} then {rerun_tests} tests");
    assert_eq!(again.report["covers_every_feature"], true);

    // Killed as soon as the first input is saved; the rerun finishes the job.
    let killed = dir.path().join("killed");
    let _lock = harness_lock();
    let mut child = Command::new(BIN)
        .current_dir(root())
        .args(["-q", "--workers", "1", "--sanitizer", "none", TYPED, "--corpus"])
        .arg(&corpus)
        .arg("-o")
        .arg(&killed)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while std::fs::read_dir(&killed).map_or(0, |d| d.count()) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let saved: BTreeSet<(String, String)> = files(&killed).into_iter().collect();
    assert!(!saved.is_empty(), "the first result was saved before the kill");
    drop(_lock);
    let resumed = run_corpus(TYPED, &corpus, &killed, &[]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert_eq!(resumed.report["covers_every_feature"], true);
    // The contract, not a count: how many features a shrunk corpus gains
    // beyond the original's depends on the path its shrinks took (issue 50).
    let features = |report: &Value, side: &str| report[side]["features"].as_u64().unwrap();
    assert!(features(&resumed.report, "after") >= features(&complete.report, "before"), "{:#}", resumed.report);
}

/// The target whose generated corpora join: a stack of at most 64 values,
/// so programs kept for counts of many pushes or calls hold elements another
/// program's count can share. A 30-input corpus of seeds 1 and 2 each made
/// two joins on one worker (after decision 0109); the `scene` fixtures of
/// earlier sessions stopped joining whenever the rounds changed what their
/// results keep.
const JOINING: &str = "commands";

/// The `--workers 1` corpus run [`covering_run`] makes.
fn covering_run_on_one_worker(target: &str, corpus: &Path, output: &Path) -> (Value, BTreeSet<String>) {
    let run = run_corpus(target, corpus, output, &["--workers", "1"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.report["covers_every_feature"], true, "{:#}", run.report);
    (run.report, files(output).into_iter().map(|(name, _)| name).collect())
}

#[test]
fn two_large_results_join_into_one_smaller_input_and_a_rerun_keeps_it() {
    let dir = generate(JOINING, 30, 1);
    let (corpus, output) = (dir.path().join("corpus"), dir.path().join("new"));
    let (report, written) = covering_run_on_one_worker(JOINING, &corpus, &output);
    let inputs = report["inputs"].as_array().unwrap();
    let joined: Vec<&Value> =
        inputs.iter().filter(|i| i["detail"].as_str().is_some_and(|d| d.contains("joined"))).collect();
    let mut pairs: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for input in &joined {
        pairs.entry(input["result"].as_str().unwrap()).or_default().push(input);
    }
    assert!(!pairs.is_empty(), "a pair joined: {report:#}");
    for (result, pair) in &pairs {
        // Two inputs' results, or one input's result and the part split off it.
        let parts =
            pair.len() + pair.iter().filter(|i| i["split_off"].as_array().is_some_and(|s| !s.is_empty())).count();
        assert!(parts >= 2, "every joined input's result is the joined one: {pair:#?}");
        let apart: u64 = pair.iter().map(|i| i["size"].as_u64().unwrap()).sum();
        assert!(pair[0]["result_size"].as_u64().unwrap() < apart, "{pair:#?}");
        assert!(written.contains(*result), "{written:?}");
    }
    assert!(report["after"]["files"].as_u64() < report["before"]["files"].as_u64(), "{report:#}");
    assert_eq!(written.len() as u64, report["after"]["files"].as_u64().unwrap());
    if cargo_fuzz_installed() {
        let old_counts = libfuzzer_counts(JOINING, &[&corpus]);
        let both = libfuzzer_counts(JOINING, &[&output, &corpus]);
        assert_eq!(both, libfuzzer_counts(JOINING, &[&output]), "libFuzzer finds nothing the joined corpus lacks");
        assert!(both.0 >= old_counts.0 && both.1 >= old_counts.1, "{old_counts:?} -> {both:?}");
    }

    let (again, rerun) = covering_run_on_one_worker(JOINING, &corpus, &output);
    assert_eq!(rerun, written, "the rerun keeps the same files");
    let (before, after) = (report["tests"].as_u64().unwrap(), again["tests"].as_u64().unwrap());
    assert!(after * 10 < before, "the rerun takes the saved results: {before} then {after} tests");
}

#[test]
fn corpus_mode_usage_errors_exit_2_and_an_unknown_target_exits_4() {
    let dir = generate(TYPED, 3, 1);
    let corpus = dir.path().join("corpus");
    let inside = run_corpus(TYPED, &corpus, &corpus.join("new"), &[]);
    assert_eq!(inside.code, Some(2), "{}", inside.stderr);
    assert!(inside.stderr.contains("apart from the corpus"), "{}", inside.stderr);
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let foreign = run_corpus(TYPED, &corpus, &theirs, &[]);
    assert_eq!(foreign.code, Some(2), "{}", foreign.stderr);
    assert!(foreign.stderr.contains("did not write"), "{}", foreign.stderr);
    assert_eq!(std::fs::read_to_string(theirs.join("notes.txt")).unwrap(), "mine");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let nothing = run_corpus(TYPED, &empty, &dir.path().join("out"), &[]);
    assert_eq!(nothing.code, Some(2), "{}", nothing.stderr);
    assert!(nothing.stderr.contains("has no files"), "{}", nothing.stderr);
    let no_output = tool().current_dir(root()).args([TYPED, "--corpus"]).arg(&corpus).assert();
    assert_eq!(no_output.get_output().status.code(), Some(2));
    let unknown = run_corpus("no_such_target", &corpus, &dir.path().join("out2"), &[]);
    assert_eq!(unknown.code, Some(4), "{}", unknown.stderr);
}

/// Whether `dir` covers every feature of `corpus` by libFuzzer's own count:
/// libFuzzer finds nothing in the corpus that `dir` lacks (skipped without cargo-fuzz).
fn covers_by_libfuzzer(dir: &Path, corpus: &Path) -> bool {
    if !cargo_fuzz_installed() {
        eprintln!("the libFuzzer cross-check was skipped: cargo-fuzz is not installed (`cargo install cargo-fuzz`)");
        return true;
    }
    let (alone, both) = (libfuzzer_counts(TYPED, &[dir]), libfuzzer_counts(TYPED, &[dir, corpus]));
    eprintln!("libFuzzer's cov/ft of {}: {alone:?}, with the corpus {both:?}", dir.display());
    alone == both
}

#[test]
fn a_run_killed_at_random_moments_always_leaves_an_empty_or_complete_corpus() {
    let dir = generate(TYPED, 150, 21);
    let corpus = dir.path().join("corpus");
    let output = dir.path().join("new");
    // Moments from the clock, printed: a failure names the one that broke it.
    let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64;
    for kill in 0..4 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let after = Duration::from_millis(300 + (seed >> 33) % 6000);
        let _lock = harness_lock();
        let mut child = Command::new(BIN)
            .current_dir(root())
            .args(["-q", "--timeout", "1s", "--sanitizer", "none", TYPED, "--corpus"])
            .arg(&corpus)
            .arg("-o")
            .arg(&output)
            .spawn()
            .unwrap();
        std::thread::sleep(after);
        child.kill().unwrap();
        child.wait().unwrap();
        drop(_lock);
        let written = std::fs::read_dir(&output).map_or(0, |d| d.count());
        eprintln!("kill {kill} after {after:?}: {written} files");
        assert!(written == 0 || covers_by_libfuzzer(&output, &corpus), "killed after {after:?}: not complete");
    }
    let finished = run_corpus(TYPED, &corpus, &output, &[]);
    assert_eq!(finished.code, Some(0), "{}", finished.stderr);
    assert_eq!(files(&output).len() as u64, finished.report["after"]["files"].as_u64().unwrap());
    assert!(covers_by_libfuzzer(&output, &corpus));
}

#[test]
fn max_time_bounds_the_whole_run_which_ends_with_a_complete_corpus() {
    let dir = generate(TYPED, 150, 22);
    let corpus = dir.path().join("corpus");
    let output = dir.path().join("new");
    // Past already when the first corpus is written: the run stops right there.
    let run = run_corpus(TYPED, &corpus, &output, &["--max-time", "1ms"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let report = &run.report;
    assert_eq!((report["stopped_at_max_time"].as_bool(), report["interrupted"].as_bool()), (Some(true), Some(false)));
    assert_eq!(report["covers_every_feature"], true, "{report:#}");
    assert!(report["first_complete_seconds"].as_f64().unwrap() <= report["seconds"].as_f64().unwrap());
    assert!(run.stderr.contains("stopped at --max-time"), "{}", run.stderr);
    let kept = report["inputs"].as_array().unwrap().iter().filter(|i| i["status"] == "kept").count();
    assert_eq!(files(&output).len(), kept, "the inputs the cover keeps, as they are");
    assert_eq!(report["after"]["files"].as_u64().unwrap() as usize, kept);
    assert!(covers_by_libfuzzer(&output, &corpus));
}

#[test]
fn a_run_stopped_in_its_rounds_is_gone_on_with_by_the_rerun_and_a_finished_one_kept_as_it_is() {
    let dir = generate("scene", 100, 31);
    let corpus = dir.path().join("corpus");
    let output = dir.path().join("new");
    // Both harnesses built first (a one-input run): the time bound is the rounds'.
    let (one, first) = (dir.path().join("one"), files(&corpus).into_iter().next().unwrap().0);
    std::fs::create_dir(&one).unwrap();
    std::fs::copy(corpus.join(&first), one.join(&first)).unwrap();
    assert_eq!(run_corpus("scene", &one, &dir.path().join("one-new"), &[]).code, Some(0));
    let stopped = run_corpus("scene", &corpus, &output, &["--workers", "1", "--max-time", "4s"]);
    assert_eq!(stopped.code, Some(0), "{}", stopped.stderr);
    assert_eq!(stopped.report["stopped_at_max_time"], true, "{}", stopped.stderr);
    let inputs = stopped.report["inputs"].as_array().unwrap();
    let shrunk = |i: &&Value| i["result_size"].as_u64().is_some_and(|r| r < i["size"].as_u64().unwrap());
    assert!(inputs.iter().any(|i| shrunk(&i)), "some results were saved before the stop: {}", stopped.stderr);
    let kept_line =
        |stderr: &str| stderr.lines().find(|l| l.contains("inputs that run normally")).unwrap_or("").to_owned();
    let again = run_corpus("scene", &corpus, &output, &[]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(again.report["stopped_at_max_time"], false);
    assert!(!kept_line(&again.stderr).contains("kept as they are"), "shrunk on: {}", again.stderr);
    assert_eq!(again.report["covers_every_feature"], true, "{:#}", again.report);
    let bytes = |run: &CorpusRun| run.report["after"]["bytes"].as_u64().unwrap();
    assert!(bytes(&again) <= bytes(&stopped), "{} then {}", bytes(&stopped), bytes(&again));
    let third = run_corpus("scene", &corpus, &output, &[]);
    assert!(kept_line(&third.stderr).contains("kept as they are; shrinking the other 0"), "{}", third.stderr);
    assert_eq!(bytes(&third), bytes(&again));
}

/// The binaries a run's "built PATH in TIME" lines name, in order.
fn built_binaries(stderr: &str) -> Vec<PathBuf> {
    let named = stderr.lines().filter_map(|l| l.strip_prefix("built ")?.rsplit_once(" in ").map(|(p, _)| p.into()));
    named.collect()
}

/// Copies every file of `from` into `to` (created).
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (name, _) in files(from) {
        std::fs::copy(from.join(&name), to.join(&name)).unwrap();
    }
}

#[test]
fn an_earlier_output_is_kept_and_only_what_it_lacks_is_shrunk() {
    let dir = generate(TYPED, 200, 23);
    let (corpus, first) = (dir.path().join("corpus"), dir.path().join("first"));
    let grown = dir.path().join("grown");
    std::fs::create_dir(&grown).unwrap();
    let names = files(&corpus);
    for (name, _) in &names[..180] {
        std::fs::copy(corpus.join(name), grown.join(name)).unwrap();
    }
    let full = run_corpus(TYPED, &grown, &first, &[]);
    assert_eq!(full.code, Some(0), "{}", full.stderr);
    let coverage_build = built_binaries(&full.stderr).into_iter().next().expect("the coverage build's line");
    let linked = std::fs::metadata(&coverage_build).unwrap().modified().unwrap();
    // The nightly job: the earlier output from another machine (no journal), a tenth more inputs.
    let again = dir.path().join("again");
    copy_files(&first, &again);
    copy_files(&corpus, &grown);
    let rerun = run_corpus(TYPED, &grown, &again, &[]);
    assert_eq!(rerun.code, Some(0), "{}", rerun.stderr);
    // The crash build in between left the coverage build's files alone (decision 0066).
    assert_eq!(built_binaries(&rerun.stderr)[0], coverage_build);
    let relinked = std::fs::metadata(&coverage_build).unwrap().modified().unwrap();
    assert_eq!(relinked, linked, "the coverage harness was rebuilt on a warm project:\n{}", rerun.stderr);
    assert_eq!(rerun.report["covers_every_feature"], true, "{:#}", rerun.report);
    let (full_tests, rerun_tests) = (full.report["tests"].as_u64().unwrap(), rerun.report["tests"].as_u64().unwrap());
    eprintln!("full run {full_tests} tests, incremental {rerun_tests}");
    assert!(rerun_tests * 5 <= full_tests, "{full_tests} then {rerun_tests} tests");
    let earlier = rerun.report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["detail"].as_str().is_some_and(|d| d.contains("earlier run's result")));
    assert!(earlier.count() > 0, "the earlier output's files are kept as they are: {:#}", rerun.report);
    assert!(covers_by_libfuzzer(&again, &grown));
}

#[test]
fn two_shards_joined_cover_every_feature_as_one_run_does() {
    let dir = generate(TYPED, 150, 24);
    let corpus = dir.path().join("corpus");
    let joined = dir.path().join("joined");
    let mut shard_files = 0;
    for shard in ["1/2", "2/2"] {
        let output = dir.path().join(format!("shard-{}", &shard[..1]));
        let run = run_corpus(TYPED, &corpus, &output, &["--shard", shard]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let others: Vec<&Value> = run.report["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["detail"].as_str().is_some_and(|d| d.starts_with("in another shard than")))
            .collect();
        assert!(!others.is_empty() && others.len() < 150, "{} inputs of other shards", others.len());
        assert!(others.iter().all(|i| i["status"] == "covered"), "{others:#?}");
        shard_files += files(&output).len();
        copy_files(&output, &joined);
    }
    let join = run_corpus(TYPED, &corpus, &joined, &[]);
    assert_eq!(join.code, Some(0), "{}", join.stderr);
    assert_eq!(join.report["covers_every_feature"], true, "{:#}", join.report);
    let kept = join.report["after"]["files"].as_u64().unwrap() as usize;
    assert!(kept <= shard_files, "{kept} files of the shards' {shard_files}");
    assert_eq!(files(&joined).len(), kept);
    assert!(covers_by_libfuzzer(&joined, &corpus));
}

#[test]
fn features_that_vary_from_run_to_run_are_kept_by_inputs_kept_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, output) = (dir.path().join("corpus"), dir.path().join("new"));
    std::fs::create_dir(&corpus).unwrap();
    // Inputs of 12 to 40 distinct bytes: a `HashMap` of them walks its keys in another order every run.
    for n in 0..20u8 {
        let bytes: Vec<u8> = (0..12 + n + n / 2).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
        std::fs::write(corpus.join(format!("input-{n}")), bytes).unwrap();
    }
    let run = run_corpus("varying", &corpus, &output, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let report = &run.report;
    assert_eq!(report["covers_every_feature"], true, "{report:#}");
    assert!(report["varying_features"].as_u64().unwrap() > 0, "{report:#}");
    assert!(run.stderr.contains("vary from run to run"), "{}", run.stderr);
    let inputs = report["inputs"].as_array().unwrap();
    let pinned: Vec<&Value> = inputs
        .iter()
        // Pinned when measured ("shows features that vary"), or found to vary
        // in a shrink ("its coverage varies"), which keeps the input as that
        // round had it (a later one may cover it): which one depends on the runs.
        .filter(|i| i["detail"].as_str().is_some_and(|d| d.contains("from run to run")))
        .collect();
    assert!(!pinned.is_empty(), "{report:#}");
    let written: BTreeSet<String> = files(&output).into_iter().map(|(_, hash)| hash).collect();
    for input in pinned.iter().filter(|i| i["status"] == "kept") {
        let kept = input.get("result").unwrap_or(&input["sha1"]);
        assert!(written.contains(kept.as_str().unwrap()), "kept as it is: {input:#}");
    }
    assert!(pinned.iter().any(|i| i["status"] == "kept"), "{report:#}");
    // More runs per input than inputs: the ones that vary ran up to four times.
    assert!(report["tests"].as_u64().unwrap() >= 40, "{report:#}");
}

/// Shrinks run their candidates in a staying child (decision 0090). On a
/// target whose coverage depends on the runs before it (`history`: whether an
/// input ended with `x` is kept for the process's life), candidates pass there
/// that fail alone (the `x` deleted first, from the end): the result is
/// checked in a fresh child, and the shrink runs again with a fresh child per
/// candidate. The result keeps its `x`.
#[test]
fn a_shrink_that_passed_only_after_earlier_runs_is_run_again_in_fresh_children() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, output) = (dir.path().join("corpus"), dir.path().join("new"));
    std::fs::create_dir(&corpus).unwrap();
    let input: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(53) | 1).chain(*b"x").collect();
    std::fs::write(corpus.join("input"), &input).unwrap();
    let run = run_corpus("history", &corpus, &output, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.report["covers_every_feature"], true, "{:#}", run.report);
    let written: Vec<Vec<u8>> =
        std::fs::read_dir(&output).unwrap().map(|e| std::fs::read(e.unwrap().path()).unwrap()).collect();
    assert_eq!(written.len(), 1, "{:#}", run.report);
    assert_eq!(written[0].len(), 4, "shrunk to the 4 bytes the branch needs: {:?}", written[0]);
    assert_eq!(written[0][3], b'x', "run alone, the result must still end with x: {:?}", written[0]);
}

/// Decision 0117: on an AddressSanitizer build a shrink's candidates run
/// without its quarantine of freed memory, where `asan_freed`'s use after
/// free passes. Its `!` inputs have long notes and the same features,
/// which a note of 4 bytes has too (the candidates' server, unchecked,
/// reached `UAF!abcd`; the stack depth is `UAF#`'s, so their shrink runs
/// there); with a note of less than 8 bytes they crash with the
/// quarantine. The new corpus never holds such an input: the result is
/// checked with AddressSanitizer's defaults, and the shrink runs again with
/// them.
#[test]
fn with_address_sanitizer_a_shrink_never_keeps_a_result_that_crashes_with_the_quarantine() {
    if let Some(reason) = asan_unavailable() {
        panic!("this test needs rustc to build with AddressSanitizer: {reason}");
    }
    let dir = tempfile::tempdir().unwrap();
    let (corpus, output) = (dir.path().join("corpus"), dir.path().join("new"));
    std::fs::create_dir(&corpus).unwrap();
    for length in [12, 20, 33] {
        let note: Vec<u8> = (0..length).map(|i| b'a' + i % 26).collect();
        std::fs::write(corpus.join(format!("marked-{length}")), [b"UAF!".as_slice(), &note].concat()).unwrap();
    }
    std::fs::write(corpus.join("hash"), b"UAF#").unwrap();
    // The ASan harness shares the heap overread test's target dir (`cli-asan`).
    let target_dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-asan");
    let _lock = harness_lock();
    let assert = tool()
        .timeout(Duration::from_secs(600))
        .current_dir(root())
        .args(["--timeout", "1s", "--sanitizer", "address", "--json", "--target-dir"])
        .arg(&target_dir)
        .args(["asan_freed", "--corpus"])
        .arg(&corpus)
        .arg("-o")
        .arg(&output)
        .assert();
    let out = assert.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["coverage_build"].as_str(), report["covers_every_feature"].as_bool()),
        (Some("address"), Some(true))
    );
    let mut files: Vec<Vec<u8>> =
        std::fs::read_dir(&output).unwrap().map(|entry| std::fs::read(entry.unwrap().path()).unwrap()).collect();
    files.sort();
    assert_eq!(files.len(), 2, "`UAF#` and one `!` input hold every feature: {files:?}");
    assert_eq!((&files[0][..4], &files[1][..]), (&b"UAF!"[..], &b"UAF#"[..]), "{files:?}");
    let note = files[0].len() - 4;
    assert!((8..12).contains(&note), "shrunk to a note of 8 bytes, no shorter (a use after free): {files:?}\n{stderr}");
}
