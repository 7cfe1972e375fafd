//! Example deletion: remove a value (its front and back spans together), then as many of its following siblings as possible.

use std::ops::Range;

use super::super::choice::Chooser;
use super::super::respell;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::TestCase;
use super::grow;

/// Chooses an example, most complex first, and a variant: with every sibling
/// before it; with the one byte just before it that no sibling owns (where
/// `arbitrary` keeps a collection's "one more element" flag); or exactly its
/// own spans. On success of the last two, deletes the run of preceding
/// siblings adaptively (the sweep goes from the end, so the run grows toward
/// what it has not visited yet).
///
/// The first variant exists because `arbitrary` reads a length as a value
/// modulo what is left of the input: deleting an element changes how every
/// element read *before* it decodes, but leaves those after it alone, so a
/// prefix of a collection can go when no other cut can.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let order = by_size_class(&tc);
    let choice = chooser.choose(order.len(), |_| true)?;
    let example = order[choice];
    let siblings = tc.siblings(example);
    let last = tc.sibling_position(example);
    // Reverse order meets the prefix variant first, then the flag byte.
    let variant = chooser.choose(3, |v| match v {
        2 => last > 0,
        1 => !tc.gap_before(example).is_empty(),
        _ => true,
    })?;
    let deleted = if variant == 2 {
        let ranges: Vec<Range<usize>> = siblings[..=last].iter().flat_map(|&s| spans(&tc, s, true)).collect();
        if sh.consider(respell::delete(&tc, &ranges))? {
            last + 1
        } else {
            0
        }
    } else {
        grow(sh, |k| {
            let run = siblings.get(last.checked_sub(k.checked_sub(1)?)?..=last)?;
            let ranges: Vec<Range<usize>> = run.iter().flat_map(|&s| spans(&tc, s, variant == 1)).collect();
            Some(respell::delete(&tc, &ranges))
        })?
    };
    if deleted > 0 {
        // Keep the moving index: continue with the example that came before
        // the deleted run in this size class, wherever it now sits.
        let class = size_class(tc.examples[example].len());
        let old_start = order.iter().position(|&i| size_class(tc.examples[i].len()) == class).unwrap_or(0);
        let new_order = by_size_class(sh.best());
        let new_start = new_order.iter().position(|&i| size_class(sh.best().examples[i].len()) >= class);
        let rank = choice - old_start;
        let resume = match (new_start, rank.checked_sub(deleted)) {
            (Some(start), Some(rank)) => start + rank,
            _ => usize::MAX,
        };
        chooser.resume_at(vec![resume]);
    }
    Ok(())
}

/// Non-empty examples ordered so that the chooser's reverse order meets the
/// largest size class first (sizes within a factor of two are one class), and
/// within a class the last in the input first.
fn by_size_class(tc: &TestCase) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tc.examples.len()).filter(|&i| !tc.examples[i].is_empty()).collect();
    order.sort_by_key(|&i| (size_class(tc.examples[i].len()), tc.examples[i].front.start, i));
    order
}

fn size_class(len: usize) -> u32 {
    len.max(1).ilog2()
}

/// The ranges deleting example `i` removes.
pub(super) fn spans(tc: &TestCase, i: usize, with_flag: bool) -> Vec<Range<usize>> {
    let e = &tc.examples[i];
    let mut ranges = vec![e.front.clone(), e.back.clone()];
    let gap = tc.gap_before(i);
    if with_flag && !gap.is_empty() {
        ranges.push(gap.end - 1..gap.end);
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{list_oracle, run};

    #[test]
    fn deletes_elements_with_their_flag_bytes() {
        let has_b = list_oracle(|elements| elements.contains(&b'B'));
        // The closing zero flag goes too: a list also ends where the data does.
        assert_eq!(run("delete-examples", &[1, b'A', 1, b'B', 1, b'C', 1, b'D', 0], has_b), [1, b'B']);
    }

    #[test]
    fn deletes_runs_of_siblings_together() {
        let mut input = Vec::new();
        for i in 0..40u8 {
            input.extend([1, i]);
        }
        input.extend([1, b'K', 0]);
        let mut tests = 0;
        let mut last_is_k = list_oracle(|elements| elements.last() == Some(&b'K'));
        let counted = |input: &[u8]| {
            tests += 1;
            last_is_k(input)
        };
        assert_eq!(run("delete-examples", &input, counted), [1, b'K', 0]);
        assert!(tests < 40, "{tests} tests to delete a run of 40 elements");
    }

    #[test]
    fn deletes_back_spans_together_with_front_spans() {
        // Two values, each with one byte at the front and its length byte
        // at the back: [a1 b1 ... b2 a2]. Deleting value a must cut both.
        let oracle = |input: &[u8]| {
            use crate::reduce::{Example, Verdict};
            let n = input.len();
            if n == 4 && input[1] == b'B' && input[2] == 2 {
                Verdict::Interesting(vec![Example::new(0..1, 3..4, "V", 0), Example::new(1..2, 2..3, "V", 0)])
            } else if n == 2 && input == [b'B', 2] {
                Verdict::Interesting(vec![Example::new(0..1, 1..2, "V", 0)])
            } else {
                Verdict::Boring
            }
        };
        assert_eq!(run("delete-examples", &[b'A', b'B', 2, 1], oracle), [b'B', 2]);
    }
}
