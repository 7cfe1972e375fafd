//! Typed results tested by population (issue 47): every crash libFuzzer finds with fixed seeds in an old real crate through a derived input, minimized and checked 1-minimal at the value level by a program of its own.
//!
//! The crate is pulldown-cmark 0.12.1, whose definition lists panic on
//! several texts (fixed in 0.12.2). The fuzz target reads a derived `Doc`
//! of blocks (`tests/data/markdown/doc.rs`), renders it as markdown and
//! parses it. libFuzzer runs with long inputs from the start
//! (`-len_control=0`), so each crash is a large value with noise in its
//! strings. The checker (`tests/data/markdown/checker.rs`, a crate of its
//! own) reads a result as the target does and tries every value one edit
//! simpler: a character of any string or an element of any list deleted,
//! a number lowered, a flag cleared, a block made an earlier variant.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::*;

/// The project's files: (path under the project, contents).
fn files() -> Vec<(&'static str, String)> {
    let data = |name: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/markdown").join(name)).unwrap()
    };
    let fuzz_manifest =
        "[package]\nname = \"markdown-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
        [package.metadata]\ncargo-fuzz = true\n\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n\
        arbitrary = { version = \"1\", features = [\"derive\"] }\n\
        pulldown-cmark = { version = \"=0.12.1\", default-features = false }\n\n\
        [workspace]\nmembers = [\".\"]\n\n\
        [[bin]]\nname = \"doc\"\npath = \"fuzz_targets/doc.rs\"\ntest = false\ndoc = false\n";
    let checker_manifest = "[package]\nname = \"checker\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n\
        arbitrary = { version = \"1\", features = [\"derive\"] }\n\
        pulldown-cmark = { version = \"=0.12.1\", default-features = false }\n\n[workspace]\n";
    let target = "#![no_main]\n#[path = \"../doc.rs\"]\nmod doc;\n\nuse libfuzzer_sys::fuzz_target;\n\n\
        fuzz_target!(|value: doc::Doc| doc::parse(&value));\n";
    vec![
        ("Cargo.toml", "[package]\nname = \"markdown\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\", \"checker\"]\n".into()),
        ("src/lib.rs", String::new()),
        ("fuzz/Cargo.toml", fuzz_manifest.into()),
        ("fuzz/doc.rs", data("doc.rs")),
        ("fuzz/fuzz_targets/doc.rs", target.into()),
        ("checker/Cargo.toml", checker_manifest.into()),
        ("checker/src/main.rs", data("checker.rs")),
    ]
}

/// Writes the project under the shared target directory (kept between
/// runs, so its builds are too), without a lockfile; builds the checker.
fn markdown_project() -> (PathBuf, PathBuf) {
    let dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-population/markdown");
    for (relative, text) in files() {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(path, text).unwrap();
        }
    }
    let _ = std::fs::remove_file(dir.join("fuzz/Cargo.lock"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // A debug build: it compiles in half the time, and checks a few results only.
    let built = Command::new(cargo).current_dir(dir.join("checker")).arg("build").output().unwrap();
    assert!(built.status.success(), "the checker did not build:\n{}", String::from_utf8_lossy(&built.stderr));
    let checker = dir.join("checker/target/debug/checker");
    (dir, checker)
}

/// Every crash libFuzzer writes with `seeds` (each run stops at its first), long inputs from the start.
fn fuzz_for_crashes(binary: &Path, seeds: std::ops::RangeInclusive<u32>, artifacts: &Path) -> Vec<PathBuf> {
    let _ = std::fs::remove_dir_all(artifacts);
    std::fs::create_dir_all(artifacts).unwrap();
    for seed in seeds {
        Command::new(binary)
            .args([format!("-seed={seed}"), "-len_control=0".into(), "-max_len=4096".into()])
            .args(["-runs=10000000", "-max_total_time=120"])
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .output()
            .unwrap();
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(artifacts).unwrap().map(|e| e.unwrap().path()).collect();
    found.sort();
    found
}

/// What the checker says of `input`: its value, and `None` when 1-minimal, else the edits that keep the panic.
fn check(checker: &Path, input: &Path) -> (String, Option<String>) {
    let out = Command::new(checker).arg(input).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let value = stdout.lines().next().unwrap_or_default().to_string();
    assert!(out.status.code() != Some(2), "{}: the checker saw no panic:\n{stdout}", input.display());
    let verdict = stdout.lines().last().unwrap_or_default();
    (value, (verdict != "1-minimal").then(|| verdict.to_string()))
}

#[test]
fn every_crash_libfuzzer_finds_in_pulldown_cmark_through_a_derived_value_minimizes_to_a_one_minimal_value() {
    let (project, checker) = markdown_project();
    let _lock = harness_lock();
    cargo_fuzz::require();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(&project)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "build", "doc"])
        .output()
        .unwrap();
    assert!(built.status.success(), "cargo fuzz build failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let binary = project.join("fuzz/target/x86_64-unknown-linux-gnu/release/doc");
    let artifacts = fuzz_for_crashes(&binary, 1..=4, &project.join("fuzz/artifacts/doc"));
    assert!(artifacts.len() >= 3, "libFuzzer found {} crashes: too few to say anything", artifacts.len());
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for input in &artifacts {
        let out = scratch.path().join(input.file_name().unwrap());
        let run = Command::new(BIN)
            .current_dir(&project)
            .args(["--json", "--no-verify-libfuzzer", "doc"])
            .arg(input)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{}:\n{}", input.display(), String::from_utf8_lossy(&run.stderr));
        let summary: Value = serde_json::from_slice(&run.stdout).unwrap();
        let ((before, _), (after, not_minimal)) = (check(&checker, input), check(&checker, &out));
        eprintln!(
            "{} bytes, {} tests:\n  {before}\n  -> {after}",
            std::fs::metadata(input).unwrap().len(),
            summary["tests"]
        );
        failures.extend(not_minimal.map(|edits| format!("{}: {after}: {edits}", input.display())));
    }
    eprintln!("{} of {} results 1-minimal", artifacts.len() - failures.len(), artifacts.len());
    assert!(failures.is_empty(), "results not 1-minimal:\n{}", failures.join("\n"));
}
