//! The passes: each a named step that makes choices and tries candidates; one file per family.
//!
//! A pass is data (name, tier, whether it backs the 1-minimality guarantee)
//! plus a step function. A step asks the [`Chooser`] for its choices and tries
//! one move, growing a success adaptively; it never loops over the whole test
//! case itself: the scheduler decides how many steps run, in which order, and
//! when to move on (the contract of Hypothesis's shrink passes, `shrinker.py`).

mod adjust;
mod alike;
mod chars;
mod chunks;
mod clone;
mod contents;
mod delete_blocks;
mod delete_examples;
mod draws;
mod encoding;
mod ends;
mod flips;
mod lengths;
mod loops;
mod lower;
mod prefix;
mod products;
mod realign;
mod records;
mod sort;
mod stops;
mod trim;
mod values;
mod variants;
mod zero_values;

use super::choice::Chooser;
use super::shrinker::{Halt, Shrinker, StepResult};

/// How a pass is scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tier {
    /// Cheap deletions that remove the most per test: always first.
    Delete,
    /// Costlier or speculative moves that make the input shorter.
    Shrink,
    /// Moves that make the input simpler without making it shorter: run only
    /// when nothing shorter is found, since shortlex puts size first.
    Lower,
    /// Once the reduction is done: spelling, moves that change how a value
    /// is written, not what it is (an odd flag byte as one). Run to
    /// exhaustion at the end: earlier, a flag spelled one can take away the
    /// deletion a later round would find (decision 0017). Spelling leaves
    /// the length as it is and no round follows; if a polish move made the
    /// input shorter, the rounds would run again.
    Polish,
}

/// One pass.
#[derive(Debug)]
pub(crate) struct PassDef {
    /// Its name in statistics and progress.
    pub(crate) name: &'static str,
    pub(crate) tier: Tier,
    /// Runs to exhaustion in the final round: together these passes make the
    /// result 1-minimal (no single byte or example deletion, no single byte
    /// zeroing or decrement, and on draws alone no loop's bound lowered with
    /// its stop flag, is still interesting).
    pub(crate) guarantee: bool,
    /// One step.
    pub(crate) step: fn(&mut Shrinker<'_>, &mut Chooser<'_>) -> StepResult,
}

/// Passes left out where only the size counts (`lowering` off: the corpus
/// mode): their moves make a value simpler, an earlier variant, and only
/// now and then shorter. On a typed corpus of 2,046 inputs `switch-variants`
/// ran 87,437 of 706,000 tests in 5 minutes and cut 426 bytes (decision 0113).
const SIMPLER_NOT_SHORTER: &[&str] = &["switch-variants"];

impl PassDef {
    /// Whether it runs when only the size counts: no lowering pass, none of [`SIMPLER_NOT_SHORTER`].
    pub(crate) fn shortens(&self) -> bool {
        self.tier < Tier::Lower && !SIMPLER_NOT_SHORTER.contains(&self.name)
    }
}

