//! A corpus worker's fork servers: the coverage harness measures every run (its counters are `cargo fuzz build`'s), and on an AddressSanitizer build runs a shrink's candidates in a second server without fake stacks (decision 0116); the crash build records the examples and draws of the runs the reducer keeps.
//!
//! The coverage build records nothing: the examples' recording in derived
//! impls changed what LLVM inlines, and so the counters (see
//! `project::inject::arbitrary_shim`), which made some features ours and not
//! libFuzzer's. So every candidate runs on the coverage harness, and only the
//! input a shrink starts from and each candidate that keeps its features run
//! once more, on the recording harness, for the examples the reducer cuts
//! along: one run more per success.

use std::sync::Arc;

use crate::corpus::features::{intersect, is_stack, union};
use crate::corpus::jobs::Measured;
use crate::corpus::worker::failures::Failures;
use crate::exec::{Coverage, Executor, ForkServerExecutor, RunningGroup};
use crate::protocol::ResultKind;
use crate::reduce::Example;
use crate::session::setup::HarnessSetup;
use crate::signature::{Kind, Signature};

/// At most this many runs measure an input whose first two runs differ.
pub const MEASURE_RUNS: usize = 4;

/// Staying is given up for good at this many shrinks whose result covered
/// in the staying child and not alone (each redone with fresh children):
/// one could be coverage that varies from run to run (decision 0102).
pub const STAYING_MISSES: u32 = 3;

/// Why a run of a harness built without coverage cannot be measured.
pub const NOT_INSTRUMENTED: &str = "the harness has no coverage counters (not instrumented)";

/// A worker's harnesses.
#[derive(Debug)]
pub struct Runner {
    coverage: ForkServerExecutor,
    /// The crash build, for examples; `None` without structure
    /// (`--no-structure`) and until the first shrink: it is built after the
    /// first complete corpus is written.
    recording: Option<ForkServerExecutor>,
    /// Where the worker publishes its running test (for the recording harness, when started).
    running: RunningGroup,
    /// Runs on the recording harness so far.
    recorded: u64,
    /// Whether shrinks may run their candidates in a staying child: until
    /// [`STAYING_MISSES`] showed that this target's coverage depends on earlier runs.
    may_stay: bool,
    /// Shrinks whose result covered in the staying child and not alone.
    staying_misses: u32,
    /// The failures kept for the next shrink of each result, shared by the workers.
    failures: Arc<Failures>,
    /// The coverage harness again, its children without fake stacks
    /// (`Sanitizer::candidate_env`), always staying; `None` without a
    /// sanitizer and until the first shrink (decision 0116).
    candidates: Option<ForkServerExecutor>,
    /// Whether the measures run on `candidates` (a staying shrink held to no stack feature).
    on_candidates: bool,
    /// A result of `candidates` crashed on `coverage`: they are not started again (decision 0117).
    candidates_forgone: bool,
}

impl Runner {
    /// A worker's runner over its started coverage fork server.
    pub fn new(coverage: ForkServerExecutor, running: RunningGroup, failures: Arc<Failures>) -> Runner {
        Runner {
            coverage,
            recording: None,
            running,
            recorded: 0,
            may_stay: true,
            staying_misses: 0,
            failures,
            candidates: None,
            on_candidates: false,
            candidates_forgone: false,
        }
    }

    /// The failures the shrinks keep for the next shrink of their results.
    pub fn failures(&self) -> &Failures {
        &self.failures
    }

    /// Starts what shrinks run on, where not started yet: the recording
    /// harness's fork server, once it is built (`None`: not built), and the
    /// coverage harness's for candidates (`coverage`'s, decision 0116).
    pub fn start_shrinking(&mut self, coverage: &HarnessSetup, recording: Option<&HarnessSetup>) -> Result<(), String> {
        let failed = |error: anyhow::Error| format!("{error:#}");
        if let (None, Some(setup)) = (&self.recording, recording) {
            self.recording = Some(setup.start(self.running.clone()).map_err(failed)?);
        }
        if self.candidates.is_none() && !self.candidates_forgone {
            if let Some(started) = coverage.start_for_candidates(self.running.clone()) {
                let mut executor = started.map_err(failed)?;
                executor.set_staying(true);
                self.candidates = Some(executor);
            }
        }
        Ok(())
    }

    /// Runs `bytes` on the coverage harness: what the run showed.
    pub fn measure(&mut self, bytes: &[u8]) -> Measured {
        if bytes.is_empty() {
            return Measured::Empty;
        }
        let executor = match self.candidates.as_mut() {
            Some(candidates) if self.on_candidates => candidates,
            _ => &mut self.coverage,
        };
        let outcome = match executor.run(bytes) {
            Ok(outcome) => outcome,
            Err(error) => return Measured::Failed(format!("{error:#}")),
        };
        if let Some(signature) = Signature::of(&outcome) {
            return match signature.kind {
                Kind::Timeout => Measured::TimedOut,
                _ => Measured::Crashed(signature.to_string()),
            };
        }
        if executor.last_result().is_some_and(|r| r.kind == ResultKind::Rejected) {
            return Measured::Rejected;
        }
        match executor.coverage() {
            Some(Coverage { cut: true, .. }) => {
                Measured::Failed(String::from("more features than the shared memory holds"))
            }
            Some(Coverage { counters: 0, .. }) => Measured::Failed(String::from(NOT_INSTRUMENTED)),
            Some(coverage) => Measured::Covered(coverage.features),
            None => Measured::Failed(String::from("the run reported no coverage")),
        }
    }

