//! Corpus mode against `cargo fuzz cmin` at scale: real crates' fuzz targets, corpora of 2,000 inputs or more grown by libFuzzer, both sides in one run.
//!
//! ```text
//! cargo bench --bench corpus_scale                    # our run stops at 20 minutes at most; about 15 in all, warm
//! BENCH_MINUTES=2 cargo bench --bench corpus_scale    # our --max-time, in minutes (a quick check)
//! cargo bench --bench corpus_scale -- demangle        # one project
//! ```
//!
//! Library-shaped projects are written under
//! `target/bench-corpus-scale/<name>/` (kept between runs, so the builds stay
//! warm; a file is rewritten only when its content changed; `fuzz/Cargo.lock`
//! removed before the build, so it resolves as a user's project does): a crate
//! at the root, `fuzz/` a cargo-fuzz crate of its own workspace over a pinned,
//! old crate from crates.io:
//!
//! - `regex`: regex-syntax 0.6.25 parsing a pattern and printing its HIR, a
//!   typed target (`|s: &str|`). Not pulldown-cmark 0.9.2 or toml 0.5.8: both
//!   keep a `HashMap`, whose random seed (one per process) moves libFuzzer's
//!   own count of one corpus by 2-3 `cov`/`ft` from run to run, which would
//!   drown the check below; regex-syntax has none;
//! - `regex-long`: the same target and build (`regex/`, a corpus of its own:
//!   `corpus-regex-long`, and so on), the corpus grown with `-len_control=0`
//!   and `-max_len=4096`: inputs of hundreds of bytes, as long fuzzing
//!   campaigns grow them (issue 36's typed goal was set on such a corpus);
//! - `demangle`: rustc-demangle 0.1.21, `try_demangle` on the bytes as UTF-8,
//!   printed both ways (`{}` and `{:#}`), a bytes target;
//! - `demangle-crashes`: the same target on rustc-demangle 0.1.18, whose v0
//!   printer's unbounded recursion libFuzzer finds in seconds: grown and
//!   given its crashes as `cmark` is (below), a bytes corpus with crashes.
//! - `cmark`: pulldown-cmark 0.12.1 rendering a derived markdown document
//!   (`corpus_scale/cmark.rs`; typed, inputs of a kilobyte or more), whose
//!   definition-list panic libFuzzer finds in seconds: the corpus grows in
//!   `-fork=1 -ignore_crashes=1` runs of two minutes, and five of the
//!   crashes it wrote go among the inputs both sides are given
//!   (`<dir>/inputs`), as a fuzzing job's corpus and artifacts are. Both
//!   sides leave them out; libFuzzer's counts and rate are taken on the
//!   corpus alone (a crash ends a `-runs=0` run).
//!
//! For each: `cargo fuzz build TARGET` (AddressSanitizer, cargo-fuzz's
//! default, as users fuzz; timed), then the corpus: libFuzzer's own, grown by
//! that binary into an empty directory with `-seed=1`, `-seed=2`, ... until it
//! holds 2,000 files, cached in `corpus/` (grown again only when missing or
//! smaller). Then, from the project's directory:
//!
//! - **cmin**: `cargo fuzz cmin TARGET COPY` on a copy of the corpus, timed;
//! - **ours**: `cargo-minimize-crash --json -q --timeout 1s --max-time <M>m
//!   TARGET --corpus CORPUS -o NEW` (release build; `M` is `BENCH_MINUTES`,
//!   20 by default), into a new directory with no journal of an earlier run.
//!   NEW is a complete corpus from the moment it has files: it is counted
//!   every half second, for when it first has files and its files and bytes
//!   at 1, 5 and 10 minutes (a checkpoint after the end shows the end).
//!
//! libFuzzer then counts each corpus its own way on the same binary:
//! `BINARY -runs=0 DIR` (`cov:` and `ft:` of the `INITED` line) on the
//! original, cmin's result and ours, and `BINARY -runs=0 OURS ORIGINAL`:
//! when that counts no more than `BINARY -runs=0 OURS COPY-OF-OURS...`
//! (ours again, at least as many runs: where coverage varies from run to
//! run, more runs alone count more), libFuzzer finds nothing in the
//! original beyond ours; `BINARY -runs=0 CORPUS` timed is libFuzzer's own
//! rate (executions per second, one process), beside our tests per second,
//! and the kernel's share of each side's CPU time (`getrusage` of the
//! children, our run's fork servers and targets included). Three Markdown tables: the sides (with our first
//! complete corpus's time over cmin's plus the build's; issue 36's goal is 3
//! at most), where our time went (the report's `phase_seconds`, the rest
//! of its `seconds` being our harness builds), and what each phase left
//! (the new corpus's files and bytes at its end, from the counts); then notes: our report's
//! feature counts, inputs it left out, and libFuzzer's verdict. Our report
//! is kept in `<dir>/ours.json` (`ours-<name>.json` in a shared directory). Run without `--bench` (as `cargo test
//! --benches` does) it only says what it would do.

