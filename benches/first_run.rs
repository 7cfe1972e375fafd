//! A first run on a real project never built before, against `cargo fuzz build` alone: what a new user waits for before the first answer, and what every later run costs.
//!
//! ```text
//! cargo bench --bench first_run                # every project
//! cargo bench --bench first_run -- demangle    # projects whose name contains "demangle"
//! BENCH_BIN=/path/to/cargo-minimize-crash cargo bench --bench first_run   # another build of the tool
//! ```
//!
//! Each project is a library's fuzz crate as they come (a crate at the root,
//! `fuzz/` its own workspace, no `Cargo.lock`) over a real crate from
//! crates.io at a version with a known bug, and a crash of that bug:
//!
//! - `demangle`: rustc-demangle 0.1.18 (the v0 printer's unbounded recursion
//!   on a backref to itself, a stack overflow), a raw-bytes target as the
//!   crate's own fuzz target is;
//! - `url`: url 2.2.0, a typed target (`(String, Vec<String>, bool)`, no
//!   derive) that edits a parsed URL's path segments, with the crash
//!   libFuzzer found in it (a panic in the crate's `path_segments.rs`).
//!
//! For each, in fresh copies (a new target directory each; crates.io's
//! packages downloaded beforehand, by `cargo fetch`, so no column pays for
//! the network):
//!
//! - **cargo fuzz build**: `cargo fuzz build --sanitizer none TARGET`, alone;
//! - **first run**: `cargo minimize-crash --json TARGET CRASH` with the
//!   defaults (the harness build, the first runs, the reduction, the libFuzzer
//!   cross-check, whose `cargo fuzz build --sanitizer none` runs in the
//!   background), on a copy never built;
//! - **second run**: the same command again on that copy;
//! - **after cargo fuzz build**: a copy where the user had run `cargo fuzz
//!   build TARGET` (AddressSanitizer, cargo-fuzz's default; untimed), then our
//!   first run: the cross-check reuses that binary.
//!
//! Goals (issue 34): first run at most 1.3 times the build plus the reduction
//! (`reduce`: the summary's `seconds`); a second run's fixed cost (its wall
//! time less its reduction) under 2 s.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "support/fuzz_crate.rs"]
mod fuzz_crate;
#[path = "support/summary.rs"]
mod summary;
#[path = "support/table.rs"]
mod table;

/// The tool: this checkout's, or `BENCH_BIN` (another build, to compare).
fn bin() -> String {
    std::env::var("BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_cargo-minimize-crash").to_string())
}

/// One project: its fuzz crate's dependency, target name and source, and a crash.
struct Project {
    name: &'static str,
    dependency: &'static str,
    target: &'static str,
    source: &'static str,
    crash: fn() -> Vec<u8>,
}

const PROJECTS: [Project; 2] = [
    Project {
        name: "demangle",
        dependency: "rustc-demangle = \"=0.1.18\"",
        target: "demangle",
        source: "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
                 fuzz_target!(|data: &[u8]| {\n    \
                     if let Ok(s) = std::str::from_utf8(data) {\n        \
                         let _ = rustc_demangle::demangle(s).to_string();\n    \
                     }\n\
                 });\n",
        crash: demangle_crash,
    },
    Project { name: "url", dependency: "url = \"=2.2.0\"", target: "segments", source: URL_TARGET, crash: url_crash },
];

const URL_TARGET: &str = "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
fuzz_target!(|input: (String, Vec<String>, bool)| {\n    \
    let (base, segments, pop) = input;\n    \
    if let Ok(mut url) = url::Url::parse(&base) {\n        \
        if let Ok(mut path) = url.path_segments_mut() {\n            \
            if pop {\n                \
                path.pop_if_empty();\n                \
                path.pop();\n            \
            }\n            \
            path.extend(&segments);\n        \
        }\n        \
        let _ = url.to_string();\n    \
    }\n\
});\n";

/// The recursion's trigger (a path whose parent is a backref to itself),
/// then the kind of suffix LLVM appends, then noise.
fn demangle_crash() -> Vec<u8> {
    let mut bytes = b"_RNvB_1a.llvm.".to_vec();
    bytes.extend(noise(0x5eed, 200).iter().map(|b| b"0123456789abcdef"[usize::from(b % 16)]));
    bytes
}

