//! Many inputs at once: collect them, triage (run each once, group by signature), minimize one representative per bug on parallel workers, write each bug's folder and the reports as bugs finish.
//!
//! The steps, one file each: [`inputs`] (files, directories, artifacts,
//! shards) -> [`pool`] (workers with their own executors) running [`drive`]'s
//! triage and then [`minimize`] per bug (groups from [`triage`]) -> [`store`]
//! (the output directory) and [`report`] (JSON, Markdown, SARIF,
//! annotations), with [`display`] showing progress; [`merge`] joins the
//! output directories of shards.

pub mod display;
pub mod drive;
pub mod ledger;
pub mod merge;
pub mod minimize;
pub mod model;
pub mod pool;
pub mod report;
pub mod store;
pub mod triage;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::exit_code::{Exit, Failure};
use crate::options::{Artifacts, BatchOptions, Options, Runner, Targets};
use crate::session::backend::ExecBackend;
use crate::session::inputs::{self, Input};
use crate::session::interrupt::Interrupt;
use crate::session::progress::counted;
use crate::session::progress::Display;
use crate::session::setup::{HarnessSetup, Limits};
use display::Status;
use drive::Context;
use minimize::Settings;
use model::{BatchReport, BugStatus, Shard, Tool, REPORT_VERSION};
use store::Store;

/// The default output directory under the fuzz directory.
pub const DEFAULT_OUTPUT: &str = "artifacts/minimize-crash";

/// Runs a batch (or merges shards) and says how it went in the exit code.
pub fn run(options: &Options, batch: &BatchOptions, interrupt: &Interrupt) -> Result<Exit, Failure> {
    let settings = Settings {
        level: options.signature,
        structure: options.structure,
        reduce: crate::session::reduce_options(options, interrupt),
        interrupt,
    };
    let ctx = match &batch.runner {
        Runner::Exec { command, label } => {
            let output = batch.output.as_deref().expect("checked: --exec batches need -o");
            let backend = ExecBackend {
                command: command.clone(),
                label: label.clone().unwrap_or_default(),
                timeout: options.timeout,
            };
            let inputs = shard(inputs::collect(&batch.paths, &[])?, batch);
            let cwd = std::env::current_dir().map_err(anyhow::Error::from)?;
            let mut ctx = context(output, &settings, options, batch, repository_root(&cwd))?;
            drive::run_target(&backend, &inputs, &mut ctx)?;
            ctx
        }
        Runner::Harness { target, project } => run_harness(target, project, options, batch, &settings)?,
    };
    finish(ctx, options, interrupt)
}

/// The harness mode: every target asked for, one after the other.
fn run_harness<'a>(
    target: &Targets,
    project: &crate::options::ProjectOptions,
    options: &Options,
    batch: &BatchOptions,
    settings: &'a Settings<'a>,
) -> Result<Context<'a>, Failure> {
    let located = HarnessSetup::locate(project)?;
    let targets = match target {
        Targets::All => located.project.target_names(),
        Targets::One(target) => {
            // An unknown target is an error even when it has no inputs.
            located.project.target(target).map_err(Failure::from)?;
            vec![target.to_owned()]
        }
    };
    let fuzz_dir = &located.project.fuzz_dir;
    let output = batch.output.clone().unwrap_or_else(|| fuzz_dir.join(DEFAULT_OUTPUT));
    let mut ctx = context(&output, settings, options, batch, repository_root(fuzz_dir))?;
    let limits = Limits { timeout: options.timeout, rss_limit_mb: options.rss_limit_mb };
    for name in targets {
        let artifacts = fuzz_dir.join("artifacts").join(&name);
        let dirs = if batch.artifacts == Artifacts::No { Vec::new() } else { vec![artifacts] };
        let inputs = shard(inputs::collect(&batch.paths, &dirs)?, batch);
        if inputs.is_empty() {
            if batch.artifacts != Artifacts::AllTargets {
                ctx.status.line(&format!("{name}: no inputs (no artifacts in {})", dirs[0].display()));
            }
            continue;
        }
        let setup = HarnessSetup::build(located.clone(), &name, project, limits, options.quiet, settings.interrupt)?;
        setup.start_libfuzzer_build(settings.interrupt, options.quiet);
        drive::run_target(&setup, &inputs, &mut ctx)?;
        if settings.interrupt.is_raised() {
            break;
        }
    }
    Ok(ctx)
}

