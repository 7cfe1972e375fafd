//! The harness mode on typed list targets (`fuzz_target!(|xs: Vec<u64>| ..)`,
//! issue 7) against Hypothesis's notebook "Designing a better simplifier": mean
//! tests per condition next to `multicourse_shrink5`'s mean calls, and whether
//! the results are 1-minimal as lists, as a markdown table.
//!
//! ```text
//! cargo bench --bench lists                   # every condition, 20 lists each
//! cargo bench --bench lists -- distinct       # conditions whose target contains "distinct"
//! BENCH_LISTS=40 cargo bench --bench lists    # lists per condition
//! BENCH_SEED=3 cargo bench --bench lists      # other lists (the default seed is 7)
//! BENCH_REDUCERS=draws cargo bench --bench lists  # only the configurations named (comma-separated)
//! BENCH_REDUCERS=no-derive cargo bench --bench lists -- messy
//! ```
//!
//! Each condition of `planted::lists` has a fuzz target `list_<name>` in
//! `fuzz/` that panics when the condition holds. Lists are drawn as in the
//! notebook (length uniform in 0..=100, values uniform over u64, drawn again
//! until the condition holds), encoded as the bytes libfuzzer-sys's
//! `fuzz_target!` decodes back to the same list (checked with `arbitrary`),
//! and minimized by the real binary from the repository root with `--json`;
//! the tests come from its summary (the initial test included), the result is
//! decoded back to a list. A result is *1-minimal* when no single element can
//! be deleted and none lowered to 0, 1, v/2 or v-1 with the condition still
//! holding; the example shown is the first result that is not, else the first
//! result. Every reducer configuration in [`REDUCERS`] runs on the same lists
//! and gets its own columns. The first run of a target also builds its
//! harness, which the summary's tests do not count. The "no-derive"
//! configuration runs the same targets from a fuzz crate written in a
//! temporary directory that depends on `libfuzzer-sys` and `planted` alone
//! (no `arbitrary` of its own, no derive, no lockfile), as many real crates'
//! are; it is built once per run. Run without `--bench` (as
//! `cargo test --benches` does) it only lists the conditions and checks the
//! encoding.

#[path = "support/fuzz_crate.rs"]
#[allow(dead_code)] // only the root crate's manifest is used here
mod fuzz_crate;
#[path = "support/summary.rs"]
mod summary;

use std::path::{Path, PathBuf};
use std::process::Command;

use arbitrary::{Arbitrary, Unstructured};
use planted::lists::{Condition, CONDITIONS};
use serde_json::Value;
use summary::json_summary;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

/// Lists per condition unless `BENCH_LISTS` says otherwise.
const DEFAULT_LISTS: usize = 20;

/// Arguments of every run: the cross-check with a `cargo fuzz build` binary
/// changes nothing in the reduction and costs about 0.7 s a run.
const COMMON_ARGS: [&str; 3] = ["--json", "--quiet", "--no-verify-libfuzzer"];

/// Where a configuration's targets are built.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Project {
    /// `fuzz/` of this repository (`arbitrary` with its derive).
    Ours,
    /// A fuzz crate with `libfuzzer-sys` and `planted` alone ([`write_no_derive_project`]).
    NoDerive,
}

/// A reducer configuration: a name for the table's columns, the arguments it adds and its project.
struct Reducer {
    name: &'static str,
    args: &'static [&'static str],
    project: Project,
}

/// The configurations measured side by side; a new reducer is one more entry.
const REDUCERS: &[Reducer] = &[
    Reducer { name: "bytes", args: &["--no-draws"], project: Project::Ours },
    Reducer { name: "draws", args: &[], project: Project::Ours },
    Reducer { name: "no-derive", args: &[], project: Project::NoDerive },
];

/// Writes a fuzz project under `dir` whose fuzz crate depends on
/// `libfuzzer-sys` and `planted` alone, with every list target of `fuzz/`
/// copied as it is; returns its root.
fn write_no_derive_project(dir: &Path) -> PathBuf {
    let project = dir.join("no-derive");
    let targets = project.join("fuzz/fuzz_targets");
    std::fs::create_dir_all(&targets).expect("create the project");
    std::fs::create_dir_all(project.join("src")).expect("create src");
    std::fs::write(project.join("Cargo.toml"), fuzz_crate::crate_manifest("lists")).expect("write the manifest");
    std::fs::write(project.join("src/lib.rs"), "").expect("write lib.rs");
    let planted = root().join("crates/planted");
    let mut manifest = format!(
        "[package]\nname = \"lists-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
         [package.metadata]\ncargo-fuzz = true\n\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n\
         planted = {{ path = {:?} }}\n\n[workspace]\nmembers = [\".\"]\n",
        planted.display().to_string()
    );
    for condition in CONDITIONS {
        let name = condition.target;
        let source = root().join(format!("fuzz/fuzz_targets/{name}.rs"));
        std::fs::copy(&source, targets.join(format!("{name}.rs"))).expect("copy a list target");
        manifest +=
            &format!("\n[[bin]]\nname = \"{name}\"\npath = \"fuzz_targets/{name}.rs\"\ntest = false\ndoc = false\n");
    }
    std::fs::write(project.join("fuzz/Cargo.toml"), manifest).expect("write the fuzz manifest");
    project
}

/// What one configuration did on one condition's lists.
#[derive(Debug, Default)]
struct Tally {
    runs: usize,
    tests: u64,
    one_minimal: usize,
    length: usize,
    not_done: usize,
    example: Vec<u64>,
    example_one_minimal: bool,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}={v}: not a number")))
}

