//! Conditions on lists of integers, the typed targets `list_*` (`Vec<u64>`):
//! the eight of Hypothesis's notebook "Designing a better simplifier", with the
//! mean calls its best simplifier there (`multicourse_shrink5`) needs.
//!
//! Each is a pure `fn(&[u64]) -> bool`; the fuzz target `list_<name>` panics
//! when it holds, and `benches/lists.rs` measures our reducer against those
//! means (issue 7). Python's integers never overflow, so sums are taken in
//! `u128` (exact for any slice: fewer than 2^64 elements below 2^64 each).

use std::collections::HashSet;
use std::fmt::Write as _;

use md5::{Digest, Md5};

/// One condition: its name in the notebook, the function, the fuzz target, the notebook's figure.
#[derive(Clone, Copy, Debug)]
pub struct Condition {
    /// The notebook's name for it.
    pub name: &'static str,
    /// The fuzz target that panics when it holds.
    pub target: &'static str,
    /// Whether a list satisfies it.
    pub holds: fn(&[u64]) -> bool,
    /// Mean calls of `multicourse_shrink5` to shrink a random list satisfying it.
    pub multicourse_shrink5: f64,
}

/// The eight conditions, in the notebook's order.
pub const CONDITIONS: [Condition; 8] = [
    Condition { name: "length >= 2", target: "list_len2", holds: len2, multicourse_shrink5: 6.0 },
    Condition { name: "sum >= 500", target: "list_sum500", holds: sum500, multicourse_shrink5: 35.0 },
    Condition { name: "sum >= 3", target: "list_sum3", holds: sum3, multicourse_shrink5: 6.0 },
    Condition { name: "at least 10 by 5", target: "list_ten_big", holds: ten_big, multicourse_shrink5: 72.7 },
    Condition {
        name: "10 distinct elements",
        target: "list_ten_distinct",
        holds: ten_distinct,
        multicourse_shrink5: 207.5,
    },
    Condition {
        name: "first > second",
        target: "list_first_gt_second",
        holds: first_gt_second,
        multicourse_shrink5: 845.6,
    },
    Condition { name: "size > max & 63", target: "list_len_gt_max63", holds: len_gt_max63, multicourse_shrink5: 151.1 },
    Condition { name: "messy", target: "list_messy", holds: messy, multicourse_shrink5: 371.8 },
];

/// The condition whose fuzz target is `target`.
pub fn condition(target: &str) -> Option<&'static Condition> {
    CONDITIONS.iter().find(|c| c.target == target)
}

/// At least two elements.
pub fn len2(xs: &[u64]) -> bool {
    xs.len() >= 2
}

/// The exact sum (as Python's integers: no overflow).
fn sum(xs: &[u64]) -> u128 {
    xs.iter().map(|&x| u128::from(x)).sum()
}

/// The elements add up to at least 500.
pub fn sum500(xs: &[u64]) -> bool {
    sum(xs) >= 500
}

/// The elements add up to at least 3.
pub fn sum3(xs: &[u64]) -> bool {
    sum(xs) >= 3
}

/// At least ten elements are 5 or more.
pub fn ten_big(xs: &[u64]) -> bool {
    xs.iter().filter(|&&x| x >= 5).count() >= 10
}

/// At least ten distinct elements.
pub fn ten_distinct(xs: &[u64]) -> bool {
    xs.iter().collect::<HashSet<_>>().len() >= 10
}

/// The first element is greater than the second (false with fewer than two).
pub fn first_gt_second(xs: &[u64]) -> bool {
    matches!(xs, [first, second, ..] if first > second)
}

/// More elements than the low six bits of the largest; false for the empty
/// list, as in the notebook (`xs and len(xs) > (max(xs) & 63)`).
pub fn len_gt_max63(xs: &[u64]) -> bool {
    xs.iter().max().is_some_and(|&max| xs.len() as u64 > (max & 63))
}

