//! The batch reports: `report.json` (the model, serialized), `report.md` (for `$GITHUB_STEP_SUMMARY`), `report.sarif` (code scanning) and GitHub annotations.
//!
//! Each writer is a pure function of a [`BatchReport`] (SARIF's fallback
//! location for a bug without one also looks for the fuzz target's source in
//! the repository); [`write_reports`] puts the three files in place atomically,
//! so a report on disk is always whole.

mod annotations;
mod location;
mod markdown;
mod sarif;
#[cfg(test)]
mod schema;

use std::path::Path;

use anyhow::Context;

pub use annotations::annotations;
pub use location::{source_location, target_source};
pub use markdown::markdown;
pub use sarif::sarif;

use crate::batch::model::{BatchReport, BugStatus};

/// The file names [`write_reports`] writes, in its order.
pub const REPORT_FILES: [&str; 3] = ["report.json", "report.md", "report.sarif"];

/// Writes `report.json`, `report.md` and `report.sarif` into `dir` (which
/// must exist), each replaced in one rename.
pub fn write_reports(dir: &Path, report: &BatchReport) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report).context("cannot serialize the batch report")? + "\n";
    let contents = [json, markdown(report), sarif(report)];
    for (name, text) in REPORT_FILES.iter().zip(contents) {
        let path = dir.join(name);
        crate::session::output::write_atomically(&path, text.as_bytes()).with_context(|| {
            format!("cannot write the batch report {}; check that the output directory is writable", path.display())
        })?;
    }
    Ok(())
}

/// A bug's status in a few words: `minimized`, `not reproducible`, ...
fn status_text(status: &BugStatus) -> String {
    match status {
        BugStatus::Minimized => "minimized".into(),
        BugStatus::NotReproducible => "not reproducible".into(),
        BugStatus::Interrupted => "interrupted".into(),
        BugStatus::Failed { error } => format!("failed: {error}"),
    }
}

/// `1 bug`, `2 bugs`.
fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// A realistic report for the writers' tests: a located panic with duplicates,
/// a crash by signal with frames and a typed value, a timeout slip that the
/// interrupt left unminimized, and three skipped inputs.
#[cfg(test)]
pub(crate) mod sample {
    use crate::batch::model::*;
    use crate::signature::{Kind, Level, Signature};
    use crate::verify::{LibFuzzerCheck, Verdict};

    fn bug(id: &str, target: &str, signature: Signature, title: &str) -> Bug {
        Bug {
            id: id.into(),
            target: target.into(),
            fingerprint: format!("{}{}", &id[id.len() - 10..], "0".repeat(30)),
            signature,
            title: title.into(),
            status: BugStatus::Minimized,
            found_by: FoundBy::Input,
            location: None,
            reproducer: Some(format!("{id}/reproducer")),
            reproducer_size: None,
            representative: String::new(),
            original_size: 0,
            duplicates: Vec::new(),
            value: None,
            tests: 0,
            seconds: 0.0,
            verified: Some(true),
            libfuzzer: None,
            reproduce: format!("cargo fuzz run {target} /ci/out/{id}/reproducer"),
            minimized_duplicates: Vec::new(),
        }
    }

    fn panic() -> Bug {
        let message = "index out of bounds: the len is N but the index is N";
        let signature = Signature {
            kind: Kind::Panic,
            location: Some("crates/planted/src/tlv.rs:143:5".into()),
            message: Some(message.into()),
            raised_in: None,
        };
        Bug {
            location: Some(SourceLocation { path: "crates/planted/src/tlv.rs".into(), line: 143, column: Some(5) }),
            reproducer_size: Some(3),
            representative: "corpus/tlv/crash-1".into(),
            original_size: 120,
            duplicates: vec!["corpus/tlv/crash-2".into(), "corpus/tlv/crash|3".into()],
            tests: 412,
            seconds: 1.5,
            libfuzzer: Some(LibFuzzerCheck {
                verified: Verdict::Yes,
                reason: "crashed the same way".into(),
                command: Some("cargo fuzz run tlv /ci/out/tlv-panic-3f2a9c0b1d/reproducer".into()),
                signature: None,
            }),
            ..bug(
                "tlv-panic-3f2a9c0b1d",
                "tlv",
                signature,
                "panic at crates/planted/src/tlv.rs:143:5: index out of bounds: the len is 3 but the index is 3",
            )
        }
    }

    fn signal() -> Bug {
        let frames =
            "planted::vm::Slots::free at /ci/repo/crates/planted/src/vm.rs:120 <- vm::run at fuzz_targets/vm.rs:9";
        let signature = Signature {
            kind: Kind::Signal { signal: 11 },
            location: Some(frames.into()),
            message: None,
            raised_in: None,
        };
        let value: Vec<String> = (0..60).map(|i| format!("    Op::Free({i}),")).collect();
        Bug {
            location: Some(SourceLocation { path: "crates/planted/src/vm.rs".into(), line: 120, column: None }),
            reproducer_size: Some(2100),
            representative: "corpus/vm/crash-a".into(),
            original_size: 1_500_000,
            duplicates: vec!["corpus/vm/crash-b".into()],
            value: Some(format!("[\n{}\n]", value.join("\n"))),
            tests: 3_001,
            seconds: 12.25,
            ..bug("vm-signal-8e41d07c55", "vm", signature, "signal 11 (SIGSEGV) at planted::vm::Slots::free")
        }
    }

    fn timeout() -> Bug {
        let signature = Signature { kind: Kind::Timeout, location: None, message: None, raised_in: None };
        Bug {
            status: BugStatus::Interrupted,
            found_by: FoundBy::Slip { while_minimizing: "vm-signal-8e41d07c55".into() },
            reproducer: None,
            representative: "vm-signal-8e41d07c55/slips/timeout-1".into(),
            original_size: 40,
            verified: None,
            ..bug("vm-timeout-c0ffee1234", "vm", signature, "timeout")
        }
    }

    /// The sample report.
    pub(crate) fn report() -> BatchReport {
        let skipped = |path: &str, reason| SkippedInput { path: path.into(), reason };
        BatchReport {
            version: REPORT_VERSION,
            tool: Tool { name: "cargo-minimize-crash".into(), version: "0.1.0".into() },
            shard: None,
            signature_level: Level::Default,
            repository_root: Some("/ci/repo".into()),
            totals: Totals { inputs: 8, crashing: 5, bugs: 3, minimized: 2, not_reproducible: 0, skipped: 3 },
            bugs: vec![panic(), signal(), timeout()],
            skipped: vec![
                skipped("corpus/tlv/ok-1", SkipReason::NoCrash),
                skipped("corpus/vm/empty", SkipReason::Empty),
                skipped("corpus/vm/locked", SkipReason::Unreadable { error: "Permission denied (os error 13)".into() }),
            ],
            interrupted: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_reports_are_written_and_the_json_reads_back_as_the_report() {
        let dir = tempfile::tempdir().unwrap();
        let report = sample::report();
        write_reports(dir.path(), &report).unwrap();
        let json = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
        assert_eq!(serde_json::from_str::<BatchReport>(&json).unwrap(), report);
        assert_eq!(std::fs::read_to_string(dir.path().join("report.md")).unwrap(), markdown(&report));
        assert_eq!(std::fs::read_to_string(dir.path().join("report.sarif")).unwrap(), sarif(&report));
    }

    #[test]
    fn a_missing_output_directory_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let error = format!("{:#}", write_reports(&missing, &sample::report()).unwrap_err());
        assert!(error.contains("missing/report.json") && error.contains("writable"), "{error}");
    }
}