/// Every pass, in their initial order; the scheduler runs them in tiers and rounds (decision 0013).
pub(crate) static PASSES: &[PassDef] = &[
    PassDef { name: "shortest-encoding", tier: Tier::Delete, guarantee: false, step: encoding::shortest_early },
    PassDef { name: "spell-lengths", tier: Tier::Delete, guarantee: false, step: contents::spell_lengths },
    PassDef { name: "zero-values", tier: Tier::Delete, guarantee: false, step: zero_values::zero },
    PassDef { name: "least-values", tier: Tier::Delete, guarantee: false, step: zero_values::least },
    PassDef { name: "keep-prefix", tier: Tier::Delete, guarantee: false, step: prefix::step },
    PassDef { name: "keep-windows", tier: Tier::Delete, guarantee: false, step: prefix::keep_windows },
    PassDef { name: "delete-coarse-chunks", tier: Tier::Delete, guarantee: false, step: chunks::coarse },
    PassDef { name: "delete-256-alike", tier: Tier::Delete, guarantee: false, step: alike::step },
    PassDef { name: "trim-unread", tier: Tier::Delete, guarantee: false, step: trim::step },
    PassDef { name: "delete-examples", tier: Tier::Delete, guarantee: true, step: delete_examples::step },
    PassDef { name: "delete-draw-periods", tier: Tier::Delete, guarantee: false, step: draws::delete_periods },
    PassDef { name: "delete-blocks", tier: Tier::Delete, guarantee: true, step: delete_blocks::step },
    PassDef { name: "delete-in-contents", tier: Tier::Delete, guarantee: true, step: contents::delete_inside },
    PassDef { name: "shortest-encoding-any", tier: Tier::Shrink, guarantee: false, step: encoding::shortest },
    PassDef { name: "delete-record-runs", tier: Tier::Shrink, guarantee: false, step: records::delete_runs },
    PassDef { name: "keep-ends", tier: Tier::Shrink, guarantee: false, step: ends::step },
    PassDef { name: "replace-with-simpler", tier: Tier::Shrink, guarantee: false, step: clone::step },
    PassDef { name: "delete-leaf-elements", tier: Tier::Shrink, guarantee: false, step: draws::delete_leaf_elements },
    PassDef { name: "shrink-contents", tier: Tier::Shrink, guarantee: false, step: contents::step },
    PassDef { name: "delete-adjusting", tier: Tier::Shrink, guarantee: false, step: adjust::step },
    PassDef { name: "delete-turns", tier: Tier::Shrink, guarantee: false, step: adjust::delete_turns },
    PassDef { name: "delete-inner-turns", tier: Tier::Shrink, guarantee: true, step: adjust::delete_inner_turns },
    PassDef { name: "delete-realigning", tier: Tier::Shrink, guarantee: true, step: realign::step },
    PassDef { name: "lower-with-stop", tier: Tier::Shrink, guarantee: true, step: stops::step },
    PassDef { name: "delete-records", tier: Tier::Shrink, guarantee: false, step: lengths::delete_records },
    PassDef { name: "shrink-payloads", tier: Tier::Shrink, guarantee: false, step: lengths::shrink_payloads },
    PassDef {
        name: "shrink-linked-payloads",
        tier: Tier::Shrink,
        guarantee: false,
        step: lengths::shrink_linked_payloads,
    },
    PassDef { name: "shrink-products", tier: Tier::Shrink, guarantee: false, step: products::step },
    PassDef { name: "delete-chunks", tier: Tier::Shrink, guarantee: false, step: chunks::step },
    PassDef { name: "delete-every-block", tier: Tier::Shrink, guarantee: true, step: delete_blocks::every_block },
    PassDef { name: "delete-values", tier: Tier::Shrink, guarantee: false, step: values::delete_values },
    PassDef { name: "switch-variants", tier: Tier::Shrink, guarantee: true, step: variants::step },
    PassDef { name: "delete-in-values", tier: Tier::Shrink, guarantee: true, step: contents::delete_inside_values },
    PassDef { name: "delete-and-decrement", tier: Tier::Shrink, guarantee: false, step: flips::step },
    PassDef { name: "lower-draws", tier: Tier::Lower, guarantee: true, step: draws::lower },
    PassDef { name: "lower-chars", tier: Tier::Lower, guarantee: false, step: chars::lower },
    PassDef { name: "zero-examples", tier: Tier::Lower, guarantee: false, step: lower::zero_examples },
    PassDef { name: "lower-integers", tier: Tier::Lower, guarantee: false, step: lower::integers },
    PassDef { name: "lower-equal-bytes", tier: Tier::Lower, guarantee: false, step: lower::equal_bytes },
    PassDef { name: "zero-runs", tier: Tier::Lower, guarantee: false, step: lower::zero_runs },
    PassDef { name: "lower-bytes", tier: Tier::Lower, guarantee: true, step: lower::bytes },
    PassDef { name: "loop-references", tier: Tier::Lower, guarantee: false, step: loops::step },
    PassDef { name: "sort-siblings", tier: Tier::Lower, guarantee: false, step: sort::step },
    PassDef { name: "lower-draws-late", tier: Tier::Polish, guarantee: false, step: draws::lower_late },
    PassDef { name: "round-tags", tier: Tier::Polish, guarantee: false, step: draws::round_tags },
    PassDef { name: "odd-bytes-to-one", tier: Tier::Polish, guarantee: false, step: draws::ones },
    PassDef { name: "exact-lengths", tier: Tier::Polish, guarantee: false, step: contents::exact_lengths },
    PassDef { name: "shortest-encoding-last", tier: Tier::Polish, guarantee: false, step: encoding::shortest_last },
];

