//! The harness mode against `cargo fuzz tmin` (default, and `-r 5000`) on crashes libFuzzer finds in two real generator targets: what each result makes the generator write, not only its input size.
//!
//! ```text
//! cargo bench --bench generators                       # both projects, 6 crashes each
//! cargo bench --bench generators -- wit                # projects whose name contains "wit"
//! BENCH_CRASHES=2 cargo bench --bench generators       # crashes per project (default 6)
//! BENCH_GENERATORS_LIMIT=300 cargo bench --bench generators   # per-run wall limit, seconds (default 900)
//! ```
//!
//! A generator target turns its bytes into a large value through a
//! hand-written generator over `arbitrary::Unstructured`: a minimized input
//! is only as good as the value it still generates. Each project is written
//! under `target/bench-generators/<name>/` (kept between runs, so the builds
//! stay warm; a file is rewritten only when its content changed;
//! `fuzz/Cargo.lock` removed before the build, so it resolves as a user's
//! project does): an empty crate at the root, `fuzz/` a cargo-fuzz crate of
//! its own workspace with one `&[u8]` target over pinned crates.io releases,
//! which writes the generated module to `GENERATED_ARTIFACT` when it is set:
//!
//! - `wit-smith` (target `wit`): wit-smith 0.214.0 draws a `Config` and a WIT
//!   package, wit-component 0.217.1 decodes it and panics with "multiple
//!   returns on a function is now a gated feature" on the functions with
//!   several named results the old generator still writes
//!   (bytecodealliance/wasm-tools#1757, its `wit64` fuzzer). Not 0.216: its
//!   decoder validates with `WasmFeatures::all()`, which from 0.217 on is the
//!   default set unless wasmparser's `features` Cargo feature is on
//!   (wasm-tools#1733), and here it is not; 0.216.0 (resolved to wit-parser
//!   0.216.1, 0.216.0 being yanked) rejected none of 2,000 random 4 KB inputs,
//!   0.217.1 rejected 397;
//! - `wasm-smith` (target `module`): wasm-smith 0.218.0 draws a `Config` and a
//!   module, wasmprinter 0.218.0 prints it with folded instructions and panics
//!   "no predicate" on an `if` that is the first instruction of a block whose
//!   condition is a block parameter (wasm-tools#1838, fixed in #1840).
//!
//! For each: `cargo fuzz build TARGET` (AddressSanitizer, cargo-fuzz's
//! default, with `RUSTC_BOOTSTRAP=1`; timed). Then the crashes, cached in
//! `<dir>/crashes/`: files whose run of the libFuzzer binary (`BINARY FILE`)
//! prints the project's panic message. When fewer than `BENCH_CRASHES`, the
//! ones libFuzzer wrote earlier (`<dir>/found/`) are checked, then it searches
//! again: `BINARY -seed=S -fork=1 -ignore_crashes=1 -len_control=0
//! -max_len=4096 -max_total_time=120 -artifact_prefix=<dir>/found/ <dir>/corpus/
//! <dir>/seeds-S/` for S = 1, 2, ... (10 at most; without `-len_control=0
//! -max_len=4096` fork mode keeps inputs under about 100 bytes, and the
//! generators make tiny values). `seeds-S/` holds 2,000 random inputs of
//! 256 to 4,096 bytes drawn from seed S, written once: a generator's bugs
//! lie in large random inputs (wasm-smith's "no predicate" in about one in
//! 1,500), which libFuzzer's mutations of a small corpus reach only after
//! tens of minutes (one crash in 20 searches of two minutes without them;
//! three in the first seconds with them). Each `crash-*` it wrote (by name) checked and copied until there
//! are enough. A search still running at twice its time plus a minute is
//! stopped (fork mode first runs the whole corpus, restarting at each crash,
//! and `-max_total_time` does not bound that); the crashes it wrote count. The first `BENCH_CRASHES` by file name are measured, each from
//! the project's directory on a fresh copy:
//!
//! - **tmin**: `cargo fuzz tmin [-r 5000] TARGET CRASH -- -timeout=5 -seed=1
//!   -print_final_stats=1 -artifact_prefix=DIR/` (`-timeout=5` is our default
//!   per-test limit; libFuzzer's own, 1200 s, would let one hanging mutation
//!   stall a run). The result is the newest `minimized-from-*` in `DIR`.
//!   **Executions**: the `stat::number_of_executed_units:` lines of every
//!   step libFuzzer prints, plus what it runs and does not print: each step's
//!   first run of the current input (its output is read only for the dedup
//!   token) and the last step's mutations (`-r`, 255 by default: a step that
//!   finds no crash exits without its stats).
//! - **ours**: `cargo-minimize-crash minimize-crash --json --quiet --parallel 1
//!   TARGET CRASH -o OUT` (one test at a time, as tmin runs), after one untimed
//!   warm-up run (`--max-tests 1`) that builds the harness; tests are the
//!   summary's `tests`; the notes give its phases (set-up, where the harness
//!   build is checked, the reduction, and the libFuzzer cross-check's build
//!   and run).
//!
//! Every result (and the crash) runs once more on the libFuzzer binary with
//! `GENERATED_ARTIFACT` set: the **artifact** is the generated module's size,
//! and ✗ marks a result that no longer panics with the project's message.
//! Each side's time is the whole command's wall time. One Markdown table per
//! project (crash, its input and artifact, then per side the result's input
//! and artifact, executions or tests, time) with a totals row, and the goal
//! per crash: our result keeps the panic, its artifact is no larger than
//! either tmin result's that keeps the panic and at most a sixth of the
//! crash's, in at most 10,000 tests; then how many crashes meet it. Every run's
//! output is kept under `<dir>/runs/<crash>/`. Run without `--bench` (as
//! `cargo test --benches` does) it only says what it would do.

