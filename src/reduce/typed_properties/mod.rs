//! Property test of the whole reducer over random derived types (issue 37): a value that satisfies a planted predicate reduces to the same result whether its input is compact, padded with unread bytes (lengths then 2 or 4 bytes wide), or full of noise the predicate does not look at.
//!
//! The types ([`Ty`]) are random trees of structs, enums, `Vec`, `String`,
//! `Option`, integers of every width and `bool`. [`Decoder`] reads them as
//! `arbitrary` 1.5 and its derive do, and records what the harness records:
//! a `draw:*` example for every primitive read and one for every derived
//! value (but not for a fieldless enum, which 1.5's derive builds without
//! the recording hook: `crate::project::inject::arbitrary_shim`). [`encode`] writes
//! a value's reads back out, every length as wide as its room says, with
//! unread padding between the front reads and the lengths. The layout's
//! rules come from `crate::protocol::layout` alone.

mod encoding;
mod minimal;
mod predicate;
mod types;

use std::time::Instant;

pub(crate) use encoding::{decode, encode_value};
pub(crate) use types::{Ty, Val};

use super::tape;
use super::{reduce_with, Example, Oracle, Quiet, ReduceOptions, StopReason, TestCase, Verdict};
use encoding::{encode, reads_of};
use minimal::simpler;
use predicate::{add_noise, plant, random_predicate, random_string_predicate, Predicate};
use types::{random_struct, random_val, zero};

/// One random case: a type, a predicate, a value that satisfies it, the same with noise.
#[derive(Debug)]
struct Case {
    /// The seed it was made from.
    seed: u64,
    /// The input's type (a struct).
    ty: Ty,
    /// The planted predicate.
    predicate: Predicate,
    /// A random value that satisfies it.
    value: Val,
    /// `value` with noise the predicate does not look at.
    noisy: Val,
}

/// What the predicates of a population ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asks {
    /// One clause: an integer, a character, a vector's length or a variant (issue 37).
    One,
    /// Structure inside a string, and often a variant elsewhere; noise
    /// inside strings too (issue 47).
    Strings,
}

/// The case made from `seed`.
fn random_case(seed: u64, asks: Asks) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    loop {
        let ty = random_struct(&mut rng, &mut 0, 0, 2..6);
        let predicate = match asks {
            Asks::One => random_predicate(&mut rng, &ty),
            Asks::Strings => random_string_predicate(&mut rng, &ty),
        };
        let Some(predicate) = predicate else { continue };
        let mut value = random_val(&mut rng, &ty, 3);
        plant(&mut value, &ty, &predicate, &mut |t| random_val(&mut rng, t, 3));
        if !predicate.holds(&value) {
            assert_eq!(asks, Asks::Strings, "seed {seed}: a predicate of one clause must hold where planted");
            continue; // two clauses on two variants of one enum
        }
        let noisy = (0..)
            .map(|_| {
                let mut noisy = value.clone();
                add_noise(&mut rng, &mut noisy, &ty, &predicate.paths(), asks == Asks::Strings);
                noisy
            })
            .find(|noisy| predicate.holds(noisy))
            .expect("noise that keeps the predicate");
        return Case { seed, ty, predicate, value, noisy };
    }
}

/// The predicate's simplest witness: the simplest value with what the path
/// needs, and at its end the least the target asks.
fn simplest(case: &Case) -> Val {
    let mut value = zero(&case.ty);
    plant(&mut value, &case.ty, &case.predicate, &mut zero);
    value
}

