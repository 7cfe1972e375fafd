//! Our reducer against classic ddmin and Lithium on synthetic crash inputs: tests run and result size, as a markdown table.
//!
//! ```text
//! cargo bench --bench reducers                 # every case
//! cargo bench --bench reducers -- --quick      # only the small cases
//! cargo bench --bench reducers -- tree         # cases whose name contains "tree"
//! ```
//!
//! Run without `--bench` (as `cargo test --benches` does) it does the quick set.
//! Tests are counted as calls to the predicate, the initial test included,
//! the same way for all three reducers. Every result is checked to be still
//! interesting. The goals printed at the end are the ones the reducer is held
//! to: fewer tests than both baselines on every case, at most half of ddmin's
//! tests in total, and never a larger result than either baseline. A row is
//! marked ✗ when ours runs at least as many tests as a baseline (goal 1 asks
//! for strictly fewer) or returns a larger result. The geometric mean of the
//! per-case ratios is printed too, since one large case can dominate the totals.

#[path = "reducers/cases.rs"]
mod cases;
#[path = "reducers/ddmin.rs"]
mod ddmin;
#[path = "reducers/lithium.rs"]
mod lithium;

use std::cell::Cell;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use cargo_minimize_crash::reduce::{reduce_with, Observer, Progress, Quiet, ReduceOptions};

use cases::Case;

/// A baseline reducer: input and predicate in, result and tests run out.
type Baseline = fn(&[u8], &mut dyn FnMut(&[u8]) -> bool) -> (Vec<u8>, u64);

/// What one reducer did on one case.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    tests: u64,
    /// Tests run when the final result was first tested: what it took to find
    /// it, without the tests that then showed nothing better was near.
    to_result: u64,
    size: usize,
    time: Duration,
}

impl std::ops::AddAssign for Run {
    fn add_assign(&mut self, other: Run) {
        self.tests += other.tests;
        self.to_result += other.to_result;
        self.size += other.size;
        self.time += other.time;
    }
}

/// One row of the table.
struct Row {
    ours: Run,
    ddmin: Run,
    lithium: Run,
}

impl Row {
    /// Why this row misses a goal, if it does.
    fn misses(&self) -> Vec<&'static str> {
        let mut misses = Vec::new();
        if self.ours.tests >= self.ddmin.tests {
            misses.push("tests >= ddmin");
        }
        if self.ours.tests >= self.lithium.tests {
            misses.push("tests >= lithium");
        }
        if self.ours.to_result >= self.ddmin.to_result.min(self.lithium.to_result) {
            misses.push("to result >= a baseline");
        }
        if self.ours.size > self.ddmin.size {
            misses.push("larger than ddmin");
        }
        if self.ours.size > self.lithium.size {
            misses.push("larger than lithium");
        }
        misses
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; without it this is a test run: keep it short.
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let filter = args.iter().find(|a| !a.starts_with('-'));

    check_baselines();
    let cases: Vec<Case> = cases::all()
        .into_iter()
        .filter(|c| !quick || c.small)
        .filter(|c| match filter {
            // Alternatives separated by `|`.
            Some(f) => f.split('|').any(|f| c.name.contains(f)),
            None => true,
        })
        .collect();
    if cases.is_empty() {
        eprintln!("no case matches {filter:?}");
        return;
    }

