//! Draw-level passes: each number `arbitrary` read (integer, range, length) minimized by value through its own encoding, not byte by byte; runs of elements deleted at draw boundaries.

use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::{delete_range, replace_ranges, TestCase};
use super::{grow, lower_candidate};

/// Chooses a draw read from the front and deletes the bytes from it up to
/// the `k`-th next draw of the same kind, for the largest `k` that stays
/// interesting: in a collection of values with no examples of their own
/// (`Vec<u64>`), the same kind comes back with the next element's
/// continuation flag, so this deletes whole elements, k of them in O(log k)
/// tests, where byte-level deletions would cut an element in two.
///
/// Only where no derived value was recorded at all: derived elements are
/// examples, which `delete-examples` deletes already (decision 0022).
pub(crate) fn delete_periods(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let structured = tc.derived();
    let front = |d: &Draw| !d.span.is_empty() && d.span.end <= tc.len();
    // The chooser goes from its last index down: the first draws come first,
    // so a run of elements is deleted from its start, k at a time.
    let n = tc.draws.len();
    let c = chooser.choose(if structured { 0 } else { n }, |c| {
        front(&tc.draws[n - 1 - c]) && next_same(&tc.draws, n - 1 - c, 1).is_some()
    })?;
    let i = n - 1 - c;
    let start = tc.draws[i].span.start;
    let deleted = grow(sh, |k| {
        let end = next_same(&tc.draws, i, k).filter(|&end| end > start)?;
        Some(delete_range(&tc.bytes, start..end))
    })?;
    if deleted > 0 {
        chooser.resume_at(vec![c]);
    }
    Ok(())
}

/// Chooses a "one more element" flag (a one-byte draw reading `true`) whose
/// element is made of draws alone (a `String`, a number: no derived value
/// starts before the next one-byte draw) and deletes the flag with every
/// draw of its element, front and back (a string's length is at the back),
/// then as many following elements as stay interesting. `delete-examples`
/// deletes derived elements; these have no example of their own, and cutting
/// the front alone leaves their lengths behind (`tags: ["", ""]`).
pub(crate) fn delete_leaf_elements(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let flag = |i: usize| tc.draws[i].reads_true(&tc.bytes);
    let next_flag = |i: usize| (i + 1..tc.draws.len()).find(|&j| tc.draws[j].kind == DrawKind::Int { width: 1 });
    let leaf = |i: usize, end: usize| {
        let (from, to) = (tc.draws[i].span.start, tc.draws[end].span.start);
        !tc.examples.iter().any(|e| !e.front.is_empty() && e.front.start > from && e.front.start < to)
    };
    let n = tc.draws.len();
    // From the first flag on (the chooser counts down), so a run goes forward.
    let c = chooser.choose(n, |c| flag(n - 1 - c) && next_flag(n - 1 - c).is_some_and(|end| leaf(n - 1 - c, end)))?;
    let first = n - 1 - c;
    let deleted = grow(sh, |k| {
        // The k elements: from `first` up to the k-th flag after it, each one a flag and leaves.
        let mut at = first;
        for _ in 0..k {
            let end = next_flag(at).filter(|&end| flag(at) && leaf(at, end))?;
            at = end;
        }
        let edits: Vec<(std::ops::Range<usize>, &[u8])> =
            tc.draws[first..at].iter().map(|d| (d.span.clone(), &[][..])).collect();
        Some(replace_ranges(&tc.bytes, &edits))
    })?;
    if deleted > 0 {
        chooser.resume_at(vec![c]);
    }
    Ok(())
}

/// Where the `k`-th draw after draw `i` of the same kind starts (the end of
/// the input when the data ran out before it: an empty span at the end).
pub(super) fn next_same(draws: &[Draw], i: usize, k: usize) -> Option<usize> {
    let kind = draws[i].kind;
    let start = draws[i].span.start;
    draws[i + 1..].iter().filter(|d| d.kind == kind && d.span.start > start).nth(k - 1).map(|d| d.span.start)
}

