//! Corpus mode against `cargo fuzz cmin`, one run of each side by side, on generated corpora of four planted targets.
//!
//! ```text
//! cargo bench --bench corpus                 # 300 inputs for each of config, scene, commands, triage
//! cargo bench --bench corpus -- 100 triage   # 100 inputs, the triage target only
//! ```
//!
//! It builds the tool and the generator in release (`cargo build --release -p
//! cargo-minimize-crash`; `cargo build --release -p planted --features arbitrary
//! --bin planted-corpus`, the typed targets need the derives), then for each
//! target writes a corpus with `planted-corpus TARGET DIR --count N --seed 11`
//! (1-8 KiB inputs, none crashing), builds the libFuzzer binary once with `cargo
//! fuzz build --sanitizer none TARGET`, and times, from the repository root:
//!
//! - `cargo fuzz cmin --sanitizer none TARGET COPY` on a copy of the corpus
//!   (cargo-fuzz replaces the copy by libFuzzer's `-merge=1` of it; it exits 0
//!   when the merge fails too, so an empty result counts as a failure);
//! - `cargo-minimize-crash --json -q --sanitizer none TARGET --corpus DIR -o NEW` with its default
//!   workers (the cores), after an untimed run on a one-file corpus has built
//!   the coverage harness.
//!
//! Then libFuzzer counts each side's coverage its own way: `BINARY -runs=0 DIR`
//! on the original, cmin's result and ours (`cov:` and `ft:` of the `INITED`
//! line), and `BINARY -runs=0 OURS ORIGINAL`: when that counts what `-runs=0
//! OURS` counts, libFuzzer finds nothing in the old corpus beyond the new one
//! (ours ⊇ original). One markdown table, a row per target and the totals,
//! then notes: our report's tests and feature counts, and anything odd (a
//! failure, fewer features than the original by libFuzzer's count, an empty
//! file in ours, which libFuzzer never runs). cargo-fuzz is installed when
//! missing; when that fails too, the cmin and libFuzzer columns are left
//! empty. Run without `--bench` (as `cargo test --benches` does) it only says
//! what it would do.
//!
//! Times are one wall-clock run each, including the tool's start (cargo-fuzz's
//! `cargo build` that finds the binary up to date; our check that the harness
//! is built). cmin runs each input once; ours shrinks every kept input, so it
//! takes minutes where cmin takes a fraction of a second.

#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "support/corpus_counts.rs"]
mod corpus_counts;
#[path = "support/table.rs"]
mod table;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use corpus_counts::{copy_corpus, counts, counts_again, host_triple, size, tail, Counts, Libfuzzer, Minimized};
use table::thousands;

/// The targets measured: the three typed ones and the bytes one.
const TARGETS: [&str; 4] = ["config", "scene", "commands", "triage"];
/// Inputs per corpus unless an argument says otherwise.
const DEFAULT_COUNT: usize = 300;
/// `planted-corpus --seed`: the same corpora every run.
const SEED: u64 = 11;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Builds the tool and `planted-corpus` in release; returns the release directory.
fn build() -> PathBuf {
    let builds: [&[&str]; 2] = [
        &["build", "--release", "-p", "cargo-minimize-crash"],
        &["build", "--release", "-p", "planted", "--features", "arbitrary", "--bin", "planted-corpus"],
    ];
    for args in builds {
        let status = Command::new(cargo()).current_dir(root()).args(args).status().expect("run cargo build");
        assert!(status.success(), "cargo {} failed", args.join(" "));
    }
    // The same directory as the binary `cargo bench` built (CARGO_TARGET_DIR respected).
    Path::new(env!("CARGO_BIN_EXE_cargo-minimize-crash")).parent().expect("the release directory").to_path_buf()
}

