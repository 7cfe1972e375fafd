//! Coverage for real: the sample project's `tlv` target (and the typed
//! `scene`) built as a coverage harness (SanitizerCoverage as `cargo fuzz
//! build` instruments it) through the library API, run by a
//! `ForkServerExecutor` with room for features. The
//! build goes where a plain run puts harnesses (the default scratch directory
//! under `fuzz/target`, its `coverage/` variant), so it is shared across runs.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "support/sancov.rs"]
mod sancov;

use cargo_minimize_crash::exec::{Coverage, Executor, ForkServerConfig, ForkServerExecutor, Status};
use cargo_minimize_crash::project::{build_harness, BuildOptions, FuzzProject};

/// As corpus mode asks for.
const FEATURE_CAPACITY: u32 = 1 << 20;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The harness of `target` (`coverage` or plain), built once per test run.
fn harness(target: &str, coverage: bool) -> PathBuf {
    static BUILT: Mutex<Vec<(String, bool, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, _, binary)) = built.iter().find(|(t, c, _)| t == target && *c == coverage) {
        return binary.clone();
    }
    let project = FuzzProject::locate(None, root()).unwrap_or_else(|e| panic!("{e}"));
    // As the tool builds it: the binary compiles its own runtime uninstrumented.
    let rustc_wrapper = Some(PathBuf::from(env!("CARGO_BIN_EXE_cargo-minimize-crash")));
    let options = BuildOptions { coverage, rustc_wrapper, ..BuildOptions::default() };
    let harness = build_harness(&project, target, &options).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("built {} in {:.1?}", harness.binary.display(), harness.duration);
    built.push((target.to_string(), coverage, harness.binary.clone()));
    harness.binary
}

/// A fork server of the `tlv` harness with room for `feature_capacity` features.
fn start(coverage: bool, feature_capacity: u32) -> ForkServerExecutor {
    start_target("tlv", coverage, feature_capacity)
}

fn start_target(target: &str, coverage: bool, feature_capacity: u32) -> ForkServerExecutor {
    let mut config = ForkServerConfig::new(harness(target, coverage), Duration::from_secs(10));
    config.feature_capacity = feature_capacity;
    ForkServerExecutor::start(config).unwrap_or_else(|e| panic!("{e:#}"))
}

/// Runs `input` and returns its coverage, which a run that returns must have.
fn covered(executor: &mut ForkServerExecutor, input: &[u8]) -> Coverage {
    let outcome = executor.run(input).unwrap();
    assert_eq!(outcome.status, Status::Exited(0), "{}", outcome.stderr_text());
    executor.coverage().expect("a run that returned has coverage")
}

/// A TLV file: the magic, then `(tag, payload)` chunks.
fn tlv(chunks: &[(u8, &[u8])]) -> Vec<u8> {
    let mut file = b"TLV1".to_vec();
    for (tag, payload) in chunks {
        file.push(*tag);
        file.extend_from_slice(&(payload.len() as u16).to_le_bytes());
        file.extend_from_slice(payload);
    }
    file
}

/// A one-entry table, then an `INDEX` chunk selecting its entry `count` times.
fn indexed(count: usize) -> Vec<u8> {
    tlv(&[(0x02, &[1, 7, 0, 0, 0]), (0x03, &vec![0; count])])
}

fn crash() -> Vec<u8> {
    let dir = root().join("corpus-samples/tlv");
    let crash = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("crash-"))
        .unwrap_or_else(|| panic!("no crash in {}", dir.display()));
    std::fs::read(crash).unwrap()
}

#[test]
fn the_same_input_gives_the_same_features_and_other_paths_other_ones() {
    let mut executor = start(true, FEATURE_CAPACITY);
    let named = tlv(&[(0x01, b"hi")]);
    let first = covered(&mut executor, &named);
    assert!(first.is_instrumented(), "{first:?}");
    assert!(!first.cut);
    assert!(first.features.windows(2).all(|w| w[0] < w[1]), "ascending and unique: {:?}", first.features);
    assert_eq!(covered(&mut executor, &named), first, "the same input twice");

    // A CHECK chunk with the sum of the previous payload: 'h' + 'i' = 209.
    let checked = tlv(&[(0x01, b"hi"), (0x05, &[209, 0, 0, 0])]);
    let other = covered(&mut executor, &checked);
    assert_ne!(other.features, first.features, "a CHECK chunk takes another path");
    assert_eq!(other.counters, first.counters);
    eprintln!(
        "{} counters; NAME: {} features, {} edges, stack {} bytes; NAME + CHECK: {} features",
        first.counters,
        first.features.len(),
        first.edges().count(),
        first.stack_offset,
        other.features.len()
    );
    // The same input after another one: nothing carries over.
    assert_eq!(covered(&mut executor, &named), first);
}

