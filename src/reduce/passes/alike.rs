//! Delete 256 alike elements at once, for an oracle that reads libFuzzer's 8-bit coverage counters (corpus mode).
//!
//! libFuzzer's inline counters are 8 bits wide and wrap: an edge run 403
//! times reads 147, in the `128+` bucket. An input kept for that feature
//! cannot be shrunk one element at a time below 384 runs: from 383 to 256
//! the counter reads 127 to 0, another bucket or none. Measured on the scene
//! corpus: the largest result held 403 `Fill` ops and 423 `Text` ops, their
//! counters reading 147 and 167, every single deletion refused. Deleting 256
//! elements that each add the same counts (same type and shape)
//! leaves every such counter where it was, modulo 256, and the input can
//! then shrink on toward 128 as usual.

use std::collections::HashMap;
use std::ops::Range;

use super::super::choice::Chooser;
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

/// The spans of each element (flag, front, back), grouped by kind, in input
/// order; only kinds with at least [`WRAP`] members. An element is a derived
/// value read right after a one-byte draw reading odd (a collection's "one
/// more" flag); its kind is its type and the lengths of its spans, at any
/// depth (the same code counts a value read at every depth).
fn alike(tc: &TestCase) -> Vec<Vec<Element>> {
    let flags: HashMap<usize, Range<usize>> =
        tc.draws.iter().filter(|d| d.reads_true(&tc.bytes)).map(|d| (d.span.end, d.span.clone())).collect();
    let mut kinds: HashMap<(&str, usize, usize), Vec<Element>> = HashMap::new();
    for example in tc.examples.iter().filter(|e| !e.front.is_empty()) {
        let Some(flag) = flags.get(&example.front.start) else { continue };
        let key = (example.label.as_ref(), example.front.len(), example.back.len());
        kinds.entry(key).or_default().push([flag.clone(), example.front.clone(), example.back.clone()]);
    }
    let mut kinds: Vec<Vec<Element>> = kinds.into_values().filter(|m| m.len() >= WRAP).collect();
    kinds.sort_by_key(|members| members[0][1].start);
    kinds
}

#[cfg(test)]
mod tests {
    use crate::reduce::{reduce_with, Example, Quiet, ReduceOptions, Verdict};

    /// A list of one-byte derived elements, each after a "one more" flag
    /// (recorded as a one-byte draw), as `arbitrary` reads a `Vec<T>`: an
    /// even byte is an `A`, an odd one a `B`. Returns how many of each.
    fn elements(input: &[u8]) -> ([usize; 2], Vec<Example>) {
        let (mut counts, mut examples, mut at) = ([0, 0], Vec::new(), 0);
        while at + 1 < input.len() && input[at] & 1 == 1 {
            let kind = usize::from(input[at + 1] & 1);
            examples.push(Example::new(at..at + 1, input.len()..input.len(), "draw:le:1", 1));
            examples.push(Example::new(at + 1..at + 2, input.len()..input.len(), ["A", "B"][kind], 1));
            counts[kind] += 1;
            at += 2;
        }
        (counts, examples)
    }

    /// Two 8-bit counters, as a coverage oracle reads them: the `A`s in the
    /// `128+` bucket, the `B`s (one after every four `A`s) within 95 to 105.
    /// From 400 `A`s (the counter reads 144) single deletions stop at 384
    /// (128: one less reads 127), and no run of 129 `A`s is free of `B`s;
    /// 256 `A`s at once reach 144, and from there 128.
    #[test]
    fn deleting_256_alike_elements_crosses_a_wrapped_counters_valley() {
        let input: Vec<u8> = (0..500).flat_map(|i| [1, if i % 5 == 4 { 1 } else { 0 }]).collect();
        let oracle = |candidate: &[u8]| {
            let ([a, b], examples) = elements(candidate);
            if a % 256 >= 128 && (95..=105).contains(&b) {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        let left = |wrapping_counters: bool| {
            let options = ReduceOptions { lowering: false, wrapping_counters, ..ReduceOptions::default() };
            let reduction = reduce_with(&input, oracle, &options, &mut Quiet).unwrap();
            elements(&reduction.best.bytes).0
        };
        assert_eq!(left(false), [384, 95], "one at a time");
        assert_eq!(left(true), [128, 95]);
    }
}