#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "support/fuzz_crate.rs"]
mod fuzz_crate;
#[path = "support/limited.rs"]
mod limited;
#[path = "support/table.rs"]
mod table;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use limited::run_limited;
use serde_json::Value;
use table::thousands;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

/// One generator project: its fuzz crate's dependencies, its target, and the bug's panic message.
struct Project {
    name: &'static str,
    target: &'static str,
    /// What the generator makes and what panics, for the table's heading.
    label: &'static str,
    /// `fuzz/Cargo.toml`'s dependency lines (libfuzzer-sys is always there).
    dependencies: &'static str,
    source: &'static str,
    /// What the libFuzzer binary's output says when the input hits the bug.
    expected: &'static str,
}

const WIT_SOURCE: &str = r#"#![no_main]
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

// A WIT package from the old generator, decoded by the newer decoder.
fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(config) = u.arbitrary::<wit_smith::Config>() else { return };
    let Ok(wasm) = wit_smith::smith(&config, &mut u) else { return };
    if let Some(path) = std::env::var_os("GENERATED_ARTIFACT") {
        std::fs::write(&path, &wasm).expect("write the generated package to GENERATED_ARTIFACT");
    }
    wit_component::decode(&wasm).unwrap();
});
"#;

const WASM_SOURCE: &str = r#"#![no_main]
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

// A module from wasm-smith, printed with folded instructions.
fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(config) = u.arbitrary::<wasm_smith::Config>() else { return };
    let Ok(module) = wasm_smith::Module::new(config, &mut u) else { return };
    let wasm = module.to_bytes();
    if let Some(path) = std::env::var_os("GENERATED_ARTIFACT") {
        std::fs::write(&path, &wasm).expect("write the generated module to GENERATED_ARTIFACT");
    }
    let mut text = String::new();
    // The bug looked for is the printer's panic; an error is left alone.
    let mut out = wasmprinter::PrintFmtWrite(&mut text);
    let _ = wasmprinter::Config::new().fold_instructions(true).print(&wasm, &mut out);
});
"#;

const PROJECTS: [Project; 2] = [
    Project {
        name: "wit-smith",
        target: "wit",
        label: "wit-smith 0.214.0 decoded by wit-component 0.217.1 (wasm-tools#1757)",
        dependencies: "wit-smith = \"=0.214.0\"\nwit-component = \"=0.217.1\"\narbitrary = \"1\"",
        source: WIT_SOURCE,
        expected: "multiple returns on a function is now a gated feature",
    },
    Project {
        name: "wasm-smith",
        target: "module",
        label: "wasm-smith 0.218.0 printed folded by wasmprinter 0.218.0 (wasm-tools#1838)",
        dependencies: "wasm-smith = \"=0.218.0\"\nwasmprinter = \"=0.218.0\"\narbitrary = \"1\"",
        source: WASM_SOURCE,
        expected: "no predicate",
    },
];

