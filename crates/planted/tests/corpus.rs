//! `planted-corpus` end to end: the files it writes (count, lengths, names, determinism), and none of them crashes
//! its target when run in-process as the fuzz target runs it.

use std::collections::{BTreeMap, BTreeSet};
use std::panic;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use planted::{commands, config, scene};

mod scratch;
#[path = "../src/bin/planted-artifacts/sha1.rs"]
mod sha1;

use scratch::Scratch;

const GENERATOR: &str = env!("CARGO_BIN_EXE_planted-corpus");

/// Runs the generator for `target` into `dir`; returns its stdout lines as (file name, length).
fn generate(target: &str, dir: &Scratch, args: &[&str]) -> Vec<(String, usize)> {
    let out = Command::new(GENERATOR).arg(target).arg(&dir.0).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(" files, ") && stderr.contains("candidates"), "no summary: {stderr}");
    let listing = String::from_utf8(out.stdout).unwrap();
    let line = |line: &str| line.split_once('\t').map(|(f, n)| (f.to_string(), n.parse().unwrap())).unwrap();
    listing.lines().map(line).collect()
}

/// Runs the generator as [`generate`] does and checks that its listing matches the directory: each file once, its
/// length, its name the SHA-1 of its contents. Returns the files, by name.
fn generate_checked(target: &str, dir: &Scratch, args: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let listing = generate(target, dir, args);
    let files = dir.files();
    assert_eq!(files.len(), listing.len());
    for (name, len) in &listing {
        let data = &files[name];
        assert_eq!(data.len(), *len, "{name}");
        assert_eq!(&sha1::hex(data), name);
    }
    files
}

/// Runs `run` on every file on a thread of its own, each under `catch_unwind`; the names of those that panicked.
/// A hang fails the test after a minute; an abort or a wild write kills the test binary (also a failure).
fn crashing(files: BTreeMap<String, Vec<u8>>, run: fn(&[u8])) -> Vec<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let crashed: Vec<String> = files
                .into_iter()
                .filter(|(_, data)| panic::catch_unwind(|| run(data)).is_err())
                .map(|(name, _)| name)
                .collect();
            sender.send(crashed).unwrap();
        })
        .unwrap();
    receiver.recv_timeout(Duration::from_secs(60)).expect("a file hangs its target")
}

/// libfuzzer-sys's decoding of a typed target's input: `None` when it is rejected.
fn decode<T: for<'a> Arbitrary<'a>>(data: &[u8]) -> Option<T> {
    if data.len() < T::size_hint(0).0 {
        return None;
    }
    T::arbitrary_take_rest(Unstructured::new(data)).ok()
}

#[test]
fn a_triage_corpus_has_300_files_of_1_to_8_kib_named_by_their_sha1() {
    let dir = Scratch::new("triage");
    let files = generate_checked("triage", &dir, &[]);
    assert_eq!(files.len(), 300);
    let lens: Vec<usize> = files.values().map(Vec::len).collect();
    assert!(lens.iter().all(|len| (1024..=8192).contains(len)), "{lens:?}");
    assert!(lens.iter().any(|&len| len < 2048) && lens.iter().any(|&len| len > 6144), "{lens:?}");
}

#[test]
fn no_triage_file_crashes_and_each_parser_shows_many_outcomes() {
    let dir = Scratch::new("triage-outcomes");
    generate("triage", &dir, &[]);
    let files = dir.files();
    let mut outcomes = BTreeSet::new();
    for data in files.values() {
        let parser = planted::triage::parser(data[0]).name;
        // Only the parsers that cannot abort or hang run here; the thread below runs them all.
        if parser == "tlv" || parser == "image" {
            outcomes.insert(planted::triage::run(data).map(|()| "ok").unwrap_or_else(|e| e.0));
        }
    }
    assert!(outcomes.len() >= 10, "{outcomes:?}");
    let parsers: BTreeSet<&str> = files.values().map(|data| planted::triage::parser(data[0]).name).collect();
    assert_eq!(parsers.len(), 4, "{parsers:?}");
    let run = |data: &[u8]| {
        let _ = planted::triage::run(data);
    };
    assert_eq!(crashing(files, run), Vec::<String>::new());
}

