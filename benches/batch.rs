//! Batch mode against a shell loop of single-file runs, on a few hundred artifacts of the `triage` target.
//!
//! ```text
//! cargo bench --bench batch            # 60 variants of each of triage's 5 crash bugs (302 files)
//! cargo bench --bench batch -- 10      # 10 of each (52 files): quicker
//! ```
//!
//! It builds `planted` and the tool in release (`cargo build --release -p
//! planted -p cargo-minimize-crash`), writes an artifacts directory with
//! `planted-artifacts --per-bug N --hangs 0` (no hang: each would cost the
//! whole per-test time limit, in every mode alike), runs the harness once to
//! build it (not timed), then times, from the repository root:
//!
//! - a shell loop of single-file runs, as a user would write it before batch
//!   mode existed: `for f in DIR/*; do cargo-minimize-crash --no-verify-libfuzzer
//!   -q --json -o OUT/$(basename $f) triage $f; done`; its bugs are the distinct
//!   signatures (kind and location: the default level) in the `--json` summaries;
//! - batch mode on the directory with `--workers 1`, then `--workers <cores>`;
//!   its bugs are `report.json`'s `bugs`, those found while minimizing another
//!   (`found_by.how = "slip"`: rle's hang, met while reducing its panic) counted apart.
//!
//! and prints one markdown table with the ratios (loop / 1 worker, 1 worker / N
//! workers). Run without `--bench` (as `cargo test --benches` does) it only says
//! what it would do.
//!
//! The loop is slow on purpose, as a user's would be: with 60 per bug it takes
//! about a quarter of an hour on 2 cores, most of it in a few `rle-zero-distance`
//! files whose reduction meets candidates that loop forever (rle's other bug),
//! each costing the default 5 s `--timeout`. Batch mode minimizes one
//! representative per bug, so it meets far fewer.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The crash bugs of the `triage` target that `planted-artifacts` plants.
const PLANTED_BUGS: usize = 5;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo build --release -p planted -p cargo-minimize-crash`; returns the release directory.
fn build() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root())
        .args(["build", "--release", "-p", "planted", "-p", "cargo-minimize-crash"])
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build --release -p planted -p cargo-minimize-crash failed");
    // The same directory as the binary `cargo bench` built (CARGO_TARGET_DIR respected).
    Path::new(env!("CARGO_BIN_EXE_cargo-minimize-crash")).parent().expect("the release directory").to_path_buf()
}

/// Writes `per_bug` variants of each crash bug into `dir`; returns the manifest: (file name, bug).
fn generate(release: &Path, dir: &Path, per_bug: usize) -> Vec<(String, String)> {
    let out = Command::new(release.join("planted-artifacts"))
        .arg(dir)
        .args(["--per-bug", &per_bug.to_string(), "--hangs", "0"])
        .output()
        .expect("run planted-artifacts");
    assert!(out.status.success(), "planted-artifacts failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let manifest = String::from_utf8_lossy(&out.stdout).into_owned();
    manifest.lines().filter_map(|line| line.split_once('\t')).map(|(f, b)| (f.to_owned(), b.to_owned())).collect()
}

/// One single-file run, as in the loop; returns its `--json` summary when it minimized something.
fn single(bin: &Path, crash: &Path, output: &Path) -> Option<Value> {
    let out = Command::new(bin)
        .current_dir(root())
        .args(["--no-verify-libfuzzer", "-q", "--json", "-o"])
        .arg(output)
        .arg("triage")
        .arg(crash)
        .stderr(Stdio::null())
        .output()
        .expect("run cargo-minimize-crash");
    serde_json::from_slice(&out.stdout).ok()
}

/// A signature as the default level compares it: without its message.
fn signature_key(summary: &Value) -> String {
    let mut signature = summary["signature"].clone();
    if let Some(fields) = signature.as_object_mut() {
        fields.remove("message");
    }
    signature.to_string()
}

/// The shell loop over every file; returns the distinct signatures of its `--json` summaries.
fn shell_loop(bin: &Path, dir: &Path, out: &Path) -> usize {
    std::fs::create_dir_all(out).expect("create the loop's output directory");
    let script =
        r#"for f in "$2"/*; do "$1" --no-verify-libfuzzer -q --json -o "$3/$(basename "$f")" triage "$f"; done"#;
    let run = Command::new("sh")
        .current_dir(root())
        .args(["-c", script, "sh"])
        .args([bin, dir, out])
        .stderr(Stdio::null())
        .output()
        .expect("run sh");
    let summaries = serde_json::Deserializer::from_slice(&run.stdout).into_iter::<Value>();
    summaries.map_while(Result::ok).map(|s| signature_key(&s)).collect::<BTreeSet<_>>().len()
}

/// What a batch run's `report.json` says: bugs among the inputs, bugs found while minimizing, inputs.
struct Found {
    bugs: usize,
    slips: usize,
    inputs: usize,
}

/// Batch mode on `dir` with `workers`.
fn batch(bin: &Path, dir: &Path, out: &Path, workers: usize) -> Found {
    let run = Command::new(bin)
        .current_dir(root())
        .args(["--no-verify-libfuzzer", "-q", "--workers", &workers.to_string(), "-o"])
        .arg(out)
        .arg("triage")
        .arg(dir)
        .output()
        .expect("run cargo-minimize-crash in batch mode");
    let report = std::fs::read_to_string(out.join("report.json")).unwrap_or_else(|e| {
        panic!(
            "no report.json in {} ({e}); exit {}:\n{}",
            out.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let report: Value = serde_json::from_str(&report).expect("report.json is JSON");
    let bugs = report["bugs"].as_array().cloned().unwrap_or_default();
    // A slip: a new bug that a candidate showed while another was being minimized (here,
    // rle's hang met while minimizing its zero-distance panic), not one of the inputs' bugs.
    let slips = bugs.iter().filter(|bug| bug["found_by"]["how"] == "slip").count();
    let inputs = report["totals"]["inputs"].as_u64().unwrap_or_default() as usize;
    Found { bugs: bugs.len() - slips, slips, inputs }
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let value = f();
    (start.elapsed(), value)
}

/// One table row: mode, wall time, files, bugs found, and the ratio it introduces.
fn row(mode: &str, time: Duration, files: usize, bugs: usize, slips: Option<usize>, ratio: &str) {
    let slips = slips.map_or(String::new(), |n| format!(" + {n} while minimizing"));
    println!("| {mode} | {:.1} s | {files} | {bugs} of {PLANTED_BUGS}{slips} | {ratio} |", time.as_secs_f64());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let per_bug: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(60);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if !args.iter().any(|a| a == "--bench") {
        println!("batch: {per_bug} variants of each triage bug; a shell loop of single runs against batch mode with 1 and {cores} workers (run `cargo bench --bench batch` to measure)");
        return;
    }
    let release = build();
    let bin = release.join("cargo-minimize-crash");
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let dir = scratch.path().join("artifacts");
    let manifest = generate(&release, &dir, per_bug);
    let files = manifest.len();
    // Builds the harness (with a file that crashes): every timed run below finds it built.
    let (first, _) = manifest.iter().find(|(_, bug)| bug != "empty" && bug != "no-crash").expect("a crash file");
    single(&bin, &dir.join(first), &scratch.path().join("warm-up"));

    let (loop_time, loop_bugs) = timed(|| shell_loop(&bin, &dir, &scratch.path().join("loop")));
    let (one_time, one) = timed(|| batch(&bin, &dir, &scratch.path().join("one"), 1));
    let (many_time, many) = timed(|| batch(&bin, &dir, &scratch.path().join("many"), cores));

    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
    println!("\n| mode | wall time | files | bugs found | ratio |");
    println!("|---|--:|--:|--:|---|");
    row("shell loop of single runs", loop_time, files, loop_bugs, None, "");
    let loop_ratio = format!("loop / 1 worker: {:.1}x", ratio(loop_time, one_time));
    row("batch, --workers 1", one_time, one.inputs, one.bugs, Some(one.slips), &loop_ratio);
    let many_mode = format!("batch, --workers {cores}");
    let workers_ratio = format!("1 worker / {cores} workers: {:.2}x", ratio(one_time, many_time));
    row(&many_mode, many_time, many.inputs, many.bugs, Some(many.slips), &workers_ratio);
}