#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "support/corpus_counts.rs"]
mod corpus_counts;
#[path = "support/cpu.rs"]
mod cpu;
#[path = "support/fuzz_crate.rs"]
mod fuzz_crate;
#[path = "support/table.rs"]
mod table;

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use corpus_counts::{copy_corpus, counts, counts_again, host_triple, size, tail, Counts, Libfuzzer, Minimized};
use cpu::Cpu;
use table::thousands;

/// One project: its fuzz crate's dependency, its target, and how libFuzzer grows its corpus.
struct Project {
    name: &'static str,
    /// Its directory under `target/bench-corpus-scale/`: projects of one
    /// crate and target share it (and its builds), each with its own corpus.
    dir: &'static str,
    /// What the corpus column says: the crate and the kind of target.
    label: &'static str,
    dependency: &'static str,
    target: &'static str,
    source: &'static str,
    /// libFuzzer's `-max_len` and `-runs` of each seed while the corpus grows.
    max_len: usize,
    runs: u64,
    /// More libFuzzer flags while the corpus grows.
    grow: &'static [&'static str],
    /// Crashing inputs libFuzzer found while growing it, put among the inputs
    /// both sides are given (as a fuzzing job's corpus and artifacts are).
    crashes: usize,
}

const REGEX_SOURCE: &str = "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
    fuzz_target!(|s: &str| {\n    \
        if let Ok(hir) = regex_syntax::Parser::new().parse(s) {\n        \
            let _ = hir.to_string();\n    \
        }\n\
    });\n";

