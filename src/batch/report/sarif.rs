//! `report.sarif`: the bugs as a SARIF 2.1.0 log for GitHub code scanning, one result per bug, one rule per kind of crash.
//!
//! Written with plain serde structs for the part of SARIF we emit rather than
//! the serde-sarif crate: that crate generates its types from the schema in a
//! build script (15 more crates: schemafy, syn, prettyplease, regex, typed-builder,
//! strum) and its manifest lacks serde's `derive` feature (psastras/sarif-rs#798),
//! so it only builds where another crate turns that on. The output is checked
//! by Microsoft's SARIF validator with its GitHub rules (`tests/reports.rs`).
//!
//! A result needs a location for code scanning to show it. A bug located in
//! the repository points there; one without (a timeout, out of memory, a crash
//! in the standard library) points at its fuzz target's source, found by
//! cargo-fuzz's layout, else at cargo-fuzz's conventional path for it,
//! `fuzz/fuzz_targets/<target>.rs`: a path that is stable per target, so the
//! alert keeps its identity from run to run, and that is the right file in
//! every project laid out as `cargo fuzz init` makes it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use super::location::target_source;
use super::status_text;
use crate::batch::model::{BatchReport, Bug, SourceLocation};
use crate::signature::Kind;

/// The JSON Schema a SARIF 2.1.0 log names (the one GitHub's documentation uses).
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key of a result's fingerprint: code scanning matches results across
/// runs by it. Bump the version if the fingerprint's meaning changes.
const FINGERPRINT_KEY: &str = "cargoMinimizeCrash/v1";

/// The base id that repository-relative paths are relative to.
const SRCROOT: &str = "%SRCROOT%";

/// The report as a SARIF 2.1.0 log (pretty JSON): one run, one result per bug
/// at level `error`, its rule the bug's kind (`panic`, `signal/SIGSEGV`,
/// `sanitizer/heap-buffer-overflow`, ...), its message the bug's title and
/// reproduce command, its location the bug's source location (else its fuzz
/// target's source), and a partial fingerprint so code scanning tracks the
/// bug across runs.
pub fn sarif(report: &BatchReport) -> String {
    let mut rules: Vec<Rule> = Vec::new();
    let mut results = Vec::new();
    let mut target_sources = HashMap::new(); // each target's source is looked for once
    for bug in &report.bugs {
        let rule_id = rule_id(&bug.signature.kind);
        let rule_index = match rules.iter().position(|r| r.id == rule_id) {
            Some(index) => index,
            None => {
                rules.push(rule(&bug.signature.kind, rule_id.clone()));
                rules.len() - 1
            }
        };
        let (location, at_target) = match &bug.location {
            Some(location) => (location.clone(), false),
            None => {
                let target = target_sources.entry(&bug.target).or_insert_with(|| target_location(report, &bug.target));
                (target.clone(), true)
            }
        };
        results.push(result(bug, location, at_target, rule_id, rule_index));
    }
    let driver = Driver {
        name: report.tool.name.clone(),
        version: report.tool.version.clone(),
        information_uri: information_uri(&report.tool.name),
        rules,
    };
    let original_uri_base_ids = report
        .repository_root
        .as_deref()
        .and_then(root_uri)
        .map(|uri| BTreeMap::from([(SRCROOT, ArtifactLocation { uri, uri_base_id: None })]));
    let run = Run { tool: Tool { driver }, original_uri_base_ids, column_kind: "unicodeCodePoints", results };
    let log = Log { schema: SCHEMA, version: "2.1.0", runs: [run] };
    serde_json::to_string_pretty(&log).expect("a SARIF log is plain JSON") + "\n"
}

