//! The corpus run's jobs and events: what the plan sends a worker (through `drive.rs`) and what the worker sends back, with the results they carry; the one vocabulary the plan and the workers share, so that neither imports the other.

use crate::reduce::{Proof, StopReason};

/// Work for a worker.
#[derive(Debug)]
pub enum Job {
    /// Run an input for its features: once (`first` is `None`), or again
    /// after a first run that covered `first` (more when they vary).
    Measure {
        /// The input's index.
        index: usize,
        /// Its contents.
        bytes: Vec<u8>,
        /// What its first run covered, when this is the run again.
        first: Option<Vec<u32>>,
    },
    /// Run the results an earlier run saved for a kept input (its result,
    /// and the input split off it if any) for their features.
    Check {
        /// The input's index.
        index: usize,
        /// The results' contents.
        parts: Vec<Vec<u8>>,
    },
    /// Shrink a kept input (and split it when that pays).
    Shrink {
        /// The input's index.
        index: usize,
        /// Its contents.
        bytes: Vec<u8>,
        /// The features it must keep.
        required: Vec<u32>,
        /// What the round asks of its shrinks.
        effort: Effort,
    },
    /// Join two results into one and shrink it (`crate::corpus::plan::join`).
    Join {
        /// The first one's origin (for progress).
        index: usize,
        /// The result whose collection takes the other's elements.
        a: Vec<u8>,
        /// The other; `None`: `a` is shrunk alone (`crate::corpus::plan::alone`).
        b: Option<Vec<u8>>,
        /// The features the result must keep (those no other kept result has).
        required: Vec<u32>,
        /// An earlier run's result for the pair (or for `a` alone).
        saved: Option<Vec<u8>>,
    },
}

/// What a round asks of its shrinks (`crate::corpus::plan::rounds::effort`):
/// the plan decides it per round, the worker takes the half that fits the
/// input, typed or raw bytes (decisions 0101, 0107, 0109).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effort {
    /// A typed input's proof (when the reduction runs the final round that
    /// proves its result 1-minimal; `Skipped`: a quick shrink, never).
    pub typed: Proof,
    /// A quick shrink's passes yield after few failing steps in a row, more
    /// on a large input (decision 0107); `false`: after the full budget.
    pub by_size: bool,
    /// A raw-bytes input's proof.
    pub bytes: Proof,
    /// A typed input's shrink stops after this many tests (`None`: no
    /// bound but the run's); one stopped there is shrunk again next round.
    pub typed_tests: Option<u64>,
}

/// What a worker reports.
#[derive(Debug)]
pub enum Event {
    /// An input ran (once, or again after its first run).
    Measured {
        /// The input's index.
        index: usize,
        /// What the runs showed (the features every run had).
        result: Measured,
        /// The features only some runs had.
        varying: Vec<u32>,
        /// Runs made.
        runs: u64,
    },
    /// An earlier run's results ran.
    Checked {
        /// The input's index.
        index: usize,
        /// What each run showed, in the order given.
        results: Vec<Measured>,
    },
    /// A shrink is under way.
    Progress {
        /// The worker.
        worker: usize,
        /// The input's index.
        index: usize,
        /// The best size so far.
        size: usize,
        /// Tests so far.
        tests: u64,
    },
    /// A shrink ended.
    Shrunk {
        /// The input's index.
        index: usize,
        /// Its result, or why it failed (the input is then kept as it is).
        result: Result<Shrunk, String>,
    },
    /// A join ended.
    Joined {
        /// The first one's origin.
        index: usize,
        /// The joined input shrunk, if any, and the runs it took.
        result: Result<Joined, String>,
    },
}

/// What one run of an input showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measured {
    /// It ran normally and covered these features (ascending).
    Covered(Vec<u32>),
    /// It crashed (the signature, as shown).
    Crashed(String),
    /// It ran past the time limit.
    TimedOut,
    /// The target rejected it (`Corpus::Reject`): libFuzzer never adds it to a corpus.
    Rejected,
    /// It is empty: libFuzzer never counts an empty input's coverage.
    Empty,
    /// It could not be run or measured.
    Failed(String),
}

/// A shrunk input.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The result (the input itself when it could not be shrunk).
    pub bytes: Vec<u8>,
    /// The result's features.
    pub features: Vec<u32>,
    /// Runs made (on both harnesses), the checks included.
    pub tests: u64,
    /// Why the reduction ended; `None` when it did not run (see `unstable`).
    pub stop: Option<StopReason>,
    /// The input did not cover its assigned features when run again: kept as it is.
    pub unstable: bool,
    /// A second input split off the result (`worker::shrink::shrink_and_split`): it covers
    /// the required features of few hits, `bytes` the others.
    pub split: Option<Part>,
}

/// An input split off a shrunk one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its contents.
    pub bytes: Vec<u8>,
    /// Its features.
    pub features: Vec<u32>,
}

/// What a join on a worker ended with.
#[derive(Debug, Default)]
pub struct Joined {
    /// Runs made, the shrink's tests included.
    pub tests: u64,
    /// The joined input shrunk; `None` when the two could not be joined or
    /// no joined input had every feature.
    pub shrunk: Option<Shrunk>,
    /// The first input has no examples (a bytes target): nothing joins.
    pub untyped: bool,
}
