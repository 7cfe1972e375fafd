//! One target's batch: run every input once on the workers (triage), group the crashes into bugs, minimize each bug not already done, take slips in as new bugs, record each bug as it finishes.

use std::path::{Path, PathBuf};

use crossbeam_channel::{Receiver, Sender};

use crate::batch::display::Status;
use crate::batch::ledger::Ledger;
use crate::batch::minimize::{BugDone, BugJob, Settings};
use crate::batch::model::{BatchReport, Bug, BugStatus, FoundBy, MinimizedInput, SkipReason, SkippedInput};
use crate::batch::pool::{with_workers, Event, Job};
use crate::batch::report::source_location;
use crate::batch::store::{Store, TriageCache};
use crate::batch::triage::{Group, Groups, Member};
use crate::session::backend::Backend;
use crate::session::inputs::Input;
use crate::session::output::sha1_hex;
use crate::session::progress::counted;
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
    /// Minimize every duplicate too (`--each`).
    pub each: bool,
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
    let of = counted(inputs.len(), "input");
    ctx.status.line(&format!("{target}: {crashing} of {of} crash: {}", counted(bugs, "distinct bug")));
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
    let mut ledger = Ledger::default();
    let mut pending = 0;
    for index in 0..groups.list.len() {
        pending += start_group(build_id, &groups.list[index], jobs, &mut ledger, ctx)?;
    }
    while pending > 0 {
        let Ok(event) = events.recv() else { anyhow::bail!("the workers stopped before every bug was done") };
        match event {
            Event::Progress { worker, id, size, tests } => ctx.status.worker(worker, &id, size, tests),
            Event::Triaged { .. } => {}
            Event::Slip { id, signature, input } => {
                if let Some(index) = take_slip(&id, &signature, &input, groups, ctx)? {
                    pending += start_group(build_id, &groups.list[index], jobs, &mut ledger, ctx)?;
                }
            }
            Event::Finished(done) => {
                // Its slips came as `Event::Slip`s before it, on the same channel.
                pending -= 1;
                let group = groups.list.iter().find(|g| g.id == done.id).expect("a job's group");
                let complete = match &done.duplicate {
                    Some(input) => ledger.duplicate_done(&done.id, minimized_input(input, &done)),
                    None => ledger.bug_done(entry(backend, group, &done, ctx)),
                };
                if let Some(bug) = complete {
                    record(bug, build_id, ctx)?;
                }
            }
        }
    }
    Ok(())
}

/// Sends the group's jobs (its reduction; with `--each` one per duplicate not
/// yet minimized) and returns how many; a group finished in an earlier run
/// needs no reduction of its own.
fn start_group(
    build_id: &str,
    group: &Group,
    jobs: &Sender<Job>,
    ledger: &mut Ledger,
    ctx: &mut Context,
) -> anyhow::Result<usize> {
    let key = Store::bug_key(build_id, ctx.settings.level, &group.fingerprint);
    let earlier = ctx.store.finished(&group.id, &key).map(|mut bug| {
        bug.duplicates = group.members.iter().map(|m| m.name.clone()).filter(|n| *n != bug.representative).collect();
        ctx.status.line(&format!("{}: done in an earlier run ({})", bug.id, ctx.store.dir().display()));
        bug
    });
    let send = |job: BugJob| jobs.send(Job::Minimize(Box::new(job))).expect("the workers wait for jobs");
    let mut sent = 0;
    if earlier.is_none() {
        let reproducer = ctx.store.reproducer(&group.id)?;
        let members = group.members.clone();
        send(BugJob { id: group.id.clone(), signature: group.signature.clone(), members, reproducer, duplicate: None });
        sent += 1;
    }
    if ctx.each {
        let done: Vec<&str> = earlier.iter().flat_map(|b| &b.minimized_duplicates).map(|m| m.input.as_str()).collect();
        let representative = earlier.as_ref().map(|b| b.representative.as_str());
        let todo = |m: &&Member| !done.contains(&m.name.as_str()) && representative != Some(m.name.as_str());
        // Without an earlier run the first member is the bug's own reduction (most likely).
        for member in group.members.iter().skip(usize::from(earlier.is_none())).filter(todo) {
            let file = format!("minimized-from-{}", sha1_hex(&member.bytes));
            let reproducer = ctx.store.bug_dir(&group.id)?.join(file);
            let (members, duplicate) = (vec![member.clone()], Some(member.name.clone()));
            send(BugJob { id: group.id.clone(), signature: group.signature.clone(), members, reproducer, duplicate });
            sent += 1;
        }
    }
    match (sent, earlier) {
        (0, Some(bug)) => record(bug, build_id, ctx)?,
        (_, earlier) => ledger.expect(&group.id, sent, earlier),
    }
    Ok(sent)
}

/// A duplicate's own reproducer, for its bug's entry.
fn minimized_input(input: &str, done: &BugDone) -> MinimizedInput {
    MinimizedInput {
        input: input.to_owned(),
        reproducer: done.reproducer_size.map(|_| format!("{}/{}", done.id, done.file_name)),
        reproducer_size: done.reproducer_size,
        status: done.status.clone(),
    }
}

/// A slip met while minimizing bug `id`, as a new bug (its input saved) when
/// it is not a known one; returns the new group's index.
fn take_slip(
    id: &str,
    signature: &Signature,
    input: &[u8],
    groups: &mut Groups,
    ctx: &mut Context,
) -> anyhow::Result<Option<usize>> {
    if groups.contains(signature) {
        return Ok(None);
    }
    let found_by = FoundBy::Slip { while_minimizing: id.to_owned() };
    let placeholder = Member { name: String::new(), bytes: input.to_vec() };
    let (index, _) = groups.add(signature, placeholder, found_by);
    let new = groups.list[index].id.clone();
    groups.list[index].members[0].name = ctx.store.save_original(&new, input)?;
    ctx.status.found += 1;
    ctx.status.line(&format!("{new}: a new bug met while minimizing {id}: {signature}"));
    Ok(Some(index))
}

/// The report's entry for a bug whose reduction finished.
fn entry<B: Backend>(backend: &B, group: &Group, done: &BugDone, ctx: &Context) -> Bug {
    let representative = done.representative.clone().unwrap_or_else(|| group.members[0].name.clone());
    let original_size = group.members.iter().find(|m| m.name == representative).map_or(0, |m| m.bytes.len());
    let reproducer = done.reproducer_size.map(|_| format!("{}/reproducer", group.id));
    let reproducer_path = ctx.store.dir().join(&group.id).join("reproducer");
    Bug {
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
        minimized_duplicates: Vec::new(),
    }
}

/// A complete bug: saved (when finished: minimized or found not reproducible) and reported.
fn record(bug: Bug, build_id: &str, ctx: &mut Context) -> anyhow::Result<()> {
    if bug.status == BugStatus::Minimized || bug.status == BugStatus::NotReproducible {
        let key = Store::bug_key(build_id, ctx.settings.level, &bug.fingerprint);
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
