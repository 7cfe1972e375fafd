//! A typed target's input: a named binary tree of `Option<Box<Node>>`
//! children, built by `arbitrary` from the fuzzer's bytes (with the
//! `arbitrary` feature), and a layout that counts the nodes on each level.
//!
//! The bug: the layout keeps one counter per level for `MAX_DEPTH` levels, and
//! its depth check is off by one (`depth > MAX_DEPTH` where `>=` was meant), so
//! a node at depth `MAX_DEPTH` (the root is at depth 0) indexes past the end.
//! The smallest tree that shows it is a chain of `MAX_DEPTH + 1` nodes.

use crate::{Error, Result};

/// The number of levels the layout has counters for.
pub const MAX_DEPTH: usize = 6;

/// A named tree.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Tree {
    /// The tree's name.
    pub name: String,
    /// The root, if the tree is not empty.
    pub root: Option<Box<Node>>,
}

/// A node.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Node {
    /// The node's weight.
    pub weight: u8,
    /// The left subtree.
    pub left: Option<Box<Node>>,
    /// The right subtree.
    pub right: Option<Box<Node>>,
}

/// Counts the nodes and sums the weights on each level.
pub fn layout(tree: &Tree) -> Result<[(u32, u32); MAX_DEPTH]> {
    let mut levels = [(0u32, 0u32); MAX_DEPTH];
    if let Some(root) = &tree.root {
        visit(root, 0, &mut levels)?;
    }
    Ok(levels)
}

fn visit(node: &Node, depth: usize, levels: &mut [(u32, u32); MAX_DEPTH]) -> Result<()> {
    // The planted bug: `>` where `>=` was meant.
    if depth > MAX_DEPTH {
        return Err(Error("tree too deep"));
    }
    let level = &mut levels[depth];
    level.0 += 1;
    level.1 += u32::from(node.weight);
    for child in [&node.left, &node.right].into_iter().flatten() {
        visit(child, depth + 1, levels)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(length: usize) -> Tree {
        let root = (0..length)
            .fold(None, |child, weight| Some(Box::new(Node { weight: weight as u8, left: child, right: None })));
        Tree { name: String::new(), root }
    }

    #[test]
    fn a_tree_of_max_depth_levels_is_laid_out() {
        let levels = layout(&chain(MAX_DEPTH)).unwrap();
        assert_eq!(levels.map(|l| l.0), [1; MAX_DEPTH]);
        assert_eq!(levels[0].1, MAX_DEPTH as u32 - 1);
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn one_level_more_indexes_past_the_counters() {
        let _ = layout(&chain(MAX_DEPTH + 1));
    }
}