/// The report so far and where it goes.
fn context<'a>(
    output: &Path,
    settings: &'a Settings<'a>,
    options: &Options,
    batch: &BatchOptions,
    repository_root: PathBuf,
) -> anyhow::Result<Context<'a>> {
    let store = Store::open(output)?;
    let report = BatchReport {
        version: REPORT_VERSION,
        tool: Tool::default(),
        shard: batch.shard.map(|s| Shard { index: s.index, count: s.count }),
        signature_level: options.signature,
        repository_root: Some(repository_root.display().to_string()),
        ..BatchReport::default()
    };
    Ok(Context {
        store,
        settings,
        workers: batch.workers,
        each: batch.each,
        status: Status::new(Display::choose(options.quiet)),
        report,
        repository_root,
    })
}

/// The inputs of this shard.
fn shard(inputs: Vec<Input>, batch: &BatchOptions) -> Vec<Input> {
    inputs.into_iter().filter(|input| input.in_shard(batch.shard)).collect()
}

/// The git work tree around `dir`, else the directory above a fuzz directory (the Cargo project), else `dir`.
fn repository_root(dir: &Path) -> PathBuf {
    let git = Command::new("git").arg("-C").arg(dir).args(["rev-parse", "--show-toplevel"]).output();
    match git {
        Ok(out) if out.status.success() => PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        _ => dir.parent().filter(|_| dir.ends_with("fuzz")).unwrap_or(dir).to_path_buf(),
    }
}

/// Recounts the totals from the bugs and skipped inputs.
pub fn update_totals(report: &mut BatchReport) {
    let totals = &mut report.totals;
    totals.bugs = report.bugs.len();
    totals.minimized = report.bugs.iter().filter(|b| b.status == BugStatus::Minimized).count();
    totals.not_reproducible = report.bugs.iter().filter(|b| b.status == BugStatus::NotReproducible).count();
    totals.skipped = report.skipped.len();
}

/// Writes the final reports, prints the summary and annotations, and picks the exit code.
fn finish(ctx: Context, options: &Options, interrupt: &Interrupt) -> Result<Exit, Failure> {
    let mut report = ctx.report;
    report.interrupted = interrupt.is_raised();
    update_totals(&mut report);
    let dir = ctx.store.dir();
    ctx.store.write_reports(&report)?;
    if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
        let mut stdout = std::io::stdout().lock();
        for line in report::annotations(&report) {
            // A closed pipe is the reader's choice: the reports are on disk.
            let _ = writeln!(stdout, "{line}");
        }
    }
    if !options.quiet {
        eprintln!("{}", summary_line(&report, dir));
    }
    Ok(exit_code(&report))
}

/// One line: how many bugs, where the reports are.
fn summary_line(report: &BatchReport, dir: &Path) -> String {
    let t = &report.totals;
    let inputs = counted(t.inputs, "input");
    if t.bugs == 0 {
        return format!("no crash in {inputs} ({} skipped); report: {}", t.skipped, dir.join("report.md").display());
    }
    format!(
        "{} in {} of {inputs} ({} minimized, {} not reproducible, {} skipped); reports in {}",
        counted(t.bugs, "bug"),
        counted(t.crashing, "crashing input"),
        t.minimized,
        t.not_reproducible,
        counted(t.skipped, "input"),
        dir.display()
    )
}

/// 130 interrupted, 6 a bug not reproducible, 7 bugs found, 0 no crash.
pub fn exit_code(report: &BatchReport) -> Exit {
    if report.interrupted {
        Exit::Interrupted
    } else if report.bugs.iter().any(|b| matches!(b.status, BugStatus::NotReproducible | BugStatus::Failed { .. })) {
        Exit::Unverified
    } else if report.bugs.is_empty() {
        Exit::Minimized
    } else {
        Exit::BugsFound
    }
}
