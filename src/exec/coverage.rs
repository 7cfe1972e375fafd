//! A run's coverage as a coverage harness reports it: SanitizerCoverage features numbered as libFuzzer numbers them.
//!
//! A harness built with [`BuildOptions::coverage`](crate::project::BuildOptions)
//! and started with a [`ForkServerConfig::feature_capacity`](super::ForkServerConfig)
//! above 0 writes, after each run that returns, the features it hit
//! (`cmc_runtime`'s `coverage` module): for each 8-bit counter the run touched,
//! `index * 8 + bucket` (buckets [1] [2] [3] [4-7] [8-15] [16-31] [32-127]
//! [128+]), then, if the run went below where the target was called, one
//! stack-depth feature past every counter's. libFuzzer's `ft:` counts the
//! union of these over a corpus, its `cov:` the counters touched
//! ([`Coverage::edges`]).

use crate::protocol::CoverageRecord;

/// The coverage of one run that returned normally (ok or rejected).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The features hit, ascending and unique.
    pub features: Vec<u32>,
    /// How many 8-bit counters the harness has; 0 when it is not instrumented
    /// (built without [`BuildOptions::coverage`](crate::project::BuildOptions)):
    /// then `features` is empty whatever the input.
    pub counters: u32,
    /// How deep the run went below where the target was called, in bytes
    /// (0 without stack-depth instrumentation, which is x86-64 Linux only).
    pub stack_offset: u64,
    /// Whether the run had more features than the shared memory holds
    /// (`features` is then the lowest ones): raise the feature capacity.
    pub cut: bool,
}

impl Coverage {
    /// The child's record.
    pub fn from_record(record: CoverageRecord) -> Coverage {
        let CoverageRecord { features, counters, stack_offset, cut } = record;
        Coverage { features, counters, stack_offset, cut }
    }

    /// Whether the harness is instrumented (it registered counters): a run of
    /// a harness that is not has no features at all.
    pub fn is_instrumented(&self) -> bool {
        self.counters > 0
    }

    /// The counters' features, without the stack-depth one.
    pub fn counter_features(&self) -> &[u32] {
        let end = self.features.partition_point(|&f| u64::from(f) < u64::from(self.counters) * 8);
        &self.features[..end]
    }

    /// The stack-depth feature, when the run had one.
    pub fn stack_feature(&self) -> Option<u32> {
        self.features.get(self.counter_features().len()).copied()
    }

    /// The counters the run touched (their indices, ascending; a run has one
    /// feature per counter): libFuzzer's `cov:` is how many of these a corpus
    /// touches in all.
    pub fn edges(&self) -> impl Iterator<Item = u32> + '_ {
        self.counter_features().iter().map(|f| f / 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_split_into_counters_edges_and_the_stack_feature() {
        let coverage = Coverage::from_record(CoverageRecord {
            features: vec![0, 11, 17, 39 * 8 + 7, 40 * 8 + 64],
            counters: 40,
            stack_offset: 8192,
            cut: false,
        });
        assert!(coverage.is_instrumented());
        assert_eq!(coverage.counter_features(), [0, 11, 17, 39 * 8 + 7]);
        assert_eq!(coverage.edges().collect::<Vec<_>>(), [0, 1, 2, 39]);
        assert_eq!(coverage.stack_feature(), Some(40 * 8 + 64));

        let shallow = Coverage { features: vec![5], counters: 40, ..Coverage::default() };
        assert_eq!(shallow.stack_feature(), None);
        assert!(!Coverage::default().is_instrumented());
    }
}