/// The inputs a case is reduced from, named: compact; padded so that every
/// length is read with more than 256 bytes left (2 bytes wide); padded past
/// 65,538 (4 bytes wide) when `wide`; the noisy value, compact.
fn variants(case: &Case, wide: bool) -> Vec<(&'static str, Val, Vec<u8>)> {
    let mut rng = fastrand::Rng::with_seed(case.seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut reads = Vec::new();
    reads_of(&case.value, &case.ty, &mut reads);
    let mut padded = |least: usize, width: usize| {
        let pad: Vec<u8> = (0..least + rng.usize(..500)).map(|_| rng.u8(..)).collect();
        let input = encode(&reads, &pad);
        let lens = decode(&case.ty, &input).1.into_iter().filter(|e| &*e.label == "draw:len");
        assert!(lens.into_iter().all(|e| e.back.len() == width), "seed {}: {width}-byte lengths", case.seed);
        input
    };
    let mut inputs = vec![("compact", case.value.clone(), encode(&reads, &[]))];
    inputs.push(("padded-257", case.value.clone(), padded(257, 2)));
    if wide {
        inputs.push(("padded-65538", case.value.clone(), padded(65_538, 4)));
    }
    inputs.push(("noise", case.noisy.clone(), encode_value(&case.noisy, &case.ty, &[])));
    inputs
}

/// An oracle over [`decode`] of `ty`: interesting when `holds` says so of
/// the value; like the harness, it keeps what every run recorded, boring
/// ones too ([`Oracle::recorded`]).
pub(crate) struct Recorder<'t, F> {
    /// The input's type.
    pub(crate) ty: &'t Ty,
    /// The target's condition.
    pub(crate) holds: F,
    /// What the last run recorded.
    last: Vec<Example>,
}

impl<'t, F: FnMut(&Val) -> bool> Recorder<'t, F> {
    /// An oracle that reads values of `ty` and asks `holds` of them.
    pub(crate) fn new(ty: &'t Ty, holds: F) -> Self {
        Recorder { ty, holds, last: Vec::new() }
    }
}

impl<F: FnMut(&Val) -> bool> Oracle for Recorder<'_, F> {
    fn test(&mut self, input: &[u8]) -> anyhow::Result<Verdict> {
        let (value, examples) = decode(self.ty, input);
        self.last.clone_from(&examples);
        Ok(if (self.holds)(&value) { Verdict::Interesting(examples) } else { Verdict::Boring })
    }

    fn recorded(&self) -> Option<Vec<Example>> {
        Some(self.last.clone())
    }
}

/// What reducing one input gave.
#[derive(Debug)]
struct Outcome {
    /// The input's name.
    name: &'static str,
    /// The input's length.
    input_len: usize,
    /// The result's bytes.
    bytes: Vec<u8>,
    /// The value they are read as.
    value: Val,
    /// Whether that value satisfies the predicate.
    holds: bool,
    /// The edits one step simpler that still satisfy it (none when it is 1-minimal).
    not_minimal: Vec<String>,
    /// Tests the reduction ran.
    tests: u64,
    /// Why it stopped.
    stop: Option<StopReason>,
}

/// Reduces `input` (checked to be read as `expected` first) with the real
/// reducer, under a budget of [`MAX_TESTS`] tests.
fn reduce_input(case: &Case, name: &'static str, expected: &Val, input: &[u8]) -> Outcome {
    let (decoded, examples) = decode(&case.ty, input);
    assert_eq!(&decoded, expected, "seed {}: the {name} input must be read as the value it encodes", case.seed);
    // The reducer's own model of the reads recorded (`tape`) writes the same value compactly.
    let recorded = TestCase::new(input.to_vec(), examples);
    let rewritten = tape::reads(&recorded).and_then(|reads| tape::write(&reads));
    assert_eq!(rewritten, Some(encode_value(expected, &case.ty, &[])), "seed {}: {name}: tape's rewrite", case.seed);
    let oracle = Recorder::new(&case.ty, |value: &Val| case.predicate.holds(value));
    let options = ReduceOptions { max_tests: Some(MAX_TESTS), ..ReduceOptions::default() };
    let reduction = reduce_with(input, oracle, &options, &mut Quiet)
        .unwrap_or_else(|e| panic!("seed {}: the {name} input: {e}", case.seed));
    let (bytes, stats) = (reduction.best.bytes, reduction.stats);
    let value = decode(&case.ty, &bytes).0;
    let holds = case.predicate.holds(&value);
    let not_minimal =
        simpler(&value, &case.ty).into_iter().filter(|s| case.predicate.holds(&s.value)).map(|s| s.edit).collect();
    Outcome { name, input_len: input.len(), bytes, value, holds, not_minimal, tests: stats.tests, stop: stats.stop }
}

