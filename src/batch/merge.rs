//! Joining the output directories of shards (`--merge`): each bug once (by fingerprint), the best reproducer kept (minimized before not, then smallest), every shard's inputs listed, the reports written anew.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use crate::batch::model::{BatchReport, Bug, BugStatus, FoundBy};
use crate::exit_code::{Exit, Failure, OrExit};
use crate::session::output::write_atomically;

/// Merges the shard directories `shards` into `output`.
pub fn run(shards: &[PathBuf], output: &Path, quiet: bool) -> Result<Exit, Failure> {
    let reports = read_reports(shards, output)?;
    fs::create_dir_all(output).with_context(|| format!("cannot create the output directory {}", output.display()))?;
    let merged = merge(&reports, output)?;
    crate::batch::report::write_reports(output, &merged)?;
    if !quiet {
        let t = &merged.totals;
        eprintln!(
            "merged {} shards: {} bugs in {} crashing inputs of {} ({} inputs skipped); reports in {}",
            reports.len(),
            t.bugs,
            t.crashing,
            t.inputs,
            t.skipped,
            output.display()
        );
    }
    Ok(crate::batch::exit_code(&merged))
}

/// Each shard's report, with its directory.
fn read_reports(shards: &[PathBuf], output: &Path) -> Result<Vec<(PathBuf, BatchReport)>, Failure> {
    let mut reports = Vec::new();
    for dir in shards {
        let same = fs::canonicalize(dir).ok().zip(fs::canonicalize(output).ok()).is_some_and(|(a, b)| a == b);
        if same {
            return Err(Failure::usage(anyhow!(
                "the merged output {} is one of the shards; give another -o",
                output.display()
            )));
        }
        let path = dir.join("report.json");
        let text = fs::read(&path)
            .with_context(|| format!("{} has no report.json: is it a shard's output directory?", dir.display()))
            .or_exit(Exit::Usage)?;
        let report: BatchReport = serde_json::from_slice(&text)
            .with_context(|| format!("cannot read {} (written by another version?)", path.display()))
            .or_exit(Exit::Usage)?;
        reports.push((dir.clone(), report));
    }
    Ok(reports)
}

/// The merged report; the chosen bugs' folders copied into `output`.
fn merge(reports: &[(PathBuf, BatchReport)], output: &Path) -> anyhow::Result<BatchReport> {
    let first = &reports.first().ok_or_else(|| anyhow!("no shards to merge"))?.1;
    let mut merged = BatchReport { shard: None, bugs: Vec::new(), skipped: Vec::new(), ..first.clone() };
    merged.totals = Default::default();
    let mut chosen: HashMap<String, (usize, PathBuf)> = HashMap::new();
    for (dir, report) in reports {
        merged.totals.inputs += report.totals.inputs;
        merged.totals.crashing += report.totals.crashing;
        merged.interrupted |= report.interrupted;
        merged.skipped.extend(report.skipped.iter().cloned());
        for bug in &report.bugs {
            match chosen.get(&bug.fingerprint) {
                Some(&(index, _)) if !better(bug, &merged.bugs[index]) => add_members(&mut merged.bugs[index], bug),
                Some(&(index, _)) => {
                    let mut replaced = bug.clone();
                    add_members(&mut replaced, &merged.bugs[index]);
                    merged.bugs[index] = replaced;
                    chosen.insert(bug.fingerprint.clone(), (index, dir.clone()));
                }
                None => {
                    chosen.insert(bug.fingerprint.clone(), (merged.bugs.len(), dir.clone()));
                    merged.bugs.push(bug.clone());
                }
            }
        }
    }
    for bug in &mut merged.bugs {
        let (_, dir) = &chosen[&bug.fingerprint];
        copy_bug(dir, output, bug)?;
    }
    crate::batch::update_totals(&mut merged);
    Ok(merged)
}

/// Whether `a` is a better entry than `b`: found from inputs before met as a
/// slip (a shard without the bug's inputs can still slip into it), then
/// minimized, then the smaller reproducer.
fn better(a: &Bug, b: &Bug) -> bool {
    let rank = |bug: &Bug| {
        let slip = matches!(bug.found_by, FoundBy::Slip { .. });
        (slip, bug.status != BugStatus::Minimized, bug.reproducer_size.unwrap_or(usize::MAX))
    };
    rank(a) < rank(b)
}

/// `other`'s inputs become `bug`'s duplicates (a slip's input is no input of the user's).
fn add_members(bug: &mut Bug, other: &Bug) {
    let slip = matches!(other.found_by, FoundBy::Slip { .. });
    let representative = (!slip).then(|| other.representative.clone());
    let mut names: Vec<String> = representative.into_iter().chain(other.duplicates.clone()).collect();
    names.retain(|n| *n != bug.representative && !bug.duplicates.contains(n));
    bug.duplicates.extend(names);
}

/// Copies the bug's folder from shard `dir` into `output`, pointing its reproduce line there.
fn copy_bug(dir: &Path, output: &Path, bug: &mut Bug) -> anyhow::Result<()> {
    let from = dir.join(&bug.id);
    let to = output.join(&bug.id);
    fs::create_dir_all(&to).with_context(|| format!("cannot create {}", to.display()))?;
    if let Ok(entries) = fs::read_dir(&from) {
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", from.display()))?;
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                let bytes =
                    fs::read(entry.path()).with_context(|| format!("cannot read {}", entry.path().display()))?;
                write_atomically(&to.join(entry.file_name()), &bytes)?;
            }
        }
    }
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()).display().to_string();
    bug.reproduce = bug.reproduce.replace(&absolute(&from), &absolute(&to));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bug(representative: &str, duplicates: &[&str], found_by: FoundBy, size: usize) -> Bug {
        let bug = Bug::example("t-timeout-0123456789", representative, duplicates);
        Bug { found_by, reproducer_size: Some(size), ..bug }
    }

    #[test]
    fn a_bug_found_from_inputs_wins_over_the_same_bug_met_as_a_slip_whose_input_is_not_listed() {
        let slip = bug("t-timeout-0123456789/original", &[], FoundBy::Slip { while_minimizing: "x".into() }, 3);
        let mut input = bug("timeout-1", &["timeout-2"], FoundBy::Input, 7);
        assert!(better(&input, &slip) && !better(&slip, &input), "inputs first, whatever the size");
        add_members(&mut input, &slip);
        assert_eq!(input.duplicates, ["timeout-2"]);
        let mut small = bug("timeout-3", &[], FoundBy::Input, 2);
        assert!(better(&small, &input));
        add_members(&mut small, &input);
        assert_eq!(small.duplicates, ["timeout-1", "timeout-2"]);
    }
}