/// Crashes per project unless `BENCH_CRASHES` says otherwise.
const DEFAULT_CRASHES: usize = 6;
/// Each side's wall limit, seconds, unless `BENCH_GENERATORS_LIMIT` says otherwise.
const DEFAULT_LIMIT_SECS: u64 = 900;
/// libFuzzer searches (seeds) tried before giving up on finding enough crashes.
const MAX_SEEDS: u64 = 10;
/// One search's `-max_total_time`, seconds.
const SEARCH_SECS: u64 = 120;
/// The wall limit of one run of the libFuzzer binary on one file.
const REPLAY_LIMIT: Duration = Duration::from_secs(120);
/// libFuzzer's per-input `-timeout` in tmin's runs (our default `--timeout`).
const TMIN_TIMEOUT_SECS: u64 = 5;
/// tmin's `-r` in its second setting.
const TMIN_RUNS: u32 = 5000;
/// The goal's test budget for ours.
const MAX_TESTS: u64 = 10_000;

/// What every project's run shares.
struct Settings {
    crashes: usize,
    limit: Duration,
    host: String,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn host_triple() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("run rustc -vV for the host triple");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).expect("a host line in rustc -vV").trim().to_owned()
}

fn create_dir(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
}

/// `dir` emptied (or created).
fn fresh_dir(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    create_dir(dir);
}

/// Writes `text` to `path` unless it holds that already (so cargo's fingerprints stay warm).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return;
    }
    create_dir(path.parent().expect("a file in a directory"));
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Writes `project` under `target/bench-generators/` without its lockfile; returns its directory.
fn write_project(project: &Project) -> PathBuf {
    let dir = root().join("target/bench-generators").join(project.name);
    write_if_changed(&dir.join("Cargo.toml"), &fuzz_crate::crate_manifest(project.name));
    write_if_changed(&dir.join("src/lib.rs"), "");
    let fuzz_manifest = fuzz_crate::fuzz_manifest(project.name, project.dependencies, project.target);
    write_if_changed(&dir.join("fuzz/Cargo.toml"), &fuzz_manifest);
    write_if_changed(&dir.join(format!("fuzz/fuzz_targets/{}.rs", project.target)), project.source);
    // Resolved afresh, as a user's project without a lockfile is.
    let _ = std::fs::remove_file(dir.join("fuzz/Cargo.lock"));
    dir
}

/// The last lines of a log, on one line.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join(" / ")
}

/// `cargo fuzz build TARGET` (AddressSanitizer) in `dir`: its time and the libFuzzer binary.
fn fuzz_build(project: &Project, dir: &Path, host: &str) -> (Duration, PathBuf) {
    let mut command = Command::new(cargo());
    command.current_dir(dir).env("RUSTC_BOOTSTRAP", "1").args(["fuzz", "build", project.target]);
    let built = run_limited(&mut command, Duration::from_secs(3600), &dir.join("logs"), "build");
    assert!(
        built.status.is_some_and(|s| s.success()),
        "cargo fuzz build {} in {} failed ({:?}): {}",
        project.target,
        dir.display(),
        built.status,
        tail(&built.stderr, 8)
    );
    (built.wall, dir.join("fuzz/target").join(host).join("release").join(project.target))
}

/// What one run of the libFuzzer binary on a file did.
#[derive(Clone, Copy, Default)]
struct Replay {
    /// The generated module's size (`None`: the generator wrote none).
    artifact: Option<u64>,
    /// Whether the run printed the project's panic message.
    panics: bool,
}

