//! Keep the shortest prefix of a list of draws (on inputs that draws alone describe, the first k elements, the least k found from below), or a short window of a long list.

use super::super::choice::Chooser;
use super::super::draws::DrawKind;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::TestCase;

/// Keeps the first `k` elements and deletes the rest of the input, for the
/// least `k` found by trying 1, 2, 4, ... and then halving the gap below the
/// first that stays interesting (decision 0023): chunk deletion tries halves,
/// quarters and eighths of every size instead; where any cut is as likely to
/// pass as another (a hash of the list), the shortest prefixes are tried
/// first. Elements start where a draw of the first draw's kind (the "one
/// more" flag) does. Only where draws alone describe the input and nothing is
/// read from the back.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let starts = element_starts(&tc);
    chooser.choose(usize::from(starts.len() > 1), |_| true)?;
    let keep = |k: usize| tc.bytes[..starts[k]].to_vec();
    // Invariant: `hi` elements stay interesting (all of them, to begin with); `lo` did not.
    let (mut lo, mut hi) = (0, starts.len());
    let mut k = 1;
    while k < hi {
        if sh.consider(keep(k))? {
            hi = k;
            break;
        }
        lo = k;
        k *= 2;
    }
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if sh.consider(keep(mid))? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(())
}

/// The fewest elements a list needs for [`keep_windows`] to run on it.
const WINDOWS_FROM: usize = 16;

/// Keeps one or two consecutive elements of a long list (at least
/// [`WINDOWS_FROM`] elements) and deletes the rest, a window at a time from
/// the first: where `keep-prefix` left a long list because no short prefix
/// stayed interesting, a short window elsewhere may (a hash of the list:
/// each window is one more short list tried, as likely as a prefix). Lists
/// of a few elements, which deletions and lowering prove, never get it
/// (decision 0095).
pub(crate) fn keep_windows(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let mut starts = element_starts(&tc);
    let n = starts.len();
    starts.push(tc.len());
    let windows: Vec<(usize, usize)> =
        (1..n).flat_map(|i| [(i, 1), (i, 2)]).filter(|&(i, m)| n >= WINDOWS_FROM && i + m <= n).collect();
    let w = chooser.choose(windows.len(), |_| true)?;
    let (i, m) = windows[windows.len() - 1 - w];
    sh.consider(tc.bytes[starts[i]..starts[i + m]].to_vec())?;
    Ok(())
}

/// Where each element begins, in input order; empty unless draws alone
/// describe the input and none is a length (read from the back).
fn element_starts(tc: &TestCase) -> Vec<usize> {
    if !tc.draws_only() || tc.draws.iter().any(|d| d.kind == DrawKind::Len) {
        return Vec::new();
    }
    let kind = tc.draws[0].kind;
    tc.draws.iter().filter(|d| d.kind == kind && !d.span.is_empty()).map(|d| d.span.start).collect()
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{run, u64_list, u64_oracle};

    #[test]
    fn keeps_the_shortest_prefix_of_elements_in_a_few_tests() {
        let mut tests = 0;
        let input: Vec<u8> = (1..=100u64).flat_map(|v| [&[1][..], &v.to_le_bytes()].concat()).collect();
        let (values, _) = u64_list(&run("keep-prefix", &input, u64_oracle(&mut tests, |values| values.len() >= 10)));
        assert_eq!(values, (1..=10).collect::<Vec<u64>>());
        assert!(tests <= 10, "{tests} tests");
    }
}