/// A derived markdown document, written out as markdown and rendered with
/// the options it draws: inputs of a kilobyte or more, many of them close to
/// pulldown-cmark 0.12.1's definition-list panic (`firstpass.rs:1507`).
/// The demangle projects' target: `try_demangle` on the bytes as UTF-8, printed both ways.
const DEMANGLE_SOURCE: &str = "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
    fuzz_target!(|data: &[u8]| {\n    \
        if let Ok(s) = std::str::from_utf8(data) {\n        \
            if let Ok(d) = rustc_demangle::try_demangle(s) {\n            \
                let _ = format!(\"{d}\");\n            \
                let _ = format!(\"{d:#}\");\n        \
            }\n    \
        }\n\
    });\n";

const CMARK_SOURCE: &str = include_str!("corpus_scale/cmark.rs");

const PROJECTS: [Project; 5] = [
    Project {
        name: "regex",
        dir: "regex",
        label: "regex (regex-syntax 0.6.25, typed)",
        dependency: "regex-syntax = \"=0.6.25\"",
        target: "parse",
        source: REGEX_SOURCE,
        max_len: 1024,
        runs: 100_000,
        grow: &[],
        crashes: 0,
    },
    Project {
        name: "regex-long",
        dir: "regex",
        label: "regex-long (the same, large inputs)",
        dependency: "regex-syntax = \"=0.6.25\"",
        target: "parse",
        source: REGEX_SOURCE,
        max_len: 4096,
        runs: 100_000,
        grow: &["-len_control=0"],
        crashes: 0,
    },
    Project {
        name: "demangle",
        dir: "demangle",
        label: "demangle (rustc-demangle 0.1.21, bytes)",
        dependency: "rustc-demangle = \"=0.1.21\"",
        target: "demangle",
        source: DEMANGLE_SOURCE,
        max_len: 256,
        runs: 500_000,
        grow: &[],
        crashes: 0,
    },
    Project {
        name: "demangle-crashes",
        dir: "demangle-old",
        label: "demangle-crashes (rustc-demangle 0.1.18, bytes, with crashes)",
        dependency: "rustc-demangle = \"=0.1.18\"",
        target: "demangle",
        source: DEMANGLE_SOURCE,
        max_len: 256,
        runs: 100_000_000,
        // Its v0 printer's unbounded recursion (a back-reference to itself)
        // overflows the stack within seconds: each seed goes on past its
        // crashes for two minutes.
        grow: &["-fork=1", "-ignore_crashes=1", "-max_total_time=120"],
        crashes: 5,
    },
    Project {
        name: "cmark",
        dir: "cmark",
        label: "cmark (pulldown-cmark 0.12.1, typed, with crashes)",
        dependency: "pulldown-cmark = { version = \"=0.12.1\", default-features = false, features = [\"html\"] }\n\
                     arbitrary = { version = \"1\", features = [\"derive\"] }",
        target: "render",
        source: CMARK_SOURCE,
        max_len: 4096,
        runs: 100_000_000,
        // Its definition-list panic (`firstpass.rs:1507`) is found in seconds:
        // each seed goes on past its crashes for two minutes.
        grow: &["-len_control=0", "-fork=1", "-ignore_crashes=1", "-max_total_time=120"],
        crashes: 5,
    },
];

/// The corpus holds at least this many files.
const MIN_FILES: usize = 2_000;
/// Seeds tried before giving up on growing a corpus that large.
const MAX_SEEDS: u64 = 40;
/// Our `--max-time` in minutes unless `BENCH_MINUTES` says otherwise.
const DEFAULT_MINUTES: u64 = 20;
/// The minutes at which our new corpus's files and bytes are shown.
const CHECKPOINTS: [u64; 3] = [1, 5, 10];
/// How often our new corpus is counted while the run goes on.
const POLL: Duration = Duration::from_millis(500);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Builds the tool in release; returns it.
fn build_tool() -> PathBuf {
    let args = ["build", "--release", "-p", "cargo-minimize-crash"];
    let status = Command::new(cargo()).current_dir(root()).args(args).status().expect("run cargo build");
    assert!(status.success(), "cargo {} failed", args.join(" "));
    // The binary `cargo bench` built, in the same directory (CARGO_TARGET_DIR respected).
    let release = Path::new(env!("CARGO_BIN_EXE_cargo-minimize-crash")).parent().expect("the release directory");
    release.join("cargo-minimize-crash")
}

/// Writes `text` to `path` unless it holds that already (so cargo's fingerprints stay warm).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return;
    }
    let parent = path.parent().expect("a file in a directory");
    std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("create {}: {e}", parent.display()));
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Writes `project` under `target/bench-corpus-scale/` without its lockfile; returns its directory.
fn write_project(project: &Project) -> PathBuf {
    let dir = root().join("target/bench-corpus-scale").join(project.dir);
    write_if_changed(&dir.join("Cargo.toml"), &fuzz_crate::crate_manifest(project.dir));
    write_if_changed(&dir.join("src/lib.rs"), "");
    let fuzz_manifest = fuzz_crate::fuzz_manifest(project.dir, project.dependency, project.target);
    write_if_changed(&dir.join("fuzz/Cargo.toml"), &fuzz_manifest);
    write_if_changed(&dir.join(format!("fuzz/fuzz_targets/{}.rs", project.target)), project.source);
    // Resolved afresh, as a user's project without a lockfile is.
    let _ = std::fs::remove_file(dir.join("fuzz/Cargo.lock"));
    dir
}

/// `cargo fuzz build TARGET` (AddressSanitizer) in `dir`: its time and the libFuzzer binary.
fn fuzz_build(dir: &Path, target: &str) -> (Duration, PathBuf) {
    let start = Instant::now();
    let out = Command::new(cargo())
        .current_dir(dir)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "build", target])
        .output()
        .expect("run cargo fuzz build");
    let time = start.elapsed();
    assert!(out.status.success(), "cargo fuzz build {target} in {} failed: {}", dir.display(), tail(&out.stderr));
    (time, dir.join("fuzz/target").join(host_triple()).join("release").join(target))
}

/// The project's corpus (`<dir>/corpus`), grown by libFuzzer when missing or smaller than [`MIN_FILES`].
fn corpus(project: &Project, dir: &Path, binary: &Path) -> PathBuf {
    let corpus = dir.join(place(project, "corpus"));
    if size(&corpus).0 >= MIN_FILES {
        return corpus;
    }
    let artifacts = dir.join(place(project, "grow-artifacts"));
    for fresh in [&corpus, &artifacts] {
        let _ = std::fs::remove_dir_all(fresh);
        std::fs::create_dir_all(fresh).unwrap_or_else(|e| panic!("create {}: {e}", fresh.display()));
    }
    for seed in 1..=MAX_SEEDS {
        let out = Command::new(binary)
            .current_dir(dir)
            .args([format!("-seed={seed}"), format!("-runs={}", project.runs), format!("-max_len={}", project.max_len)])
            .args(project.grow)
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg(&corpus)
            .output()
            .expect("run the libFuzzer binary");
        let (files, bytes) = size(&corpus);
        // A crash ends a run early; the next seed goes on from the corpus so far.
        let ended =
            if out.status.success() { String::new() } else { format!(" ({}: {})", out.status, tail(&out.stderr)) };
        eprintln!("corpus_scale: {}: -seed={seed}: {files} files, {bytes} bytes{ended}", project.name);
        if files >= MIN_FILES {
            return corpus;
        }
    }
    panic!("{}: {MAX_SEEDS} seeds of {} runs grew fewer than {MIN_FILES} files", project.name, project.runs);
}

/// What both sides are given: the corpus, with the first `crashes` crashing
/// inputs libFuzzer wrote while growing it (`<dir>/inputs`); the corpus itself
/// when the project puts none in. libFuzzer's own counts and rate are taken
/// on the corpus alone: a crash ends a `-runs=0` run.
fn inputs(project: &Project, dir: &Path, corpus: &Path) -> PathBuf {
    if project.crashes == 0 {
        return corpus.to_owned();
    }
    let (inputs, artifacts) = (dir.join(place(project, "inputs")), dir.join(place(project, "grow-artifacts")));
    let _ = std::fs::remove_dir_all(&inputs);
    copy_corpus(corpus, &inputs);
    let mut crashes: Vec<PathBuf> = std::fs::read_dir(&artifacts)
        .unwrap_or_else(|e| panic!("read {}: {e}", artifacts.display()))
        .map(|entry| entry.expect("an artifact").path())
        .filter(|path| path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("crash-")))
        .collect();
    crashes.sort();
    assert!(crashes.len() >= project.crashes, "{}: libFuzzer wrote {} crashes", project.name, crashes.len());
    for crash in &crashes[..project.crashes] {
        std::fs::copy(crash, inputs.join(crash.file_name().expect("a name"))).expect("copy a crash");
    }
    inputs
}

