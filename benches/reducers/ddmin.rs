//! Classic delta debugging (`ddmin`) over bytes, the baseline every reducer is measured against.
//!
//! Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
//! IEEE TSE 28(2), 2002, figure 5: split the input into `n` parts (`n = 2` at
//! first); if some part alone is interesting, keep it and restart with `n = 2`;
//! else if some complement (the input minus one part) is, keep it with
//! `n = max(n - 1, 2)`; else double `n` (at most the length) or stop when every
//! part is a single byte. Parts are tested in order, then complements in
//! order, and each round restarts from the first part.
//!
//! No test cache, as in the algorithm. The one duplicate skipped: with `n = 2`
//! the two complements are the two parts just tested, as most
//! implementations notice (it only makes the baseline cheaper).

/// Reduces `input`, which must be interesting. Returns the result and the
/// number of tests run, the initial one included.
pub(crate) fn ddmin(input: &[u8], test: &mut dyn FnMut(&[u8]) -> bool) -> (Vec<u8>, u64) {
    let mut tests = 1;
    assert!(test(input), "ddmin: the initial input is not interesting");
    let mut current = input.to_vec();
    let mut n = 2;
    while current.len() >= 2 {
        let len = current.len();
        let bound = |i: usize| i * len / n;
        let mut next = None;
        for i in 0..n {
            let part = &current[bound(i)..bound(i + 1)];
            tests += 1;
            if test(part) {
                next = Some((part.to_vec(), 2));
                break;
            }
        }
        if next.is_none() && n > 2 {
            for i in 0..n {
                let mut complement = current[..bound(i)].to_vec();
                complement.extend_from_slice(&current[bound(i + 1)..]);
                tests += 1;
                if test(&complement) {
                    next = Some((complement, (n - 1).max(2)));
                    break;
                }
            }
        }
        match next {
            Some((reduced, granularity)) => {
                current = reduced;
                n = granularity.min(current.len().max(2));
            }
            None if n < len => n = (2 * n).min(len),
            None => break,
        }
    }
    (current, tests)
}