/// The names of all passes, for `--pass` style selection and tests.
pub fn names() -> Vec<&'static str> {
    PASSES.iter().map(|p| p.name).collect()
}

/// The largest `k` for which `f(k)` holds, assuming `f(0)` does: a linear
/// probe up to 4, then exponential probing and a binary search, so `k`
/// successes cost O(log k) tests (Hypothesis's `find_integer`). `f` must say
/// `false` without testing for out-of-range `k`. Each call also gets the
/// probe that comes next if this one holds (for testing ahead).
pub(crate) fn find_integer(mut f: impl FnMut(usize, Option<usize>) -> Result<bool, Halt>) -> Result<usize, Halt> {
    for k in 1..5 {
        if !f(k, Some(if k < 4 { k + 1 } else { 8 }))? {
            return Ok(k - 1);
        }
    }
    let (mut lo, mut hi) = (4, 8);
    while f(hi, Some(hi * 2))? {
        lo = hi;
        hi *= 2;
    }
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if f(mid, (mid + 1 < hi).then(|| mid + (hi - mid) / 2))? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// [`find_integer`] over candidates: `build(k)` is the move for `k` (`None`:
/// out of range), tried with [`Shrinker::consider`]. When the oracle tests
/// several at once, each probe is tested together with the one that follows
/// it if it succeeds (a growing deletion usually goes on growing).
pub(crate) fn grow(sh: &mut Shrinker<'_>, build: impl Fn(usize) -> Option<Vec<u8>>) -> Result<usize, Halt> {
    find_integer(|k, next| {
        let Some(candidate) = build(k) else { return Ok(false) };
        if let Some(guess) = next.filter(|_| sh.wants_prediction() > 0).and_then(&build) {
            sh.hint(vec![candidate.clone(), guess], false);
        }
        sh.consider(candidate)
    })
}

/// How [`lower_value`] looks below the value it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Search {
    /// Halves the distance between a value that failed and one that did not.
    Halving,
    /// Steps by geometric means ([`midpoint`]): a value needed small is
    /// found in steps of its magnitude (decision 0022).
    Geometric,
    /// Tries every smaller value from the bottom, so the result is the least.
    Exhaustive,
}

