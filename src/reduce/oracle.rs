//! The oracle: whatever decides whether a candidate input is still interesting.

use super::testcase::Example;

/// What one test of a candidate said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The candidate still shows the behaviour being reduced (the same crash),
    /// with the examples recorded while it ran (empty when there is no structure).
    Interesting(Vec<Example>),
    /// It does not (no crash, another crash, rejected input, ...).
    Boring,
}

impl Verdict {
    /// `Interesting` without examples when `interesting`, else `Boring`.
    pub fn from_bool(interesting: bool) -> Self {
        if interesting {
            Verdict::Interesting(Vec::new())
        } else {
            Verdict::Boring
        }
    }

    /// Whether the candidate was interesting.
    pub fn is_interesting(&self) -> bool {
        matches!(self, Verdict::Interesting(_))
    }
}

/// Decides whether a candidate is interesting.
///
/// Any `FnMut(&[u8]) -> Verdict` closure is an oracle. An oracle that can fail
/// (a fork server that died) returns an error, which stops the reduction with
/// the best test case found so far.
pub trait Oracle {
    /// Tests one candidate.
    fn test(&mut self, input: &[u8]) -> anyhow::Result<Verdict>;

    /// How many candidates it tests at once (1: one at a time, the default).
    /// Above 1, the reducer predicts the candidates it would try next if each
    /// failed, and hands them to [`Oracle::prefetch`].
    fn width(&self) -> usize {
        1
    }

    /// Starts testing `candidates` at once, which the reducer predicts it will
    /// try next, in this order; [`Oracle::test`] is still called for each one
    /// the reducer reaches, in order, and must give the verdict a serial test
    /// would (so the result is the same as testing one at a time).
    fn prefetch(&mut self, _candidates: &[Vec<u8>]) {}

    /// How many of the candidates tested so far decoded to a value tested
    /// before (0 by default): their verdicts needed no run of the target,
    /// though a lane testing ahead may have made one. The reducer counts
    /// those apart from its tests.
    fn known_values(&self) -> u64 {
        0
    }

    /// What the target recorded while it decoded the candidate tested last,
    /// whatever the verdict (the examples and draws of a run that did not
    /// crash); `None` when the oracle does not know (the default). A move
    /// that needs the shape of a value no run of the best made (an enum's
    /// other variant) learns it from a boring run.
    fn recorded(&self) -> Option<Vec<Example>> {
        None
    }
}

impl<F: FnMut(&[u8]) -> Verdict> Oracle for F {
    fn test(&mut self, input: &[u8]) -> anyhow::Result<Verdict> {
        Ok(self(input))
    }
}

/// Adapts a closure that can fail into an [`Oracle`].
#[derive(Debug)]
pub struct Fallible<F>(pub F);

impl<F: FnMut(&[u8]) -> anyhow::Result<Verdict>> Oracle for Fallible<F> {
    fn test(&mut self, input: &[u8]) -> anyhow::Result<Verdict> {
        (self.0)(input)
    }
}

/// A test's oracle that also says what every run recorded, as the harness
/// does (moves learn from boring runs): `run` reads an input as whether it
/// is interesting and its examples.
#[cfg(test)]
pub(crate) struct Recording<F> {
    run: F,
    last: Vec<Example>,
}

#[cfg(test)]
impl<F: FnMut(&[u8]) -> (bool, Vec<Example>)> Recording<F> {
    /// An oracle over `run`.
    pub(crate) fn new(run: F) -> Self {
        Recording { run, last: Vec::new() }
    }
}

#[cfg(test)]
impl<F: FnMut(&[u8]) -> (bool, Vec<Example>)> Oracle for Recording<F> {
    fn test(&mut self, input: &[u8]) -> anyhow::Result<Verdict> {
        let (interesting, examples) = (self.run)(input);
        self.last.clone_from(&examples);
        Ok(if interesting { Verdict::Interesting(examples) } else { Verdict::Boring })
    }

    fn recorded(&self) -> Option<Vec<Example>> {
        Some(self.last.clone())
    }
}
