//! Cloning: replace an example by a simpler example of the same type found elsewhere in the input (or inside it).

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::{replace_ranges, shortlex, TestCase};
use super::by_size;

/// How many of the simplest same-label examples are offered as replacements.
const MAX_SOURCES: usize = 8;

/// Chooses an example, most complex first, then one of the simplest other
/// examples with the same label, and puts the simpler one's bytes in its
/// place (front span into front span, back into back). Replacing a value by
/// one of its own descendants shrinks recursive structures by whole levels.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.best().clone();
    let contents: Vec<(Vec<u8>, Vec<u8>)> =
        tc.examples.iter().map(|e| (tc.bytes[e.front.clone()].to_vec(), tc.bytes[e.back.clone()].to_vec())).collect();
    let targets = by_size(&tc.examples, |i| !sources(&tc, &contents, i).is_empty());
    let target = targets[chooser.choose(targets.len(), |_| true)?];
    let sources = sources(&tc, &contents, target);
    // Reverse order meets the simplest source first.
    let source = sources[sources.len() - 1 - chooser.choose(sources.len(), |_| true)?];
    let t = &tc.examples[target];
    let (front, back) = &contents[source];
    let candidate = replace_ranges(&tc.bytes, &[(t.front.clone(), front), (t.back.clone(), back)]);
    sh.consider(candidate)?;
    Ok(())
}

/// The simplest examples with `target`'s label whose contents are simpler
/// than its own, one per distinct content, simplest first.
fn sources(tc: &TestCase, contents: &[(Vec<u8>, Vec<u8>)], target: usize) -> Vec<usize> {
    let joined = |i: usize| [contents[i].0.as_slice(), contents[i].1.as_slice()].concat();
    let own = joined(target);
    let mut found: Vec<(Vec<u8>, usize)> = (0..tc.examples.len())
        .filter(|&i| tc.examples[i].label == tc.examples[target].label)
        .map(|i| (joined(i), i))
        .filter(|(c, _)| shortlex(c, &own).is_lt())
        .collect();
    found.sort_by(|a, b| shortlex(&a.0, &b.0).then(a.1.cmp(&b.1)));
    found.dedup_by(|a, b| a.0 == b.0);
    found.truncate(MAX_SOURCES);
    found.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::run;
    use crate::reduce::{Example, Verdict};

    #[test]
    fn replaces_a_value_by_its_simplest_descendant() {
        // A chain of nested nodes, each owning the rest of the input.
        let oracle = |input: &[u8]| {
            let n = input.len();
            let examples = (0..n).map(|i| Example::new(i..n, n..n, "Node", i as u32)).collect();
            if input.last() == Some(&1) {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        assert_eq!(run("replace-with-simpler", &[7, 9, 4, 1], oracle), [1]);
    }
}