/// The rule of a kind of crash: stable across runs, as code scanning needs.
fn rule_id(kind: &Kind) -> String {
    match kind {
        Kind::Panic => "panic".into(),
        Kind::StackOverflow => "stack-overflow".into(),
        // Bug types keep their case (`SEGV`), as the sanitizers spell them.
        Kind::Sanitizer { bug, .. } => format!("sanitizer/{}", slug(bug)),
        Kind::DeadlySignal => "libfuzzer/deadly-signal".into(),
        Kind::OutOfMemory => "out-of-memory".into(),
        Kind::LibFuzzer { event } => format!("libfuzzer/{}", slug(&event.to_lowercase())),
        Kind::Timeout => "timeout".into(),
        Kind::Signal { signal } => format!("signal/{}", crate::exec::signal_name(*signal)),
        Kind::Exit { .. } => "exit-code".into(),
    }
}

/// Words joined by `-`: `fuzz target exited` -> `fuzz-target-exited`.
fn slug(text: &str) -> String {
    let words: Vec<&str> =
        text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        return "unknown".into();
    }
    words.join("-")
}

/// A bug's result at `location`: the crash's, or its fuzz target's when
/// `at_target` (which the message then says).
fn result(bug: &Bug, location: SourceLocation, at_target: bool, rule_id: String, rule_index: usize) -> SarifResult {
    let mut text = format!("{}.\nReproduce: {}", bug.title.trim_end_matches('.'), bug.reproduce);
    if at_target {
        text.push_str("\nThe crash has no location in the repository; this points at its fuzz target.");
    }
    let region = Region { start_line: location.line.max(1), start_column: location.column.unwrap_or(1).max(1) };
    let artifact_location = ArtifactLocation { uri: encode_path(&location.path), uri_base_id: Some(SRCROOT) };
    SarifResult {
        rule_id,
        rule_index,
        level: "error",
        message: Text { text },
        locations: [Location { physical_location: PhysicalLocation { artifact_location, region } }],
        partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, bug.fingerprint.clone())]),
        properties: ResultProperties {
            bug: bug.id.clone(),
            target: bug.target.clone(),
            status: status_text(&bug.status),
            reproducer: bug.reproducer.clone(),
            duplicates: bug.duplicates.len(),
        },
    }
}

/// Where a bug without a source location points: its fuzz target's source.
fn target_location(report: &BatchReport, target: &str) -> SourceLocation {
    let found = report.repository_root.as_deref().and_then(|root| target_source(Path::new(root), target));
    found.unwrap_or_else(|| SourceLocation { path: format!("fuzz/fuzz_targets/{target}.rs"), line: 1, column: None })
}

fn rule(kind: &Kind, id: String) -> Rule {
    let (short, full) = describe(kind);
    // A readable name, which SARIF wants different from the id even ignoring case.
    let name = std::iter::once("Fuzz").chain(id.split(|c: char| !c.is_ascii_alphanumeric())).map(capitalize).collect();
    Rule {
        id,
        name,
        short_description: Text { text: short },
        full_description: Text { text: full },
        help: Help { text: HELP.into(), markdown: HELP_MARKDOWN.into() },
        default_configuration: Configuration { level: "error" },
        properties: RuleProperties { tags: ["fuzzing", "crash"] },
    }
}

const HELP: &str = "Run the reproduce command in the alert's message: it runs the fuzz target on the minimized \
    reproducer, which is in the batch output directory under the bug's id (the result's reproducer property). \
    Fix the crash, then run the command again to check.";
const HELP_MARKDOWN: &str = "Run the reproduce command in the alert's message: it runs the fuzz target on the \
    minimized reproducer, which is in the batch output directory under the bug's id (the result's `reproducer` \
    property). Fix the crash, then run the command again to check.";

/// A rule's short and full description.
fn describe(kind: &Kind) -> (String, String) {
    let short = match kind {
        Kind::Panic => "Panic".into(),
        Kind::StackOverflow => "Stack overflow".into(),
        Kind::Sanitizer { bug, .. } => format!("Sanitizer: {bug}"),
        Kind::DeadlySignal => "libFuzzer: deadly signal".into(),
        Kind::OutOfMemory => "Out of memory".into(),
        Kind::LibFuzzer { event } => format!("libFuzzer: {event}"),
        Kind::Timeout => "Timeout".into(),
        Kind::Signal { signal } => format!("Killed by {}", crate::exec::signal_name(*signal)),
        Kind::Exit { .. } => "Non-zero exit".into(),
    };
    (short, full_description(kind).into())
}

