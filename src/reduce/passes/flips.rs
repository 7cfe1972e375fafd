//! `delete-and-decrement`: on a short input that draws alone describe, an element deleted and another value made one less in the same candidate, where neither move alone stays interesting.
//!
//! Hypothesis's "example deletion with block lowering": a list stuck where
//! no single element can go, and no value be lowered, can still lose an
//! element when a value before or after it changes at the same time (a
//! count kept by the values, or a condition with no structure at all, such
//! as the lists bench's hash: every such candidate is one more shorter list
//! tried). Only on short inputs ([`MOST_DRAWS`] draws): the candidates are
//! the pairs of an element and a value (decision 0095).

use super::super::choice::Chooser;
use super::super::draws::Draw;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::replace_ranges;
use super::draws::next_same;

/// The most draws an input may have for the pass to run (eight `u64`
/// elements and their flags, and the last flag).
const MOST_DRAWS: usize = 17;

/// Chooses an element (the first first: a draw read from the front with a
/// later draw of its kind, up to which it is deleted) and a value outside
/// it above zero (not a flag that reads true: one less ends the list,
/// `keep-prefix`'s move), and tries the element deleted with the value one less.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let draws = &tc.draws;
    let short = tc.draws_only() && draws.len() <= MOST_DRAWS;
    let front = |d: &Draw| !d.span.is_empty() && d.span.end <= tc.len();
    let starts: Vec<usize> =
        (0..draws.len()).filter(|&i| short && front(&draws[i]) && next_same(draws, i, 1).is_some()).collect();
    let e = chooser.choose(starts.len(), |_| true)?;
    let i = starts[starts.len() - 1 - e];
    let element = draws[i].span.start..next_same(draws, i, 1).expect("an element has an end");
    let lowerable = |d: &Draw| {
        let outside = d.span.end <= element.start || d.span.start >= element.end;
        outside && front(d) && !d.reads_true(&tc.bytes) && d.value(&tc.bytes).is_some_and(|v| v > 0)
    };
    let values: Vec<&Draw> = draws.iter().filter(|d| lowerable(d)).collect();
    let v = chooser.choose(values.len(), |_| true)?;
    let draw = values[values.len() - 1 - v];
    let lowered = draw.encode(draw.value(&tc.bytes).expect("chosen for its value") - 1);
    sh.consider(replace_ranges(&tc.bytes, &[(element, &[]), (draw.span.clone(), &lowered)]))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{run, u64_oracle};

    #[test]
    fn an_element_goes_with_another_value_one_less() {
        // The first value must be the count of elements and 8: [10, 7] and [9] hold it.
        let mut tests = 0;
        let holds = |xs: &[u64]| xs.first().is_some_and(|&x| x == xs.len() as u64 + 8);
        let input = [[1, 10, 0, 0, 0, 0, 0, 0, 0], [1, 7, 0, 0, 0, 0, 0, 0, 0]].concat();
        let result = run("delete-and-decrement", &input, u64_oracle(&mut tests, holds));
        assert_eq!(result, [1, 9, 0, 0, 0, 0, 0, 0, 0], "{result:?}");
    }
}