/// libFuzzer's own rate on `corpus` (`BINARY -runs=0`: each input run once,
/// in one process): executions per second of wall time, and its CPU time.
fn libfuzzer_rate(binary: &Path, corpus: &Path, scratch: &Path) -> Result<(f64, Cpu), String> {
    let (files, before, start) = (size(corpus).0, Cpu::now(), Instant::now());
    let out = Command::new(binary).current_dir(scratch).arg("-runs=0").arg(corpus).output();
    let (wall, cpu) = (start.elapsed(), Cpu::now().since(before));
    let out = out.map_err(|e| format!("{} did not run: {e}", binary.display()))?;
    if !out.status.success() {
        return Err(format!("-runs=0 failed ({}): {}", out.status, tail(&out.stderr)));
    }
    Ok((files as f64 / wall.as_secs_f64(), cpu))
}

/// `what` in the project's directory: `what-<name>` when projects share it.
fn place(project: &Project, what: &str) -> String {
    if project.name == project.dir {
        what.to_owned()
    } else {
        format!("{what}-{}", project.name)
    }
}

/// `cargo fuzz cmin TARGET COPY` on a copy of the corpus (`<dir>/cmin`); an empty result is a failure.
fn cmin(project: &Project, dir: &Path, corpus: &Path) -> Result<Minimized, String> {
    let (target, copy) = (project.target, dir.join(place(project, "cmin")));
    let _ = std::fs::remove_dir_all(&copy);
    copy_corpus(corpus, &copy);
    let start = Instant::now();
    let out = Command::new(cargo())
        .current_dir(dir)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "cmin", target])
        .arg(&copy)
        .output()
        .map_err(|e| format!("cargo fuzz cmin did not run: {e}"))?;
    let time = start.elapsed();
    let (files, bytes) = size(&copy);
    if !out.status.success() || files == 0 {
        return Err(format!("cmin left {files} files ({}): {}", out.status, tail(&out.stderr)));
    }
    Ok(Minimized { dir: copy, files, bytes, time })
}