    /// Runs `bytes` again after a first run that covered `first`, once, and
    /// up to [`MEASURE_RUNS`] runs in all when the two differ: the features
    /// every run had (as `Covered`), and those only some runs had, ascending
    /// (coverage that varies from run to run: a cache, a random seed).
    /// Returns them with the runs made here.
    pub fn measure_again(&mut self, bytes: &[u8], first: &[u32]) -> (Measured, Vec<u32>, u64) {
        let (mut every, mut some) = (first.to_vec(), first.to_vec());
        let mut runs = 0;
        for run in 1..MEASURE_RUNS {
            // The first two runs agree: the input's coverage does not vary.
            if run > 1 && some == every {
                break;
            }
            runs += 1;
            let Measured::Covered(features) = self.measure(bytes) else { break };
            every = intersect(&every, &features);
            some = union([&some[..], &features[..]]);
        }
        let varying = some.into_iter().filter(|f| every.binary_search(f).is_err()).collect();
        (Measured::Covered(every), varying, runs)
    }

    /// The examples and draws of a run of `bytes` on the recording harness
    /// (none without one: `--no-structure`, or a target that reads raw bytes).
    pub fn examples(&mut self, bytes: &[u8]) -> Result<Vec<Example>, String> {
        let Some(executor) = self.recording.as_mut() else { return Ok(Vec::new()) };
        self.recorded += 1;
        executor.run(bytes).map_err(|error| format!("{error:#}"))?;
        Ok(executor.examples())
    }

    /// Runs the coverage harness's next measures in one staying child
    /// (`on`, unless [`Runner::missed_staying`] gave staying up), or in a fresh
    /// child each (decision 0090). Returns whether they stay.
    pub fn stay(&mut self, on: bool) -> bool {
        let on = on && self.may_stay;
        self.coverage.set_staying(on);
        if std::mem::take(&mut self.on_candidates) {
            // The next shrink's candidates start in a fresh staying child, as on `coverage`.
            let candidates = self.candidates.as_mut().expect("measures ran on it");
            candidates.set_staying(false);
            candidates.set_staying(true);
        }
        // The examples are how `arbitrary` read the bytes, which earlier
        // runs do not change; only the coverage decides, in a fresh child.
        if let Some(recording) = self.recording.as_mut() {
            recording.set_staying(on);
        }
        on
    }

    /// While staying, runs the next measures without fake stacks when
    /// `required` has no stack-depth feature (that depth moves without
    /// them, and a few counters' hit counts do), until the next [`Runner::stay`]
    /// (decision 0116). Returns whether they run so.
    pub fn skip_fake_stacks(&mut self, required: &[u32]) -> bool {
        let stack = required.last().is_some_and(|&f| is_stack(f, self.counters()));
        self.on_candidates = self.coverage.is_staying() && self.candidates.is_some() && !stack;
        self.on_candidates
    }

    /// Whether the measures run without fake stacks ([`Runner::skip_fake_stacks`]).
    pub fn on_candidates(&self) -> bool {
        self.on_candidates
    }

    /// A result found without fake stacks, quarantine and fill crashed with
    /// them: the target has a bug only they catch, which those candidates
    /// pass. From now on they run with them, as every other measure does.
    pub fn forgo_candidates(&mut self) {
        self.stay(false);
        self.candidates = None;
        self.candidates_forgone = true;
    }

    /// A shrink's result covered in the staying child and not alone, twice:
    /// from the [`STAYING_MISSES`]th time on, every measure runs in a fresh
    /// child (this target's coverage depends on what ran before it in the
    /// process).
    pub fn missed_staying(&mut self) {
        self.staying_misses += 1;
        if self.staying_misses >= STAYING_MISSES {
            self.may_stay = false;
            self.stay(false);
        }
    }

    /// Runs `f` with every measure in a fresh child, then lets them stay again as before.
    pub fn fresh<R>(&mut self, f: impl FnOnce(&mut Runner) -> R) -> R {
        let may_stay = std::mem::replace(&mut self.may_stay, false);
        self.stay(false);
        let result = f(self);
        self.may_stay = may_stay;
        result
    }

    /// Runs on the recording harness so far.
    pub fn recorded(&self) -> u64 {
        self.recorded
    }

    /// The coverage harness's counters (`u32::MAX` before its first run).
    pub fn counters(&self) -> u32 {
        self.coverage.coverage().map_or(u32::MAX, |c| c.counters)
    }
}
