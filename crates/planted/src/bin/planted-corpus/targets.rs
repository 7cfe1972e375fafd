//! The targets a corpus can be made for: each one's name, how its inputs are drawn, and how its fuzz target runs one.

use crate::check::Verdict;
use crate::mutate::Rng;

/// One fuzz target of `fuzz/fuzz_targets/`.
#[derive(Debug)]
pub(crate) struct Target {
    /// The fuzz target's name.
    pub(crate) name: &'static str,
    /// What its inputs look like, for `--help`.
    pub(crate) about: &'static str,
    /// Draws an input of at most about the given length.
    pub(crate) draw: fn(&mut Rng, usize) -> Vec<u8>,
    /// Runs an input in-process as the fuzz target does.
    pub(crate) run: fn(&[u8]) -> Verdict,
    /// Leading bytes a mutation leaves alone (the selector and the magic: changing them only gets an input rejected).
    pub(crate) keep: usize,
}

/// The typed targets, which need the `arbitrary` feature.
pub(crate) const TYPED: [&str; 3] = ["scene", "config", "commands"];

/// Every target this build can make corpora for.
pub(crate) fn all() -> impl Iterator<Item = &'static Target> {
    crate::bytes::TARGETS.iter().chain(typed())
}

/// The target called `name`.
pub(crate) fn find(name: &str) -> Option<&'static Target> {
    all().find(|target| target.name == name)
}

#[cfg(feature = "arbitrary")]
fn typed() -> &'static [Target] {
    &crate::typed::TARGETS
}

#[cfg(not(feature = "arbitrary"))]
fn typed() -> &'static [Target] {
    &[]
}
