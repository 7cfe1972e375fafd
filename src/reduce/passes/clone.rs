//! Cloning: replace an example by a simpler example of the same type found elsewhere in the input (or inside it).

use std::collections::HashMap;

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::{replace_ranges, shortlex};
use super::by_size;

/// How many of the simplest same-label examples are offered as replacements.
const MAX_SOURCES: usize = 8;

/// Chooses an example, most complex first, then one of the simplest other
/// examples with the same label, and puts the simpler one's bytes in its
/// place (front span into front span, back into back). Replacing a value by
/// one of its own descendants shrinks recursive structures by whole levels.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let joined: Vec<Vec<u8>> = tc.examples.iter().map(|e| e.content(&tc.bytes)).collect();
    // Per label, its examples from the simplest content to the most complex.
    let mut by_label: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in tc.examples.iter().enumerate() {
        by_label.entry(&e.label).or_default().push(i);
    }
    for members in by_label.values_mut() {
        members.sort_by(|&a, &b| shortlex(&joined[a], &joined[b]).then(a.cmp(&b)));
    }
    let simplest = |i: usize| &joined[by_label[&*tc.examples[i].label][0]];
    let targets = by_size(&tc.examples, |i| shortlex(simplest(i), &joined[i]).is_lt());
    let target = targets[chooser.choose(targets.len(), |_| true)?];
    let mut sources: Vec<usize> = by_label[&*tc.examples[target].label]
        .iter()
        .copied()
        .take_while(|&i| shortlex(&joined[i], &joined[target]).is_lt())
        .collect();
    sources.dedup_by(|a, b| joined[*a] == joined[*b]);
    sources.truncate(MAX_SOURCES);
    // Reverse order meets the simplest source first.
    let source = sources[sources.len() - 1 - chooser.choose(sources.len(), |_| true)?];
    let t = &tc.examples[target];
    let s = &tc.examples[source];
    let candidate = replace_ranges(
        &tc.bytes,
        &[(t.front.clone(), &tc.bytes[s.front.clone()]), (t.back.clone(), &tc.bytes[s.back.clone()])],
    );
    sh.consider(candidate)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
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