fn full_description(kind: &Kind) -> &'static str {
    match kind {
        Kind::Panic => {
            "The fuzz target panicked: an index out of bounds, an unwrap of None or Err, a failed assertion, \
             an arithmetic overflow (fuzz builds have debug assertions), or an explicit panic."
        }
        Kind::StackOverflow => {
            "The fuzz target overflowed its stack, usually by unbounded recursion on deeply nested input."
        }
        Kind::Sanitizer { .. } => {
            "A sanitizer (AddressSanitizer, MemorySanitizer, ...) reported this kind of memory or \
             undefined-behaviour error in the fuzz target."
        }
        Kind::DeadlySignal => "libFuzzer caught a fatal signal in the fuzz target (it does not say which).",
        Kind::OutOfMemory => "The fuzz target used more memory than the limit on one input.",
        Kind::LibFuzzer { .. } => "libFuzzer reported this error while running the fuzz target.",
        Kind::Timeout => {
            "The fuzz target ran past the time limit on one input: a hang, or an input that makes it very slow."
        }
        Kind::Signal { .. } => {
            "The fuzz target was killed by this signal without a report it recognised: an abort, or memory \
             corruption in unsafe code or a C dependency."
        }
        Kind::Exit { .. } => "The fuzz target exited with a non-zero code without a report it recognised.",
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// Where to learn about the tool: the package's homepage or repository when
/// the manifest gives one, else its crates.io page.
fn information_uri(name: &str) -> String {
    [env!("CARGO_PKG_HOMEPAGE"), env!("CARGO_PKG_REPOSITORY")]
        .into_iter()
        .find(|uri| !uri.is_empty())
        .map_or_else(|| format!("https://crates.io/crates/{}", encode_path(name)), str::to_string)
}

/// The repository root as a `file:` URI ending in `/`; `None` when it is not absolute.
fn root_uri(root: &str) -> Option<String> {
    root.starts_with('/').then(|| format!("file://{}/", encode_path(root.trim_end_matches('/'))))
}

/// A path as a URI path: bytes other than letters, digits, `-._~/` percent-encoded.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

// The part of SARIF 2.1.0 we write; field names are the schema's.

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_uri_base_ids: Option<BTreeMap<&'static str, ArtifactLocation>>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: String,
    version: String,
    information_uri: String,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Help,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: [&'static str; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    partial_fingerprints: BTreeMap<&'static str, String>,
    properties: ResultProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
}

#[derive(Serialize)]
struct ResultProperties {
    bug: String,
    target: String,
    status: String,
    reproducer: Option<String>,
    duplicates: usize,
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::batch::report::sample::report;

    fn log() -> Value {
        serde_json::from_str(&sarif(&report())).unwrap()
    }

    #[test]
    fn rule_ids_are_stable_per_kind() {
        let ids = [
            Kind::Panic,
            Kind::StackOverflow,
            Kind::Timeout,
            Kind::OutOfMemory,
            Kind::Signal { signal: 11 },
            Kind::Sanitizer { sanitizer: "AddressSanitizer".into(), bug: "heap-buffer-overflow".into() },
            Kind::DeadlySignal,
            Kind::LibFuzzer { event: "fuzz target exited".into() },
            Kind::Exit { code: 3 },
        ]
        .map(|kind| rule_id(&kind));
        assert_eq!(
            ids,
            [
                "panic",
                "stack-overflow",
                "timeout",
                "out-of-memory",
                "signal/SIGSEGV",
                "sanitizer/heap-buffer-overflow",
                "libfuzzer/deadly-signal",
                "libfuzzer/fuzz-target-exited",
                "exit-code",
            ]
        );
    }

    #[test]
    fn the_log_has_one_run_by_the_tool_with_a_rule_per_kind() {
        let log = log();
        assert_eq!((&log["version"], &log["$schema"]), (&json!("2.1.0"), &json!(SCHEMA)));
        let driver = &log["runs"][0]["tool"]["driver"];
        assert_eq!((&driver["name"], &driver["version"]), (&json!("cargo-minimize-crash"), &json!("0.1.0")));
        assert_eq!(driver["informationUri"], "https://crates.io/crates/cargo-minimize-crash");
        let rules: Vec<&Value> = driver["rules"].as_array().unwrap().iter().map(|r| &r["id"]).collect();
        assert_eq!(rules, ["panic", "signal/SIGSEGV", "timeout"]);
        assert_eq!(driver["rules"][1]["shortDescription"]["text"], "Killed by SIGSEGV");
        assert_eq!(driver["rules"][1]["name"], "FuzzSignalSIGSEGV");
        assert_eq!(log["runs"][0]["originalUriBaseIds"], json!({"%SRCROOT%": {"uri": "file:///ci/repo/"}}));
    }

    #[test]
    fn a_located_bug_is_a_result_at_its_source_with_its_fingerprint() {
        let result = &log()["runs"][0]["results"][0];
        assert_eq!(
            *result,
            json!({
                "ruleId": "panic",
                "ruleIndex": 0,
                "level": "error",
                "message": {"text": "panic at crates/planted/src/tlv.rs:143:5: index out of bounds: the len is 3 but the index is 3.\nReproduce: cargo fuzz run tlv /ci/out/tlv-panic-3f2a9c0b1d/reproducer"},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": "crates/planted/src/tlv.rs", "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": 143, "startColumn": 5}
                }}],
                "partialFingerprints": {"cargoMinimizeCrash/v1": "3f2a9c0b1d000000000000000000000000000000"},
                "properties": {"bug": "tlv-panic-3f2a9c0b1d", "target": "tlv", "status": "minimized",
                    "reproducer": "tlv-panic-3f2a9c0b1d/reproducer", "duplicates": 2}
            })
        );
    }

    #[test]
    fn an_unknown_column_is_column_one() {
        let region = &log()["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(*region, json!({"startLine": 120, "startColumn": 1}));
    }

    #[test]
    fn a_bug_without_a_location_points_at_its_fuzz_targets_conventional_path() {
        let result = &log()["runs"][0]["results"][2];
        assert_eq!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "fuzz/fuzz_targets/vm.rs");
        assert!(result["message"]["text"].as_str().unwrap().ends_with("this points at its fuzz target."));
        assert_eq!(result["properties"]["reproducer"], Value::Null);
    }

    #[test]
    fn a_bug_without_a_location_points_at_its_fuzz_target_found_in_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let targets = dir.path().join("fuzzing/fuzz_targets");
        std::fs::create_dir_all(&targets).unwrap();
        std::fs::write(targets.join("vm.rs"), "#![no_main]\n\nfuzz_target!(|x: &[u8]| {});\n").unwrap();
        let mut report = report();
        report.repository_root = Some(dir.path().display().to_string());
        let log: Value = serde_json::from_str(&sarif(&report)).unwrap();
        let location = &log["runs"][0]["results"][2]["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "fuzzing/fuzz_targets/vm.rs");
        assert_eq!(location["region"], json!({"startLine": 3, "startColumn": 1}));
    }

    #[test]
    fn paths_are_percent_encoded_and_a_relative_root_has_no_base_uri() {
        assert_eq!(encode_path("a dir/ü%.rs"), "a%20dir/%C3%BC%25.rs");
        assert_eq!(root_uri("/home/me/my repo/").as_deref(), Some("file:///home/me/my%20repo/"));
        assert_eq!(root_uri("repo"), None);
    }
}
