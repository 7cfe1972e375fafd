//! `planted-artifacts` end to end: the files it writes, their names, and its manifest.

use std::collections::BTreeMap;
use std::process::Command;

mod scratch;

use scratch::Scratch;

const GENERATOR: &str = env!("CARGO_BIN_EXE_planted-artifacts");
const REPLAY: &str = env!("CARGO_BIN_EXE_planted-replay");

/// Runs the generator into `dir`; returns its manifest lines as (file name, bug).
fn generate(dir: &Scratch, args: &[&str]) -> Vec<(String, String)> {
    let out = Command::new(GENERATOR).arg(&dir.0).args(args).args(["--replay", REPLAY]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest = String::from_utf8(out.stdout).unwrap();
    manifest.lines().map(|line| line.split_once('\t').unwrap()).map(|(f, b)| (f.to_owned(), b.to_owned())).collect()
}

#[test]
fn the_manifest_names_every_file_once_with_its_bug() {
    let dir = Scratch::new("manifest");
    let manifest = generate(&dir, &["--per-bug", "3", "--hangs", "1"]);
    let mut counts = BTreeMap::new();
    for (_, bug) in &manifest {
        *counts.entry(bug.as_str()).or_insert(0) += 1;
    }
    let expected = [
        ("empty", 1),
        ("image-overflow", 3),
        ("no-crash", 1),
        ("rle-hang", 1),
        ("rle-zero-distance", 3),
        ("tlv-index", 3),
        ("vm-double-free", 3),
        ("vm-wild-write", 3),
    ];
    assert_eq!(counts, BTreeMap::from(expected));
    let files: Vec<String> = dir.files().into_keys().collect();
    let mut listed: Vec<String> = manifest.iter().map(|(file, _)| file.clone()).collect();
    listed.sort();
    assert_eq!(files, listed);
}

#[test]
fn files_are_named_as_libfuzzer_names_them() {
    let dir = Scratch::new("names");
    for (file, bug) in generate(&dir, &["--per-bug", "2", "--hangs", "1"]) {
        let prefix = if bug == "rle-hang" { "timeout-" } else { "crash-" };
        assert!(file.starts_with(prefix) && file.len() == prefix.len() + 40, "{file} ({bug})");
        if bug == "empty" {
            assert_eq!(file, "crash-da39a3ee5e6b4b0d3255bfef95601890afd80709");
            assert!(std::fs::read(dir.0.join(&file)).unwrap().is_empty());
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_files_and_another_seed_others() {
    let (a, b, c) = (Scratch::new("seed-a"), Scratch::new("seed-b"), Scratch::new("seed-c"));
    let args = ["--per-bug", "4", "--hangs", "0", "--seed", "7"];
    assert_eq!(generate(&a, &args), generate(&b, &args));
    assert_ne!(generate(&a, &args), generate(&c, &["--per-bug", "4", "--hangs", "0", "--seed", "8"]));
}

#[test]
fn each_crash_file_replays_as_its_bug() {
    let dir = Scratch::new("replay");
    for (file, bug) in generate(&dir, &["--per-bug", "2", "--hangs", "0"]) {
        let out =
            Command::new(REPLAY).arg("triage").arg(dir.0.join(&file)).env("RUST_BACKTRACE", "0").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let shows = match bug.as_str() {
            "tlv-index" => stderr.contains("panicked at crates/planted/src/tlv.rs:"),
            "image-overflow" => stderr.contains("panicked at crates/planted/src/image.rs:"),
            "rle-zero-distance" => stderr.contains("panicked at crates/planted/src/rle.rs:"),
            "vm-double-free" => std::os::unix::process::ExitStatusExt::signal(&out.status) == Some(6),
            "vm-wild-write" => std::os::unix::process::ExitStatusExt::signal(&out.status) == Some(11),
            _ => out.status.success(),
        };
        assert!(shows, "{file} is not {bug}: {}\n{stderr}", out.status);
    }
}