/// Lowers an unsigned value toward zero: tries zero, then one less, then
/// searches between them (`search`), so the result `v` has `try_value(0)` and
/// `try_value(v - 1)` both false unless `v` is zero. [`Search::Exhaustive`]
/// tries every smaller value from the bottom instead, so the result is the least.
/// Each call also gets the value most likely tried next (for testing ahead).
pub(crate) fn lower_value(
    current: u64,
    search: Search,
    mut try_value: impl FnMut(u64, Option<u64>) -> Result<bool, Halt>,
) -> Result<u64, Halt> {
    if current == 0 || try_value(0, (current > 1).then(|| current - 1))? {
        return Ok(0);
    }
    if search == Search::Exhaustive {
        for v in 1..current {
            if try_value(v, (v + 1 < current).then_some(v + 1))? {
                return Ok(v);
            }
        }
        return Ok(current);
    }
    if current == 1 || !try_value(current - 1, (current > 2).then(|| (current - 1) / 2))? {
        return Ok(current);
    }
    // Invariant: `lo` was tried and failed; `hi` is interesting.
    let (mut lo, mut hi) = (0, current - 1);
    while lo + 1 < hi {
        let split = |lo: u64, hi: u64| if search == Search::Geometric { midpoint(lo, hi) } else { lo + (hi - lo) / 2 };
        let mid = split(lo, hi);
        if try_value(mid, (lo + 1 < mid).then(|| split(lo, mid)))? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// Below this, [`midpoint`] steps up from the value that failed.
const SMALL: u64 = 64;

/// Where the search between `lo` (failed) and `hi` (interesting) tries next:
/// the geometric mean of `lo + 1` and `hi`, so a value needed small is found
/// in steps of its magnitude, not of the one it had (a 64-bit value that must
/// be at least 5 halves its bit count each step: 2^32, 2^16, ..., then 8, 6,
/// 5, where halving the value takes 64 steps); once `hi` is within twice
/// `lo`, that is the middle. Below [`SMALL`] it first steps up from `lo`
/// by four times (4, 20, 84): a value needed small is often tiny (`sum >= 3`
/// needs 3), and reached from below in a test or two.
fn midpoint(lo: u64, hi: u64) -> u64 {
    // Floating point is close enough: any value strictly between will do.
    let geometric = ((lo + 1) as f64 * hi as f64).sqrt() as u64;
    let small = if lo < SMALL { 4 * lo + 4 } else { u64::MAX };
    geometric.min(small).clamp(lo + 1, hi - 1)
}

/// [`lower_value`] over candidates (from `current`, every value when
/// `exhaustive`): `build(v)` is the input with the value `v`, tried with [`Shrinker::consider`] (`typed`: [`Shrinker::consider_typed`],
/// the search by geometric means).
/// When the oracle tests several at once, each value is tested together with
/// the one most likely tried next.
pub(crate) fn lower_candidate(
    sh: &mut Shrinker<'_>,
    current: u64,
    exhaustive: bool,
    typed: bool,
    build: impl Fn(u64) -> Vec<u8>,
) -> Result<u64, Halt> {
    let search = if exhaustive {
        Search::Exhaustive
    } else if typed {
        Search::Geometric
    } else {
        Search::Halving
    };
    lower_value(current, search, |v, next| {
        let candidate = build(v);
        if let Some(next) = next.filter(|_| sh.wants_prediction() > 0) {
            sh.hint(vec![candidate.clone(), build(next)], typed);
        }
        if typed {
            sh.consider_typed(candidate)
        } else {
            sh.consider(candidate)
        }
    })
}

/// Example indices ordered so that the chooser's reverse order meets the
/// largest first (ties: the later one first).
pub(crate) fn by_size(examples: &[super::Example], keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..examples.len()).filter(|&i| keep(i)).collect();
    order.sort_by_key(|&i| (examples[i].len(), examples[i].front.start));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_integer_finds_the_largest_true_value_in_few_calls() {
        for target in [0usize, 1, 3, 4, 5, 17, 1000, 65_000] {
            let mut calls = 0;
            let found = find_integer(|k, _| {
                calls += 1;
                Ok(k <= target)
            })
            .unwrap();
            assert_eq!(found, target);
            assert!(calls <= 6 + 2 * (target.max(1).ilog2() as usize + 1), "{calls} calls for {target}");
        }
    }

    #[test]
    fn lower_value_binary_searches_to_a_local_minimum() {
        let mut tried = Vec::new();
        let found = lower_value(200, Search::Halving, |v, _| {
            tried.push(v);
            Ok(v >= 37)
        })
        .unwrap();
        assert_eq!(found, 37);
        assert!(tried.len() <= 10, "{tried:?}");
        assert!(tried.contains(&36));
        assert_eq!(lower_value(200, Search::Halving, |v, _| Ok(v == 5 || v == 200)).unwrap(), 200);
        assert_eq!(lower_value(200, Search::Exhaustive, |v, _| Ok(v == 5 || v == 200)).unwrap(), 5);
    }

    /// A 64-bit value that must be at least `bound`: halving the value takes
    /// a test per bit, the geometric search a test per bit of the bit count
    /// and then of the answer (a small answer is reached from below).
    #[test]
    fn the_geometric_search_finds_a_small_bound_in_steps_of_its_magnitude() {
        let (halving, geometric) = (Search::Halving, Search::Geometric);
        for (bound, search, tests_range) in
            [(5, halving, 60..=70), (5, geometric, 4..=10), (3, geometric, 3..=6), (1_000_000, geometric, 20..=40)]
        {
            let mut tests = 0;
            let found = lower_value(u64::MAX / 3, search, |v, _| {
                tests += 1;
                Ok(v >= bound)
            })
            .unwrap();
            assert_eq!(found, bound);
            assert!(tests_range.contains(&tests), "at least {bound}, {search:?}: {tests} tests");
        }
        for (lo, hi) in [(0, 2), (0, u64::MAX), (u64::MAX - 2, u64::MAX), (100, 150), (63, 64 * 64)] {
            assert!((lo + 1..hi).contains(&midpoint(lo, hi)), "{lo}..{hi}");
        }
    }
}

/// Helpers for the per-pass tests: run one pass on a literal input.
#[cfg(test)]
pub(crate) mod one_pass {
    use crate::reduce::{run_pass, Example, ReduceOptions, TestCase, Verdict};

    /// Runs pass `name` alone from `input` and returns the result's bytes.
    pub(crate) fn run(name: &str, input: &[u8], mut oracle: impl FnMut(&[u8]) -> Verdict) -> Vec<u8> {
        let Verdict::Interesting(examples) = oracle(input) else { panic!("the literal input must be interesting") };
        let initial = TestCase::new(input.to_vec(), examples);
        let reduction = run_pass(name, initial, oracle, &ReduceOptions::default()).expect("a known pass");
        reduction.best.bytes
    }

    /// Decodes like `arbitrary` decodes a `Vec<u8>` of derived one-byte
    /// elements: a flag byte before each element, stopping at a zero flag
    /// or at the end. Returns the elements and the examples (the whole list
    /// at depth 0, each element at depth 1).
    pub(crate) fn flagged_list(input: &[u8]) -> (Vec<u8>, Vec<Example>) {
        let mut elements = Vec::new();
        let mut examples = vec![Example::new(0..0, input.len()..input.len(), "List", 0)];
        let mut pos = 0;
        while pos < input.len() && input[pos] & 1 == 1 {
            pos += 1;
            let value = input.get(pos).copied().unwrap_or(0);
            let end = (pos + 1).min(input.len());
            examples.push(Example::new(pos..end, input.len()..input.len(), "Elem", 1));
            elements.push(value);
            pos = end;
        }
        pos = (pos + 1).min(input.len());
        examples[0].front = 0..pos;
        (elements, examples)
    }

    /// Decodes like `arbitrary` decodes a top-level `Vec<u64>`: a flag byte
    /// (low bit) before each element, then 8 little-endian bytes, zero-filled
    /// past the end; every read recorded as a draw.
    pub(crate) fn u64_list(input: &[u8]) -> (Vec<u64>, Vec<Example>) {
        let (mut values, mut draws, mut at) = (Vec::new(), Vec::new(), 0);
        loop {
            let flag_end = (at + 1).min(input.len());
            draws.push(Example::new(at..flag_end, input.len()..input.len(), "draw:le:1", 1));
            if input.get(at).is_none_or(|b| b & 1 == 0) {
                return (values, draws);
            }
            let end = (flag_end + 8).min(input.len());
            draws.push(Example::new(flag_end..end, input.len()..input.len(), "draw:le:8", 1));
            let mut le = [0u8; 8];
            le[..end - flag_end].copy_from_slice(&input[flag_end..end]);
            values.push(u64::from_le_bytes(le));
            at = end;
        }
    }

    /// An oracle over [`u64_list`]'s decoding (values, with the draws it
    /// records) that counts its calls in `tests`.
    pub(crate) fn u64_oracle<'a>(
        tests: &'a mut usize,
        pred: impl Fn(&[u64]) -> bool + 'a,
    ) -> impl FnMut(&[u8]) -> Verdict + 'a {
        move |input| {
            *tests += 1;
            let (values, draws) = u64_list(input);
            if pred(&values) {
                Verdict::Interesting(draws)
            } else {
                Verdict::Boring
            }
        }
    }

    /// An oracle over [`flagged_list`]'s decoding.
    pub(crate) fn list_oracle(pred: impl Fn(&[u8]) -> bool) -> impl FnMut(&[u8]) -> Verdict {
        move |input| {
            let (elements, examples) = flagged_list(input);
            if pred(&elements) {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        }
    }
}