/// What went wrong with a case's outcomes, if anything: reductions that
/// did not finish, results that do not satisfy the predicate, or padded
/// inputs' results longer than the compact input (results that differ are
/// counted apart: [`differing`]).
fn problems(outcomes: &[Outcome]) -> Vec<String> {
    let compact_len = outcomes[0].input_len;
    let mut found = Vec::new();
    for outcome in outcomes {
        if outcome.stop != Some(StopReason::Done) {
            found.push(format!("{} did not finish in {MAX_TESTS} tests", outcome.name));
        }
        if !outcome.holds {
            found.push(format!("{}'s result does not satisfy the predicate", outcome.name));
        }
        if !outcome.not_minimal.is_empty() {
            found.push(format!("{}'s result is not 1-minimal: {}", outcome.name, outcome.not_minimal.join(", ")));
        }
        // A noisy input's result is another local minimum when it differs
        // (counted apart), which can be longer than the compact input.
        if outcome.bytes.len() > compact_len && outcome.name != "noise" {
            found.push(format!("{}'s result is longer than the compact input ({compact_len})", outcome.name));
        }
    }
    found
}

/// The inputs (after the first) that reduced to other bytes than the first.
fn differing(outcomes: &[Outcome]) -> Vec<&str> {
    outcomes[1..].iter().filter(|o| o.bytes != outcomes[0].bytes).map(|o| o.name).collect()
}

/// Where `a` and `b` (values of `ty`) differ, below `path`: the outermost
/// places where their shapes (variant, `Some` or `None`, number of
/// elements) or leaves differ, each as "path: a / b".
fn differences(a: &Val, b: &Val, ty: &Ty, path: &str, out: &mut Vec<String>) {
    if a == b {
        return;
    }
    let pairs: Vec<(String, &Val, &Val, &Ty)> = match (a, b, ty) {
        (Val::Struct(x), Val::Struct(y), Ty::Struct(_, fields)) => {
            (0..fields.len()).map(|i| (format!("{path}.{i}"), &x[i], &y[i], &fields[i])).collect()
        }
        (Val::Enum(v, x), Val::Enum(w, y), Ty::Enum(_, variants)) if v == w => {
            (0..x.len()).map(|i| (format!("{path}.V{v}.{i}"), &x[i], &y[i], &variants[*v][i])).collect()
        }
        (Val::Opt(Some(x)), Val::Opt(Some(y)), Ty::Opt(t)) => vec![(format!("{path}.Some"), &**x, &**y, &**t)],
        (Val::Vec(x), Val::Vec(y), Ty::Vec(t)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().map(|(i, (x, y))| (format!("{path}[{i}]"), x, y, &**t)).collect()
        }
        _ => {
            out.push(format!("{path}: {a} / {b}"));
            return;
        }
    };
    for (path, x, y, t) in pairs {
        differences(x, y, t, &path, out);
    }
}

/// `bytes` in hex, the middle of a long run left out.
fn hex(bytes: &[u8]) -> String {
    if bytes.len() <= 96 {
        return format!("{bytes:02x?}");
    }
    let (head, tail) = (&bytes[..64], &bytes[bytes.len() - 16..]);
    format!("{head:02x?} .. {tail:02x?} ({} bytes)", bytes.len())
}

/// `text`, cut after 300 characters.
fn cut(text: String) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{} ..", &text[..at]),
        None => text,
    }
}