/// `BINARY FILE` with `GENERATED_ARTIFACT` set, in `scratch` (where a crash's `crash-*` file goes).
fn replay(project: &Project, binary: &Path, file: &Path, scratch: &Path) -> Replay {
    create_dir(scratch);
    let artifact = scratch.join("generated");
    let _ = std::fs::remove_file(&artifact);
    let mut command = Command::new(binary);
    command.current_dir(scratch).arg(file).env("GENERATED_ARTIFACT", &artifact).env("RUST_BACKTRACE", "0");
    let run = run_limited(&mut command, REPLAY_LIMIT, scratch, "replay");
    let panics = run.status.is_some_and(|s| !s.success()) && run.stderr.contains(project.expected);
    Replay { artifact: std::fs::metadata(&artifact).ok().map(|m| m.len()), panics }
}

/// The files in `dir` whose name starts with `prefix`, by name.
fn files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix)))
        .collect();
    files.sort();
    files
}

/// Copies into `kept` the `crash-*` files of `found` not there yet that hit
/// the bug, by name, until `crashes` holds `want`.
fn take_found(project: &Project, dir: &Path, binary: &Path, crashes: &mut Vec<PathBuf>, want: usize) {
    let (found, kept, scratch) = (dir.join("found"), dir.join("crashes"), dir.join("replay"));
    for file in files(&found, "crash-") {
        if crashes.len() >= want {
            return;
        }
        let copy = kept.join(file.file_name().expect("a file name"));
        if copy.exists() || !replay(project, binary, &file, &scratch).panics {
            continue;
        }
        std::fs::copy(&file, &copy).unwrap_or_else(|e| panic!("copy {} to {}: {e}", file.display(), copy.display()));
        crashes.push(copy);
    }
}

/// One libFuzzer search with `-seed=SEED`, its crashes written to `<dir>/found/`.
fn search(project: &Project, dir: &Path, binary: &Path, seed: u64) {
    let (corpus, found) = (dir.join("corpus"), dir.join("found"));
    create_dir(&corpus);
    create_dir(&found);
    let mut command = Command::new(binary);
    command.current_dir(dir).arg(format!("-seed={seed}"));
    command.args(["-fork=1", "-ignore_crashes=1", "-len_control=0", "-max_len=4096"]);
    command.arg(format!("-max_total_time={SEARCH_SECS}"));
    command.arg(format!("-artifact_prefix={}/", found.display())).arg(&corpus).arg(random_seeds(dir, seed));
    let limit = Duration::from_secs(SEARCH_SECS * 2 + 60);
    let run = run_limited(&mut command, limit, &dir.join("logs"), &format!("search-seed{seed}"));
    let ended = run.status.map_or("killed at the limit".to_owned(), |s| s.to_string());
    let found_now = files(&found, "crash-").len();
    eprintln!("generators: {}: -seed={seed}: {ended}, {found_now} crash files in found/", project.name);
}

/// How many random inputs each search starts from.
const RANDOM_SEEDS: u64 = 2000;

/// `<dir>/seeds-SEED/`, written once: [`RANDOM_SEEDS`] random inputs of 256
/// to 4,096 bytes drawn from `seed`.
fn random_seeds(dir: &Path, seed: u64) -> PathBuf {
    let seeds = dir.join(format!("seeds-{seed}"));
    if files(&seeds, "seed-").len() as u64 == RANDOM_SEEDS {
        return seeds;
    }
    create_dir(&seeds);
    let mut rng = fastrand::Rng::with_seed(seed);
    for i in 0..RANDOM_SEEDS {
        let bytes: Vec<u8> = (0..rng.usize(256..=4096)).map(|_| rng.u8(..)).collect();
        let file = seeds.join(format!("seed-{i:04}"));
        std::fs::write(&file, bytes).unwrap_or_else(|e| panic!("write {}: {e}", file.display()));
    }
    seeds
}

/// The project's first `want` crashes by name: those kept in `<dir>/crashes/`
/// that hit the bug, and more from libFuzzer's searches when too few.
fn crashes(project: &Project, dir: &Path, binary: &Path, want: usize) -> Vec<PathBuf> {
    let kept = dir.join("crashes");
    create_dir(&kept);
    let scratch = dir.join("replay");
    let mut crashes: Vec<PathBuf> =
        files(&kept, "").into_iter().filter(|f| replay(project, binary, f, &scratch).panics).collect();
    take_found(project, dir, binary, &mut crashes, want);
    for seed in 1..=MAX_SEEDS {
        if crashes.len() >= want {
            break;
        }
        eprintln!("generators: {}: {} of {want} crashes; libFuzzer search -seed={seed}", project.name, crashes.len());
        search(project, dir, binary, seed);
        take_found(project, dir, binary, &mut crashes, want);
    }
    crashes.sort();
    crashes.truncate(want);
    if crashes.len() < want {
        eprintln!("generators: {}: only {} crashes after {MAX_SEEDS} searches", project.name, crashes.len());
    }
    crashes
}

