//! Every value of a list of draws at zero in one test: where the bug needs the elements but not what they hold.

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::replace_ranges;

/// On an input that draws alone describe (a `Vec<u64>`), sets every integer
/// draw to zero at once, but for the one-byte draws that read `true` (the
/// "one more element" flags, which keep the list as long): one candidate,
/// the same length, lower by value. Before any deletion, since a bug that
/// needs only the elements' number or a few small values takes the rest
/// from there in a few tests (list "size > max & 63", where the largest
/// value decides how many elements must stay: 234.9 tests a list before,
/// when deletions failed until value searches had lowered the largest).
/// Once a reduction, first of all passes: a test where it fails.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    // Once a reduction: where zero failed, a later round's zero is rarely a
    // list run already (at least 10 by 5: one failed test a round).
    chooser.choose(usize::from(tc.draws_only() && sh.pass_stats().tests == 0), |_| true)?;
    let zeros = vec![0u8; tc.len()];
    let edits: Vec<(std::ops::Range<usize>, &[u8])> = tc
        .draws
        .iter()
        .filter(|d| d.is_integer() && !d.reads_true(&tc.bytes) && d.value(&tc.bytes).is_some_and(|v| v != 0))
        .map(|d| (d.span.clone(), &zeros[..d.span.len()]))
        .collect();
    if !edits.is_empty() {
        sh.consider_typed(replace_ranges(&tc.bytes, &edits))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{run, u64_oracle};

    #[test]
    fn zeroes_every_value_and_keeps_the_flags() {
        let input: Vec<u8> = (1..=3u8).flat_map(|v| [1, v, 9, 9, 9, 9, 9, 9, 9]).collect();
        let mut tests = 0;
        let oracle = u64_oracle(&mut tests, |values| values.len() >= 3);
        let mut expected = [0u8; 27];
        (0..3).for_each(|i| expected[i * 9] = 1);
        assert_eq!(run("zero-values", &input, oracle), expected);
        assert_eq!(tests, 2, "the initial run and one test");
    }

    #[test]
    fn leaves_values_the_bug_needs() {
        let input = [1, 7, 0, 0, 0, 0, 0, 0, 0];
        let mut tests = 0;
        let oracle = u64_oracle(&mut tests, |values| values.iter().any(|&v| v >= 5));
        assert_eq!(run("zero-values", &input, oracle), input);
    }
}