/// Chooses a numeric draw whose value is not zero and lowers it: zero, one,
/// then one less and a search in steps of magnitude (a geometric mean, see
/// `midpoint`), or when one less failed, half; then every other draw of its
/// kind above the new value goes to it in one test ([`spread`]); the least
/// value no other draw of its kind holds is the third guess ([`least_free`]).
/// One is tried early because the simplest `true` (a continuation flag,
/// `bool`) is one, which a search from an odd byte such as `0xe5` never
/// meets. First of the lowering passes (the byte passes zeroed a `u64` a byte
/// a test), and only where no derived value was recorded: on derived values
/// it cost tests and trapped results, so there [`lower_late`] polishes
/// instead (decision 0022).
pub(crate) fn lower(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let derived = sh.best().derived();
    if let (draw, value, true) = lower_draw(sh, chooser, |_, _| !derived, true)? {
        spread(sh, &draw, value)?;
    }
    Ok(())
}

/// [`lower`] as polish, once the reduction is done, where derived values were
/// recorded: byte lowering leaves a `u16` that must exceed 999 at 1024
/// (`00 04`: the high byte cannot go lower alone); by value it is 1000. Not
/// a `u32` of 2^24 or more, how an enum's variant tag reads once its bytes
/// are lowered: its smallest value reads no better (decision 0017).
pub(crate) fn lower_late(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let derived = sh.best().derived();
    let wanted = |draw: &Draw, value| derived && !(draw.kind == DrawKind::Int { width: 4 } && value >= 1 << 24);
    let (draw, value, lowered) = lower_draw(sh, chooser, wanted, false)?;
    if !lowered {
        clear_a_bit(sh, &draw, value)?;
    }
    Ok(())
}

