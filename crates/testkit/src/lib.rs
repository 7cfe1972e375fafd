//! Synthetic inputs decoded the way `arbitrary` decodes them, recording examples: test data for cargo-minimize-crash's tests and benchmarks.
//!
//! [`Cursor`] is a small, dependency-free imitation of `arbitrary` 1.x's
//! `Unstructured` that records a [`Recorded`] example for each derived value.
//! Three ready-made models decode whole inputs ([`decode_ops`],
//! [`decode_tree`], [`decode_record`]); each has an encoder that writes a value
//! back as a noisy but exact input (random odd/even flag bytes, enum tags
//! anywhere in their bucket, wrapped lengths, unread garbage) and a generator
//! of large random values, so tests and benchmarks can build big realistic
//! crash inputs with a bug planted where they want it.
//!
//! This crate does not depend on cargo-minimize-crash (whose own unit tests
//! use it), so it names none of its types: callers turn each [`Recorded`]
//! into a `reduce::Example` and build their oracle's `Verdict` themselves.

#![warn(missing_docs)]

mod cursor;
mod encode;
mod ops;
mod record;
mod tree;

pub use cursor::{Cursor, Recorded};
pub use ops::{decode_ops, encode_ops, flatten_ops, noisy_ops, random_ops, Op, MAX_NESTING};
pub use record::{decode_record, encode_record, noisy_record, random_record, Record};
pub use tree::{decode_tree, encode_tree, noisy_tree, random_tree, tree_depth, tree_size, Node, Tree, MAX_TREE_DEPTH};

#[cfg(test)]
pub(crate) mod tests {
    use std::ops::Range;

    use super::*;

    pub(crate) fn ex(front: Range<usize>, back: Range<usize>, label: &'static str, depth: u32) -> Recorded {
        Recorded { front, back, label, depth }
    }

    /// Every example lies inside its parent (the closest earlier example one
    /// level up) and after its previous sibling, with depths stepping by one.
    pub(crate) fn assert_nested(examples: &[Recorded]) {
        let mut stack: Vec<&Recorded> = Vec::new();
        let mut last_sibling_end: Vec<usize> = vec![0];
        for e in examples {
            while stack.len() > e.depth as usize {
                stack.pop();
                last_sibling_end.pop();
            }
            assert_eq!(stack.len(), e.depth as usize, "depth jumps at {e:?}");
            if let Some(parent) = stack.last() {
                assert!(parent.front.start <= e.front.start && e.front.end <= parent.front.end, "{e:?} in {parent:?}");
                assert!(parent.back.start <= e.back.start && e.back.end <= parent.back.end, "{e:?} in {parent:?}");
            }
            let previous_end = last_sibling_end.last_mut().unwrap();
            assert!(*previous_end <= e.front.start, "{e:?} overlaps its previous sibling");
            *previous_end = e.front.end;
            stack.push(e);
            last_sibling_end.push(e.front.start);
        }
    }

    #[test]
    fn encoded_values_decode_back_exactly() {
        for seed in 0..40 {
            for len in [0, 10, 100, 1000] {
                let ops = random_ops(seed, len);
                let (decoded, examples) = decode_ops(&encode_ops(&ops, seed));
                assert_eq!(decoded, ops, "seed {seed}, len {len}");
                assert_nested(&examples);

                let tree = random_tree(seed, len);
                let (decoded, examples) = decode_tree(&encode_tree(&tree, seed));
                assert_eq!(decoded, tree, "seed {seed}, len {len}");
                assert_eq!(examples.len(), tree_size(&tree));
                assert_nested(&examples);

                let record = random_record(seed, len);
                let (decoded, examples) = decode_record(&encode_record(&record, seed));
                assert_eq!(decoded, record, "seed {seed}, len {len}");
                assert_nested(&examples);
            }
        }
    }

    #[test]
    fn noisy_inputs_are_large_and_full_of_values() {
        let ops = noisy_ops(1, 16 * 1024);
        assert!((15 * 1024..18 * 1024).contains(&ops.len()), "{}", ops.len());
        let (decoded, examples) = decode_ops(&ops);
        assert!(flatten_ops(&decoded).len() > 1000);
        assert_eq!(examples.len(), flatten_ops(&decoded).len());

        let tree = noisy_tree(1, 16 * 1024);
        assert!((15 * 1024..18 * 1024).contains(&tree.len()), "{}", tree.len());
        let (decoded, _) = decode_tree(&tree);
        assert!(tree_size(&decoded) > 4000);
        assert!(tree_depth(&decoded) >= 10);

        let record = noisy_record(1, 16 * 1024);
        assert!((12 * 1024..18 * 1024).contains(&record.len()), "{}", record.len());
        let (decoded, _) = decode_record(&record);
        for len in [decoded.ids.len(), decoded.names.len(), decoded.flags.len(), decoded.payload.len()] {
            assert!(len > 200, "{len}");
        }
    }

    #[test]
    fn random_bytes_decode_without_panicking() {
        let mut rng = fastrand::Rng::with_seed(5);
        for len in 0..300 {
            let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            assert_nested(&decode_ops(&data).1);
            assert_nested(&decode_tree(&data).1);
            assert_nested(&decode_record(&data).1);
        }
    }
}
