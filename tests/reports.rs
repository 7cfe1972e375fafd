//! The batch reports pass real validators: `report.json` its committed JSON Schema, `report.sarif` Microsoft's SARIF multitool with GitHub's rules.

#[path = "support/validators.rs"]
mod validators;

use std::path::Path;

use cargo_minimize_crash::batch::model::*;
use cargo_minimize_crash::batch::report::write_reports;
use cargo_minimize_crash::signature::{Kind, Level, Signature};
use cargo_minimize_crash::verify::{LibFuzzerCheck, Verdict};

/// A repository with a planted crate and a cargo-fuzz directory, as a batch run sees it.
fn repository(root: &Path) {
    for (file, text) in [
        ("crates/planted/src/tlv.rs", "pub fn parse() {}\n"),
        ("crates/planted/src/vm.rs", "pub fn run() {}\n"),
        ("fuzz/fuzz_targets/tlv.rs", "#![no_main]\nlibfuzzer_sys::fuzz_target!(|data: &[u8]| {});\n"),
        ("fuzz/fuzz_targets/vm.rs", "#![no_main]\nlibfuzzer_sys::fuzz_target!(|data: &[u8]| {});\n"),
    ] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::write(root.join(file), text).unwrap();
    }
}

fn bug(id: &str, target: &str, kind: Kind, location: Option<&str>) -> Bug {
    let signature = Signature { kind, location: location.map(str::to_string), message: None, raised_in: None };
    Bug {
        id: id.into(),
        target: target.into(),
        fingerprint: format!("{:0<40}", &id[id.len() - 10..]),
        title: signature.to_string(),
        signature,
        status: BugStatus::Minimized,
        found_by: FoundBy::Input,
        location: None,
        reproducer: Some(format!("{id}/reproducer")),
        reproducer_size: Some(3),
        representative: format!("corpus/{target}/crash-1"),
        original_size: 120,
        duplicates: Vec::new(),
        value: None,
        tests: 100,
        seconds: 0.5,
        verified: Some(true),
        libfuzzer: None,
        reproduce: format!("cargo fuzz run {target} /ci/out/{id}/reproducer"),
        minimized_duplicates: Vec::new(),
    }
}

/// Three bugs (a located panic with duplicates, a crash by signal with frames
/// and a value, a timeout slip the interrupt left unminimized) and skipped inputs.
fn realistic(root: &Path) -> BatchReport {
    let panic = Bug {
        signature: Signature {
            kind: Kind::Panic,
            location: Some("crates/planted/src/tlv.rs:1:5".into()),
            message: Some("index out of bounds: the len is N but the index is N".into()),
            raised_in: None,
        },
        title: "panic at crates/planted/src/tlv.rs:1:5: index out of bounds: the len is 3 but the index is 3".into(),
        location: Some(SourceLocation { path: "crates/planted/src/tlv.rs".into(), line: 1, column: Some(5) }),
        duplicates: vec!["corpus/tlv/crash-2".into(), "corpus/tlv/crash|3".into()],
        libfuzzer: Some(LibFuzzerCheck {
            verified: Verdict::Yes,
            reason: "crashed the same way".into(),
            command: None,
            signature: None,
        }),
        ..bug("tlv-panic-3f2a9c0b1d", "tlv", Kind::Panic, None)
    };
    let frames = format!(
        "planted::vm::run at {}/crates/planted/src/vm.rs:1:8 <- vm::main at fuzz_targets/vm.rs:2:1",
        root.display()
    );
    let signal = Bug {
        location: Some(SourceLocation { path: "crates/planted/src/vm.rs".into(), line: 1, column: Some(8) }),
        value: Some("[\n    Op::Free(0),\n]".into()),
        duplicates: vec!["corpus/vm/crash-b".into()],
        ..bug("vm-signal-8e41d07c55", "vm", Kind::Signal { signal: 11 }, Some(&frames))
    };
    let timeout = Bug {
        status: BugStatus::Interrupted,
        found_by: FoundBy::Slip { while_minimizing: "vm-signal-8e41d07c55".into() },
        reproducer: None,
        reproducer_size: None,
        verified: None,
        ..bug("vm-timeout-c0ffee1234", "vm", Kind::Timeout, None)
    };
    let skipped = |path: &str, reason| SkippedInput { path: path.into(), reason };
    BatchReport {
        version: REPORT_VERSION,
        tool: Tool::default(),
        shard: Some(Shard { index: 1, count: 2 }),
        signature_level: Level::Default,
        repository_root: Some(root.display().to_string()),
        totals: Totals { inputs: 8, crashing: 5, bugs: 3, minimized: 2, not_reproducible: 0, skipped: 3 },
        bugs: vec![panic, signal, timeout],
        skipped: vec![
            skipped("corpus/tlv/ok-1", SkipReason::NoCrash),
            skipped("corpus/vm/empty", SkipReason::Empty),
            skipped("corpus/vm/locked", SkipReason::Unreadable { error: "Permission denied (os error 13)".into() }),
        ],
        interrupted: true,
    }
}