/// A value of two or three bits set that no lowering by value took further
/// (zero and one less failed: 20,480 is `1 << 14 | 1 << 12`) with one of its
/// bits cleared, the highest first: a set of option flags of which the bug
/// needs one (20,480 to 4,096). Whether one went.
fn clear_a_bit(sh: &mut Shrinker<'_>, draw: &Draw, value: u64) -> Result<bool, Halt> {
    if !(2..=3).contains(&value.count_ones()) {
        return Ok(false);
    }
    // Nothing was lowered: the draw is where it was in the best.
    let tc = sh.shared();
    for bit in (0..64).rev().filter(|b| value >> b & 1 == 1) {
        // A value below the draw's own fits its bytes (`Draw::encode` writes them all).
        let encoded = draw.encode(u128::from(value & !(1 << bit)));
        if sh.consider_typed(replace_ranges(&tc.bytes, &[(draw.span.clone(), &encoded)]))? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Lowers a numeric draw that `wanted` accepts (with its value), with
/// `guess_free` trying [`least_free`] after zero and one; returns the draw,
/// its value now and whether it went lower.
fn lower_draw(
    sh: &mut Shrinker<'_>,
    chooser: &mut Chooser<'_>,
    wanted: impl Fn(&Draw, u64) -> bool,
    guess_free: bool,
) -> Result<(Draw, u64, bool), Halt> {
    let tc = sh.shared();
    let value = |i: usize| tc.draws[i].value(&tc.bytes).and_then(|v| u64::try_from(v).ok());
    let i = chooser.choose(tc.draws.len(), |i| value(i).is_some_and(|v| v != 0 && wanted(&tc.draws[i], v)))?;
    let (draw, current) = (&tc.draws[i], value(i).expect("chosen for its value"));
    // The input's last integer needs no zero bytes at its end: a short read zero-fills them.
    let last = draw.ends_input_zero_filled(tc.len());
    let build = |v: u64| {
        let mut encoded = draw.encode(u128::from(v));
        while last && encoded.last() == Some(&0) {
            encoded.pop();
        }
        replace_ranges(&tc.bytes, &[(draw.span.clone(), &encoded)])
    };
    let free = if guess_free { least_free(&tc, draw) } else { 0 };
    // A range read above its range's size: first the least value that
    // reads the same integer (decision 0106), the same value in fewer bits.
    let same = draw.result(&tc.bytes).and_then(|r| draw.value_of(r)).map_or(current, |v| v as u64);
    let lowered = if same < current && sh.consider_typed(build(same))? {
        same
    } else if current > 1 && sh.consider_typed(build(0))? {
        0
    } else if current > 1 && sh.consider_typed(build(1))? {
        1
    } else if (2..current).contains(&free) && sh.consider_typed(build(free))? {
        free
    } else {
        lower_candidate(sh, current, sh.options().exhaustive_lowering, true, build)?
    };
    // Zero, one and one less failed: half too, so none of the four values a
    // person would try first (0, 1, v/2, v-1) still crashes where the bug is
    // not monotone in the value (decision 0023).
    let proving = lowered == current && guess_free && current >= 4;
    if proving && sh.consider_typed(build(current / 2))? {
        return Ok((draw.clone(), current / 2, true));
    }
    Ok((draw.clone(), lowered, lowered < current))
}

/// The least value no other draw of `draw`'s kind holds (one read past the
/// end holds zero): where
/// values must differ (ten distinct elements), the one a search toward zero
/// would end at, guessed in one test.
fn least_free(tc: &TestCase, draw: &Draw) -> u64 {
    let mut held: Vec<u128> = tc
        .draws
        .iter()
        .filter(|d| d.kind == draw.kind && d.span != draw.span)
        .filter_map(|d| d.value(&tc.bytes))
        .collect();
    held.sort_unstable();
    held.dedup();
    held.iter().zip(0..).find(|&(&v, i)| v != i).map_or(held.len(), |(_, i)| i as usize) as u64
}

/// After a draw went down to `value`: every other draw of its kind and width
/// above it goes to `value` too, in one test. Values that must only be large
/// enough (at least 10 elements of 5 or more) then cost one search, not one
/// each; where they must differ, one test is lost.
fn spread(sh: &mut Shrinker<'_>, lowered: &Draw, value: u64) -> Result<(), Halt> {
    let tc = sh.shared();
    let encoded = lowered.encode(u128::from(value));
    let mut edits: Vec<(Range<usize>, &[u8])> = tc
        .draws
        .iter()
        .filter(|d| d.kind == lowered.kind && d.span.len() == lowered.span.len() && d.span != lowered.span)
        .filter(|d| d.value(&tc.bytes).is_some_and(|v| v > u128::from(value)))
        .map(|d| (d.span.clone(), &encoded[..]))
        .collect();
    if !edits.is_empty() {
        edits.sort_by_key(|(span, _)| span.start);
        sh.consider_typed(replace_ranges(&tc.bytes, &edits))?;
    }
    Ok(())
}

/// Chooses a one-byte integer draw whose value is odd and above one, the
/// last first, and makes it one. `arbitrary` reads a `bool` (and with it
/// every "one more element" flag of a collection) as the low bit of a byte,
/// so an odd byte is `true` and one is its simplest spelling, which lowering
/// by bytes never reaches (one less is even: `false`). Where the byte is a
/// `u8`, one is smaller too and the oracle decides.
pub(crate) fn ones(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let odd: Vec<usize> = (0..tc.draws.len())
        .filter(|&i| tc.draws[i].reads_true(&tc.bytes) && tc.draws[i].value(&tc.bytes) != Some(1))
        .collect();
    let draw = &tc.draws[odd[chooser.choose(odd.len(), |_| true)?]];
    sh.consider(replace_ranges(&tc.bytes, &[(draw.span.clone(), &[1])]))?;
    Ok(())
}

/// Chooses a four-byte integer read as 2^24 or more with a low byte that is
/// not zero, the last first, and spells it with its high byte one more and
/// zeros below (`00 00 56 55` -> `00 00 00 56`). A derived enum's variant
/// tag reads `(tag * variants) >> 32`, so each variant is a range of tags:
/// lowering bytes stops where every single lowered byte reads another
/// variant, though the next multiple of 2^24 may read the same one and is
/// the smaller spelling.
pub(crate) fn round_tags(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let rounded = |d: &Draw| {
        let value = d.value(&tc.bytes).filter(|_| d.kind == DrawKind::Int { width: 4 } && d.span.len() == 4)?;
        let high = value >> 24;
        (high > 0 && high < 0xff && value & 0xff_ffff != 0).then(|| d.encode((high + 1) << 24))
    };
    let tags: Vec<usize> = (0..tc.draws.len()).filter(|&i| rounded(&tc.draws[i]).is_some()).collect();
    let draw = &tc.draws[tags[chooser.choose(tags.len(), |_| true)?]];
    let spelled = rounded(draw).unwrap_or_default();
    sh.consider(replace_ranges(&tc.bytes, &[(draw.span.clone(), &spelled)]))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{run, u64_list, u64_oracle};
    use crate::reduce::{Example, Verdict};

    #[test]
    fn deletes_whole_elements_of_a_list_at_draw_boundaries() {
        let mut tests = 0;
        let input: Vec<u8> = (1..=40u8).flat_map(|v| [1, v, 0, 0, 0, 0, 0, 0, 0]).collect();
        let result = run("delete-draw-periods", &input, u64_oracle(&mut tests, |values| values.len() >= 2));
        assert_eq!(result, [[1, 39, 0, 0, 0, 0, 0, 0, 0], [1, 40, 0, 0, 0, 0, 0, 0, 0]].concat());
        assert!(tests <= 20, "{tests} tests");
    }

    #[test]
    fn a_variant_tag_is_spelled_with_zeros_below_its_high_byte() {
        // The second of three variants: a tag from 0x5555_5556 on.
        let oracle = |input: &[u8]| {
            let tag = u32::from_le_bytes(input.try_into().unwrap_or([0; 4]));
            if input.len() == 4 && (u64::from(tag) * 3) >> 32 == 1 {
                Verdict::Interesting(vec![Example::new(0..4, 4..4, "draw:le:4", 1)])
            } else {
                Verdict::Boring
            }
        };
        // Byte lowering stops here: 55 in either of the two high bytes reads the first variant.
        assert_eq!(run("round-tags", &[0, 0, 0x56, 0x55], oracle), [0, 0, 0, 0x56]);
        assert_eq!(run("round-tags", &[0, 0, 0, 0x56], oracle), [0, 0, 0, 0x56], "nothing to round");
    }

    #[test]
    fn late_lowers_a_derived_values_integer_by_value_but_not_a_variant_tag() {
        // A derived value: a u32 variant tag, then a u16 that must exceed 999.
        let oracle = |input: &[u8]| {
            if input.len() != 6 {
                return Verdict::Boring;
            }
            let tag = u32::from_le_bytes([input[0], input[1], input[2], input[3]]);
            let quantity = u16::from_le_bytes([input[4], input[5]]);
            if (u64::from(tag) * 6) >> 32 == 5 && quantity > 999 {
                let whole = Example::new(0..6, 6..6, "Rec", 0);
                let tag = Example::new(0..4, 6..6, "draw:le:4", 1);
                Verdict::Interesting(vec![whole, tag, Example::new(4..6, 6..6, "draw:le:2", 1)])
            } else {
                Verdict::Boring
            }
        };
        // 1024 is where byte lowering stops: `00 03` (768) fails.
        let result = run("lower-draws-late", &[0, 0, 0, 0xd6, 0x00, 0x04], oracle);
        assert_eq!(result, [0, 0, 0, 0xd6, 0xe8, 0x03], "the tag as it was, the quantity 1000");
    }

    #[test]
    fn late_clears_an_option_bit_the_bug_does_not_need() {
        // A derived value's `u32` of option bits; the bug needs bit 12 (4096) alone.
        let oracle = |input: &[u8]| {
            let options = input.try_into().map(u32::from_le_bytes).unwrap_or(0);
            if input.len() == 4 && options & 1 << 12 != 0 {
                let whole = Example::new(0..4, 4..4, "Doc", 0);
                Verdict::Interesting(vec![whole, Example::new(0..4, 4..4, "draw:le:4", 1)])
            } else {
                Verdict::Boring
            }
        };
        // 20,480 (bits 14 and 12): zero and one less fail, so by value it stays.
        assert_eq!(run("lower-draws-late", &[0x00, 0x50, 0, 0], oracle), [0x00, 0x10, 0, 0]);
    }

    #[test]
    fn lowers_a_little_endian_integer_by_value_and_a_flag_to_one() {
        let mut tests = 0;
        let oracle = u64_oracle(&mut tests, |values| values.iter().map(|&v| u128::from(v)).sum::<u128>() >= 500);
        // [512] behind the flag 0xe5: bytes order would stop at 512 (`00 02`); by value,
        // 500, without the zero bytes a short read fills in at the end of the input.
        let result = run("lower-draws", &[0xe5, 0x00, 0x02, 0, 0, 0, 0, 0, 0], oracle);
        assert_eq!(result, [0x01, 0xf4, 0x01]);
    }

    /// Ten large values that must each stay at least 5: the first goes to 5
    /// by a search in steps of magnitude, the other nine follow in one test
    /// (then each value and flag fails zero and one less: the proof).
    #[test]
    fn lowers_values_that_must_be_large_enough_together() {
        let mut tests = 0;
        let oracle = u64_oracle(&mut tests, |values| values.iter().filter(|&&v| v >= 5).count() >= 10);
        let input: Vec<u8> =
            (0..10u64).flat_map(|i| [&[1][..], &(u64::MAX / 3 + i * 7919).to_le_bytes()].concat()).collect();
        let result = run("lower-draws", &input, oracle);
        let mut five: Vec<u8> = (0..10).flat_map(|_| [1, 5, 0, 0, 0, 0, 0, 0, 0]).collect();
        five.truncate(five.len() - 7);
        assert_eq!(result, five, "the last value's zero bytes gone");
        assert!(tests <= 60, "{tests} tests: one search, not ten");
    }

    /// Ten large values that must stay distinct: each goes to the least
    /// value no other holds in one guess, not in a search that meets the
    /// values already taken.
    #[test]
    fn a_value_whose_neighbours_fail_but_whose_half_crashes_is_halved() {
        let mut tests = 0;
        // Crashes on multiples of 30 (a bug that is not monotone in the value).
        let oracle = u64_oracle(&mut tests, |values| values.len() == 1 && values[0] % 30 == 0 && values[0] > 0);
        let result = run("lower-draws", &[1, 120, 0, 0, 0, 0, 0, 0, 0], oracle);
        let (values, _) = u64_list(&result);
        assert_eq!(values, [30], "120, 60 (its half), 30: no neighbour crashes there");
    }

    #[test]
    fn lowers_values_that_must_differ_to_the_least_free_one() {
        let mut tests = 0;
        let distinct = |values: &[u64]| values.iter().collect::<std::collections::BTreeSet<_>>().len();
        let oracle = u64_oracle(&mut tests, |values| distinct(values) >= 10);
        let input: Vec<u8> =
            (0..10u64).flat_map(|i| [&[1][..], &(u64::MAX / 3 + i * 7919).to_le_bytes()].concat()).collect();
        let (mut values, _) = u64_list(&run("lower-draws", &input, oracle));
        values.sort_unstable();
        assert_eq!(values, (0..10).collect::<Vec<u64>>());
        assert!(tests <= 100, "{tests} tests: a search for each took 137");
    }
}
