//! Real validators for the batch reports, for integration tests: `report.json` against `docs/report.schema.json` with a JSON Schema validator (boon), `report.sarif` with Microsoft's SARIF multitool and its GitHub rules.
//!
//! Include with `#[path = "support/validators.rs"] mod validators;`. Each
//! function panics with the validator's findings. The multitool comes from
//! npm into `target/tools/` (as `.ci/run` installs it); when it is missing the
//! first call installs it, and a failure to install or run it fails the test.

#![allow(dead_code)] // each test binary uses some of these

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

/// The multitool's version, here and in `.ci/run`.
pub(crate) const MULTITOOL_VERSION: &str = "5.7.0";

/// Checks `path` against `docs/report.schema.json` with boon (draft 2020-12,
/// format assertions on); panics with every violation.
pub(crate) fn validate_report_json(path: &Path) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    let index = compiler
        .compile(&schema.display().to_string(), &mut schemas)
        .unwrap_or_else(|e| panic!("{} is not a valid JSON Schema: {e:#}", schema.display()));
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let instance: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    if let Err(error) = schemas.validate(&instance, index) {
        panic!("{} does not match {}:\n{error:#}", path.display(), schema.display());
    }
}

/// Checks `path` with the SARIF multitool's `validate` verb, its SARIF rules
/// and GitHub's (`--rule-kind "Sarif;Gh"`). Fails on every error and warning
/// and on every finding of a GitHub rule. (The multitool exits 0 whatever it
/// finds: the findings are read from the SARIF log it writes.)
pub(crate) fn validate_sarif(path: &Path) {
    let tool = multitool();
    let out_dir = tempfile::tempdir().expect("a temporary directory");
    let findings_path = out_dir.path().join("findings.sarif");
    let output = Command::new(&tool)
        .args(["validate", "--rule-kind", "Sarif;Gh", "--log", "ForceOverwrite", "--output"])
        .arg(&findings_path)
        .arg(path)
        // A single-file .NET app needs ICU unless told not to; a fresh machine may lack it.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; delete target/tools/ to reinstall it", tool.display()));
    let log = std::fs::read_to_string(&findings_path).unwrap_or_else(|e| {
        panic!(
            "the SARIF multitool wrote no findings log ({e}; exit {}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let failures: Vec<String> = findings(&log).into_iter().filter(is_failure).map(|f| f.to_string()).collect();
    assert!(
        failures.is_empty(),
        "the SARIF multitool rejects {}:\n{}\n(its output:\n{})",
        path.display(),
        failures.join("\n"),
        String::from_utf8_lossy(&output.stdout)
    );
}

/// One thing the multitool found.
#[derive(Debug)]
struct Finding {
    rule: String,
    level: String,
    message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.level, self.rule, self.message)
    }
}

/// Errors, warnings, and anything GitHub's rules say (they name what code
/// scanning rejects or cannot show); the multitool's other notes are advice.
fn is_failure(finding: &Finding) -> bool {
    finding.level != "note" || finding.rule.starts_with("GH")
}

/// The findings in the multitool's log, each with its level (the result's,
/// else its rule's default, else SARIF's `warning`) and its message filled in
/// from the rule's message strings.
fn findings(log: &str) -> Vec<Finding> {
    let log: Value = serde_json::from_str(log).expect("the multitool writes a SARIF log");
    let mut found = Vec::new();
    for run in log["runs"].as_array().into_iter().flatten() {
        let rules = run["tool"]["driver"]["rules"].as_array().cloned().unwrap_or_default();
        for result in run["results"].as_array().into_iter().flatten() {
            let rule = rules.get(result["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize).unwrap_or(&Value::Null);
            let level =
                result["level"].as_str().or(rule["defaultConfiguration"]["level"].as_str()).unwrap_or("warning");
            found.push(Finding {
                rule: result["ruleId"].as_str().unwrap_or("?").to_string(),
                level: level.to_string(),
                message: message(&result["message"], rule),
            });
        }
    }
    found
}

/// A result's message: its text, or its rule's message string with the arguments put in.
fn message(message: &Value, rule: &Value) -> String {
    if let Some(text) = message["text"].as_str() {
        return text.to_string();
    }
    let id = message["id"].as_str().unwrap_or("default");
    let mut text = rule["messageStrings"][id]["text"].as_str().unwrap_or(id).to_string();
    for (i, argument) in message["arguments"].as_array().into_iter().flatten().enumerate() {
        text = text.replace(&format!("{{{i}}}"), argument.as_str().unwrap_or_default());
    }
    text
}

/// The multitool's executable, installed into `target/tools/` when missing.
fn multitool() -> PathBuf {
    let platform = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        other => panic!("the SARIF multitool has no npm package for {other}"),
    };
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools");
    let prefix = tools.join(format!("sarif-multitool-{MULTITOOL_VERSION}"));
    let binary =
        |prefix: &Path| prefix.join(format!("node_modules/@microsoft/sarif-multitool-{platform}/Sarif.Multitool"));
    // One install at a time: concurrent `npm install`s trip over each other.
    static INSTALL: Mutex<()> = Mutex::new(());
    let _installing = INSTALL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !binary(&prefix).is_file() {
        install(&tools, &prefix, platform, &binary);
    }
    binary(&prefix)
}

/// `npm install` into a directory of its own, then renamed into place, so
/// tests installing at once never see half an installation.
fn install(tools: &Path, prefix: &Path, platform: &str, binary: &dyn Fn(&Path) -> PathBuf) {
    std::fs::create_dir_all(tools).unwrap_or_else(|e| panic!("cannot create {}: {e}", tools.display()));
    let staging = tools.join(format!(".sarif-multitool-{}", std::process::id()));
    let packages = [
        format!("@microsoft/sarif-multitool@{MULTITOOL_VERSION}"),
        format!("@microsoft/sarif-multitool-{platform}@{MULTITOOL_VERSION}"),
    ];
    let output = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix"])
        .arg(&staging)
        .args(&packages)
        .output()
        .unwrap_or_else(|e| panic!("cannot run npm to install the SARIF multitool ({e}); install Node.js and npm"));
    assert!(
        output.status.success(),
        "`npm install {}` failed; the SARIF validator is needed (check the network and npm):\n{}",
        packages.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    // Its postinstall script only makes the binary executable; scripts are off, so do it here.
    std::fs::set_permissions(binary(&staging), std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("npm installed no {}: {e}", binary(&staging).display()));
    if std::fs::rename(&staging, prefix).is_err() {
        if binary(prefix).is_file() {
            std::fs::remove_dir_all(&staging).ok(); // another test installed it first
            return;
        }
        // A broken installation (an interrupted `npm install` by hand): replace it.
        std::fs::remove_dir_all(prefix).ok();
        std::fs::rename(&staging, prefix)
            .unwrap_or_else(|e| panic!("cannot move the SARIF multitool to {}: {e}", prefix.display()));
    }
}
