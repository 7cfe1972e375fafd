//! One target's batch: run every input once on the workers (triage), group the crashes into bugs, minimize each bug not already done, take slips in as new bugs, record each bug as it finishes.

use std::path::{Path, PathBuf};

use crossbeam_channel::{Receiver, Sender};

use crate::batch::backend::Backend;
use crate::batch::display::Status;
use crate::batch::inputs::Input;
use crate::batch::minimize::{BugDone, BugJob, Settings};
use crate::batch::model::{BatchReport, Bug, BugStatus, FoundBy, SkipReason, SkippedInput};
use crate::batch::pool::{with_workers, Event, Job};
use crate::batch::report::source_location;
use crate::batch::store::{Store, TriageCache};
use crate::batch::triage::{Group, Groups, Member};
use crate::signature::Signature;

/// What every target's batch shares.
#[derive(Debug)]
pub struct Context<'a> {
    /// The output directory.
    pub store: Store,
    /// How bugs are minimized.
    pub settings: &'a Settings<'a>,
    /// Workers.
    pub workers: usize,
    /// Progress on stderr.
    pub status: Status,
    /// The report, updated and rewritten as bugs finish.
    pub report: BatchReport,
    /// Source locations are relative to it.
    pub repository_root: PathBuf,
}

/// Triage, group and minimize `inputs` of `backend`'s target.
pub fn run_target<B: Backend>(backend: &B, inputs: &[Input], ctx: &mut Context) -> anyhow::Result<()> {
    let build_id = backend.build_id()?;
    let mut cache = ctx.store.triage_cache(&build_id);
    ctx.report.totals.inputs += inputs.len();
    let mut crashes = classify(inputs, &cache, &mut ctx.report);
    let workers = ctx.workers;
    let settings = ctx.settings;
    with_workers(backend, workers, settings, |jobs, events| -> anyhow::Result<()> {
        triage(inputs, &mut crashes, jobs, events, ctx)?;
        for (input, crash) in inputs.iter().zip(&crashes) {
            if let (Some(Ok(crash)), Ok(bytes)) = (crash, &input.bytes) {
                cache.insert(input.sha1(), crash.clone());
                if crash.is_none() && !bytes.is_empty() {
                    let skipped = SkippedInput { path: input.name.clone(), reason: SkipReason::NoCrash };
                    ctx.report.skipped.push(skipped);
                }
            }
        }
        ctx.store.save_triage_cache(&build_id, &cache)?;
        let mut groups = group(backend.target(), inputs, &crashes, ctx);
        minimize_all(backend, &build_id, &mut groups, jobs, events, ctx)
    })
}

/// Each input's crash when known (`Some(Ok(..))`: from the cache), and the
/// empty and unreadable ones listed as skipped (`Some(Err(..))`).
type Crashes = Vec<Option<Result<Option<Signature>, String>>>;

fn classify(inputs: &[Input], cache: &TriageCache, report: &mut BatchReport) -> Crashes {
    let mut crashes = Vec::with_capacity(inputs.len());
    for input in inputs {
        let skip = |reason| SkippedInput { path: input.name.clone(), reason };
        let crash = match &input.bytes {
            Err(error) => {
                report.skipped.push(skip(SkipReason::Unreadable { error: error.clone() }));
                Some(Err(error.clone()))
            }
            Ok(bytes) if bytes.is_empty() => {
                report.skipped.push(skip(SkipReason::Empty));
                Some(Err(String::from("empty")))
            }
            Ok(_) => cache.get(&input.sha1()).cloned().map(Ok),
        };
        crashes.push(crash);
    }
    crashes
}

/// Runs every input whose crash is not known yet, once.
fn triage(
    inputs: &[Input],
    crashes: &mut Crashes,
    jobs: &Sender<Job>,
    events: &Receiver<Event>,
    ctx: &mut Context,
) -> anyhow::Result<()> {
    let mut pending = 0;
    for (index, input) in inputs.iter().enumerate() {
        if crashes[index].is_none() {
            let bytes = input.bytes.clone().unwrap_or_default();
            jobs.send(Job::Triage { index, bytes }).expect("the workers wait for jobs");
            pending += 1;
        }
    }
    let total = pending;
    while pending > 0 {
        let Ok(event) = events.recv() else { anyhow::bail!("the workers stopped during triage") };
        if let Event::Triaged { index, result } = event {
            pending -= 1;
            if let Err(error) = &result {
                let skipped = SkippedInput {
                    path: inputs[index].name.clone(),
                    reason: SkipReason::Failed { error: error.clone() },
                };
                ctx.report.skipped.push(skipped);
            }
            crashes[index] = Some(result);
            ctx.status.triage(total - pending, total);
        }
    }
    Ok(())
}

/// The crashing inputs grouped into bugs, members smallest first.
fn group(target: &str, inputs: &[Input], crashes: &Crashes, ctx: &mut Context) -> Groups {
    let mut groups = Groups::new(target, ctx.settings.level);
    for (input, crash) in inputs.iter().zip(crashes) {
        if let (Some(Ok(Some(signature))), Ok(bytes)) = (crash, &input.bytes) {
            let member = Member { name: input.name.clone(), bytes: bytes.clone() };
            groups.add(signature, member, FoundBy::Input);
        }
    }
    groups.sort();
    let crashing: usize = groups.list.iter().map(|g| g.members.len()).sum();
    ctx.report.totals.crashing += crashing;
    ctx.status.found += groups.list.len();
    let bugs = groups.list.len();
    ctx.status.line(&format!("{target}: {} crash: {}", counted(inputs.len(), "input"), counted(bugs, "distinct bug")));
    groups
}