#[test]
fn an_empty_input_still_covers_the_target_and_the_stack_is_measured() {
    let mut executor = start(true, FEATURE_CAPACITY);
    let empty = covered(&mut executor, b"");
    assert!(!empty.features.is_empty(), "the target ran: {empty:?}");
    assert!(empty.features.iter().all(|&f| f < empty.counters * 8 + 495), "{empty:?}");
    if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        assert!(empty.stack_offset > 0, "stack-depth instrumentation: {empty:?}");
        assert!(empty.stack_feature().is_some(), "{empty:?}");
    }
    let valid = covered(&mut executor, &indexed(1));
    assert!(valid.features.len() > empty.features.len(), "a valid file goes further: {valid:?}");
}

#[test]
fn an_inner_loop_run_more_often_lands_in_a_higher_bucket() {
    let mut executor = start(true, FEATURE_CAPACITY);
    let few = covered(&mut executor, &indexed(2));
    let many = covered(&mut executor, &indexed(200));
    let few_of = |edge: u32| few.counter_features().iter().copied().find(|&f| f / 8 == edge);
    let higher = many.counter_features().iter().any(|&f| few_of(f / 8).is_some_and(|g| g < f));
    assert!(higher, "no edge went to a higher bucket:\n  2x: {:?}\n200x: {:?}", few.features, many.features);
    // 200 values also grow the `selected` vector more often: new edges, none lost.
    let many_edges: Vec<u32> = many.edges().collect();
    assert!(few.edges().all(|edge| many_edges.binary_search(&edge).is_ok()), "{few:?}\n{many:?}");
}

#[test]
fn a_crash_or_a_capacity_of_zero_has_no_coverage_and_a_small_area_is_cut() {
    let mut executor = start(true, FEATURE_CAPACITY);
    let outcome = executor.run(&crash()).unwrap();
    assert!(matches!(outcome.status, Status::Signaled(_)), "{outcome:?}");
    assert_eq!(executor.coverage(), None);
    covered(&mut executor, b"");

    let mut without = start(true, 0);
    without.run(b"").unwrap();
    assert_eq!(without.coverage(), None, "no room asked for");

    let mut small = start(true, 4);
    let cut = covered(&mut small, &indexed(1));
    assert!(cut.cut, "{cut:?}");
    assert_eq!(cut.features.len(), 4);
}

#[test]
fn a_harness_built_without_coverage_reports_no_counters() {
    let mut executor = start(false, FEATURE_CAPACITY);
    let coverage = covered(&mut executor, &indexed(1));
    assert!(!coverage.is_instrumented(), "{coverage:?}");
    assert_eq!(coverage, Coverage::default());
}

/// A typed target's features depend on nothing but the input, in every child.
#[test]
fn a_typed_target_gives_the_same_features_in_every_child() {
    let mut executor = start_target("scene", true, FEATURE_CAPACITY);
    let input: Vec<u8> = (0..300u32).map(|i| b"abc\x01\x02\x07xyz\x03"[i as usize % 10]).collect();
    let first = covered(&mut executor, &input);
    for _ in 0..30 {
        assert_eq!(covered(&mut executor, &input).features, first.features);
    }
}

/// The coverage build records nothing (corpus mode takes examples and draws
/// from the plain build), where the plain build records derived values and draws.
#[test]
fn a_coverage_harness_records_nothing_where_the_plain_one_records_values_and_draws() {
    let input: Vec<u8> = (0..300u32).map(|i| b"abc\x01\x02\x07xyz\x03"[i as usize % 10]).collect();
    let records = |coverage: bool| {
        let mut executor = start_target("scene", coverage, if coverage { FEATURE_CAPACITY } else { 0 });
        executor.run(&input).unwrap();
        executor.examples().iter().map(|e| e.label.to_string()).collect::<Vec<_>>()
    };
    let plain = records(false);
    assert!(plain.iter().any(|label| label.starts_with("draw:le:")), "the plain build records draws: {plain:?}");
    assert!(plain.iter().any(|label| label == "planted::scene::Scene"), "{plain:?}");
    assert_eq!(records(true), Vec::<String>::new());
}

