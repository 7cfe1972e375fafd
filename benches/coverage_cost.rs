//! What coverage costs per test (decision 0085): the plain `tlv` harness, the coverage harness without collecting (instrumentation only) and collecting, on the same inputs, interleaved in blocks so that a busy machine slows all three alike; a markdown table with each against the plain one.
//!
//! ```text
//! cargo bench --bench coverage_cost
//! ```
//!
//! Run without `--bench` (as `cargo test --benches` does) it only checks
//! the inputs it would run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cargo_minimize_crash::exec::{Executor, ForkServerConfig, ForkServerExecutor};
use cargo_minimize_crash::project::{build_harness, BuildOptions, FuzzProject};

/// Tests per variant, run in blocks of [`BLOCK`].
const RUNS: usize = 4000;
const BLOCK: usize = 200;
/// As corpus mode asks for.
const FEATURE_CAPACITY: u32 = 1 << 20;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `tlv` harness, coverage or plain, built as the tool builds it.
fn harness(coverage: bool) -> PathBuf {
    let project = FuzzProject::locate(None, root()).unwrap_or_else(|e| panic!("{e}"));
    // The binary compiles its own runtime uninstrumented, as a run of the tool does.
    let rustc_wrapper = Some(PathBuf::from(env!("CARGO_BIN_EXE_cargo-minimize-crash")));
    let options = BuildOptions { coverage, rustc_wrapper, ..BuildOptions::default() };
    build_harness(&project, "tlv", &options).unwrap_or_else(|e| panic!("{e}")).binary
}

/// A fork server of `binary` with room for `feature_capacity` features.
fn start(binary: &Path, feature_capacity: u32) -> ForkServerExecutor {
    let mut config = ForkServerConfig::new(binary, Duration::from_secs(10));
    config.feature_capacity = feature_capacity;
    ForkServerExecutor::start(config).unwrap_or_else(|e| panic!("{e:#}"))
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

/// The inputs: empty, a name, a table indexed up to 300 times, a long padding chunk.
fn inputs() -> Vec<Vec<u8>> {
    (0..RUNS)
        .map(|i| match i % 4 {
            0 => Vec::new(),
            1 => tlv(&[(0x01, b"hi")]),
            2 => tlv(&[(0x02, &[1, 7, 0, 0, 0]), (0x03, &vec![0; i % 300])]),
            _ => tlv(&[(0x04, &vec![0; i % 1000]), (0x01, b"name")]),
        })
        .collect()
}

fn main() {
    let inputs = inputs();
    if !std::env::args().any(|a| a == "--bench") {
        assert!(inputs.iter().all(|i| i.is_empty() || i.starts_with(b"TLV1")));
        println!("coverage_cost: {} inputs (run `cargo bench --bench coverage_cost` to measure)", inputs.len());
        return;
    }
    let (plain, coverage) = (harness(false), harness(true));
    let mut variants = [
        ("plain harness", start(&plain, 0), Duration::ZERO, 0),
        ("coverage harness, no collection", start(&coverage, 0), Duration::ZERO, 0),
        ("coverage harness, collecting", start(&coverage, FEATURE_CAPACITY), Duration::ZERO, 0),
    ];
    for (_, executor, _, _) in &mut variants {
        inputs[..100].iter().for_each(|input| drop(executor.run(input).unwrap()));
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
    println!("{RUNS} tests of `tlv` per variant, interleaved in blocks of {BLOCK}\n");
    println!("| variant | per test | against plain | features read |\n|---|--:|--:|--:|");
    let base = variants[0].2.as_secs_f64();
    for (name, _, elapsed, features) in &variants {
        let per_test = *elapsed / RUNS as u32;
        println!("| {name} | {per_test:.1?} | {:.2} | {features} |", elapsed.as_secs_f64() / base);
    }
}
