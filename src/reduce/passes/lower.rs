//! Lowering: zeroing examples, and lowering bytes, equal bytes together and examples read as integers, by binary search toward zero.

use std::collections::BTreeMap;
use std::ops::Range;

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::replace_ranges;
#[cfg(doc)]
use super::super::testcase::TestCase;
use super::{by_size, grow, lower_candidate};

/// Chooses an example that is not all zeros, most complex first, and zeroes
/// its front and back spans in one test.
pub(crate) fn zero_examples(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let nonzero = |r: &Range<usize>| tc.bytes[r.clone()].iter().any(|&b| b != 0);
    let order = by_size(&tc.examples, |i| nonzero(&tc.examples[i].front) || nonzero(&tc.examples[i].back));
    let e = &tc.examples[order[chooser.choose(order.len(), |_| true)?]];
    let mut candidate = tc.bytes.clone();
    for r in [&e.front, &e.back] {
        candidate[r.clone()].fill(0);
    }
    sh.consider(candidate)?;
    Ok(())
}

/// Chooses a nonzero byte and zeroes the longest run of bytes ending there
/// that stays interesting (payloads, padding, text nobody checks): k bytes in
/// O(log k) tests. A run of one is the same candidate as `bytes`' first try,
/// so where nothing can be zeroed this costs nothing extra.
///
/// Not on an input that draws alone describe (a `Vec<u64>`): `lower-draws`
/// tries zero for each value first, and runs across values cost more there
/// than they saved (decision 0012).
pub(crate) fn zero_runs(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if sh.best().draws_only() {
        return Err(Halt::Dead);
    }
    let bytes = sh.best().bytes.clone();
    let i = chooser.choose(bytes.len(), |i| bytes[i] != 0)?;
    let zeroed = grow(sh, |k| {
        let mut candidate = bytes.clone();
        candidate.get_mut(i.checked_sub(k.checked_sub(1)?)?..=i)?.fill(0);
        Some(candidate)
    })?;
    if zeroed > 0 {
        chooser.resume_at(vec![(i + 1 - zeroed).checked_sub(1).unwrap_or(usize::MAX)]);
    }
    Ok(())
}

/// Chooses a nonzero byte and lowers it (zero, one less, binary search; every
/// value with `exhaustive_lowering`). Not the bytes of a number on an input
/// that draws alone describe ([`TestCase::lowered_by_value`]): `lower-draws`
/// proves those by value.
pub(crate) fn bytes(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let bytes = sh.best().bytes.clone();
    let by_value = sh.best().lowered_by_value();
    let i = chooser.choose(bytes.len(), |i| bytes[i] != 0 && !by_value[i])?;
    let exhaustive = sh.options().exhaustive_lowering;
    lower_candidate(sh, u64::from(bytes[i]), exhaustive, false, |v| {
        let mut candidate = bytes.clone();
        candidate[i] = v as u8;
        candidate
    })?;
    Ok(())
}

/// Chooses a value held by several bytes and lowers all of them together
/// (inputs often repeat a value that must stay equal: a length and its check,
/// a key and its lookup). Not the bytes of numbers `lower-draws` lowers by
/// value, which lowers equal values together itself (`spread`).
pub(crate) fn equal_bytes(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let bytes = sh.best().bytes.clone();
    let by_value = sh.best().lowered_by_value();
    let mut positions: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
    for (i, &b) in bytes.iter().enumerate().filter(|&(i, &b)| b != 0 && !by_value[i]) {
        positions.entry(b).or_default().push(i);
    }
    let groups: Vec<(u8, Vec<usize>)> = positions.into_iter().filter(|(_, p)| p.len() > 1).collect();
    let (value, group) = &groups[chooser.choose(groups.len(), |_| true)?];
    lower_candidate(sh, u64::from(*value), false, false, |v| {
        let mut candidate = bytes.clone();
        for &i in group {
            candidate[i] = v as u8;
        }
        candidate
    })?;
    Ok(())
}

/// Chooses an example's front or back span of 2 to 8 bytes, reads it as a
/// big-endian integer (so a smaller value is a lexicographically smaller
/// input) and lowers it by binary search.
///
/// Not on inputs with draws: there the numbers `arbitrary` read are
/// little-endian, so the search refined a variant tag's low bytes bit by
/// bit, and the other lowering passes reach the typed samples' minimums
/// without it (decision 0012).
pub(crate) fn integers(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    if !tc.draws.is_empty() {
        return Err(Halt::Dead);
    }
    let spans: Vec<Range<usize>> = tc
        .examples
        .iter()
        .flat_map(|e| [e.front.clone(), e.back.clone()])
        .filter(|r| (2..=8).contains(&r.len()) && tc.bytes[r.clone()].iter().any(|&b| b != 0))
        .collect();
    let spans = dedup_ranges(spans);
    let span = spans[chooser.choose(spans.len(), |_| true)?].clone();
    let width = span.len();
    let current = tc.bytes[span.clone()].iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
    lower_candidate(sh, current, false, false, |v| {
        let encoded = v.to_be_bytes();
        replace_ranges(&tc.bytes, &[(span.clone(), &encoded[8 - width..])])
    })
    .map(drop)
}

