//! The greedy set cover that picks the inputs a corpus keeps, and the assignment of each feature to one kept input.
//!
//! The cover is libFuzzer's `-set_cover_merge`'s rule: repeatedly take the
//! input that adds the most features not yet covered, the smallest file on a
//! tie (then the first given). Each taken input is *assigned* the features it
//! added when taken: every feature is assigned to exactly one kept input, so
//! inputs that each keep their assigned features keep the whole cover.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One candidate for the cover: its size and its features (ascending, unique).
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    /// Its size in bytes (smaller wins ties).
    pub size: usize,
    /// Its features.
    pub features: &'a [u32],
}

/// A taken input: its index among the candidates and the features assigned to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    /// The candidate's index.
    pub index: usize,
    /// The features it added when taken (ascending).
    pub assigned: Vec<u32>,
}

/// The greedy cover of every feature of `candidates`, in the order taken.
/// Lazy: a candidate's gain only falls as others are taken, so a stale gain
/// on the heap is rechecked when it reaches the top.
pub fn greedy_cover(candidates: &[Candidate]) -> Vec<Pick> {
    let limit = candidates.iter().filter_map(|c| c.features.last()).max().map_or(0, |&f| f as usize + 1);
    let mut covered = vec![false; limit];
    let mut heap: BinaryHeap<(usize, Reverse<usize>, Reverse<usize>)> = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.features.is_empty())
        .map(|(index, c)| (c.features.len(), Reverse(c.size), Reverse(index)))
        .collect();
    let mut picks = Vec::new();
    while let Some((gain, size, Reverse(index))) = heap.pop() {
        let fresh: Vec<u32> = candidates[index].features.iter().copied().filter(|&f| !covered[f as usize]).collect();
        if fresh.is_empty() {
            continue;
        }
        if fresh.len() < gain {
            heap.push((fresh.len(), size, Reverse(index)));
            continue;
        }
        for &feature in &fresh {
            covered[feature as usize] = true;
        }
        picks.push(Pick { index, assigned: fresh });
    }
    picks
}

/// Reassigns every feature to the smallest taken input that has it (the
/// earlier taken on ties) and drops the inputs left with none. Shrinking an
/// input costs what it must keep: a large input then keeps only what no
/// smaller kept input has, instead of everything it brought first.
pub fn assign_to_smallest(picks: Vec<Pick>, candidates: &[Candidate]) -> Vec<Pick> {
    let limit = picks.iter().filter_map(|p| candidates[p.index].features.last()).max().map_or(0, |&f| f as usize + 1);
    let mut taken = vec![false; limit];
    let mut order: Vec<usize> = (0..picks.len()).collect();
    order.sort_by_key(|&i| (candidates[picks[i].index].size, i));
    let mut assigned: Vec<Vec<u32>> = vec![Vec::new(); picks.len()];
    for i in order {
        for &feature in candidates[picks[i].index].features {
            if !std::mem::replace(&mut taken[feature as usize], true) {
                assigned[i].push(feature);
            }
        }
    }
    picks
        .into_iter()
        .zip(assigned)
        .filter(|(_, assigned)| !assigned.is_empty())
        .map(|(pick, assigned)| Pick { index: pick.index, assigned })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::features::union;

    fn candidates(sets: &[(usize, &'static [u32])]) -> Vec<Candidate<'static>> {
        sets.iter().map(|&(size, features)| Candidate { size, features }).collect()
    }

    #[test]
    fn the_cover_takes_the_biggest_gain_first_and_assigns_each_feature_once() {
        let sets = candidates(&[(10, &[1, 2]), (50, &[1, 2, 3, 4]), (5, &[4, 5]), (1, &[2]), (7, &[])]);
        let picks = greedy_cover(&sets);
        assert_eq!(picks, [Pick { index: 1, assigned: vec![1, 2, 3, 4] }, Pick { index: 2, assigned: vec![5] }]);
        let assigned: Vec<u32> = union(picks.iter().map(|p| p.assigned.as_slice()));
        assert_eq!(assigned, union(sets.iter().map(|c| c.features)), "every feature is covered");
    }

    #[test]
    fn ties_go_to_the_smallest_then_the_first() {
        let sets = candidates(&[(9, &[1, 2]), (3, &[2, 3]), (3, &[3, 4]), (1, &[5])]);
        let order: Vec<usize> = greedy_cover(&sets).iter().map(|p| p.index).collect();
        // Gain 2 at size 3: the first of the two; then every gain is 1, taken by size.
        assert_eq!(order, [1, 3, 2, 0]);
    }

    #[test]
    fn features_go_to_the_smallest_input_that_has_them() {
        let sets = candidates(&[(50, &[1, 2, 3, 4]), (5, &[2, 5]), (1, &[3]), (9, &[9])]);
        let picks = greedy_cover(&sets);
        assert_eq!(picks.len(), 3, "the big one, then 5 and 9: {picks:?}");
        let assigned = assign_to_smallest(picks, &sets);
        let by_index: Vec<(usize, Vec<u32>)> = assigned.iter().map(|p| (p.index, p.assigned.clone())).collect();
        assert_eq!(by_index, [(0, vec![1, 3, 4]), (1, vec![2, 5]), (3, vec![9])]);
        let sets = candidates(&[(50, &[1, 2]), (5, &[1]), (4, &[2])]);
        let kept: Vec<usize> = assign_to_smallest(
            vec![
                Pick { index: 0, assigned: vec![1, 2] },
                Pick { index: 1, assigned: vec![] },
                Pick { index: 2, assigned: vec![] },
            ],
            &sets,
        )
        .iter()
        .map(|p| p.index)
        .collect();
        assert_eq!(kept, [1, 2], "a large input whose features smaller ones have goes");
    }
}
