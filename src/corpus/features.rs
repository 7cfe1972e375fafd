//! Feature sets (ascending, unique `u32` lists, libFuzzer's numbering) and what both the plan and the workers take of them: subset, intersection, union.

/// Whether every feature of `needed` is in `have` (both ascending).
pub fn is_subset(needed: &[u32], have: &[u32]) -> bool {
    let mut have = have.iter();
    needed.iter().all(|n| have.any(|h| h == n))
}

/// The first `most` features of `needed` that `have` lacks (both ascending).
pub fn first_missing(needed: &[u32], have: &[u32], most: usize) -> Vec<u32> {
    let mut have = have.iter().peekable();
    needed
        .iter()
        .copied()
        .filter(|&f| {
            while have.next_if(|&&g| g < f).is_some() {}
            have.peek() != Some(&&f)
        })
        .take(most)
        .collect()
}

/// The features of `a` that are in `b` (both ascending).
pub fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut b = b.iter().peekable();
    a.iter()
        .copied()
        .filter(|&f| {
            while b.next_if(|&&g| g < f).is_some() {}
            b.peek() == Some(&&f)
        })
        .collect()
}

/// The union of feature lists (ascending, unique).
pub fn union<'a>(sets: impl IntoIterator<Item = &'a [u32]>) -> Vec<u32> {
    let mut all: Vec<u32> = sets.into_iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Whether `feature` is the stack-depth one of a harness of `counters`
/// counters (numbered after every counter's eight buckets, as libFuzzer does).
pub fn is_stack(feature: u32, counters: u32) -> bool {
    u64::from(feature) >= u64::from(counters) * 8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_and_unions_of_ascending_lists() {
        assert!(is_subset(&[2, 5], &[1, 2, 3, 5, 8]));
        assert!(is_subset(&[], &[1]));
        assert!(!is_subset(&[2, 4], &[1, 2, 3, 5]));
        assert!(!is_subset(&[9], &[]));
        assert_eq!(union([&[3u32, 1][..], &[2, 3]]), [1, 2, 3]);
        assert_eq!(intersect(&[1, 3, 5, 7, 9], &[2, 3, 4, 9, 10]), [3, 9]);
        assert_eq!(intersect(&[1, 2], &[]), Vec::<u32>::new());
        assert_eq!(intersect(&[1, 2], &[2]), [2], "a larger feature is not passed over");
        assert_eq!(first_missing(&[1, 2, 4, 6, 7, 9], &[2, 3, 7], 3), [1, 4, 6]);
        assert_eq!(first_missing(&[2, 7], &[2, 3, 7], 3), Vec::<u32>::new());
        assert_eq!(first_missing(&[5], &[], 3), [5]);
    }

    #[test]
    fn stack_features_come_after_every_counters_buckets() {
        assert!(!is_stack(79, 10) && is_stack(80, 10) && is_stack(u32::MAX, 10));
        assert!(!is_stack(u32::MAX - 1, u32::MAX), "no overflow past 512 M counters");
    }
}