/// One side's result on one crash.
#[derive(Default)]
struct Side {
    /// The result's size in bytes.
    input: u64,
    replay: Replay,
    /// tmin's executions or our tests (`None`: unknown, the run failed).
    count: Option<u64>,
    time: Duration,
    /// What went wrong, if anything, and tmin's steps.
    note: String,
    failed: bool,
}

/// A fresh copy of `crash` in `dir` (emptied first).
fn crash_copy(crash: &Path, dir: &Path) -> PathBuf {
    fresh_dir(dir);
    let copy = dir.join(crash.file_name().expect("a crash file name"));
    std::fs::copy(crash, &copy).unwrap_or_else(|e| panic!("copy {} to {}: {e}", crash.display(), copy.display()));
    copy
}

/// The newest file in `dir` (tmin's last `minimized-from-*`; the smaller on a tie), if any.
fn newest_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, std::cmp::Reverse(meta.len()), e.path()))
        })
        .max()
        .map(|(_, _, path)| path)
}

/// The `cargo fuzz tmin [-r RUNS] TARGET CRASH -- ...` command, from the project's directory.
fn tmin_command(project: &Project, dir: &Path, crash: &Path, runs: Option<u32>, artifacts: &Path) -> Command {
    let mut command = Command::new(cargo());
    // As the build: an ASan build of the same flags, so tmin's own build is a no-op.
    command.current_dir(dir).env("RUSTC_BOOTSTRAP", "1").args(["fuzz", "tmin"]);
    if let Some(runs) = runs {
        command.args(["-r", &runs.to_string()]);
    }
    command.arg(project.target).arg(crash).arg("--");
    command.args([format!("-timeout={TMIN_TIMEOUT_SECS}").as_str(), "-seed=1", "-print_final_stats=1"]);
    // libFuzzer's last flag wins over cargo-fuzz's `-artifact_prefix=fuzz/artifacts/TARGET/`.
    let mut prefix = OsString::from("-artifact_prefix=");
    prefix.push(artifacts.join(""));
    command.arg(prefix);
    command
}

/// tmin's executions by its log: the steps' printed stats, each step's
/// unprinted first run of its input, and the last step's `runs` mutations
/// when it found no crash (it exits without stats).
fn tmin_execs(log: &str, runs: u64) -> u64 {
    let prefix = "stat::number_of_executed_units:";
    let stats: u64 = log.lines().filter_map(|l| l.strip_prefix(prefix)?.trim().parse::<u64>().ok()).sum();
    let steps = log.matches("CRASH_MIN: minimizing crash input").count() as u64;
    let mutated = log.contains("failed to minimize beyond") && !log.contains("The input is small enough");
    stats + steps + if mutated { runs } else { 0 }
}

/// How tmin's minimization ended, from its `CRASH_MIN` lines.
fn tmin_story(log: &str) -> String {
    let steps = log.matches("CRASH_MIN: minimizing crash input").count();
    let end = if log.contains("mismatch in dedup tokens") {
        "a step crashed differently (dedup tokens)"
    } else if log.contains("failed to minimize beyond") {
        "a step found no smaller crash"
    } else if log.contains("did not crash") {
        "the input did not crash"
    } else {
        "no end line"
    };
    format!("{steps} steps, {end}")
}