    println!("| case | kind | input | ours tests | ours to result | ours size | ddmin tests | ddmin to result | ddmin size | lithium tests | lithium to result | lithium size | ours/ddmin | ours/lithium | misses |");
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|");
    let mut total = Row { ours: Run::default(), ddmin: Run::default(), lithium: Run::default() };
    let mut missing: Vec<String> = Vec::new();
    let mut larger: Vec<String> = Vec::new();
    let mut slower: Vec<String> = Vec::new();
    let mut total_input = 0;
    // Sums of log(ours / baseline), for geometric means that no single large case dominates.
    let (mut log_ddmin, mut log_lithium) = (0.0, 0.0);
    for case in &cases {
        eprint!("{} ...", case.name);
        let row = Row {
            ours: run_ours(case),
            ddmin: run_baseline(case, ddmin::ddmin),
            lithium: run_baseline(case, lithium::lithium),
        };
        eprintln!(" ours {:.2?}, ddmin {:.2?}, lithium {:.2?}", row.ours.time, row.ddmin.time, row.lithium.time);
        let misses = row.misses();
        if misses.iter().any(|m| m.starts_with("tests")) {
            missing.push(case.name.clone());
        }
        if misses.iter().any(|m| m.starts_with("to result")) {
            slower.push(case.name.clone());
        }
        if misses.iter().any(|m| m.starts_with("larger")) {
            larger.push(case.name.clone());
        }
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            case.name,
            case.kind.name(),
            case.input.len(),
            row.ours.tests,
            row.ours.to_result,
            row.ours.size,
            row.ddmin.tests,
            row.ddmin.to_result,
            row.ddmin.size,
            row.lithium.tests,
            row.lithium.to_result,
            row.lithium.size,
            ratio(row.ours.tests, row.ddmin.tests),
            ratio(row.ours.tests, row.lithium.tests),
            if misses.is_empty() { String::new() } else { format!("**✗** {}", misses.join(", ")) },
        );
        total_input += case.input.len();
        log_ddmin += (row.ours.tests as f64 / row.ddmin.tests as f64).ln();
        log_lithium += (row.ours.tests as f64 / row.lithium.tests as f64).ln();
        total.ours += row.ours;
        total.ddmin += row.ddmin;
        total.lithium += row.lithium;
    }
    println!(
        "| **total** ({} cases) | | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | |",
        cases.len(),
        total_input,
        total.ours.tests,
        total.ours.to_result,
        total.ours.size,
        total.ddmin.tests,
        total.ddmin.to_result,
        total.ddmin.size,
        total.lithium.tests,
        total.lithium.to_result,
        total.lithium.size,
        ratio(total.ours.tests, total.ddmin.tests),
        ratio(total.ours.tests, total.lithium.tests),
    );
    println!();
    println!(
        "Geometric mean of the per-case test ratios: ours/ddmin {:.2}, ours/lithium {:.2}.",
        (log_ddmin / cases.len() as f64).exp(),
        (log_lithium / cases.len() as f64).exp()
    );
    println!("Time: ours {:.2?}, ddmin {:.2?}, lithium {:.2?}.", total.ours.time, total.ddmin.time, total.lithium.time);
    println!();
    println!("{}", goals(&cases, &total, &missing, &larger));
    println!(
        "- Goal 1 counted to the result (tests until the final result was first found, fewer than both baselines): {}{}",
        if slower.is_empty() { "**YES**" } else { "**NO**" },
        if slower.is_empty() {
            String::new()
        } else {
            format!(" (missed on {} of {}: {})", slower.len(), cases.len(), slower.join("; "))
        }
    );
}

/// The three goal lines.
fn goals(cases: &[Case], total: &Row, missing: &[String], larger: &[String]) -> String {
    let verdict = |ok: bool| if ok { "**YES**" } else { "**NO**" };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "- Goal 1, fewer tests than both baselines on every case: {}{}",
        verdict(missing.is_empty()),
        if missing.is_empty() {
            String::new()
        } else {
            format!(" (missed on {} of {}: {})", missing.len(), cases.len(), missing.join("; "))
        }
    );
    let _ = writeln!(
        out,
        "- Goal 2, total tests at most half of ddmin's: {} ({} vs {}, ratio {})",
        verdict(2 * total.ours.tests <= total.ddmin.tests),
        total.ours.tests,
        total.ddmin.tests,
        ratio(total.ours.tests, total.ddmin.tests)
    );
    let _ = write!(
        out,
        "- Goal 3, result never larger than either baseline's: {}{}",
        verdict(larger.is_empty()),
        if larger.is_empty() { String::new() } else { format!(" (larger on: {})", larger.join("; ")) }
    );
    out
}

fn ratio(a: u64, b: u64) -> String {
    format!("{:.2}", a as f64 / b.max(1) as f64)
}

/// When each interesting input was first tested.
#[derive(Default)]
struct Found {
    /// By a 64-bit hash of the input (storing the inputs could take gigabytes).
    first: std::collections::HashMap<u64, u64>,
}

