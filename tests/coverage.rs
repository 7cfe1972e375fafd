//! Coverage for real: the sample project's `tlv` target (and the typed
//! `scene`) built as a coverage harness (SanitizerCoverage as `cargo fuzz
//! build` instruments it) through the library API, run by a
//! `ForkServerExecutor` with room for features. The
//! build goes where a plain run puts harnesses (the default scratch directory
//! under `fuzz/target`, its `coverage/` variant), so it is shared across runs.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// A typed target records examples inside the target's run (the runtime's
/// instrumented code): its features must depend on nothing but the input,
/// in every child.
#[test]
fn a_typed_target_gives_the_same_features_in_every_child() {
    let mut executor = start_target("scene", true, FEATURE_CAPACITY);
    let input: Vec<u8> = (0..300u32).map(|i| b"abc\x01\x02\x07xyz\x03"[i as usize % 10]).collect();
    let first = covered(&mut executor, &input);
    assert!(executor.examples().len() > 1, "values were recorded: {:?}", executor.examples());
    for _ in 0..30 {
        assert_eq!(covered(&mut executor, &input).features, first.features);
    }
}

/// The coverage build records what the plain build of the same scratch
/// source records: derived values (the stand-in's hook) and every primitive
/// read (the draw wrappers), so corpus mode's reducer has the draws too.
#[test]
fn a_coverage_harness_records_derived_values_and_draws_as_the_plain_one_does() {
    let input: Vec<u8> = (0..300u32).map(|i| b"abc\x01\x02\x07xyz\x03"[i as usize % 10]).collect();
    let records = |coverage: bool| {
        let mut executor = start_target("scene", coverage, if coverage { FEATURE_CAPACITY } else { 0 });
        executor.run(&input).unwrap();
        executor.examples().iter().map(|e| (e.label.to_string(), e.front.clone(), e.back.clone())).collect::<Vec<_>>()
    };
    let plain = records(false);
    assert!(plain.iter().any(|(label, ..)| label.starts_with("draw:le:")), "the plain build records draws: {plain:?}");
    assert!(plain.iter().any(|(label, ..)| label == "planted::scene::Scene"), "{plain:?}");
    assert_eq!(records(true), plain, "the same values and draws, at the same bytes");
}

/// The cost of coverage per test: the plain harness, the coverage harness
/// without collecting (instrumentation only) and collecting, on the same
/// inputs, interleaved in blocks so that a busy machine slows all three alike.
/// Prints the numbers; run with `--ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn measure_the_cost_of_coverage_per_test() {
    const RUNS: usize = 4000;
    const BLOCK: usize = 200;
    let inputs: Vec<Vec<u8>> = (0..RUNS)
        .map(|i| match i % 4 {
            0 => Vec::new(),
            1 => tlv(&[(0x01, b"hi")]),
            2 => indexed(i % 300),
            _ => tlv(&[(0x04, &vec![0; i % 1000]), (0x01, b"name")]),
        })
        .collect();
    let mut variants = [
        ("plain", start(false, 0), Duration::ZERO, 0),
        ("coverage harness, no collection", start(true, 0), Duration::ZERO, 0),
        ("coverage harness, collecting", start(true, FEATURE_CAPACITY), Duration::ZERO, 0),
    ];
    for (_, executor, _, _) in &mut variants {
        for input in &inputs[..100] {
            executor.run(input).unwrap();
        }
    }
    for block in inputs.chunks(BLOCK) {
        for (_, executor, elapsed, features) in &mut variants {
            let started = Instant::now();
            for input in block {
                executor.run(input).unwrap();
                *features += executor.coverage().map_or(0, |c| c.features.len());
            }
            *elapsed += started.elapsed();
        }
    }
    for (name, _, elapsed, features) in variants {
        eprintln!("{name}: {:.1?} per test ({RUNS} runs, {features} features read)", elapsed / RUNS as u32);
    }
}