/// Minimizes `crash` with `cargo fuzz tmin [-r RUNS]`, timed and counted.
fn tmin(project: &Project, (dir, binary): (&Path, &Path), crash: &Path, runs: Option<u32>, limit: Duration) -> Side {
    let label = runs.map_or("tmin".to_owned(), |r| format!("tmin-r{r}"));
    let scratch = dir.join("runs").join(crash.file_name().expect("a crash file name")).join(&label);
    let copy = crash_copy(crash, &scratch);
    let artifacts = scratch.join("artifacts");
    create_dir(&artifacts);
    let run = run_limited(&mut tmin_command(project, dir, &copy, runs, &artifacts), limit, &scratch, "tmin");
    let result = newest_file(&artifacts).unwrap_or(copy);
    let ended = match run.status {
        None => format!("killed at the {}-second limit", limit.as_secs()),
        Some(status) if status.success() => "exit 0".to_owned(),
        Some(status) => format!("{status}: {}", tail(&run.stderr, 2)),
    };
    Side {
        input: std::fs::metadata(&result).map_or(0, |m| m.len()),
        replay: replay(project, binary, &result, &scratch.join("replay")),
        count: Some(tmin_execs(&run.stderr, u64::from(runs.unwrap_or(255)))),
        time: run.wall,
        note: format!("{ended}, {}", tmin_story(&run.stderr)),
        failed: !run.status.is_some_and(|s| s.success()),
    }
}

/// Our command: `minimize-crash --json --quiet --parallel 1 TARGET CRASH -o OUT`, from the project's directory.
fn ours_command(project: &Project, dir: &Path, crash: &Path, output: &Path) -> Command {
    let mut command = Command::new(BIN);
    // One test at a time, as tmin: executions and tests compare like for like.
    command.current_dir(dir).args(["minimize-crash", "--json", "--quiet", "--parallel", "1", project.target]);
    command.arg(crash).arg("-o").arg(output);
    command
}

/// Builds our harness (and checks the `cargo fuzz build` binary) once, untimed.
fn warm_up(project: &Project, dir: &Path, crash: &Path) {
    let scratch = dir.join("runs/warm-up");
    let copy = crash_copy(crash, &scratch);
    let mut command = ours_command(project, dir, &copy, &scratch.join("result"));
    command.args(["--max-tests", "1"]);
    let warm = run_limited(&mut command, Duration::from_secs(3600), &scratch, "ours");
    assert!(
        warm.status.is_some_and(|s| s.success()),
        "warming up ours on {} failed ({:?}): {}",
        project.name,
        warm.status,
        tail(&warm.stderr, 8)
    );
}

/// Minimizes `crash` with our tool, timed.
fn ours(project: &Project, (dir, binary): (&Path, &Path), crash: &Path, limit: Duration) -> Side {
    let scratch = dir.join("runs").join(crash.file_name().expect("a crash file name")).join("ours");
    let copy = crash_copy(crash, &scratch);
    let output = scratch.join("result");
    let run = run_limited(&mut ours_command(project, dir, &copy, &output), limit, &scratch, "ours");
    let summary: Option<Value> = serde_json::from_str(&run.stdout).ok();
    let result = if output.is_file() { output } else { copy };
    let mut side = Side {
        input: std::fs::metadata(&result).map_or(0, |m| m.len()),
        replay: replay(project, binary, &result, &scratch.join("replay")),
        time: run.wall,
        failed: !run.status.is_some_and(|s| s.success()),
        ..Side::default()
    };
    match &summary {
        Some(summary) if run.status.is_some() => {
            side.count = summary["tests"].as_u64();
            side.input = summary["final_size"].as_u64().unwrap_or(side.input);
            let libfuzzer = summary["libfuzzer"]["verified"].as_str().unwrap_or("absent");
            let phase = |name: &str| summary["phases"][name].as_f64().unwrap_or_default();
            side.note = format!(
                "verified {}, libFuzzer cross-check {libfuzzer}; set-up {:.1} s, reduction {:.1} s, cross-check {:.1} s",
                summary["verified"],
                phase("setup"),
                phase("reduction"),
                phase("checks")
            );
        }
        _ => side.note = format!("failed ({:?}): {}", run.status, tail(&run.stderr, 4)),
    }
    side
}

/// One crash's row.
struct Row {
    crash: String,
    input: u64,
    artifact: Option<u64>,
    tmin: Side,
    tmin_runs: Side,
    ours: Side,
}