/// Writes a corpus of `count` inputs of `target` into `dir`.
fn generate(release: &Path, target: &str, dir: &Path, count: usize) {
    let out = Command::new(release.join("planted-corpus"))
        .arg(target)
        .arg(dir)
        .args(["--count", &count.to_string(), "--seed", &SEED.to_string()])
        .output()
        .expect("run planted-corpus");
    assert!(out.status.success(), "planted-corpus {target} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Whether `cargo fuzz` runs (installed first when missing); says why not when it does not.
fn cargo_fuzz_installed() -> bool {
    let installed = cargo_fuzz::ensure_installed();
    if !installed {
        println!("no cmin column");
    }
    installed
}

/// `cargo fuzz build --sanitizer none TARGET`; returns the binary.
fn libfuzzer_binary(target: &str) -> Result<PathBuf, String> {
    let out = Command::new(cargo())
        .current_dir(root())
        .args(["fuzz", "build", "--sanitizer", "none", target])
        .output()
        .map_err(|e| format!("cargo fuzz build did not run: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo fuzz build --sanitizer none {target} failed: {}", tail(&out.stderr)));
    }
    Ok(root().join("fuzz/target").join(host_triple()).join("release").join(target))
}

/// `cargo fuzz cmin` on a copy of the corpus (`<scratch>/cmin`); an empty result is a failure.
fn cmin(target: &str, corpus: &Path, scratch: &Path) -> Result<Minimized, String> {
    let copy = scratch.join("cmin");
    copy_corpus(corpus, &copy);
    let start = Instant::now();
    let out = Command::new(cargo())
        .current_dir(root())
        .args(["fuzz", "cmin", "--sanitizer", "none", target])
        .arg(&copy)
        .output()
        .map_err(|e| format!("cargo fuzz cmin did not run: {e}"))?;
    let time = start.elapsed();
    let (files, bytes) = if copy.is_dir() { size(&copy) } else { (0, 0) };
    if !out.status.success() || files == 0 {
        let stdout = String::from_utf8_lossy(&out.stdout);
        return Err(format!("cmin left {files} files ({}): {} {}", out.status, stdout.trim(), tail(&out.stderr)));
    }
    Ok(Minimized { dir: copy, files, bytes, time })
}

/// Builds the coverage harness of `target` with a run on a one-file corpus (not timed).
fn warm_up(bin: &Path, target: &str, corpus: &Path, scratch: &Path) {
    let one = scratch.join("warm-up");
    std::fs::create_dir(&one).expect("create the warm-up corpus");
    let first = std::fs::read_dir(corpus).expect("read the corpus").next().expect("a corpus file");
    let first = first.expect("a corpus entry").path();
    std::fs::copy(&first, one.join(first.file_name().expect("a file name"))).expect("copy a corpus file");
    let out = Command::new(bin)
        .current_dir(root())
        .args(["-q", "--sanitizer", "none", target, "--corpus"])
        .arg(&one)
        .arg("-o")
        .arg(scratch.join("warm-up-new"))
        .output()
        .expect("run cargo-minimize-crash");
    assert!(out.status.success(), "the warm-up run on {target} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Our run: the new corpus, the `--json` report, the exit code (6: the new corpus misses a feature).
struct Ours {
    new: Minimized,
    report: Value,
    code: Option<i32>,
    /// Its empty files, which libFuzzer never runs (`Fuzzer::RunOne` returns at once on size 0).
    empty: Vec<String>,
}

/// The names of the empty files in `dir` (not recursively: ours writes no subdirectory).
fn empty_files(dir: &Path) -> Vec<String> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let empty = entries.filter(|e| e.metadata().is_ok_and(|m| m.is_file() && m.len() == 0));
    empty.map(|e| e.file_name().to_string_lossy().into_owned()).collect()
}

/// Corpus mode on `corpus` into `<scratch>/ours`; an error when it printed no report.
fn ours(bin: &Path, target: &str, corpus: &Path, scratch: &Path) -> Result<Ours, String> {
    let new = scratch.join("ours");
    let start = Instant::now();
    let out = Command::new(bin)
        .current_dir(root())
        .args(["--json", "-q", "--sanitizer", "none", target, "--corpus"])
        .arg(corpus)
        .arg("-o")
        .arg(&new)
        .output()
        .expect("run cargo-minimize-crash");
    let time = start.elapsed();
    let report: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("no --json report ({e}), {}: {}", out.status, tail(&out.stderr)))?;
    let (files, bytes) = if new.is_dir() { size(&new) } else { (0, 0) };
    let empty = empty_files(&new);
    Ok(Ours { new: Minimized { dir: new, files, bytes, time }, report, code: out.status.code(), empty })
}

fn libfuzzer(binary: &Path, corpus: &Path, cmin: Option<&Path>, ours: Option<&Path>, scratch: &Path) -> Libfuzzer {
    let missing = || Err("no corpus".to_owned());
    let ours_counts = ours.map_or_else(missing, |dir| counts(binary, &[dir], scratch));
    let both = ours.map_or_else(missing, |dir| counts(binary, &[dir, corpus], scratch));
    Libfuzzer {
        original: counts(binary, &[corpus], scratch),
        cmin: cmin.map_or_else(missing, |dir| counts(binary, &[dir], scratch)),
        ours: ours_counts,
        both,
        again: ours.map_or_else(missing, |dir| counts_again(binary, dir, corpus, scratch)),
    }
}

/// One target's results.
struct Row {
    target: String,
    inputs: usize,
    bytes: u64,
    cmin: Option<Result<Minimized, String>>,
    ours: Result<Ours, String>,
    libfuzzer: Option<Libfuzzer>,
}

/// Generates the corpus of `target` and runs both sides on it (the cmin and libFuzzer sides when `fuzz`).
fn measure(release: &Path, target: &str, count: usize, fuzz: bool) -> Row {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let corpus = scratch.path().join("corpus");
    generate(release, target, &corpus, count);
    let (inputs, bytes) = size(&corpus);
    let binary = fuzz.then(|| libfuzzer_binary(target));
    let bin = release.join("cargo-minimize-crash");
    warm_up(&bin, target, &corpus, scratch.path());
    let cmin = match &binary {
        Some(Ok(_)) => Some(cmin(target, &corpus, scratch.path())),
        Some(Err(e)) => Some(Err(e.clone())),
        None => None,
    };
    let ours = ours(&bin, target, &corpus, scratch.path());
    let libfuzzer = match &binary {
        Some(Ok(binary)) => {
            let cmin_dir = cmin.as_ref().and_then(|c| c.as_ref().ok()).map(|m| m.dir.as_path());
            let ours_dir = ours.as_ref().ok().map(|o| o.new.dir.as_path());
            Some(libfuzzer(binary, &corpus, cmin_dir, ours_dir, scratch.path()))
        }
        _ => None,
    };
    Row { target: target.to_owned(), inputs, bytes, cmin, ours, libfuzzer }
}

fn secs(time: Duration) -> String {
    format!("{:.1} s", time.as_secs_f64())
}

/// The files, bytes and time cells of one side: failures and skips as text.
fn side_cells(side: Option<Result<&Minimized, &String>>) -> [String; 3] {
    match side {
        Some(Ok(m)) => [m.files.to_string(), thousands(m.bytes), secs(m.time)],
        Some(Err(_)) => ["failed".to_owned(), String::new(), String::new()],
        None => ["–".to_owned(), String::new(), String::new()],
    }
}

fn counts_cell(counts: Option<&Result<Counts, String>>) -> String {
    match counts {
        Some(Ok((cov, ft))) => format!("{cov}/{ft}"),
        Some(Err(_)) => "failed".to_owned(),
        None => "–".to_owned(),
    }
}

/// A row's cells; the ratio of our bytes to cmin's when both ran.
fn cells(row: &Row) -> Vec<String> {
    let cmin = row.cmin.as_ref().map(Result::as_ref);
    let ours = row.ours.as_ref().map(|o| &o.new);
    let ratio = ratio(cmin.and_then(Result::ok), ours.ok());
    let lf = row.libfuzzer.as_ref();
    let superset = match lf.map(Libfuzzer::superset) {
        Some(Ok(true)) => "yes",
        Some(Ok(false)) => "no",
        Some(Err(_)) => "failed",
        None => "–",
    };
    let mut cells = vec![row.target.clone(), row.inputs.to_string(), thousands(row.bytes)];
    cells.extend(side_cells(cmin));
    cells.extend(side_cells(Some(ours)));
    cells.push(ratio);
    cells.extend([lf.map(|l| &l.original), lf.map(|l| &l.cmin), lf.map(|l| &l.ours)].map(counts_cell));
    cells.push(superset.to_owned());
    cells
}

/// The sum of one side over every row, when it ran on all of them.
fn sum<'a>(mut sides: impl Iterator<Item = Option<&'a Minimized>>) -> Option<Minimized> {
    let zero = Minimized { dir: PathBuf::new(), files: 0, bytes: 0, time: Duration::ZERO };
    sides.try_fold(zero, |total, side| {
        side.map(|m| Minimized {
            files: total.files + m.files,
            bytes: total.bytes + m.bytes,
            time: total.time + m.time,
            ..total
        })
    })
}