/// A random list as the notebook draws one: length uniform in 0..=100, values uniform over u64.
fn draw(rng: &mut fastrand::Rng) -> Vec<u64> {
    let len = rng.usize(0..=100);
    (0..len).map(|_| rng.u64(..)).collect()
}

/// Draws until the condition holds.
fn draw_satisfying(rng: &mut fastrand::Rng, holds: fn(&[u64]) -> bool) -> Vec<u64> {
    loop {
        let xs = draw(rng);
        if holds(&xs) {
            return xs;
        }
    }
}

/// The bytes a top-level `Vec<u64>` of libfuzzer-sys's `fuzz_target!` decodes
/// to `xs` (arbitrary 1.5.0, `arbitrary_take_rest`): per element a "one more"
/// bool (a byte, its low bit set) then the value as 8 little-endian bytes; the
/// end of the input ends the list (an even byte would too). Nothing is read
/// from the back: lengths come from the back only for `arbitrary`, not
/// `arbitrary_take_rest`.
fn encode(xs: &[u64]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(xs.len() * 9);
    for x in xs {
        bytes.push(1);
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    bytes
}

/// The list the fuzz target sees for these bytes.
fn decode(bytes: &[u8]) -> Vec<u64> {
    Vec::<u64>::arbitrary_take_rest(Unstructured::new(bytes)).expect("a Vec<u64> decodes from any bytes")
}

/// Lists one change away: each element deleted, each lowered to 0, 1, v/2 or v-1.
fn neighbours(xs: &[u64]) -> impl Iterator<Item = Vec<u64>> + '_ {
    let deleted = (0..xs.len()).map(move |i| [&xs[..i], &xs[i + 1..]].concat());
    let lowered = (0..xs.len()).flat_map(move |i| {
        let v = xs[i];
        [0, 1, v / 2, v.saturating_sub(1)].into_iter().filter(move |&w| w < v).map(move |w| {
            let mut ys = xs.to_vec();
            ys[i] = w;
            ys
        })
    });
    deleted.chain(lowered)
}

fn is_one_minimal(xs: &[u64], holds: fn(&[u64]) -> bool) -> bool {
    !neighbours(xs).any(|ys| holds(&ys))
}

/// Minimizes `input` with the condition's target in harness mode from the
/// configuration's project (the repository root, or `no_derive`); returns the summary.
fn minimize(condition: &Condition, input: &Path, output: &Path, reducer: &Reducer, no_derive: &Path) -> Value {
    let dir = if reducer.project == Project::Ours { root() } else { no_derive };
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(COMMON_ARGS)
        .args(reducer.args)
        .arg("-o")
        .arg(output)
        .arg(condition.target)
        .arg(input)
        .output()
        .expect("run cargo-minimize-crash");
    let what = format!("minimizing {} with {} ({:?})", input.display(), condition.target, reducer.args);
    json_summary(&out, &what)
}

/// Runs one configuration on one list and adds what it did to `tally`.
fn measure(condition: &Condition, input: &Path, output: PathBuf, reducer: &Reducer, tally: &mut Tally) {
    let no_derive = input.parent().expect("inputs are in the scratch directory").join("no-derive");
    let summary = minimize(condition, input, &output, reducer, &no_derive);
    let result = decode(&std::fs::read(&output).expect("read the result"));
    assert!((condition.holds)(&result), "{}: the result {result:?} does not satisfy the condition", condition.target);
    tally.runs += 1;
    tally.tests += summary["tests"].as_u64().expect("the summary counts tests");
    let one_minimal = is_one_minimal(&result, condition.holds);
    tally.one_minimal += usize::from(one_minimal);
    tally.length += result.len();
    tally.not_done += usize::from(summary["stop_reason"] != "done");
    // The first result, unless a later one is not 1-minimal: the example shows what to fix.
    if tally.runs == 1 || (tally.example_one_minimal && !one_minimal) {
        tally.example = result;
        tally.example_one_minimal = one_minimal;
    }
}

