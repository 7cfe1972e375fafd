//! Reordering: move sibling examples of the same type toward sorted order (simplest first).

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::{replace_ranges, shortlex, TestCase};

/// The most members a group may have for its adjacent pairs to be swapped
/// one at a time: a longer one is only sorted whole (a turn of a generator's
/// loop is a span, and 300 of them took 24,000 swaps, each a success).
const MOST_SWAPPED: usize = 16;

/// Chooses a group of same-label siblings that is not sorted, then either
/// sorts it whole or (in a group of at most [`MOST_SWAPPED`]) swaps one
/// adjacent out-of-order pair.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let groups: Vec<Vec<usize>> = tc
        .sibling_groups()
        .iter()
        .cloned()
        .flat_map(|group| same_label_runs(&tc, group))
        .filter(|run| run.len() > 1 && inversions(&tc, run).next().is_some())
        .collect();
    let group = &groups[chooser.choose(groups.len(), |_| true)?];
    let swaps: Vec<usize> = if group.len() <= MOST_SWAPPED { inversions(&tc, group).collect() } else { Vec::new() };
    // Variant 0 sorts the whole group; reverse order meets it first.
    let variant = swaps.len() - chooser.choose(swaps.len() + 1, |_| true)?;
    let mut permuted = group.clone();
    if variant == 0 {
        permuted.sort_by(|&a, &b| shortlex(&content(&tc, a), &content(&tc, b)));
    } else {
        permuted.swap(swaps[variant - 1], swaps[variant - 1] + 1);
    }
    let pieces: Vec<(Vec<u8>, Vec<u8>)> = permuted
        .iter()
        .map(|&s| (tc.bytes[tc.examples[s].front.clone()].to_vec(), tc.bytes[tc.examples[s].back.clone()].to_vec()))
        .collect();
    let mut edits = Vec::new();
    for (&slot, (front, back)) in group.iter().zip(&pieces) {
        edits.push((tc.examples[slot].front.clone(), front.as_slice()));
        edits.push((tc.examples[slot].back.clone(), back.as_slice()));
    }
    sh.consider(replace_ranges(&tc.bytes, &edits))?;
    Ok(())
}

fn content(tc: &TestCase, i: usize) -> Vec<u8> {
    tc.examples[i].content(&tc.bytes)
}

/// Positions `j` in `run` where member `j` is more complex than member `j + 1`.
fn inversions<'a>(tc: &'a TestCase, run: &'a [usize]) -> impl Iterator<Item = usize> + 'a {
    (0..run.len().saturating_sub(1)).filter(|&j| shortlex(&content(tc, run[j]), &content(tc, run[j + 1])).is_gt())
}

/// Splits a sibling group into maximal runs of consecutive same-label members.
fn same_label_runs(tc: &TestCase, group: Vec<usize>) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for i in group {
        match runs.last_mut() {
            Some(run) if tc.examples[run[0]].label == tc.examples[i].label => run.push(i),
            _ => runs.push(vec![i]),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{list_oracle, run};

    #[test]
    fn sorts_sibling_elements() {
        let three = list_oracle(|elements| elements.len() == 3);
        assert_eq!(run("sort-siblings", &[1, b'C', 1, b'A', 1, b'B', 0], three), [1, b'A', 1, b'B', 1, b'C', 0]);
    }

    #[test]
    fn swaps_a_pair_when_a_full_sort_is_not_interesting() {
        // Only C must stay last.
        let c_last = list_oracle(|elements| elements.len() == 3 && elements[2] == b'C');
        assert_eq!(run("sort-siblings", &[1, b'B', 1, b'A', 1, b'C', 0], c_last), [1, b'A', 1, b'B', 1, b'C', 0]);
        let c_first = list_oracle(|elements| elements.len() == 3 && elements[0] == b'C');
        assert_eq!(run("sort-siblings", &[1, b'C', 1, b'B', 1, b'A', 0], c_first), [1, b'C', 1, b'A', 1, b'B', 0]);
    }
}