/// Python's `repr` of a list of integers: `[]`, `[1]`, `[1, 2, 3]`.
pub fn python_repr(xs: &[u64]) -> String {
    let mut out = String::from("[");
    for (i, x) in xs.iter().enumerate() {
        let separator = if i == 0 { "" } else { ", " };
        write!(out, "{separator}{x}").expect("writing to a String cannot fail");
    }
    out.push(']');
    out
}

/// The md5 of Python's `repr` of the list starts with the hex digit `0`
/// (about one list in 16, with no structure a reducer could see).
pub fn messy(xs: &[u64]) -> bool {
    Md5::digest(python_repr(xs).as_bytes())[0] >> 4 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_sums_hold_from_their_thresholds_on() {
        assert!(!len2(&[7]) && len2(&[0, 0]));
        assert!(!sum500(&[250, 249]) && sum500(&[250, 250]));
        assert!(!sum3(&[1, 1]) && sum3(&[1, 2]) && sum3(&[3]));
    }

    #[test]
    fn sums_do_not_overflow() {
        assert!(sum500(&[u64::MAX, u64::MAX]));
        assert!(sum3(&[u64::MAX, 1]));
    }

    #[test]
    fn ten_big_counts_elements_of_at_least_five() {
        assert!(!ten_big(&[5; 9]) && ten_big(&[5; 10]));
        let mut xs = vec![4; 20];
        xs.extend([9; 9]);
        assert!(!ten_big(&xs));
    }

    #[test]
    fn ten_distinct_ignores_repeats() {
        assert!(ten_distinct(&(0..10).collect::<Vec<_>>()));
        assert!(!ten_distinct(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8]));
    }

    #[test]
    fn first_gt_second_needs_two_elements() {
        assert!(!first_gt_second(&[]) && !first_gt_second(&[5]));
        assert!(first_gt_second(&[1, 0, 9]) && !first_gt_second(&[1, 1]) && !first_gt_second(&[0, 1]));
    }

    #[test]
    fn len_gt_max63_masks_the_maximum_and_is_false_when_empty() {
        assert!(!len_gt_max63(&[]));
        assert!(len_gt_max63(&[0]) && !len_gt_max63(&[1]) && len_gt_max63(&[1, 1]));
        assert!(len_gt_max63(&[64]), "64 & 63 == 0");
        assert!(!len_gt_max63(&[63, 0, 0]));
    }

    #[test]
    fn python_repr_separates_with_a_comma_and_a_space() {
        assert_eq!(python_repr(&[]), "[]");
        assert_eq!(python_repr(&[1]), "[1]");
        assert_eq!(python_repr(&[1, 2, 3]), "[1, 2, 3]");
        assert_eq!(python_repr(&[u64::MAX]), "[18446744073709551615]");
    }

    #[test]
    fn messy_agrees_with_python() {
        // Python: hashlib.md5(repr(xs).encode()).hexdigest()
        assert_eq!(format!("{:x}", Md5::digest(b"[]")), "d751713988987e9331980363e24189ce");
        assert_eq!(format!("{:x}", Md5::digest(b"[1, 2, 3]")), "49a5a960c5714c2e29dd1a7e7b950741");
        // [x for x in range(100) if messy([x])] == [11, 30, 48, 54, 95]
        let singles: Vec<u64> = (0..100).filter(|&x| messy(&[x])).collect();
        assert_eq!(singles, [11, 30, 48, 54, 95]);
        // The first pairs of digits: [0, 4], [1, 0], [1, 2].
        let pairs: Vec<[u64; 2]> =
            (0..10).flat_map(|a| (0..10).map(move |b| [a, b])).filter(|p| messy(p)).take(3).collect();
        assert_eq!(pairs, [[0, 4], [1, 0], [1, 2]]);
        assert!(!messy(&[]) && !messy(&[1, 2, 3]));
    }

    #[test]
    fn every_condition_has_its_own_target() {
        for c in &CONDITIONS {
            assert!(c.target.starts_with("list_"));
            assert_eq!(condition(c.target).map(|found| found.name), Some(c.name));
        }
    }
}
