//! Value moves made on the reads, not on the bytes: an element deleted with its "one more" flag, `Some(x)` made `None`; each written again in the shortest encoding (an enum's earlier variant: `variants.rs`).
//!
//! Each move deletes whole values from the reads `arbitrary` made
//! ([`tape::reads`]) and may set one flag or tag to zero, then writes what
//! is left with [`tape::write_shortest`]: every length spelled for its new
//! room, so no move is blocked by a field's width, and no byte is cut in
//! two. Where a value ends is what the recording says ([`Values`]): a
//! derived value's draws, a string's length and contents, else one draw.
//! An element or an option's value is the one value after its flag, so a
//! `Vec<Option<u8>>`'s element is its option's flag alone, and stays
//! (decision 0005).

use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::DrawKind;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::tape::{self, Read, View};
use super::super::testcase::TestCase;

/// Where each value that starts at a draw ends (one past its last draw).
pub(super) struct Values {
    /// The outermost value's end, for each draw.
    ends: Vec<usize>,
    /// The innermost derived value's end, for each draw that starts one.
    pub(super) innermost: Vec<Option<usize>>,
}

impl Values {
    /// The values of `tc`'s draws: the outermost derived value starting at
    /// a draw, else a length and the contents after it, else the draw alone.
    pub(super) fn of(tc: &TestCase) -> Self {
        let n = tc.draws.len();
        let mut ends: Vec<usize> = (1..=n).collect();
        for s in 1..n {
            if tc.draws[s - 1].kind == DrawKind::Len && tc.draws[s].kind == DrawKind::Bytes {
                ends[s - 1] = s + 1;
            }
        }
        let mut innermost = vec![None; n];
        for range in tc.draw_ranges.iter().filter(|r| r.start < n) {
            ends[range.start] = ends[range.start].max(range.end);
            let inner: &mut Option<usize> = &mut innermost[range.start];
            *inner = Some(inner.map_or(range.end, |e| e.min(range.end)));
        }
        Values { ends, innermost }
    }

    /// Where the value that starts at draw `s` ends; `None` past the last draw.
    fn end(&self, s: usize) -> Option<usize> {
        self.ends.get(s).copied()
    }
}

/// A move on the reads: draw `zero` read as zero, the draws in `delete` gone.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Move {
    zero: Option<usize>,
    delete: Range<usize>,
}

/// The best test case's reads with `mv` made, in the fewest bytes; `None`
/// when a length no longer fits its room. Written from borrowed reads: no
/// read's bytes are copied but the zeroed one's.
fn apply(tc: &TestCase, reads: &[Read], mv: &Move) -> Option<Vec<u8>> {
    let zeros = match mv.zero.map(|i| &reads[i]) {
        Some(Read::Front(bytes)) => vec![0; bytes.len()],
        _ => Vec::new(),
    };
    let mut edited = Vec::with_capacity(reads.len());
    let mut kinds = Vec::with_capacity(reads.len());
    for (i, (read, draw)) in reads.iter().zip(&tc.draws).enumerate() {
        if mv.delete.contains(&i) {
            continue;
        }
        edited.push(match read {
            Read::Front(_) if mv.zero == Some(i) => View::Front(&zeros),
            read => read.view(),
        });
        kinds.push(draw.kind);
    }
    tape::write_shortest_views(edited, &kinds)
}

/// Chooses a place (from the first), then one of the moves `moves` gives
/// there, and tries it; after a success the same place is chosen again.
fn step(
    sh: &mut Shrinker<'_>,
    chooser: &mut Chooser<'_>,
    places: impl Fn(&TestCase, &Values) -> Vec<usize>,
    moves: impl Fn(&TestCase, &Values, usize) -> Vec<Move>,
) -> StepResult {
    let tc = sh.shared();
    if tc.draws.is_empty() {
        return Err(Halt::Dead);
    }
    let reads = sh.reads().ok_or(Halt::Dead)?;
    let values = Values::of(&tc);
    let at = places(&tc, &values);
    // The chooser goes from its last index down: the first places come first.
    let c = chooser.choose(at.len(), |_| true)?;
    // Each move written out once; one whose lengths no longer fit is no candidate.
    let mut candidates: Vec<Vec<u8>> =
        moves(&tc, &values, at[at.len() - 1 - c]).iter().filter_map(|mv| apply(&tc, &reads, mv)).collect();
    let m = candidates.len();
    let k = chooser.choose(m, |_| true)?;
    if sh.consider(candidates.swap_remove(m - 1 - k))? {
        chooser.resume_at(vec![c]);
    }
    Ok(())
}

/// The "one more" and `Some` flags: one-byte draws that read true; none
/// where draws alone describe the input (a `Vec<u64>`), whose elements
/// `delete-draw-periods` deletes: there a flag read false only cut the list
/// short (decision 0005).
fn flags(tc: &TestCase, _: &Values) -> Vec<usize> {
    if tc.draws_only() {
        return Vec::new();
    }
    (0..tc.draws.len()).filter(|&i| tc.draws[i].reads_true(&tc.bytes)).collect()
}

/// At a flag: the flag and the value after it deleted (an element, where
/// the next flag follows), then the flag read false and the value deleted
/// (`Some(x)` made `None`).
fn flag_moves(tc: &TestCase, values: &Values, i: usize) -> Vec<Move> {
    let n = tc.draws.len();
    let Some(end) = values.end(i + 1) else { return Vec::new() };
    let mut moves = Vec::new();
    if end == n || tc.draws[end].is_byte() {
        moves.push(Move { zero: None, delete: i..end });
    }
    moves.push(Move { zero: Some(i), delete: i + 1..end });
    moves
}

/// Deletes a collection's elements with their flags, or an option's value
/// with its flag read false, on the reads.
pub(crate) fn delete_values(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    step(sh, chooser, flags, flag_moves)
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::typed_properties::{decode, encode_value, Ty, Val};
    use crate::reduce::Verdict;

    /// `(Option<String>, Vec<String>, E, u8)` with `enum E { A, B(String, u8) }`.
    fn ty() -> Ty {
        let e = Ty::Enum("E".into(), vec![vec![], vec![Ty::Str, Ty::Int(1)]]);
        Ty::Struct("T".into(), vec![Ty::Opt(Box::new(Ty::Str)), Ty::Vec(Box::new(Ty::Str)), e, Ty::Int(1)])
    }

    fn value(option: Option<&str>, list: &[&str], e: Val, marker: u128) -> Val {
        let text = |s: &str| Val::Str(s.as_bytes().to_vec());
        let option = Val::Opt(option.map(|s| Box::new(text(s))));
        Val::Struct(vec![option, Val::Vec(list.iter().map(|s| text(s)).collect()), e, Val::Int(marker)])
    }

    /// Interesting when the last field is 7.
    fn oracle(input: &[u8]) -> Verdict {
        match decode(&ty(), input) {
            (Val::Struct(fields), examples) if fields[3] == Val::Int(7) => Verdict::Interesting(examples),
            _ => Verdict::Boring,
        }
    }

    #[test]
    fn an_option_goes_none_and_string_elements_go_with_their_flags() {
        // Byte deletions would cut each of these values in two.
        let input = encode_value(&value(Some("abc"), &["x", "yz"], Val::Enum(0, vec![]), 7), &ty(), &[]);
        let result = run("delete-values", &input, oracle);
        assert_eq!(decode(&ty(), &result).0, value(None, &[], Val::Enum(0, vec![]), 7));
        assert_eq!(result, [0, 0, 0, 0, 0, 0, 7]);
    }
}