/// The crash a `cargo fuzz run --sanitizer none segments` of 150 s found
/// (`path_segments.rs:126:34`: a byte index past the end of the serialized
/// URL), as libFuzzer wrote it: `("\u{1}A://ݔA", ["ݔA", "/:", ""], true)`.
fn url_crash() -> Vec<u8> {
    b"\x01\x41\x3a\x2f\x2f\xdd\x94\x41\xa1\xdd\x94\x41\xa1\x2f\x3a\x57\x3a\xff\x6a\x3d\x23\x41\x35\x57".to_vec()
}

fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// Writes `project` into a new directory under `root`: its crate, its fuzz crate, the crash.
fn write_project(root: &Path, project: &Project, copy: &str) -> PathBuf {
    let dir = root.join(project.name).join(copy);
    let _ = std::fs::remove_dir_all(&dir);
    let write = |relative: &str, text: &[u8]| {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("Cargo.toml", fuzz_crate::crate_manifest(project.name).as_bytes());
    write("src/lib.rs", b"");
    let fuzz_manifest = fuzz_crate::fuzz_manifest(project.name, project.dependency, project.target);
    write("fuzz/Cargo.toml", fuzz_manifest.as_bytes());
    write(&format!("fuzz/fuzz_targets/{}.rs", project.target), project.source.as_bytes());
    write("crash", &(project.crash)());
    dir
}

/// Runs `command` in `dir`: its wall time and output; panics when it fails.
fn timed(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> (Duration, std::process::Output) {
    let started = Instant::now();
    let output = Command::new(program).current_dir(dir).args(args).envs(env.iter().copied()).output().unwrap();
    let wall = started.elapsed();
    assert!(
        output.status.success(),
        "`{program} {}` in {} failed:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    (wall, output)
}

/// Our run on `dir`: wall time, the reduction's seconds, and the summary.
fn ours(dir: &Path, project: &Project) -> (f64, f64, serde_json::Value) {
    let out = dir.join("minimized");
    let args = ["--json", "-q", "-o", out.to_str().unwrap(), project.target, "crash"];
    let (wall, output) = timed(dir, &bin(), &args, &[]);
    let summary = summary::json_summary(&output, project.name);
    (wall.as_secs_f64(), summary["seconds"].as_f64().unwrap_or(0.0), summary)
}

/// The figures of one project, as a table row.
fn measure(root: &Path, project: &Project) -> Vec<String> {
    let fetched = write_project(root, project, "fetch");
    timed(&fetched.join("fuzz"), "cargo", &["fetch"], &[]);

    let built = write_project(root, project, "cargo-fuzz");
    let (build, _) = timed(&built, "cargo", &["fuzz", "build", "--sanitizer", "none", project.target], &[]);
    let build = build.as_secs_f64();

    let fresh = write_project(root, project, "ours");
    let (first, reduce, summary) = ours(&fresh, project);
    let (second, reduce_again, _) = ours(&fresh, project);

    let asan = write_project(root, project, "after-cargo-fuzz-build");
    timed(&asan, "cargo", &["fuzz", "build", project.target], &[("RUSTC_BOOTSTRAP", "1")]);
    let (after, reduce_after, after_summary) = ours(&asan, project);

    let verified = |s: &serde_json::Value| s["libfuzzer"]["verified"].as_str().unwrap_or("-").to_string();
    vec![
        project.name.to_string(),
        format!("{build:.1}"),
        format!("{first:.1}"),
        format!("{reduce:.2}"),
        format!("{:.2}", first / (build + reduce)),
        format!("{second:.2}"),
        format!("{:.2}", second - reduce_again),
        format!("{after:.1} ({:.2})", reduce_after),
        format!("{} / {}", verified(&summary), verified(&after_summary)),
        format!("{} -> {}", summary["initial_size"], summary["final_size"]),
    ]
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if !cargo_fuzz::ensure_installed() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/bench-first-run");
    let chosen = PROJECTS.iter().filter(|p| filter.is_empty() || filter.iter().any(|f| p.name.contains(f.as_str())));
    let rows: Vec<Vec<String>> = chosen.map(|project| measure(&root, project)).collect();
    table::print(
        &[
            "project",
            "cargo fuzz build (s)",
            "first run (s)",
            "reduce (s)",
            "first / (build + reduce)",
            "second run (s)",
            "second's fixed cost (s)",
            "first after cargo fuzz build (s) (reduce)",
            "libFuzzer check (first / after)",
            "bytes",
        ],
        rows,
    );
}