/// Our bytes over cmin's, when both ran.
fn ratio(cmin: Option<&Minimized>, ours: Option<&Minimized>) -> String {
    match (cmin, ours) {
        (Some(c), Some(o)) => format!("{:.2}", o.bytes as f64 / c.bytes.max(1) as f64),
        _ => "–".to_owned(),
    }
}

/// The totals row: each side summed when it ran on every target.
fn totals(rows: &[Row]) -> Vec<String> {
    let cmin = sum(rows.iter().map(|r| r.cmin.as_ref()?.as_ref().ok()));
    let ours = sum(rows.iter().map(|r| r.ours.as_ref().ok().map(|o| &o.new)));
    let yes = rows.iter().filter(|r| matches!(r.libfuzzer.as_ref().map(Libfuzzer::superset), Some(Ok(true)))).count();
    let inputs: usize = rows.iter().map(|r| r.inputs).sum();
    let bytes: u64 = rows.iter().map(|r| r.bytes).sum();
    let mut cells = vec!["**total**".to_owned(), inputs.to_string(), thousands(bytes)];
    cells.extend(side_cells(cmin.as_ref().map(Ok)));
    cells.extend(side_cells(ours.as_ref().map(Ok)));
    cells.push(ratio(cmin.as_ref(), ours.as_ref()));
    cells.extend([String::new(), String::new(), String::new(), format!("{yes} of {}", rows.len())]);
    cells
}