/// A failed case for a person to reproduce: seed, type, values, each
/// input's result (its tests, and where it differs from the first's).
fn report(case: &Case, outcomes: &[Outcome], found: &[String]) -> String {
    let mut text = format!("seed {}: {}\n", case.seed, found.join("; "));
    text += &format!("  type: {}\n  predicate: {}\n", case.ty, case.predicate);
    text += &format!("  value: {}\n  noisy value: {}\n", case.value, case.noisy);
    let witness = simplest(case);
    text += &format!("  simplest witness: {witness} = {}\n", hex(&encode_value(&witness, &case.ty, &[])));
    for o in outcomes {
        text += &format!("  {} ({} bytes, {} tests) -> {}\n", o.name, o.input_len, o.tests, hex(&o.bytes));
        text += &format!("      = {}\n", cut(o.value.to_string()));
        let mut differ = Vec::new();
        differences(&outcomes[0].value, &o.value, &case.ty, "top", &mut differ);
        if !differ.is_empty() {
            text += &format!("      differs from {}'s at {}\n", outcomes[0].name, cut(differ.join("; ")));
        }
    }
    text
}

/// Every how many cases one is also padded past 65,538 bytes (its reduction
/// dominates the test's time).
const WIDE_EVERY: u64 = 4;

/// The tests a reduction may run: the most any input here needs is under
/// 1,000 (an input padded past 65,538 bytes whose unread bytes go one a
/// test needs tens of thousands, 1.6 ms each in a debug build).
const MAX_TESTS: u64 = 1_500;

/// The inputs each case is reduced from, by name.
const NAMES: [&str; 4] = ["compact", "padded-257", "padded-65538", "noise"];