/// Minimizes every group not finished in an earlier run, and the slips met on the way.
fn minimize_all<B: Backend>(
    backend: &B,
    build_id: &str,
    groups: &mut Groups,
    jobs: &Sender<Job>,
    events: &Receiver<Event>,
    ctx: &mut Context,
) -> anyhow::Result<()> {
    let mut pending = 0;
    for index in 0..groups.list.len() {
        pending += usize::from(start_group(build_id, &groups.list[index], jobs, ctx)?);
    }
    while pending > 0 {
        let Ok(event) = events.recv() else { anyhow::bail!("the workers stopped before every bug was done") };
        match event {
            Event::Progress { worker, id, size, tests } => ctx.status.worker(worker, &id, size, tests),
            Event::Triaged { .. } => {}
            Event::Finished(done) => {
                pending -= 1;
                let new = take_slips(&done, groups, ctx)?;
                let group = groups.list.iter().find(|g| g.id == done.id).expect("a job's group");
                record(backend, build_id, group, &done, ctx)?;
                for index in new {
                    pending += usize::from(start_group(build_id, &groups.list[index], jobs, ctx)?);
                }
            }
        }
    }
    Ok(())
}

/// Sends the group's job; a group finished in an earlier run is recorded as it
/// was instead (returns false).
fn start_group(build_id: &str, group: &Group, jobs: &Sender<Job>, ctx: &mut Context) -> anyhow::Result<bool> {
    let key = Store::bug_key(build_id, ctx.settings.level, &group.fingerprint);
    if let Some(mut bug) = ctx.store.finished(&group.id, &key) {
        bug.duplicates = group.members.iter().map(|m| m.name.clone()).filter(|n| *n != bug.representative).collect();
        ctx.status.line(&format!("{}: done in an earlier run ({})", bug.id, ctx.store.dir().display()));
        push_bug(bug, ctx)?;
        return Ok(false);
    }
    let reproducer = ctx.store.reproducer(&group.id)?;
    let job =
        BugJob { id: group.id.clone(), signature: group.signature.clone(), members: group.members.clone(), reproducer };
    jobs.send(Job::Minimize(Box::new(job))).expect("the workers wait for jobs");
    Ok(true)
}

/// New bugs among a finished bug's slips (saved with their inputs); returns their indices.
fn take_slips(done: &BugDone, groups: &mut Groups, ctx: &mut Context) -> anyhow::Result<Vec<usize>> {
    let mut new = Vec::new();
    for (signature, bytes) in &done.slips {
        if groups.contains(signature) {
            continue;
        }
        let found_by = FoundBy::Slip { while_minimizing: done.id.clone() };
        let placeholder = Member { name: String::new(), bytes: bytes.clone() };
        let (index, _) = groups.add(signature, placeholder, found_by);
        let id = groups.list[index].id.clone();
        groups.list[index].members[0].name = ctx.store.save_original(&id, bytes)?;
        ctx.status.found += 1;
        ctx.status.line(&format!("{id}: a new bug met while minimizing {}: {signature}", done.id));
        new.push(index);
    }
    Ok(new)
}

/// The report's entry for a finished bug, saved and reported.
fn record<B: Backend>(
    backend: &B,
    build_id: &str,
    group: &Group,
    done: &BugDone,
    ctx: &mut Context,
) -> anyhow::Result<()> {
    let representative = done.representative.clone().unwrap_or_else(|| group.members[0].name.clone());
    let original_size = group.members.iter().find(|m| m.name == representative).map_or(0, |m| m.bytes.len());
    let reproducer = done.reproducer_size.map(|_| format!("{}/reproducer", group.id));
    let reproducer_path = ctx.store.dir().join(&group.id).join("reproducer");
    let bug = Bug {
        id: group.id.clone(),
        target: backend.target().to_owned(),
        fingerprint: group.fingerprint.clone(),
        signature: group.signature.clone(),
        title: group.signature.to_string(),
        status: done.status.clone(),
        found_by: group.found_by.clone(),
        location: locate(&group.signature, &ctx.repository_root, backend.fuzz_dir()),
        reproducer,
        reproducer_size: done.reproducer_size,
        duplicates: group.members.iter().map(|m| m.name.clone()).filter(|n| *n != representative).collect(),
        representative,
        original_size,
        value: done.value.clone(),
        tests: done.tests,
        seconds: done.seconds,
        verified: done.verified,
        libfuzzer: done.libfuzzer.clone(),
        reproduce: backend.reproduce_line(&reproducer_path),
    };
    if bug.status == BugStatus::Minimized || bug.status == BugStatus::NotReproducible {
        let key = Store::bug_key(build_id, ctx.settings.level, &group.fingerprint);
        ctx.store.finish(&bug, &key)?;
    }
    push_bug(bug, ctx)
}

/// Adds the bug to the report and rewrites the reports.
fn push_bug(bug: Bug, ctx: &mut Context) -> anyhow::Result<()> {
    ctx.status.finished(&bug);
    ctx.report.bugs.push(bug);
    super::update_totals(&mut ctx.report);
    ctx.store.write_reports(&ctx.report)
}

/// The signature's source location in the repository, when it has one there.
fn locate(
    signature: &Signature,
    repository_root: &Path,
    fuzz_dir: Option<&Path>,
) -> Option<crate::batch::model::SourceLocation> {
    let location = signature.location.as_deref()?;
    source_location(location, repository_root, fuzz_dir.unwrap_or(repository_root))
}

/// `1 bug`, `2 bugs`.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