impl Found {
    fn record(&mut self, call: u64, bytes: &[u8]) {
        self.first.entry(hash(bytes)).or_insert(call);
    }

    /// The call that first tested `best` (1 for the input itself).
    fn first(&self, best: &[u8]) -> u64 {
        self.first.get(&hash(best)).copied().unwrap_or(1)
    }
}

fn hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(bytes)
}

/// Prints each pass change (`BENCH_TRACE=1`), to see where the tests go.
#[derive(Default)]
struct Trace {
    last: (&'static str, u64, usize),
}

impl Observer for Trace {
    fn progress(&mut self, p: &Progress) {
        if p.pass != self.last.0 {
            let (pass, tests, size) = self.last;
            if !pass.is_empty() {
                eprintln!("  {pass:<22} {:>7} tests  {size:>6} -> {:>6} bytes", p.tests - tests, p.size);
            }
            self.last = (p.pass, p.tests, p.size);
        }
    }
}

/// Our reducer with default options; tests counted at the oracle.
fn run_ours(case: &Case) -> Run {
    let calls = Cell::new(0u64);
    let found = std::cell::RefCell::new(Found::default());
    let oracle = |bytes: &[u8]| {
        calls.set(calls.get() + 1);
        let verdict = (case.verdict)(bytes);
        if verdict.is_interesting() {
            found.borrow_mut().record(calls.get(), bytes);
        }
        verdict
    };
    let started = Instant::now();
    let mut trace = Trace::default();
    let observer: &mut dyn Observer = if std::env::var_os("BENCH_TRACE").is_some() { &mut trace } else { &mut Quiet };
    let reduction = reduce_with(&case.input, oracle, &ReduceOptions::default(), observer)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let time = started.elapsed();
    let best = &reduction.best.bytes;
    assert!((case.interesting)(best), "{}: our result is not interesting", case.name);
    if std::env::var_os("BENCH_STATS").is_some() {
        eprintln!("\n{}\nours: {:?}", reduction.stats, reduction.best.bytes);
    }
    if reduction.stats.tests != calls.get() {
        eprint!(" (the reducer counted {} tests, the oracle saw {})", reduction.stats.tests, calls.get());
    }
    let to_result = found.borrow().first(best);
    Run { tests: calls.get(), to_result, size: best.len(), time }
}

/// A baseline; tests counted at the predicate.
fn run_baseline(case: &Case, reducer: Baseline) -> Run {
    let mut calls = 0u64;
    let mut found = Found::default();
    let mut test = |bytes: &[u8]| {
        calls += 1;
        let interesting = (case.interesting)(bytes);
        if interesting {
            found.record(calls, bytes);
        }
        interesting
    };
    let started = Instant::now();
    let (best, tests) = reducer(&case.input, &mut test);
    let time = started.elapsed();
    assert_eq!(tests, calls, "{}: a baseline miscounted its tests", case.name);
    assert!((case.interesting)(&best), "{}: a baseline's result is not interesting", case.name);
    if std::env::var_os("BENCH_STATS").is_some() {
        eprintln!("baseline: {best:?}");
    }
    let to_result = found.first(&best);
    Run { tests, to_result, size: best.len(), time }
}

/// The baselines reach the known 1-minimal results on toy inputs.
fn check_baselines() {
    let input: Vec<u8> = (0..64).collect();
    let mut two_bytes = |b: &[u8]| b.contains(&3) && b.contains(&50);
    assert_eq!(ddmin::ddmin(&input, &mut two_bytes).0, [3, 50]);
    assert_eq!(lithium::lithium(&input, &mut two_bytes).0, [3, 50]);
    let mut substring = |b: &[u8]| b.windows(3).any(|w| w == [10, 11, 12]);
    assert_eq!(ddmin::ddmin(&input, &mut substring).0, [10, 11, 12]);
    assert_eq!(lithium::lithium(&input, &mut substring).0, [10, 11, 12]);
    // ddmin on a single interesting byte: halves down in two tests per level.
    let (result, tests) = ddmin::ddmin(&input, &mut |b: &[u8]| b.contains(&0));
    assert_eq!((result.as_slice(), tests), (&[0][..], 1 + 6));
}