/// Our new corpus counted at one moment of the run.
#[derive(Clone, Copy)]
struct Sample {
    at: Duration,
    files: usize,
    bytes: u64,
}

/// Our run: the new corpus at the end, every count taken while it ran, and its report.
struct Ours {
    new: Minimized,
    samples: Vec<Sample>,
    /// The first count that found files: NEW is a complete corpus from then on.
    first: Option<Duration>,
    report: Result<Value, String>,
    status: ExitStatus,
    /// The CPU time of our run and every process under it.
    cpu: Cpu,
}

/// Reads a child's pipe to its end on a thread of its own, so a chatty child never blocks.
fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Counts `new` every [`POLL`] until `child` exits; its status and the counts.
fn poll(child: &mut Child, new: &Path, start: Instant) -> (ExitStatus, Vec<Sample>) {
    let mut samples = Vec::new();
    loop {
        if let Some(status) = child.try_wait().expect("wait for cargo-minimize-crash") {
            return (status, samples);
        }
        let (files, bytes) = size(new);
        samples.push(Sample { at: start.elapsed(), files, bytes });
        std::thread::sleep(POLL);
    }
}

/// Forgets every earlier run into `new`: the directory, and the journals
/// (keyed by its path) in the harness's scratch directory, so nothing resumes.
fn forget_earlier_runs(dir: &Path, new: &Path) {
    let _ = std::fs::remove_dir_all(new);
    let staging = new.with_file_name(".ours.minimize-crash-staging");
    let _ = std::fs::remove_dir_all(staging);
    let Ok(scratch) = std::fs::read_dir(dir.join("fuzz/target/minimize-crash")) else { return };
    for entry in scratch.flatten() {
        let _ = std::fs::remove_dir_all(entry.path().join("corpus"));
    }
}

/// Corpus mode on `corpus` into `<dir>/ours`, from `dir`, for at most `minutes`.
fn ours(tool: &Path, (project, dir): (&Project, &Path), corpus: &Path, minutes: u64) -> Ours {
    let (target, new) = (project.target, dir.join(place(project, "ours")));
    forget_earlier_runs(dir, &new);
    let max_time = format!("{minutes}m");
    let (start, before) = (Instant::now(), Cpu::now());
    let mut child = Command::new(tool)
        .current_dir(dir)
        .args(["--json", "-q", "--timeout", "1s", "--max-time", &max_time, target, "--corpus"])
        .arg(corpus)
        .arg("-o")
        .arg(&new)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run cargo-minimize-crash");
    let stdout = drain(child.stdout.take().expect("a stdout pipe"));
    let stderr = drain(child.stderr.take().expect("a stderr pipe"));
    let (status, samples) = poll(&mut child, &new, start);
    let (time, cpu) = (start.elapsed(), Cpu::now().since(before));
    let (stdout, stderr) = (stdout.join().expect("stdout read"), stderr.join().expect("stderr read"));
    // Kept beside the results, for a second look at what happened to each input.
    let _ = std::fs::write(dir.join(format!("{}.json", place(project, "ours"))), &stdout);
    let report =
        serde_json::from_slice(&stdout).map_err(|e| format!("no --json report ({e}), {status}: {}", tail(&stderr)));
    let first = samples.iter().find(|s| s.files > 0).map(|s| s.at);
    let (files, bytes) = size(&new);
    Ours { new: Minimized { dir: new, files, bytes, time }, samples, first, report, status, cpu }
}

fn libfuzzer(binary: &Path, corpus: &Path, cmin: Option<&Path>, ours: &Path, scratch: &Path) -> Libfuzzer {
    std::fs::create_dir_all(scratch).unwrap_or_else(|e| panic!("create {}: {e}", scratch.display()));
    let cmin = cmin.map_or_else(|| Err("no corpus".to_owned()), |dir| counts(binary, &[dir], scratch));
    Libfuzzer {
        original: counts(binary, &[corpus], scratch),
        cmin,
        ours: counts(binary, &[ours], scratch),
        both: counts(binary, &[ours, corpus], scratch),
        again: counts_again(binary, ours, corpus, scratch),
    }
}