/// Reduces `cases` random cases whose predicates ask `asks` from each of
/// their inputs and checks the hard properties ([`problems`]: every result
/// finishes, satisfies the predicate, is 1-minimal at the value level and
/// no longer than the compact input) and that at most `most_differing` of
/// each kind of input reduce to other bytes than the compact input's.
fn population(asks: Asks, cases: u64, most_differing: &[(&str, usize)]) {
    // More cases for a person studying the reducer: `TYPED_PROPERTIES_CASES=2000`.
    let cases = std::env::var("TYPED_PROPERTIES_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(cases);
    let started = Instant::now();
    let (mut failures, mut failed_seeds, mut inputs, mut witnesses) = (Vec::new(), Vec::new(), [0; 4], 0);
    let (mut differ, mut differ_reports, mut tests) = ([0usize; 4], Vec::new(), 0);
    let index = |name: &str| NAMES.iter().position(|n| *n == name).expect("a known input");
    for seed in 0..cases {
        let case = random_case(seed, asks);
        let outcomes: Vec<Outcome> = variants(&case, seed % WIDE_EVERY == 0)
            .iter()
            .map(|(name, value, input)| reduce_input(&case, name, value, input))
            .collect();
        outcomes.iter().for_each(|o| inputs[index(o.name)] += 1);
        tests += outcomes.iter().map(|o| o.tests).sum::<u64>();
        witnesses += usize::from(outcomes[0].value == simplest(&case));
        let other = differing(&outcomes);
        other.iter().for_each(|name| differ[index(name)] += 1);
        if !other.is_empty() {
            differ_reports.push(report(&case, &outcomes, &[format!("{other:?} reduced to other bytes")]));
        }
        let found = problems(&outcomes);
        if !found.is_empty() {
            failures.push(report(&case, &outcomes, &found));
            failed_seeds.push(seed);
        }
    }
    let summary = format!(
        "{asks:?}: {cases} cases, inputs {NAMES:?}: {inputs:?}, {:.1} tests each; {} failed; results other than \
         the compact one's: {differ:?}; {witnesses} compact results are the simplest witness; {:.1?}",
        tests as f64 / inputs.iter().sum::<usize>() as f64,
        failures.len(),
        started.elapsed()
    );
    eprintln!("{summary}");
    // For a person studying the local minima: every differing case, reported.
    if let Ok(path) = std::env::var("TYPED_PROPERTIES_REPORT") {
        std::fs::write(format!("{path}.{asks:?}"), differ_reports.join("\n")).expect("the report is written");
    }
    assert!(failures.is_empty(), "{summary}\nfailed seeds: {failed_seeds:?}\n\n{}", failures.join("\n"));
    for &(name, most) in most_differing {
        let count = differ[index(name)];
        assert!(
            count <= most,
            "{summary}\n{name}: {count} results differ, at most {most}\n\n{}",
            differ_reports.join("\n")
        );
    }
}

/// Issue 37: a value that satisfies a planted predicate of one clause
/// reduces from its compact input, the same padded with unread bytes (more
/// than 256 left at every length; past 65,538 for every [`WIDE_EVERY`]-th
/// case) and its noisy copy to results that satisfy the predicate, finish,
/// are 1-minimal and no longer than the compact input; and, but for a few
/// noisy inputs, to the same bytes. Each that differs is another local
/// minimum, not a wrong result (the hard properties hold): another variant
/// of an enum, where going to the variant the compact result has would
/// insert fields the recording does not describe, e.g. `V2("")` for
/// `V0(0, "")` (decision 0005).
#[test]
fn random_typed_values_reduce_alike_compact_padded_and_noisy() {
    population(Asks::One, 400, &[("padded-257", 0), ("padded-65538", 0), ("noise", 16)]);
}

/// Issue 47: predicates that need structure inside a string (characters in
/// an order, a paragraph break, a count of a character) and often a variant
/// elsewhere, with noise inside strings: every result 1-minimal at the
/// value level (no character, element or number can go or be lowered, no
/// earlier variant with simplest fields written as short keeps the bug).
#[test]
fn strings_inside_derived_values_reduce_to_one_minimal_values() {
    population(Asks::Strings, 300, &[("padded-257", 0), ("padded-65538", 0), ("noise", 300)]);
}

/// The decoder reads as `arbitrary` 1.5 itself does: a struct's fields are
/// read as a tuple of them is, on random bytes (short and long, invalid
/// UTF-8 included) and on the encoder's padded inputs.
#[test]
fn the_decoder_reads_as_arbitrary_does() {
    use arbitrary::{Arbitrary, Unstructured};
    type Tuple = (String, Vec<u16>, Option<u8>, bool, u128, Vec<String>, u32);
    let ty = Ty::Struct(
        "T".into(),
        vec![
            Ty::Str,
            Ty::Vec(Box::new(Ty::Int(2))),
            Ty::Opt(Box::new(Ty::Int(1))),
            Ty::Bool,
            Ty::Int(16),
            Ty::Vec(Box::new(Ty::Str)),
            Ty::Int(4),
        ],
    );
    let from_tuple = |t: Tuple| {
        let strings = t.5.into_iter().map(|s| Val::Str(s.into_bytes())).collect();
        Val::Struct(vec![
            Val::Str(t.0.into_bytes()),
            Val::Vec(t.1.into_iter().map(|x| Val::Int(x.into())).collect()),
            Val::Opt(t.2.map(|x| Box::new(Val::Int(x.into())))),
            Val::Bool(t.3),
            Val::Int(t.4),
            Val::Vec(strings),
            Val::Int(t.6.into()),
        ])
    };
    let mut rng = fastrand::Rng::with_seed(37);
    let mut inputs: Vec<Vec<u8>> =
        (0..2000).map(|i| (0..rng.usize(..[8, 64, 600][i % 3])).map(|_| rng.u8(..)).collect()).collect();
    for pad in [0, 300, 70_000] {
        let value = Val::Struct(vec![
            Val::Str(b"abc".to_vec()),
            Val::Vec(vec![Val::Int(500), Val::Int(7)]),
            Val::Opt(Some(Box::new(Val::Int(9)))),
            Val::Bool(true),
            Val::Int(u128::MAX / 3),
            Val::Vec(vec![Val::Str(b"".to_vec()), Val::Str(b"xyz".to_vec())]),
            Val::Int(77),
        ]);
        inputs.push(encode_value(&value, &ty, &vec![0xff; pad]));
    }
    for input in &inputs {
        let theirs = Tuple::arbitrary(&mut Unstructured::new(input)).expect("arbitrary reads any input as these types");
        assert_eq!(decode(&ty, input).0, from_tuple(theirs), "input {input:02x?}");
    }
}
