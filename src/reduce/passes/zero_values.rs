//! Every value of a list of draws at zero in one test, else at the least of them: where the bug needs the elements but not what they hold.

use std::collections::HashMap;

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::{replace_ranges, TestCase};

/// On an input that draws alone describe (a `Vec<u64>`), sets every integer
/// draw to zero at once, but for the one-byte draws that read `true` (the
/// "one more element" flags, which keep the list as long): one candidate,
/// the same length, lower by value. Before any deletion, since a bug that
/// needs only the elements' number or a few small values takes the rest
/// from there in a few tests. Once a reduction, first of all passes: a test
/// where it fails (decision 0023).
pub(crate) fn zero(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    once_lowered(sh, chooser, false)
}

/// The same with every value of a kind at the least of them (the notebook's
/// "replace with simpler" in one test), once a reduction, when zero failed:
/// where the elements must only be large enough (at least 10 by 5), the
/// values are then all equal, so deleting any one element gives the same
/// list, run once (the other deletions are known values). Before
/// `keep-prefix`, not after: the prefixes it tries are then lists of equal
/// values already (decision 0023).
pub(crate) fn least(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    once_lowered(sh, chooser, true)
}

/// One candidate with the integer draws [`lowered`], the first time the pass runs.
fn once_lowered(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>, least: bool) -> StepResult {
    let tc = sh.shared();
    // Once a reduction: where it failed, a later round's candidate is rarely
    // a list run already (decision 0023).
    chooser.choose(usize::from(tc.draws_only() && sh.pass_stats().tests == 0), |_| true)?;
    let values = lowered(&tc, least);
    let edits: Vec<(std::ops::Range<usize>, &[u8])> =
        values.iter().map(|(d, encoded)| (d.span.clone(), &encoded[..])).collect();
    if !edits.is_empty() {
        sh.consider_typed(replace_ranges(&tc.bytes, &edits))?;
    }
    Ok(())
}

/// The integer draws (not the "one more" flags) with their new encoding:
/// zero, or with `least` the least value of their kind (one that fits a
/// short read at the end of the input), where that is lower.
fn lowered(tc: &TestCase, least: bool) -> Vec<(&Draw, Vec<u8>)> {
    let values: Vec<(&Draw, u128)> = tc
        .draws
        .iter()
        .filter(|d| d.is_integer() && !d.reads_true(&tc.bytes))
        .filter_map(|d| Some((d, d.value(&tc.bytes)?)))
        .collect();
    let mut lowest: HashMap<DrawKind, u128> = HashMap::new();
    for &(d, v) in &values {
        let entry = lowest.entry(d.kind).or_insert(v);
        *entry = (*entry).min(v);
    }
    let fits = |d: &Draw, v: u128| d.span.len() >= 16 || v >> (8 * d.span.len()) == 0;
    values
        .into_iter()
        .map(|(d, v)| (d, v, if least { lowest[&d.kind] } else { 0 }))
        .filter(|&(d, v, new)| new < v && fits(d, new))
        .map(|(d, _, new)| (d, d.encode(new)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{run, u64_list, u64_oracle};

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
    fn sets_every_value_to_the_least_of_them_in_one_test() {
        let input: Vec<u8> = [900u64, 70, 300].iter().flat_map(|v| [&[1][..], &v.to_le_bytes()].concat()).collect();
        let mut tests = 0;
        let result = run("least-values", &input, u64_oracle(&mut tests, |values| values.len() >= 3));
        assert_eq!(u64_list(&result).0, [70, 70, 70]);
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
