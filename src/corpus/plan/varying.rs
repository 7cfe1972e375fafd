//! Coverage that varies from run to run (a `HashMap`'s random keys, a cache): the features only some runs of an input show are never dropped; the fewest inputs that show them are kept as they are, since a shrink cannot count on seeing them again.

use crate::corpus::features::intersect;
use crate::corpus::jobs::Measured;
use crate::corpus::plan::cover::{greedy_cover, Candidate};

/// The inputs kept as they are for features that vary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pinned {
    /// The inputs' indices.
    pub inputs: Vec<usize>,
    /// The features that only vary (no input shows them on every run), ascending.
    pub features: Vec<u32>,
}

/// Covers the features that some run of an input showed and no input showed
/// on every run (`required`: those that some input did), by the inputs'
/// `varying` features (smallest input on a tie; `sizes` per input).
pub fn pinned(sizes: &[usize], measured: &[Measured], varying: &[Vec<u32>], required: &[u32]) -> Pinned {
    let mut only: Vec<u32> = varying.iter().flatten().copied().filter(|f| required.binary_search(f).is_err()).collect();
    only.sort_unstable();
    only.dedup();
    let features: Vec<Vec<u32>> = varying
        .iter()
        .zip(measured)
        .map(|(some, m)| if matches!(m, Measured::Covered(_)) { intersect(some, &only) } else { Vec::new() })
        .collect();
    let candidates: Vec<Candidate> =
        sizes.iter().zip(&features).map(|(&size, features)| Candidate { size, features }).collect();
    let mut inputs: Vec<usize> = greedy_cover(&candidates).into_iter().map(|p| p.index).collect();
    inputs.sort_unstable();
    Pinned { inputs, features: only }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_no_input_shows_every_time_are_kept_by_the_fewest_inputs_that_show_them() {
        let covered = || Measured::Covered(vec![1]);
        let measured = [covered(), covered(), covered(), Measured::Crashed("boom".into())];
        // 5 varies in input 0 but input 1 shows it every time: not pinned.
        let varying = [vec![5, 7], vec![8], vec![7, 8, 9], vec![9]];
        let pinned = pinned(&[10, 10, 30, 1], &measured, &varying, &[1, 5]);
        assert_eq!(pinned.features, [7, 8, 9]);
        assert_eq!(pinned.inputs, [2], "one input shows all three; a crashing one never counts");
        let none = super::pinned(&[1], &[covered()], &[Vec::new()], &[1]);
        assert_eq!(none, Pinned::default());
    }
}
