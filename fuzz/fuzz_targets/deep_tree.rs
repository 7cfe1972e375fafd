#![no_main]

//! A typed target: `arbitrary` builds a binary tree of nested
//! `Option<Box<Node>>` children, which the layout walks level by level.

use libfuzzer_sys::fuzz_target;
use planted::deep_tree::{layout, Tree};

fuzz_target!(|tree: Tree| {
    planted::count::tick();
    let _ = layout(&tree);
});