fn write_and_validate(dir: &Path, report: &BatchReport) {
    write_reports(dir, report).unwrap();
    validators::validate_report_json(&dir.join("report.json"));
    validators::validate_sarif(&dir.join("report.sarif"));
}

#[test]
fn a_realistic_report_passes_the_json_schema_and_the_sarif_validator() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my repo");
    repository(&root);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    write_and_validate(&out, &realistic(&root));
}

#[test]
fn a_report_with_every_kind_of_crash_and_no_repository_passes_the_validators() {
    let kinds = [
        Kind::StackOverflow,
        Kind::Sanitizer { sanitizer: "AddressSanitizer".into(), bug: "heap-buffer-overflow".into() },
        Kind::DeadlySignal,
        Kind::OutOfMemory,
        Kind::LibFuzzer { event: "fuzz target exited".into() },
        Kind::Exit { code: 3 },
        Kind::Signal { signal: 6 },
    ];
    let mut bugs: Vec<Bug> = kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            let located_outside = Some("/rustc/abc/library/core/src/x.rs:1:1");
            bug(&format!("odd target-kind-{i:010}"), "odd target ü", kind, located_outside)
        })
        .collect();
    bugs[0].status = BugStatus::Failed { error: "100% broken:\nsecond line".into() };
    bugs[0].title = "a title, with: commas and\nlines".into();
    let report =
        BatchReport { totals: Totals { bugs: bugs.len(), ..Totals::default() }, bugs, ..BatchReport::default() };
    let dir = tempfile::tempdir().unwrap();
    write_and_validate(dir.path(), &report);
}

#[test]
fn a_report_without_crashes_passes_the_validators() {
    let report = BatchReport {
        version: REPORT_VERSION,
        totals: Totals { inputs: 1, skipped: 1, ..Totals::default() },
        skipped: vec![SkippedInput { path: "corpus/ok".into(), reason: SkipReason::NoCrash }],
        ..BatchReport::default()
    };
    let dir = tempfile::tempdir().unwrap();
    write_and_validate(dir.path(), &report);
}

#[test]
#[should_panic(
    expected = "error GH1015: runs[0].results[0]: This 'result' object does not provide a 'locations' array"
)]
fn the_sarif_validator_rejects_a_result_code_scanning_cannot_show() {
    let dir = tempfile::tempdir().unwrap();
    write_reports(dir.path(), &realistic(dir.path())).unwrap();
    let path = dir.path().join("report.sarif");
    let mut log: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    log["runs"][0]["results"][0].as_object_mut().unwrap().remove("locations");
    std::fs::write(&path, log.to_string()).unwrap();
    validators::validate_sarif(&path);
}

#[test]
#[should_panic(expected = "missing properties 'bugs'")]
fn the_json_schema_validator_rejects_a_report_without_bugs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let mut report = serde_json::to_value(BatchReport::default()).unwrap();
    report.as_object_mut().unwrap().remove("bugs");
    std::fs::write(&path, report.to_string()).unwrap();
    validators::validate_report_json(&path);
}