/// One project's results.
struct Row {
    project: &'static Project,
    files: usize,
    bytes: u64,
    build: Duration,
    cmin: Result<Minimized, String>,
    ours: Ours,
    libfuzzer: Libfuzzer,
    /// libFuzzer's executions per second on the corpus, and its CPU time.
    rate: Result<(f64, Cpu), String>,
}

/// Writes and builds `project`, grows its corpus, and runs both sides on it.
fn measure(project: &'static Project, tool: &Path, minutes: u64) -> Row {
    let dir = write_project(project);
    eprintln!("corpus_scale: {}: cargo fuzz build {}", project.name, project.target);
    let (build, binary) = fuzz_build(&dir, project.target);
    let corpus = corpus(project, &dir, &binary);
    let inputs = inputs(project, &dir, &corpus);
    let (files, bytes) = size(&inputs);
    println!("{}: {files} inputs, {} bytes ({})", project.name, thousands(bytes), inputs.display());
    eprintln!("corpus_scale: {}: cargo fuzz cmin", project.name);
    let cmin = cmin(project, &dir, &inputs);
    eprintln!("corpus_scale: {}: ours, --max-time {minutes}m", project.name);
    let ours = ours(tool, (project, &dir), &inputs, minutes);
    let cmin_dir = cmin.as_ref().ok().map(|m| m.dir.as_path());
    let libfuzzer = libfuzzer(&binary, &corpus, cmin_dir, &ours.new.dir, &dir.join("scratch"));
    let rate = libfuzzer_rate(&binary, &corpus, &dir.join("scratch"));
    Row { project, files, bytes, build, cmin, ours, libfuzzer, rate }
}

fn secs(seconds: f64) -> String {
    format!("{seconds:.1} s")
}

fn counts_cell(counts: &Result<Counts, String>) -> String {
    counts.as_ref().map_or_else(|_| "failed".to_owned(), |(cov, ft)| format!("{cov}/{ft}"))
}

/// Our new corpus's files and bytes at `minute`: the first count from then
/// on, or the end when the run ended before; "–" past our `--max-time`.
fn checkpoint(ours: &Ours, minute: u64, minutes: u64) -> String {
    if minute > minutes {
        return "–".to_owned();
    }
    let at = Duration::from_secs(minute * 60);
    let end = Sample { at: ours.new.time, files: ours.new.files, bytes: ours.new.bytes };
    let sample = ours.samples.iter().find(|s| s.at >= at).copied().unwrap_or(end);
    format!("{} / {}", sample.files, thousands(sample.bytes))
}

/// The cmin cells (time, files, bytes, counts); a failure as text.
fn cmin_cells(row: &Row) -> [String; 4] {
    match &row.cmin {
        Ok(m) => {
            [secs(m.time.as_secs_f64()), m.files.to_string(), thousands(m.bytes), counts_cell(&row.libfuzzer.cmin)]
        }
        Err(_) => ["failed".to_owned(), String::new(), String::new(), String::new()],
    }
}

/// Our first complete corpus: its time, and that time over cmin's time plus the build's.
fn first_cells(row: &Row) -> [String; 2] {
    let Some(first) = row.ours.first else { return ["–".to_owned(), "–".to_owned()] };
    let multiple = match &row.cmin {
        Ok(m) => format!("{:.1}", first.as_secs_f64() / (m.time + row.build).as_secs_f64()),
        Err(_) => "–".to_owned(),
    };
    [secs(first.as_secs_f64()), multiple]
}

/// A row of the main table.
fn cells(row: &Row, minutes: u64) -> Vec<String> {
    let ours = &row.ours;
    let mut cells = vec![row.project.label.to_owned(), thousands(row.files as u64), thousands(row.bytes)];
    cells.push(counts_cell(&row.libfuzzer.original));
    cells.push(secs(row.build.as_secs_f64()));
    cells.extend(cmin_cells(row));
    cells.extend(first_cells(row));
    cells.extend(CHECKPOINTS.map(|minute| checkpoint(ours, minute, minutes)));
    cells.push(format!("{} / {}", ours.new.files, thousands(ours.new.bytes)));
    cells.push(secs(ours.new.time.as_secs_f64()));
    cells.push(counts_cell(&row.libfuzzer.ours));
    cells.push(match &row.cmin {
        Ok(m) => format!("{:.2}", ours.new.bytes as f64 / m.bytes.max(1) as f64),
        Err(_) => "–".to_owned(),
    });
    cells
}

