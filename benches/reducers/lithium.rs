//! Lithium's `minimize` strategy over bytes: chunk deletion with power-of-two chunk sizes.
//!
//! Mozilla's Lithium (github.com/MozillaSecurity/lithium,
//! `src/lithium/strategies.py`, class `Minimize`, default options: `--min 1`,
//! `--repeat last`), followed step by step:
//! - the chunk size starts at the largest power of two smaller than the
//!   length (`largest_power_of_two_smaller_than`);
//! - a round walks chunks from the END of the input towards the start: try
//!   removing `[end - size, end)`; on success keep it and continue just before
//!   it; on failure move back by the chunk size, or by one byte when the size
//!   is 2 or less (so the last rounds slide over every position);
//! - after a round, halve the size (skipping sizes not smaller than the
//!   length); at size 1, repeat the round while it removed anything;
//! - a candidate already tried is skipped and counts as a failure: Lithium
//!   keeps a set of tried test cases (`ReductionIterator._tried`, SHA-512 of
//!   the bytes; here a 64-bit SipHash), so this is part of the algorithm, not
//!   an extra cache.
//!
//! (Older Lithium releases walked chunks from the start and had no tried set;
//! the current one is the fair baseline.)

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

/// Reduces `input`, which must be interesting. Returns the result and the
/// number of tests run, the initial one included.
pub(crate) fn lithium(input: &[u8], test: &mut dyn FnMut(&[u8]) -> bool) -> (Vec<u8>, u64) {
    let mut tests = 1;
    assert!(test(input), "lithium: the initial input is not interesting");
    let mut current = input.to_vec();
    if current.is_empty() {
        return (current, tests);
    }
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let mut tried: HashSet<u64> = HashSet::new();
    let mut chunk_size = largest_power_of_two_smaller_than(current.len());
    let min_chunk_size = chunk_size.min(1);
    let mut chunk_end = current.len();
    let mut removed_chunks = false;
    loop {
        if chunk_end < chunk_size {
            // The round is over.
            if current.is_empty() {
                break;
            }
            if chunk_size <= min_chunk_size {
                if !removed_chunks {
                    break;
                }
            } else {
                while chunk_size > 1 {
                    chunk_size >>= 1;
                    if chunk_size < current.len() {
                        break;
                    }
                }
            }
            chunk_end = current.len();
            removed_chunks = false;
            continue;
        }
        let chunk_start = chunk_end.saturating_sub(chunk_size);
        let mut candidate = current[..chunk_start].to_vec();
        candidate.extend_from_slice(&current[chunk_end..]);
        let success = if tried.insert(hasher.hash_one(&candidate)) {
            tests += 1;
            test(&candidate)
        } else {
            false // tried before: Lithium skips it, which reads as a failure
        };
        if success {
            current = candidate;
            removed_chunks = true;
            chunk_end = chunk_start;
        } else if chunk_size <= 2 {
            chunk_end -= 1;
        } else {
            chunk_end -= chunk_size;
        }
    }
    (current, tests)
}

/// Lithium's `largest_power_of_two_smaller_than`: strictly smaller, except 1 for 1.
fn largest_power_of_two_smaller_than(n: usize) -> usize {
    let result = if n == 0 { 1 } else { 1 << (usize::BITS - 1 - n.leading_zeros()) };
    if result == n && n > 1 {
        result >> 1
    } else {
        result
    }
}
