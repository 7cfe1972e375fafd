//! Model (b): a binary tree (`Option<Box<Node>>`), as deep as the input makes it: decoder, encoder, generator.

use crate::cursor::{Cursor, Recorded};
use crate::encode::{encode, Writer};

/// How deep a tree can get: nodes at this depth (the root is at depth 1)
/// read no children, which bounds the recursion on any input.
pub const MAX_TREE_DEPTH: u32 = 64;

/// A tree as `Option<Box<Node>>` decodes it: a flag byte, then the node.
pub type Tree = Option<Box<Node>>;

/// A node of model (b), decoded as `#[derive(Arbitrary)]` would (fields in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// One byte.
    pub value: u8,
    /// The left subtree.
    pub left: Tree,
    /// The right subtree.
    pub right: Tree,
}

/// The number of nodes on the longest path from the root (0 for an empty tree).
pub fn tree_depth(tree: &Tree) -> usize {
    tree.as_ref().map_or(0, |n| 1 + tree_depth(&n.left).max(tree_depth(&n.right)))
}

/// The number of nodes.
pub fn tree_size(tree: &Tree) -> usize {
    tree.as_ref().map_or(0, |n| 1 + tree_size(&n.left) + tree_size(&n.right))
}

/// Decodes an `Option<Box<Node>>`.
pub fn decode_tree(data: &[u8]) -> (Tree, Vec<Recorded>) {
    let mut c = Cursor::new(data);
    let tree = read_tree(&mut c, 1);
    (tree, c.into_examples())
}

fn read_tree(c: &mut Cursor<'_>, level: u32) -> Tree {
    c.option(|c| {
        Box::new(c.derived(|c| {
            let value = c.u8();
            if level < MAX_TREE_DEPTH {
                let left = read_tree(c, level + 1);
                let right = read_tree(c, level + 1);
                Node { value, left, right }
            } else {
                Node { value, left: None, right: None }
            }
        }))
    })
}

/// Writes `tree` as an input that [`decode_tree`] decodes back to exactly
/// `tree` (nodes below [`MAX_TREE_DEPTH`] are dropped), with noise chosen by `seed`.
pub fn encode_tree(tree: &Tree, seed: u64) -> Vec<u8> {
    fn write(w: &mut Writer, tree: &Tree, level: u32) {
        w.bool(tree.is_some());
        if let Some(node) = tree {
            w.u8(node.value);
            if level < MAX_TREE_DEPTH {
                write(w, &node.left, level + 1);
                write(w, &node.right, level + 1);
            }
        }
    }
    encode(seed, |w| write(w, tree, 1))
}

/// A random tree whose encoding is about `approx_len` bytes (each node takes
/// three: its value and its children's flags): each left subtree gets a
/// random share of its parent's budget and the right one what is left, so
/// depth grows like a random search tree's.
pub fn random_tree(seed: u64, approx_len: usize) -> Tree {
    /// The subtree and the bytes it used.
    fn gen(rng: &mut fastrand::Rng, budget: usize, level: u32) -> (Tree, usize) {
        // Small subtrees are sometimes cut short, so leaves come at all depths.
        if budget < 3 || level > MAX_TREE_DEPTH || (budget < 30 && rng.u32(0..100) < 10) {
            return (None, 0);
        }
        let rest = budget - 3;
        let share = rng.usize(0..=rest);
        let value = rng.u8(..);
        let (left, used_left) = gen(rng, share, level + 1);
        let (right, used_right) = gen(rng, rest - used_left, level + 1);
        (Some(Box::new(Node { value, left, right })), 3 + used_left + used_right)
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    gen(&mut rng, approx_len.saturating_sub(1), 1).0
}

/// A large noisy `Option<Box<Node>>` input of about `approx_len` bytes.
pub fn noisy_tree(seed: u64, approx_len: usize) -> Vec<u8> {
    encode_tree(&random_tree(seed, approx_len), seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::ex;

    const NODE: &str = "testkit::tree::Node";

    #[test]
    fn a_small_tree_decodes_exactly_with_its_spans() {
        let data = [0x01, 5, 0x01, 7, 0x00, 0x00, 0x00];
        let (tree, examples) = decode_tree(&data);
        let leaf = Node { value: 7, left: None, right: None };
        assert_eq!(tree, Some(Box::new(Node { value: 5, left: Some(Box::new(leaf)), right: None })));
        assert_eq!(examples, vec![ex(1..7, 7..7, NODE, 0), ex(3..6, 7..7, NODE, 1)]);
        assert_eq!(tree_depth(&tree), 2);
        assert_eq!(tree_size(&tree), 2);
    }
}