/// Measures one crash: its own artifact, then tmin, tmin -r 5000 and ours.
fn measure_crash(project: &Project, (dir, binary): (&Path, &Path), crash: &Path, limit: Duration) -> Row {
    let crash_name = crash.file_name().expect("a crash file name").to_string_lossy().into_owned();
    let own = replay(project, binary, crash, &dir.join("replay"));
    eprintln!("generators: {}: {crash_name}: cargo fuzz tmin", project.name);
    let tmin_default = tmin(project, (dir, binary), crash, None, limit);
    eprintln!("generators: {}: {crash_name}: cargo fuzz tmin -r {TMIN_RUNS}", project.name);
    let tmin_runs = tmin(project, (dir, binary), crash, Some(TMIN_RUNS), limit);
    eprintln!("generators: {}: {crash_name}: ours", project.name);
    let ours = ours(project, (dir, binary), crash, limit);
    let input = std::fs::metadata(crash).map_or(0, |m| m.len());
    Row { crash: crash_name, input, artifact: own.artifact, tmin: tmin_default, tmin_runs, ours }
}

/// What our result misses of the goal (empty: met).
fn misses(row: &Row) -> Vec<&'static str> {
    let mut misses = Vec::new();
    let ours = row.ours.replay;
    if !ours.panics {
        misses.push("lost the panic");
    }
    let artifact = ours.artifact.unwrap_or(u64::MAX);
    let tmins = [&row.tmin, &row.tmin_runs];
    if tmins.iter().any(|t| t.replay.panics && t.replay.artifact.is_some_and(|a| artifact > a)) {
        misses.push("larger than tmin");
    }
    if row.artifact.map_or(true, |a| artifact.saturating_mul(6) > a) {
        misses.push("over a sixth");
    }
    if row.ours.count.map_or(true, |tests| tests > MAX_TESTS) {
        misses.push("over 10,000 tests");
    }
    misses
}

fn secs(time: Duration) -> String {
    format!("{:.1} s", time.as_secs_f64())
}

/// A result's artifact, ✗ when it no longer panics with the project's message.
fn artifact_cell(replay: Replay) -> String {
    let size = replay.artifact.map_or("none".to_owned(), thousands);
    if replay.panics {
        size
    } else {
        format!("{size} **✗**")
    }
}

/// A side's four cells: input, artifact, executions or tests, time.
fn side_cells(side: &Side) -> [String; 4] {
    let time = if side.failed { format!("{} (failed)", secs(side.time)) } else { secs(side.time) };
    [thousands(side.input), artifact_cell(side.replay), side.count.map_or("–".to_owned(), thousands), time]
}

fn cells(row: &Row) -> Vec<String> {
    let short = row.crash.get(..14).unwrap_or(&row.crash);
    let mut cells = vec![format!("`{short}`"), thousands(row.input), row.artifact.map_or("none".to_owned(), thousands)];
    for side in [&row.tmin, &row.tmin_runs, &row.ours] {
        cells.extend(side_cells(side));
    }
    let misses = misses(row);
    cells.push(if misses.is_empty() { "✓".to_owned() } else { format!("**✗** {}", misses.join(", ")) });
    cells
}

/// A side's totals: input, artifact, count and time over the rows.
fn side_totals(rows: &[Row], side: fn(&Row) -> &Side) -> [String; 4] {
    let sum = |f: &dyn Fn(&Side) -> u64| rows.iter().map(|r| f(side(r))).sum::<u64>();
    let artifact = sum(&|s| s.replay.artifact.unwrap_or_default());
    let count = sum(&|s| s.count.unwrap_or_default());
    let time: Duration = rows.iter().map(|r| side(r).time).sum();
    [thousands(sum(&|s| s.input)), thousands(artifact), thousands(count), secs(time)]
}

fn totals(rows: &[Row]) -> Vec<String> {
    let input = rows.iter().map(|r| r.input).sum::<u64>();
    let artifact = rows.iter().map(|r| r.artifact.unwrap_or_default()).sum::<u64>();
    let mut cells = vec![format!("**total** ({} crashes)", rows.len()), thousands(input), thousands(artifact)];
    cells.extend(side_totals(rows, |r| &r.tmin));
    cells.extend(side_totals(rows, |r| &r.tmin_runs));
    cells.extend(side_totals(rows, |r| &r.ours));
    let met = rows.iter().filter(|r| misses(r).is_empty()).count();
    cells.push(format!("{met} of {}", rows.len()));
    cells
}