fn dedup_ranges(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    ranges.dedup();
    ranges
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{run, u64_list, u64_oracle};
    use crate::reduce::{Example, Verdict};

    #[test]
    fn lowers_each_byte_to_the_least_interesting_value() {
        let oracle = |input: &[u8]| Verdict::from_bool(input.len() == 2 && input[0] >= 37 && input[1] >= 2);
        assert_eq!(run("lower-bytes", &[200, 255], oracle), [37, 2]);
    }

    #[test]
    fn leaves_the_numbers_of_a_list_of_draws_to_lower_draws() {
        // A `Vec<u64>` holding 0x1_0000_0005: its high byte zeroed is 5,
        // which crashes too, but lowering bytes leaves numbers to
        // `lower-draws` (by value) and the flag is not a value to lower here.
        let input = [&[1][..], &0x1_0000_0005u64.to_le_bytes()].concat();
        let mut tests = 0;
        let result = run("lower-bytes", &input, u64_oracle(&mut tests, |values| values.iter().any(|&v| v >= 5)));
        assert_eq!(result, input);
        assert_eq!(tests, 1, "the initial run only");
        let mut tests = 0;
        let result = run("lower-draws", &input, u64_oracle(&mut tests, |values| values.iter().any(|&v| v >= 5)));
        assert_eq!(u64_list(&result).0, [5]);
    }

    #[test]
    fn leaves_the_integers_of_an_input_with_draws_to_the_passes_that_read_them() {
        // A struct holding one `u32` (a derived example around its draw),
        // which must stay at 2^24 or more: read big-endian, the search
        // would lower its low bytes one bit at a time.
        let oracle = |with_draws: bool| {
            move |input: &[u8]| {
                let value = u32::from_le_bytes(input.try_into().unwrap_or([0; 4]));
                let mut examples = vec![Example::new(0..4, 4..4, "Point", 0)];
                if with_draws {
                    examples.push(Example::new(0..4, 4..4, "draw:le:4", 1));
                }
                if input.len() == 4 && value >= 1 << 24 {
                    Verdict::Interesting(examples)
                } else {
                    Verdict::Boring
                }
            }
        };
        let input = 0x7f12_3456u32.to_le_bytes();
        assert_eq!(run("lower-integers", &input, oracle(true)), input);
        assert_ne!(run("lower-integers", &input, oracle(false)), input);
    }

    #[test]
    fn zeroes_runs_of_bytes_in_few_tests() {
        let mut tests = 0;
        let oracle = |input: &[u8]| {
            tests += 1;
            Verdict::from_bool(input[0] == b'H' && input[199] == b'T')
        };
        let mut input = vec![b'x'; 200];
        input[0] = b'H';
        input[199] = b'T';
        let mut expected = vec![0; 200];
        expected[0] = b'H';
        expected[199] = b'T';
        assert_eq!(run("zero-runs", &input, oracle), expected);
        assert!(tests < 40, "{tests} tests");
    }

    #[test]
    fn lowers_equal_bytes_together() {
        let oracle = |input: &[u8]| Verdict::from_bool(input[0] == input[2] && input[0] >= 10);
        assert_eq!(run("lower-equal-bytes", &[90, 7, 90], oracle), [10, 7, 10]);
    }

    #[test]
    fn lowers_an_example_as_a_big_endian_integer() {
        let oracle = |input: &[u8]| {
            let value = u16::from_be_bytes([input[0], input[1]]);
            if value >= 300 {
                Verdict::Interesting(vec![Example::new(0..2, 2..2, "u16", 0)])
            } else {
                Verdict::Boring
            }
        };
        assert_eq!(run("lower-integers", &[0xff, 0xff], oracle), [1, 44]);
    }

    #[test]
    fn zeroes_whole_examples() {
        let oracle = |input: &[u8]| {
            let examples = vec![Example::new(0..2, 5..6, "A", 0), Example::new(2..4, 4..5, "B", 0)];
            if input[2] != 0 {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        assert_eq!(run("zero-examples", &[1, 2, 3, 4, 5, 6], oracle), [0, 0, 3, 4, 5, 0]);
    }
}