#[test]
fn the_same_seed_gives_the_same_files_and_another_seed_others() {
    let (a, b, c) = (Scratch::new("seed-a"), Scratch::new("seed-b"), Scratch::new("seed-c"));
    for target in ["triage", "scene"] {
        let args = ["--count", "40", "--seed", "7"];
        assert_eq!(generate(target, &a, &args), generate(target, &b, &args));
        assert_eq!(a.files(), b.files());
        let other = generate(target, &c, &["--count", "40", "--seed", "8"]);
        assert!(other.iter().all(|file| !a.files().contains_key(&file.0)), "{target}");
        for dir in [&a, &b, &c] {
            std::fs::remove_dir_all(&dir.0).unwrap();
        }
    }
}

#[test]
fn lengths_follow_min_len_and_max_len() {
    let dir = Scratch::new("lengths");
    for target in ["triage", "config"] {
        let listing = generate(target, &dir, &["--count", "50", "--min-len", "300", "--max-len", "400"]);
        assert_eq!(listing.len(), 50);
        assert!(listing.iter().all(|(_, len)| (300..=400).contains(len)), "{target}: {listing:?}");
        std::fs::remove_dir_all(&dir.0).unwrap();
    }
}

#[test]
fn no_scene_file_crashes_and_the_scenes_vary_in_shape() {
    let dir = Scratch::new("scene");
    let files = generate_checked("scene", &dir, &[]);
    assert_eq!(files.len(), 300);
    let scenes: Vec<scene::Scene> = files.values().filter_map(|data| decode(data)).collect();
    assert_eq!(scenes.len(), 300, "every file decodes");
    let layers: BTreeSet<usize> = scenes.iter().map(|scene| scene.layers.len()).collect();
    assert!(layers.len() > 30 && layers.last() > Some(&100), "{layers:?}");
    let faded_out = |layer: &scene::Layer| layer.blend == scene::Blend::Fade { alpha: 0 };
    let invisible = scenes.iter().filter(|scene| scene.layers.iter().any(faded_out)).count();
    assert!((10..290).contains(&invisible), "{invisible} of 300 with a layer faded to alpha 0");
    let render = |data: &[u8]| {
        if let Some(scene) = decode::<scene::Scene>(data) {
            scene::render(&scene);
        }
    };
    assert_eq!(crashing(files, render), Vec::<String>::new());
}

#[test]
fn no_config_or_commands_file_crashes() {
    let dir = Scratch::new("typed");
    let files = generate_checked("config", &dir, &["--count", "100"]);
    let configs: Vec<config::Config> = files.values().filter_map(|data| decode(data)).collect();
    assert!(configs.iter().map(|c| c.hosts.len()).collect::<BTreeSet<_>>().len() > 20);
    let validate = |data: &[u8]| {
        if let Some(config) = decode::<config::Config>(data) {
            let _ = config::validate(&config);
        }
    };
    assert_eq!(crashing(files, validate), Vec::<String>::new());
    std::fs::remove_dir_all(&dir.0).unwrap();
    let files = generate_checked("commands", &dir, &["--count", "100"]);
    let run = |data: &[u8]| {
        if let Some(program) = decode::<Vec<commands::Op>>(data) {
            let _ = commands::run(&program);
        }
    };
    assert_eq!(crashing(files, run), Vec::<String>::new());
}

#[test]
fn an_unknown_target_or_bad_lengths_are_usage_errors_that_write_nothing() {
    let dir = Scratch::new("usage");
    for args in [&["nest"][..], &["triage", "--min-len", "9", "--max-len", "8"]] {
        let out = Command::new(GENERATOR).arg(args[0]).arg(&dir.0).args(&args[1..]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage: planted-corpus"));
    }
    assert!(!dir.0.exists());
}