/// Every configuration on `lists` lists satisfying the condition, the same lists for each.
fn measure_condition(condition: &Condition, lists: usize, seed: u64, scratch: &Path) -> Vec<Tally> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let reducers = reducers();
    let mut tallies: Vec<Tally> = reducers.iter().map(|_| Tally::default()).collect();
    for n in 0..lists {
        let xs = draw_satisfying(&mut rng, condition.holds);
        let bytes = encode(&xs);
        assert_eq!(decode(&bytes), xs, "the encoding must decode to the list");
        let input = scratch.join(format!("{}-{n}", condition.target));
        std::fs::write(&input, &bytes).expect("write the input");
        for (reducer, tally) in reducers.iter().zip(&mut tallies) {
            let output = scratch.join(format!("{}-{n}-{}", condition.target, reducer.name));
            measure(condition, &input, output, reducer, tally);
        }
    }
    tallies
}

/// A list as Python prints it, cut after a dozen elements.
fn show(xs: &[u64]) -> String {
    const SHOWN: usize = 12;
    let head = planted::lists::python_repr(&xs[..xs.len().min(SHOWN)]);
    if xs.len() > SHOWN {
        format!("`{}, ...]` ({} elements)", &head[..head.len() - 1], xs.len())
    } else {
        format!("`{head}`")
    }
}

/// The configurations `BENCH_REDUCERS` names (all of them without it).
fn reducers() -> Vec<&'static Reducer> {
    let wanted = std::env::var("BENCH_REDUCERS").ok();
    let named = |r: &Reducer| wanted.as_deref().map_or(true, |w| w.split(',').any(|n| n == r.name));
    let chosen: Vec<&Reducer> = REDUCERS.iter().filter(|r| named(r)).collect();
    assert!(!chosen.is_empty(), "BENCH_REDUCERS={wanted:?} names none of the configurations");
    chosen
}

fn print_header() {
    let mut header = String::from("| condition | lists | multicourse_shrink5 |");
    let mut rule = String::from("|---|--:|--:|");
    for reducer in reducers() {
        let name = reducer.name;
        header +=
            &format!(" tests, {name} | ratio, {name} | 1-minimal, {name} | mean length, {name} | example, {name} |");
        rule += "--:|--:|--:|--:|---|";
    }
    println!("{header}\n{rule}");
}

fn print_row(condition: &Condition, lists: usize, tallies: &[Tally]) {
    let mut row = format!("| {} | {lists} | {} |", condition.name, condition.multicourse_shrink5);
    for tally in tallies {
        let runs = tally.runs.max(1) as f64;
        let mean_tests = tally.tests as f64 / runs;
        row += &format!(
            " {mean_tests:.1} | {:.2} | {} of {} | {:.1} | {} |",
            mean_tests / condition.multicourse_shrink5,
            tally.one_minimal,
            tally.runs,
            tally.length as f64 / runs,
            show(&tally.example)
        );
    }
    println!("{row}");
}

/// Without `--bench`: the conditions, and the encoding checked on a few lists of each.
fn list_conditions(conditions: &[&Condition]) {
    let mut rng = fastrand::Rng::with_seed(0);
    for condition in conditions {
        for _ in 0..3 {
            let xs = draw_satisfying(&mut rng, condition.holds);
            assert_eq!(decode(&encode(&xs)), xs, "{}: the encoding must decode to the list", condition.target);
        }
    }
    let names: Vec<&str> = conditions.iter().map(|c| c.target).collect();
    println!("list targets: {} (run `cargo bench --bench lists` to measure)", names.join(", "));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-')).map(String::as_str);
    let conditions: Vec<&Condition> =
        CONDITIONS.iter().filter(|c| filter.map_or(true, |f| c.target.contains(f))).collect();
    if !args.iter().any(|a| a == "--bench") {
        list_conditions(&conditions);
        return;
    }
    let lists = env_number("BENCH_LISTS", DEFAULT_LISTS as u64) as usize;
    let seed = env_number("BENCH_SEED", 7);
    let scratch = tempfile::tempdir().expect("a temporary directory");
    if reducers().iter().any(|r| r.project == Project::NoDerive) {
        write_no_derive_project(scratch.path());
    }
    println!("{lists} lists per condition, seed {seed}; multicourse_shrink5: mean calls in Hypothesis's notebook");
    println!();
    print_header();
    let mut not_done = 0;
    for condition in conditions {
        // Each condition's lists depend on its place in the table, not on the filter.
        let place = CONDITIONS.iter().position(|c| c.target == condition.target).unwrap_or_default();
        let tallies = measure_condition(condition, lists, seed.wrapping_add(place as u64), scratch.path());
        not_done += tallies.iter().map(|t| t.not_done).sum::<usize>();
        print_row(condition, lists, &tallies);
    }
    if not_done > 0 {
        println!("\n{not_done} runs stopped before the reducer was done (a budget); their results count as they are.");
    }
}
