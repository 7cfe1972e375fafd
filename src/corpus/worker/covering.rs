//! A corpus shrink's oracle: a candidate is interesting when it runs normally and covers every required feature; one that failed the same way before, made from the same result, is answered without a run (`failures.rs`).

use crate::corpus::features::first_missing;
use crate::corpus::jobs::Measured;
use crate::corpus::worker::failures::{Failed, Recalled, LACKED};
use crate::corpus::worker::runner::Runner;
use crate::reduce::{hash, Oracle, Verdict};

/// The oracle of one shrink, with what it recalled and what failed since the best last moved.
#[derive(Debug)]
pub struct Covering<'a> {
    /// The worker's harnesses.
    pub runner: &'a mut Runner,
    /// The features a candidate must cover, ascending.
    pub required: &'a [u32],
    /// Whether the input is typed: then an interesting candidate's examples
    /// come from a run on the recording harness.
    pub typed: bool,
    /// The failures made from the input before, by an earlier shrink.
    pub recalled: Recalled,
    /// The failures since the last interesting candidate: at the end, those
    /// made from the result.
    pub since_best: &'a mut Vec<Failed>,
    /// Candidates answered from `recalled`.
    pub known: u64,
}

impl Oracle for Covering<'_> {
    fn test(&mut self, candidate: &[u8]) -> anyhow::Result<Verdict> {
        let key = hash(candidate);
        if self.recalled.fails(key, self.required) {
            self.known += 1;
            return Ok(Verdict::Boring);
        }
        let lacked = match self.runner.measure(candidate) {
            Measured::Covered(features) => {
                let lacked = first_missing(self.required, &features, LACKED);
                if lacked.is_empty() {
                    self.since_best.clear();
                    let examples = if self.typed {
                        self.runner.examples(candidate).map_err(anyhow::Error::msg)?
                    } else {
                        Vec::new()
                    };
                    return Ok(Verdict::Interesting(examples));
                }
                Some(lacked)
            }
            Measured::Failed(error) => anyhow::bail!(error),
            _ => None,
        };
        self.since_best.push(Failed::new(key, lacked.as_deref()));
        Ok(Verdict::Boring)
    }

    fn known_values(&self) -> u64 {
        self.known
    }
}