/// A row of the phase table: where our time went, by the report.
fn phase_cells(row: &Row) -> Vec<String> {
    let mut cells = vec![row.project.name.to_owned()];
    let Ok(report) = &row.ours.report else { return cells };
    let phases = &report["phase_seconds"];
    let names = PHASES;
    let seconds = report["seconds"].as_f64().unwrap_or_default();
    let phased: f64 = names.iter().map(|n| phases[n].as_f64().unwrap_or_default()).sum();
    let tests = report["tests"].as_u64().unwrap_or_default();
    cells.extend([secs(seconds), secs(seconds - phased)]);
    cells.extend(names.iter().map(|n| phases[n].as_f64().map_or("–".to_owned(), secs)));
    cells.push(report["first_complete_seconds"].as_f64().map_or("–".to_owned(), secs));
    cells.push(thousands(tests));
    cells.push(format!("{:.0}", tests as f64 / seconds.max(0.001)));
    cells.push(row.rate.as_ref().map_or("failed".to_owned(), |(rate, _)| format!("{rate:.0}")));
    cells.push(row.ours.cpu.kernel_share());
    cells.push(row.rate.as_ref().map_or("–".to_owned(), |(_, cpu)| cpu.kernel_share()));
    cells.push(report["stopped_at_max_time"].to_string());
    cells
}

/// The report's phases (`phase_seconds`), in the order they run.
const PHASES: [&str; 7] = ["measure", "first_corpus", "measure_again", "crash_build", "rounds", "joins", "alone"];

/// The new corpus's files and bytes at the end of each phase (the first
/// count after it, so up to [`POLL`] into the next), from the counts taken
/// while it ran: whether a phase paid for its time. The report's seconds
/// not in a phase (the coverage build, mostly) are taken as before the first.
fn phase_end_cells(row: &Row) -> Vec<String> {
    let mut cells = vec![row.project.name.to_owned()];
    let Ok(report) = &row.ours.report else { return cells };
    let phase = |name: &str| report["phase_seconds"][name].as_f64().unwrap_or_default();
    let seconds = report["seconds"].as_f64().unwrap_or_default();
    let mut at = seconds - PHASES.iter().map(|&n| phase(n)).sum::<f64>();
    let end = Sample { at: row.ours.new.time, files: row.ours.new.files, bytes: row.ours.new.bytes };
    for name in PHASES {
        at += phase(name);
        // The first count after it: a phase of less than the counts' period still shows what it left.
        let sample = row.ours.samples.iter().find(|s| s.at.as_secs_f64() >= at).copied().unwrap_or(end);
        cells.push(format!("{} / {}", sample.files, thousands(sample.bytes)));
    }
    cells.push(format!("{} / {}", end.files, thousands(end.bytes)));
    cells
}

/// Our report's totals, and what in our run deserves a second look.
fn ours_notes(name: &str, ours: &Ours) -> Vec<String> {
    let report = match &ours.report {
        Ok(report) => report,
        Err(e) => return vec![format!("{name}: ours: {e}")],
    };
    let (before, after) = (&report["before"], &report["after"]);
    let mut notes = vec![format!(
        "{name}: ours: {}, features (our count, {} build) {} -> {}, covers_every_feature {}, varying_features {}, \
         stopped_at_max_time {}",
        ours.status,
        report["coverage_build"].as_str().unwrap_or("?"),
        before["features"],
        after["features"],
        report["covers_every_feature"],
        report["varying_features"],
        report["stopped_at_max_time"]
    )];
    let inputs = report["inputs"].as_array().map(Vec::as_slice).unwrap_or_default();
    for status in ["crash", "timeout", "rejected", "empty", "failed", "interrupted"] {
        let left_out = inputs.iter().filter(|i| i["status"] == status).count();
        if left_out > 0 {
            notes.push(format!("{name}: ours: {left_out} inputs left out as {status} (their features are not kept)"));
        }
    }
    if after["files"].as_u64() != Some(ours.new.files as u64) || after["bytes"].as_u64() != Some(ours.new.bytes) {
        let (files, bytes) = (ours.new.files, ours.new.bytes);
        notes.push(format!("{name}: ours: the report says {after}, the directory holds {files} files, {bytes} bytes"));
    }
    notes
}

