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

#[cfg(test)]
mod tests {
    use std::fs;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    use super::*;
    use crate::batch::minimize::tests::{crash_of, letters, Simulated};
    use crate::batch::model::SourceLocation;
    use crate::reduce::ReduceOptions;
    use crate::session::interrupt::Interrupt;
    use crate::session::progress::Display;
    use crate::signature::Level;

    fn input(name: &str, bytes: &[u8]) -> Input {
        Input { name: name.into(), bytes: Ok(bytes.to_vec()) }
    }

    /// A batch of `inputs` on `letters` built as `build`, on two workers,
    /// into `root/out` (`root` is the repository): its report, and how many
    /// times it ran the target.
    fn batch(root: &Path, build: &'static str, inputs: &[Input], each: bool) -> (BatchReport, usize) {
        let interrupt = Interrupt::default();
        // No pass changes a byte's value: a reduction meets no letter its input lacks.
        let reduce = ReduceOptions { lowering: false, ..ReduceOptions::default() };
        let settings = Settings { level: Level::Default, structure: false, reduce, interrupt: &interrupt };
        let mut ctx = Context {
            store: Store::open(&root.join("out")).unwrap(),
            settings: &settings,
            workers: 2,
            each,
            status: Status::new(Display::Off),
            report: BatchReport::default(),
            repository_root: root.to_path_buf(),
        };
        let backend = Simulated { target: letters, build, runs: Arc::default() };
        run_target(&backend, inputs, &mut ctx).unwrap();
        (ctx.report, backend.runs.load(Ordering::SeqCst))
    }

    /// The report's bug of `letter`.
    fn bug_of(report: &BatchReport, letter: u8) -> &Bug {
        report.bugs.iter().find(|b| b.signature == crash_of(letter)).expect("a bug of the letter")
    }

    /// Two bugs, `A` in two inputs and `C` in one, and one input that runs clean.
    fn two_bugs() -> Vec<Input> {
        vec![input("a-long", b"....A...."), input("a-short", b"..A"), input("c", b"xCx"), input("clean", b"ok")]
    }

    #[test]
    fn each_bug_is_minimized_from_its_smallest_member_into_its_folder_and_reported() {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir(root.path().join("src")).unwrap();
        fs::write(root.path().join("src/lib.rs"), "").unwrap();
        let (report, _) = batch(root.path(), "b1", &two_bugs(), false);
        let out = root.path().join("out");
        let a = bug_of(&report, b'A');
        assert_eq!((a.representative.as_str(), a.duplicates.as_slice()), ("a-short", &[String::from("a-long")][..]));
        assert_eq!((a.original_size, &a.status, &a.found_by), (3, &BugStatus::Minimized, &FoundBy::Input));
        assert_eq!(a.reproducer, Some(format!("{}/reproducer", a.id)));
        assert_eq!(fs::read(out.join(&a.id).join("reproducer")).unwrap(), b"A");
        assert_eq!(a.reproduce, format!("t {}", out.join(&a.id).join("reproducer").display()));
        assert_eq!(a.value.as_deref(), Some("\"A\""));
        let location = SourceLocation { path: "src/lib.rs".into(), line: u32::from(b'A'), column: Some(1) };
        assert_eq!(a.location, Some(location), "found in the repository");
        let c = bug_of(&report, b'C');
        assert_eq!((c.representative.as_str(), c.duplicates.len()), ("c", 0));
        assert_eq!(fs::read(out.join(&c.id).join("reproducer")).unwrap(), b"C");
        for bug in [a, c] {
            assert!(out.join(&bug.id).join("bug.json").is_file(), "{} is saved as done", bug.id);
        }
        let written: BatchReport = serde_json::from_slice(&fs::read(out.join("report.json")).unwrap()).unwrap();
        assert_eq!(written, report, "the reports are rewritten as each bug finishes");
    }