/// The table, the shares of the goal, and the notes of one project.
fn print_project(project: &Project, rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    let mut headers: Vec<String> = ["crash", "input", "artifact"].map(str::to_owned).into();
    for side in ["tmin", "tmin -r 5000", "ours"] {
        let count = if side == "ours" { "tests" } else { "execs" };
        headers.push(format!("{side} input"));
        headers.extend(["artifact", count, "time"].map(|h| format!("{side} {h}")));
    }
    headers.push("goal".to_owned());
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    println!("\n### {} ({})", project.name, project.label);
    table::print(&headers, rows.iter().map(cells).chain([totals(rows)]));
    let n = rows.len();
    let share = |miss: &str| rows.iter().filter(|r| !misses(r).contains(&miss)).count();
    println!(
        "\n- {}: ours meets the goal on {} of {n} crashes; keeps the panic on {}, no larger than tmin on {}, \
         at most a sixth of the crash's artifact on {}, at most {} tests on {}",
        project.name,
        rows.iter().filter(|r| misses(r).is_empty()).count(),
        share("lost the panic"),
        share("larger than tmin"),
        share("over a sixth"),
        thousands(MAX_TESTS),
        share("over 10,000 tests"),
    );
    for row in rows {
        let short = row.crash.get(..14).unwrap_or(&row.crash);
        println!(
            "- `{short}`: tmin: {}; tmin -r {TMIN_RUNS}: {}; ours: {}",
            row.tmin.note, row.tmin_runs.note, row.ours.note
        );
    }
}

/// Writes and builds `project`, finds its crashes, and measures each.
fn measure(project: &Project, settings: &Settings) -> Vec<Row> {
    let dir = write_project(project);
    eprintln!("generators: {}: cargo fuzz build {}", project.name, project.target);
    let (build, binary) = fuzz_build(project, &dir, &settings.host);
    println!("{}: cargo fuzz build {}: {}", project.name, project.target, secs(build));
    let crashes = crashes(project, &dir, &binary, settings.crashes);
    let Some(first) = crashes.first() else {
        println!("{}: no crash to measure (BENCH_CRASHES is 0, or none prints {:?})", project.name, project.expected);
        return Vec::new();
    };
    eprintln!("generators: {}: warming up ours (the harness build)", project.name);
    warm_up(project, &dir, first);
    crashes.iter().map(|crash| measure_crash(project, (&dir, &binary), crash, settings.limit)).collect()
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().unwrap_or_else(|e| panic!("{name}={v:?} is not a number: {e}")))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-'));
    let projects: Vec<&Project> =
        PROJECTS.iter().filter(|p| filter.map_or(true, |f| p.name.contains(f.as_str()))).collect();
    let crashes = env_number("BENCH_CRASHES", DEFAULT_CRASHES as u64) as usize;
    let names: Vec<&str> = projects.iter().map(|p| p.name).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!(
            "generators: {crashes} libFuzzer crashes each of {}; cargo fuzz tmin (default, -r {TMIN_RUNS}) against \
             ours, by the generated artifact's size (run `cargo bench --bench generators` to measure)",
            names.join(", ")
        );
        return;
    }
    let all = PROJECTS.map(|p| p.name);
    assert!(!projects.is_empty(), "{filter:?} is in none of the projects' names {all:?}");
    assert!(cargo_fuzz::ensure_installed(), "cargo fuzz is needed: it builds the targets, finds crashes and runs tmin");
    let limit = Duration::from_secs(env_number("BENCH_GENERATORS_LIMIT", DEFAULT_LIMIT_SECS));
    let settings = Settings { crashes, limit, host: host_triple() };
    println!(
        "per-run wall limit: {} s (BENCH_GENERATORS_LIMIT); {crashes} crashes each (BENCH_CRASHES)",
        limit.as_secs()
    );
    for project in projects {
        let rows = measure(project, &settings);
        print_project(project, &rows);
    }
}