/// Failures, and coverage lost by libFuzzer's count (loudly).
fn libfuzzer_notes(name: &str, lf: &Libfuzzer) -> Vec<String> {
    let mut notes = lf.failures_and_losses(name);
    match (lf.superset(), &lf.both) {
        (Ok(true), Ok((cov, ft))) => notes.push(format!(
            "{name}: `-runs=0 OURS ORIGINAL` counts {cov}/{ft}, no more than ours again ({}; alone {}): ours covers \
             everything of the original by libFuzzer's count",
            counts_cell(&lf.again),
            counts_cell(&lf.ours)
        )),
        (Ok(false), Ok((cov, ft))) => notes.push(format!(
            "**{name}: LOST COVERAGE: `-runs=0 OURS ORIGINAL` counts {cov}/{ft}, more than ours again ({}; alone \
             {}): the original has features ours lacks**",
            counts_cell(&lf.again),
            counts_cell(&lf.ours)
        )),
        _ => {}
    }
    notes
}

fn print_tables(rows: &[Row], minutes: u64) {
    let headers = [
        "corpus",
        "files",
        "bytes",
        "cov/ft",
        "build",
        "cmin",
        "cmin files",
        "cmin bytes",
        "cmin cov/ft",
        "ours first",
        "first / (cmin + build)",
        "1 min",
        "5 min",
        "10 min",
        "end",
        "end time",
        "ours cov/ft",
        "bytes ours/cmin",
    ];
    table::print(&headers, rows.iter().map(|row| cells(row, minutes)));
    let phases = [
        "corpus",
        "seconds",
        "build (rest)",
        "measure",
        "first corpus",
        "measure again",
        "crash build",
        "rounds",
        "joins",
        "alone",
        "first complete",
        "tests",
        "tests/s",
        "libFuzzer exec/s",
        "kernel share, ours",
        "kernel share, libFuzzer",
        "stopped at max time",
    ];
    table::print(&phases, rows.iter().map(phase_cells));
    let ends = ["files / bytes at the end of", "measure", "first corpus", "measure again", "crash build"];
    let ends: Vec<&str> = ends.into_iter().chain(["rounds", "joins", "alone", "the run"]).collect();
    table::print(&ends, rows.iter().map(phase_end_cells));
    println!();
    for row in rows {
        let name = row.project.name;
        if let Err(e) = &row.cmin {
            println!("- {name}: cmin: {e}");
        }
        for note in ours_notes(name, &row.ours).into_iter().chain(libfuzzer_notes(name, &row.libfuzzer)) {
            println!("- {note}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let minutes: u64 = std::env::var("BENCH_MINUTES").map_or(DEFAULT_MINUTES, |m| {
        m.parse().unwrap_or_else(|e| panic!("BENCH_MINUTES={m:?} is not a number of minutes: {e}"))
    });
    let picked: Vec<&'static Project> = PROJECTS.iter().filter(|p| args.iter().any(|a| a == p.name)).collect();
    let projects: Vec<&'static Project> = if picked.is_empty() { PROJECTS.iter().collect() } else { picked };
    let names: Vec<&str> = projects.iter().map(|p| p.name).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("corpus_scale: libFuzzer corpora of {MIN_FILES}+ inputs of {}; cargo fuzz cmin against corpus mode (--max-time {minutes}m), libFuzzer's -runs=0 counts of each (run `cargo bench --bench corpus_scale` to measure)", names.join(", "));
        return;
    }
    // Checked only when measuring: `cargo test --benches FILTER` hands its test filter to every bench.
    let unknown = args.iter().find(|a| !a.starts_with('-') && !PROJECTS.iter().any(|p| p.name == a.as_str()));
    assert!(unknown.is_none(), "{unknown:?} is not one of the projects {:?}", PROJECTS.map(|p| p.name));
    assert!(cargo_fuzz::ensure_installed(), "cargo fuzz is needed: it builds the targets and grows the corpora");
    let tool = build_tool();
    let rows: Vec<Row> = projects.into_iter().map(|project| measure(project, &tool, minutes)).collect();
    print_tables(&rows, minutes);
}