    #[test]
    fn inputs_that_are_no_crash_are_skipped_with_why_and_counted() {
        let root = tempfile::tempdir().unwrap();
        let mut inputs = two_bugs();
        inputs.push(input("empty", b""));
        inputs.push(Input { name: "gone".into(), bytes: Err("No such file".into()) });
        inputs.push(input("broken", b"!"));
        let (report, _) = batch(root.path(), "b1", &inputs, false);
        let mut skipped: Vec<(&str, &SkipReason)> =
            report.skipped.iter().map(|s| (s.path.as_str(), &s.reason)).collect();
        skipped.sort_by_key(|(path, _)| *path);
        let failed = SkipReason::Failed { error: "cannot write the input".into() };
        let gone = SkipReason::Unreadable { error: "No such file".into() };
        let expected =
            [("broken", &failed), ("clean", &SkipReason::NoCrash), ("empty", &SkipReason::Empty), ("gone", &gone)];
        assert_eq!(skipped, expected);
        let t = &report.totals;
        assert_eq!((t.inputs, t.crashing, t.bugs, t.minimized, t.not_reproducible, t.skipped), (7, 3, 2, 2, 0, 4));
    }

    #[test]
    fn a_rerun_of_the_same_build_runs_nothing_and_reports_the_same_bugs_and_another_build_runs_again() {
        let root = tempfile::tempdir().unwrap();
        let (first, runs) = batch(root.path(), "b1", &two_bugs(), false);
        assert!(runs > 4, "{runs} runs");
        let (again, runs) = batch(root.path(), "b1", &two_bugs(), false);
        assert_eq!(runs, 0, "the triage cache and the finished bugs answer everything");
        for letter in [b'A', b'C'] {
            assert_eq!(bug_of(&again, letter), bug_of(&first, letter));
        }
        assert_eq!(again.skipped, first.skipped);
        let (_, runs) = batch(root.path(), "b2", &two_bugs(), false);
        assert!(runs > 4, "another build's results are not reused: {runs} runs");
    }

    #[test]
    fn a_slip_met_while_minimizing_is_a_bug_of_its_own_minimized_from_its_saved_input() {
        let root = tempfile::tempdir().unwrap();
        let (report, _) = batch(root.path(), "b1", &[input("ba", b"..B..A")], false);
        let (a, b) = (bug_of(&report, b'A'), bug_of(&report, b'B'));
        assert_eq!(b.found_by, FoundBy::Slip { while_minimizing: a.id.clone() });
        assert_eq!(b.representative, format!("{}/original", b.id));
        let original = fs::read(root.path().join("out").join(&b.representative)).unwrap();
        assert!(original.contains(&b'B') && !original.contains(&b'A'), "{original:?}");
        assert_eq!(fs::read(root.path().join("out").join(&b.id).join("reproducer")).unwrap(), b"B");
        assert_eq!((report.totals.bugs, report.totals.crashing, report.totals.minimized), (2, 1, 2));
    }

    #[test]
    fn with_each_every_duplicate_gets_a_reproducer_of_its_own_and_a_rerun_keeps_them() {
        let root = tempfile::tempdir().unwrap();
        let inputs = [input("a1", b"A"), input("a2", b"..A"), input("a3", b"....A")];
        let (report, _) = batch(root.path(), "b1", &inputs, true);
        let a = bug_of(&report, b'A');
        assert_eq!(a.representative, "a1");
        let names: Vec<&str> = a.minimized_duplicates.iter().map(|m| m.input.as_str()).collect();
        assert_eq!(names, ["a2", "a3"]);
        for (duplicate, bytes) in a.minimized_duplicates.iter().zip([&b"..A"[..], b"....A"]) {
            let file = format!("{}/minimized-from-{}", a.id, sha1_hex(bytes));
            assert_eq!((duplicate.reproducer.as_ref(), &duplicate.status), (Some(&file), &BugStatus::Minimized));
            assert_eq!(fs::read(root.path().join("out").join(&file)).unwrap(), b"A");
        }
        let (again, runs) = batch(root.path(), "b1", &inputs, true);
        assert_eq!((runs, &bug_of(&again, b'A').minimized_duplicates), (0, &a.minimized_duplicates));
    }
}
