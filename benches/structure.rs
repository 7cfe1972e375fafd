//! The harness mode with structure on and off (`--no-structure`) on every typed
//! sample, side by side: tests run and result size, as a markdown table.
//!
//! ```text
//! cargo bench --bench structure                 # every typed sample
//! cargo bench --bench structure -- tree         # samples whose target contains "tree"
//! BENCH_STATS=1 cargo bench --bench structure   # per-pass statistics and results too
//! ```
//!
//! A typed sample is a folder of `corpus-samples/` whose `expected.toml` runs
//! `cargo minimize-crash TARGET` (the harness built from `fuzz/`). Each run is
//! the real binary (`cargo bench` builds it) with `--json`, and the numbers
//! come from its summary; the first run of a target also builds its harness,
//! which the summary's tests do not count. The goals printed at the end are
//! the ones structure is held to: its result is never larger, and it needs at
//! most half the tests in total. Run without `--bench` (as
//! `cargo test --benches` does) it only lists the samples.

#[path = "support/expected.rs"]
#[allow(dead_code)] // this bench does not need every field
mod expected;
#[path = "support/summary.rs"]
mod summary;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use expected::{sample_dirs, SampleDir};
use summary::json_summary;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

/// A typed sample: its target, crash file and `expected.toml`.
struct Sample {
    target: String,
    crash: PathBuf,
    expected: HashMap<String, String>,
}

/// What one run reported.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    tests: u64,
    size: u64,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every sample whose `expected.toml` says the harness mode replays it, by target name.
fn typed_samples(filter: Option<&str>) -> Vec<Sample> {
    let mut samples: Vec<Sample> = sample_dirs(root())
        .into_iter()
        .filter(|sample| sample.expected.get("command").is_some_and(|c| c.starts_with("cargo minimize-crash ")))
        .map(|SampleDir { expected, crash, .. }| Sample { target: expected["target"].clone(), crash, expected })
        .filter(|s| filter.map_or(true, |f| s.target.contains(f)))
        .collect();
    samples.sort_by(|a, b| a.target.cmp(&b.target));
    samples
}

/// Minimizes a sample in harness mode from the repository root; returns the summary.
fn minimize(sample: &Sample, output: &Path, extra: &[&str]) -> Value {
    let out = Command::new(BIN)
        .current_dir(root())
        .args(["--json", "--quiet"])
        .args(extra)
        .arg("-o")
        .arg(output)
        .arg(&sample.target)
        .arg(&sample.crash)
        .output()
        .expect("run cargo-minimize-crash");
    json_summary(&out, &format!("minimizing {} {extra:?}", sample.target))
}

fn run_of(summary: &Value) -> Run {
    Run {
        tests: summary["tests"].as_u64().unwrap_or_default(),
        size: summary["final_size"].as_u64().unwrap_or_default(),
    }
}

fn print_stats(label: &str, summary: &Value, output: &Path) {
    println!("{label}: stopped: {}; result {:02x?}", summary["stop"], std::fs::read(output).unwrap_or_default());
    for pass in summary["passes"].as_array().into_iter().flatten() {
        println!(
            "  {:<22} steps {:>5} tests {:>6} successes {:>4} bytes removed {:>6}",
            pass["name"].as_str().unwrap_or("?"),
            pass["steps"],
            pass["tests"],
            pass["successes"],
            pass["bytes_removed"]
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let benching = args.iter().any(|a| a == "--bench");
    let filter = args.iter().find(|a| !a.starts_with('-')).map(String::as_str);
    let samples = typed_samples(filter);
    if !benching {
        let names: Vec<&str> = samples.iter().map(|s| s.target.as_str()).collect();
        println!("typed samples: {} (run `cargo bench --bench structure` to measure)", names.join(", "));
        return;
    }
    let stats = std::env::var_os("BENCH_STATS").is_some();
    let scratch = tempfile::tempdir().expect("a temporary directory");

    println!("| target | input | tests, structure | size, structure | tests, no structure | size, no structure | tests ratio | true minimum | goals |");
    println!("|---|--:|--:|--:|--:|--:|--:|--:|---|");
    let (mut on_total, mut off_total, mut input_total) = (Run::default(), Run::default(), 0u64);
    let mut larger = Vec::new();
    for sample in &samples {
        let on_path = scratch.path().join(format!("{}-structure", sample.target));
        let off_path = scratch.path().join(format!("{}-no-structure", sample.target));
        let on_summary = minimize(sample, &on_path, &[]);
        let off_summary = minimize(sample, &off_path, &["--no-structure"]);
        let (on, off) = (run_of(&on_summary), run_of(&off_summary));
        let input = on_summary["initial_size"].as_u64().unwrap_or_default();
        let minimum = sample.expected.get("true_minimum").map_or("", String::as_str);
        let verdict = if on.size > off.size {
            larger.push(sample.target.clone());
            "**✗** larger with structure"
        } else {
            ""
        };
        println!(
            "| {} | {input} | {} | {} | {} | {} | {:.2} | {minimum} | {verdict} |",
            sample.target,
            on.tests,
            on.size,
            off.tests,
            off.size,
            on.tests as f64 / off.tests.max(1) as f64
        );
        if stats {
            print_stats(&format!("{} with structure", sample.target), &on_summary, &on_path);
            print_stats(&format!("{} without structure", sample.target), &off_summary, &off_path);
        }
        input_total += input;
        on_total.tests += on.tests;
        on_total.size += on.size;
        off_total.tests += off.tests;
        off_total.size += off.size;
    }
    let ratio = on_total.tests as f64 / off_total.tests.max(1) as f64;
    println!(
        "| **total** ({} samples) | {input_total} | {} | {} | {} | {} | {ratio:.2} | | |",
        samples.len(),
        on_total.tests,
        on_total.size,
        off_total.tests,
        off_total.size
    );
    println!();
    let yes_no = |ok: bool| if ok { "**YES**" } else { "**NO**" };
    println!(
        "- Goal 1, the result with structure is never larger: {}{}",
        yes_no(larger.is_empty()),
        if larger.is_empty() { String::new() } else { format!(" (larger on {})", larger.join(", ")) }
    );
    println!(
        "- Goal 2, at most half the tests in total with structure: {} ({} vs {}, ratio {ratio:.2})",
        yes_no(on_total.tests * 2 <= off_total.tests),
        on_total.tests,
        off_total.tests
    );
}