/// Our report's totals, and what in our run deserves a second look.
fn ours_notes(t: &str, ours: &Ours) -> Vec<String> {
    let (report, new) = (&ours.report, &ours.new);
    let (before, after) = (&report["before"], &report["after"]);
    let mut notes = vec![format!(
        "{t}: ours: exit {}, {} tests, {:.1} s by its report; features (our count) {} -> {}, covers_every_feature {}",
        ours.code.map_or("by a signal".to_owned(), |c| c.to_string()),
        report["tests"],
        report["seconds"].as_f64().unwrap_or_default(),
        before["features"],
        after["features"],
        report["covers_every_feature"]
    )];
    if after["files"].as_u64() != Some(new.files as u64) {
        notes.push(format!("{t}: ours: the report says {} files, the directory holds {}", after["files"], new.files));
    }
    if !ours.empty.is_empty() {
        notes.push(format!("{t}: ours: empty files, which libFuzzer never runs: {:?}", ours.empty));
    }
    notes
}

/// Failures and lost coverage by libFuzzer's count.
fn libfuzzer_notes(t: &str, lf: &Libfuzzer) -> Vec<String> {
    let mut notes = lf.failures_and_losses(t);
    if let (Ok(false), Ok(both)) = (lf.superset(), &lf.both) {
        notes.push(format!("{t}: libFuzzer's cov/ft over ours then the original: {}/{}", both.0, both.1));
    }
    notes
}

/// What deserves a second look in a row.
fn notes(row: &Row) -> Vec<String> {
    let t = &row.target;
    let mut notes = Vec::new();
    if let Some(Err(e)) = &row.cmin {
        notes.push(format!("{t}: cmin: {e}"));
    }
    match &row.ours {
        Err(e) => notes.push(format!("{t}: ours: {e}")),
        Ok(ours) => notes.extend(ours_notes(t, ours)),
    }
    notes.extend(row.libfuzzer.as_ref().map(|lf| libfuzzer_notes(t, lf)).unwrap_or_default());
    notes
}

fn print_table(rows: &[Row]) {
    let headers = [
        "target",
        "inputs",
        "original bytes",
        "cmin files",
        "cmin bytes",
        "cmin time",
        "ours files",
        "ours bytes",
        "ours time",
        "bytes ours/cmin",
        "libFuzzer cov/ft original",
        "cmin",
        "ours",
        "ours ⊇ original",
    ];
    table::print(&headers, rows.iter().map(cells).chain([totals(rows)]));
    println!();
    for note in rows.iter().flat_map(notes) {
        println!("- {note}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(DEFAULT_COUNT);
    let picked: Vec<&str> = args.iter().filter(|a| TARGETS.contains(&a.as_str())).map(String::as_str).collect();
    let targets: Vec<&str> = if picked.is_empty() { TARGETS.to_vec() } else { picked };
    if !args.iter().any(|a| a == "--bench") {
        println!("corpus: {count} generated inputs of each of {}; cargo fuzz cmin against corpus mode, libFuzzer's -runs=0 counts of each (run `cargo bench --bench corpus` to measure)", targets.join(", "));
        return;
    }
    // Checked only when measuring: `cargo test --benches FILTER` hands its test filter to every bench.
    let unknown =
        args.iter().find(|a| !a.starts_with('-') && a.parse::<usize>().is_err() && !TARGETS.contains(&a.as_str()));
    assert!(unknown.is_none(), "{unknown:?} is neither a count nor one of the targets {TARGETS:?}");
    let release = build();
    let fuzz = cargo_fuzz_installed();
    let mut rows = Vec::new();
    for target in targets {
        eprintln!("corpus: {target}: {count} inputs");
        rows.push(measure(&release, target, count, fuzz));
    }
    print_table(&rows);
}
