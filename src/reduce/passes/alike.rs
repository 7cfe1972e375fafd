//! Delete 256 alike elements at once, for an oracle that reads libFuzzer's 8-bit coverage counters (corpus mode).
//!
//! libFuzzer's inline counters are 8 bits wide and wrap: an edge run 403
//! times reads 147, in the `128+` bucket. An input kept for that feature
//! cannot be shrunk one element at a time below 384 runs: from 383 to 256
//! the counter reads 127 to 0, another bucket or none. Deleting 256
//! elements that each add the same counts (same type and shape) leaves
//! every such counter where it was, modulo 256, and the input can then
//! shrink on toward 128 as usual (decision 0037).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::{replace_ranges, TestCase};

/// The counters' period.
const WRAP: usize = 256;

/// An element's spans: its "one more" flag, its front, its back.
type Element = [Range<usize>; 3];

/// Chooses a kind of element with at least 256 members and deletes 256 of
/// them (the last ones, then the first ones), each with the continuation
/// flag read before it and its bytes at the back.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if !sh.options().wrapping_counters {
        return Err(Halt::Dead);
    }
    let tc = sh.shared();
    let kinds = alike(&tc);
    let members = &kinds[chooser.choose(kinds.len(), |_| true)?];
    let chosen = match chooser.choose(2, |_| true)? {
        0 => &members[members.len() - WRAP..],
        _ => &members[..WRAP],
    };
    let edits: Vec<(Range<usize>, &[u8])> = chosen.iter().flatten().map(|span| (span.clone(), &[][..])).collect();
    sh.consider(replace_ranges(&tc.bytes, &edits))?;
    Ok(())
}

/// What makes elements alike: a derived value's type and the lengths of its
/// spans, or a lone draw's kind and width.
#[derive(PartialEq, Eq, Hash)]
enum Kind<'a> {
    Derived(&'a str, usize, usize),
    Draw(DrawKind, usize),
}

/// The spans of each element (flag, front, back), grouped by kind, in input
/// order; only kinds with at least [`WRAP`] members. An element is read right
/// after a one-byte draw reading odd (a collection's "one more" flag): a
/// derived value, whose kind is its type and the lengths of its spans at any
/// depth (the same code counts a value read at every depth), or a lone draw
/// (a `Vec<u8>`'s byte, a `Vec<i16>`'s number), whose kind is its own.
fn alike(tc: &TestCase) -> Vec<Vec<Element>> {
    let mut kinds: HashMap<Kind<'_>, Vec<Element>> = HashMap::new();
    let flags: HashMap<usize, Range<usize>> =
        tc.draws.iter().filter(|d| d.reads_true(&tc.bytes)).map(|d| (d.span.end, d.span.clone())).collect();
    for example in tc.examples.iter().filter(|e| !e.front.is_empty()) {
        let Some(flag) = flags.get(&example.front.start) else { continue };
        let key = Kind::Derived(example.label.as_ref(), example.front.len(), example.back.len());
        kinds.entry(key).or_default().push([flag.clone(), example.front.clone(), example.back.clone()]);
    }
    for [flag, draw] in lone_draws(tc) {
        let element = [flag.span.clone(), draw.span.clone(), 0..0];
        kinds.entry(Kind::Draw(draw.kind, draw.span.len())).or_default().push(element);
    }
    let mut kinds: Vec<Vec<Element>> = kinds.into_values().filter(|m| m.len() >= WRAP).collect();
    kinds.sort_by_key(|members| members[0][1].start);
    kinds
}

/// The draws read right after a flag reading true that begin no derived
/// value, each with its flag, paired from the first draw on: in a run of
/// flags and bytes each byte is taken as an element once, whatever it reads.
fn lone_draws(tc: &TestCase) -> Vec<[&Draw; 2]> {
    let derived: HashSet<usize> = tc.examples.iter().filter(|e| !e.front.is_empty()).map(|e| e.front.start).collect();
    let (mut pairs, mut at) = (Vec::new(), 0);
    while let [flag, draw, ..] = &tc.draws[at..] {
        let lone =
            flag.reads_true(&tc.bytes) && draw.span.start == flag.span.end && !derived.contains(&draw.span.start);
        if lone {
            pairs.push([flag, draw]);
        }
        at += if lone { 2 } else { 1 };
    }
    pairs
}

#[cfg(test)]
mod tests {
    use crate::reduce::{reduce_with, Example, Quiet, ReduceOptions, Verdict};

    /// A list of elements, each after a "one more" flag (recorded as a
    /// one-byte draw), as `arbitrary` reads a `Vec<T>`: an even byte is an
    /// `A`, an odd one begins a two-byte `B`; each recorded as a derived
    /// value, or (`lone`) as a draw alone, as a `Vec<u8>`'s bytes and a
    /// `Vec<i16>`'s numbers are. Returns how many of each.
    fn elements(input: &[u8], lone: bool) -> ([usize; 2], Vec<Example>) {
        let (mut counts, mut examples, mut at) = ([0, 0], Vec::new(), 0);
        while at + 1 < input.len() && input[at] & 1 == 1 {
            let kind = usize::from(input[at + 1] & 1);
            let end = at + 2 + kind;
            if end > input.len() {
                break;
            }
            examples.push(Example::new(at..at + 1, input.len()..input.len(), "draw:le:1", 1));
            let label = if lone { ["draw:le:1", "draw:le:2"][kind] } else { ["A", "B"][kind] };
            examples.push(Example::new(at + 1..end, input.len()..input.len(), label, 1));
            counts[kind] += 1;
            at = end;
        }
        (counts, examples)
    }

    /// What the reduction of 500 elements (one `B` after every four `A`s)
    /// leaves under two 8-bit counters, as a coverage oracle reads them: the
    /// `A`s in the `128+` bucket, the `B`s within 95 to 105.
    fn left(lone: bool, wrapping_counters: bool) -> [usize; 2] {
        let input: Vec<u8> = (0..500).flat_map(|i| if i % 5 == 4 { vec![1, 1, 0] } else { vec![1, 0] }).collect();
        let oracle = |candidate: &[u8]| {
            let ([a, b], examples) = elements(candidate, lone);
            if a % 256 >= 128 && (95..=105).contains(&b) {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        let options = ReduceOptions { lowering: false, wrapping_counters, ..ReduceOptions::default() };
        let reduction = reduce_with(&input, oracle, &options, &mut Quiet).unwrap();
        elements(&reduction.best.bytes, lone).0
    }

    /// From 400 `A`s (the counter reads 144) single deletions stop at 384
    /// (128: one less reads 127), and no run of 129 `A`s is free of `B`s;
    /// 256 `A`s at once reach 144, and from there 128.
    #[test]
    fn deleting_256_alike_elements_crosses_a_wrapped_counters_valley() {
        assert_eq!(left(false, false), [384, 95], "one at a time");
        assert_eq!(left(false, true), [128, 95]);
    }

    /// The same for elements that are draws alone, as a `Vec<u8>`'s bytes:
    /// flags and bytes are both one-byte draws, told apart by position.
    #[test]
    fn lone_draws_are_elements_too() {
        assert_eq!(left(true, false), [384, 95], "one at a time");
        assert_eq!(left(true, true), [128, 95]);
    }
}