/// Every function of the coverage harness has as many counters as in a
/// `cargo fuzz build` binary of the same target (but the stand-in's `main`,
/// which counts before the fork server starts), so a feature is libFuzzer's.
/// The examples' recording once broke this: it made scene's derived methods
/// too large to inline (703 counters against 676).
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn a_coverage_harness_has_the_counters_of_a_cargo_fuzz_build_function_by_function() {
    cargo_fuzz::require();
    let entry = |name: &str| name == "main";
    for target in ["scene", "commands", "config", "deep_tree", "orders", "tlv"] {
        let ours = sancov::counters_per_function(&harness(target, true));
        let theirs = sancov::counters_per_function(&cargo_fuzz::binary(root(), target));
        let names: std::collections::BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
        let differ: Vec<(&String, usize, usize)> = names
            .into_iter()
            .filter(|name| !entry(name))
            .map(|name| (name, ours.get(name).copied().unwrap_or(0), theirs.get(name).copied().unwrap_or(0)))
            .filter(|(_, a, b)| a != b)
            .collect();
        let total: usize = theirs.values().sum();
        eprintln!("{target}: {total} counters in cargo fuzz build's binary, {} functions differ", differ.len());
        assert!(total > 300, "{target}: {theirs:?}");
        assert!(differ.is_empty(), "{target}: (function, ours, cargo fuzz build's): {differ:#?}");
    }
}

/// Every input's features are libFuzzer's, up to the counters' numbering:
/// as many counter features, and the same stack-depth step (our runtime
/// records the initial stack where libFuzzer's `RecordInitialStack` does),
/// over scene's saved corpus results and commands' split corpus. libFuzzer's
/// features of one input are the `FT` line of a `-merge=1` run over it alone.
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn each_inputs_features_are_the_ones_libfuzzer_counts() {
    cargo_fuzz::require();
    for (target, dir) in [("scene", "tests/data/join-corpus"), ("commands", "tests/data/split-corpus")] {
        let binary = cargo_fuzz::binary(root(), target);
        let their_counters: usize = sancov::counters_per_function(&binary).values().sum();
        let mut executor = start_target(target, true, FEATURE_CAPACITY);
        let mut stack_features = 0;
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let coverage = covered(&mut executor, &std::fs::read(&path).unwrap());
            let ours = by_kind(&coverage.features, coverage.counters as usize);
            let theirs = by_kind(&libfuzzer_features(&binary, &path), their_counters);
            assert_eq!(ours, theirs, "{target} {}: (counter features, stack step)", path.display());
            stack_features += usize::from(ours.1.is_some());
        }
        assert!(stack_features > 0, "{target}: no input measured a stack depth");
    }
}

/// Features as (how many are counters', the stack feature's step) for a binary of `counters` counters.
fn by_kind(features: &[u32], counters: usize) -> (usize, Option<usize>) {
    let base = counters * 8;
    let stack: Vec<usize> = features.iter().map(|&f| f as usize).filter(|&f| f >= base).map(|f| f - base).collect();
    assert!(stack.len() <= 1, "one stack feature at most: {stack:?}");
    (features.len() - stack.len(), stack.first().copied())
}

/// libFuzzer's features of `input`: the `FT` line of a merge of it alone into an empty corpus.
fn libfuzzer_features(binary: &Path, input: &Path) -> Vec<u32> {
    let dir = tempfile::tempdir().unwrap();
    let (empty, alone, control) = (dir.path().join("empty"), dir.path().join("alone"), dir.path().join("control"));
    std::fs::create_dir(&empty).unwrap();
    std::fs::create_dir(&alone).unwrap();
    std::fs::copy(input, alone.join("input")).unwrap();
    let output = std::process::Command::new(binary)
        .arg("-merge=1")
        .arg(format!("-merge_control_file={}", control.display()))
        .args([&empty, &alone])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&control).unwrap();
    let line = text.lines().find(|l| l.starts_with("FT ")).unwrap_or_else(|| panic!("no FT line:\n{text}"));
    line.split_whitespace().skip(2).map(|f| f.parse().unwrap()).collect()
}
