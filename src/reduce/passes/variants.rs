//! `switch-variants`: an enum made an earlier variant, with exactly the fields that variant reads, each at its simplest, learnt from a run that read them.
//!
//! A derived enum reads a `u32` tag, its variant `(tag * n) >> 32` of `n`,
//! then that variant's fields. The fields of another variant are in no
//! recording of the best, so no move on the best's reads can write them. The
//! move here writes the tag of an earlier variant with the old fields
//! deleted (what follows is read as the new fields: a variant without
//! fields is then done) and, when that run is boring, takes the fields the
//! run read from its recording, writes each at its simplest (zeros, empty
//! contents) between the tag and what followed the old fields, and runs
//! that (again, while the fields read differ from those written, up to
//! [`ROUNDS`] times). `n` is not recorded: the tags tried are every
//! variant's first for `n` up to [`MOST_VARIANTS`], and those of the
//! variants before the tag's own when it is one's first for a larger `n`
//! (decision 0094).

use super::super::choice::Chooser;
use super::super::draws::DrawKind;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::tape::{self, Read, View};
use super::super::testcase::TestCase;
use super::values::Values;

/// The variant counts whose every first tag is tried.
const MOST_VARIANTS: u64 = 8;

/// The most times the fields are written again after a run read others.
const ROUNDS: usize = 3;

/// Chooses an enum's tag (from the first), then a smaller tag (the least
/// first), and tries that variant with its fields at their simplest.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let reads = sh.reads().ok_or(Halt::Dead)?;
    let values = Values::of(&tc);
    let at = tags(&tc, &values);
    let c = chooser.choose(at.len(), |_| true)?;
    let (t, tag) = at[at.len() - 1 - c];
    let smaller = earlier_tags(tag);
    let k = chooser.choose(smaller.len(), |_| true)?;
    let y = smaller[smaller.len() - 1 - k];
    let end = values.innermost[t].expect("a tag starts a derived value");
    let kinds: Vec<DrawKind> = tc.draws.iter().map(|d| d.kind).collect();
    let write = |fields: &[(Read, DrawKind)]| {
        let tag = y.to_le_bytes();
        let mut all = tape::views(&reads[..t]);
        all.push(View::Front(&tag));
        all.extend(fields.iter().map(|(read, _)| read.view()));
        all.extend(tape::views(&reads[end..]));
        let kinds: Vec<DrawKind> =
            kinds[..=t].iter().copied().chain(fields.iter().map(|f| f.1)).chain(kinds[end..].iter().copied()).collect();
        tape::write_shortest_views(all, &kinds)
    };
    let mut written: Vec<(Read, DrawKind)> = Vec::new();
    for _ in 0..=ROUNDS {
        let Some(candidate) = write(&written) else { break };
        let (better, run) = sh.consider_learning(candidate)?;
        if better {
            chooser.resume_at(vec![c]);
            return Ok(());
        }
        let Some(fields) = run.and_then(|run| fields_read(&run, t)) else { break };
        let simplest = simplest(fields);
        if simplest == written {
            break;
        }
        written = simplest;
    }
    Ok(())
}

/// The draws that read as a derived enum's tag other than the first (a
/// four-byte integer of 2^24 or more that starts a derived value: smaller
/// values are more often a struct's first `u32`), with their tags. A
/// variant without fields is one: an earlier one may have none either.
fn tags(tc: &TestCase, values: &Values) -> Vec<(usize, u32)> {
    let tag = |t: usize| {
        let draw = &tc.draws[t];
        let value = draw.value(&tc.bytes).filter(|&v| v >= 1 << 24)?;
        (draw.kind == (DrawKind::Int { width: 4 })).then(|| u32::try_from(value).ok()).flatten()
    };
    (0..tc.draws.len()).filter(|&t| values.innermost[t].is_some()).filter_map(|t| tag(t).map(|v| (t, v))).collect()
}

/// The first tag of variant `w` of `n`.
fn first_tag(w: u64, n: u64) -> u64 {
    (w << 32).div_ceil(n)
}

/// The tags below `tag` that start a variant: every variant's first for
/// up to [`MOST_VARIANTS`] variants, and when `tag` is variant `v`'s first
/// of `n` for a larger `n` (the least such), the firsts of the variants
/// before it. Least first.
fn earlier_tags(tag: u32) -> Vec<u32> {
    let tag = u64::from(tag);
    let own = (1..=64).find_map(|n| (1..n).find(|&v| first_tag(v, n) == tag).map(|v| (v, n)));
    let mut firsts: Vec<u64> = (1..=MOST_VARIANTS).flat_map(|n| (0..n).map(move |w| first_tag(w, n))).collect();
    if let Some((v, n)) = own.filter(|&(_, n)| n > MOST_VARIANTS) {
        firsts.extend((0..v).map(|w| first_tag(w, n)));
    }
    firsts.retain(|&y| y < tag);
    firsts.sort_unstable();
    firsts.dedup();
    firsts.into_iter().map(|y| u32::try_from(y).expect("below a u32 tag")).collect()
}

/// The reads of the fields that the enum whose tag is draw `t` read in `run`.
fn fields_read(run: &TestCase, t: usize) -> Option<Vec<(Read, DrawKind)>> {
    let end = Values::of(run).innermost.get(t).copied().flatten()?;
    let reads = tape::reads(run)?;
    Some((t + 1..end).map(|i| (reads[i].clone(), run.draws[i].kind)).collect())
}

/// Each read at its simplest: a length zero and the contents after it
/// empty, other bytes zeros.
fn simplest(fields: Vec<(Read, DrawKind)>) -> Vec<(Read, DrawKind)> {
    let mut after_len = false;
    fields
        .into_iter()
        .map(|(read, kind)| {
            let simple = match read {
                Read::Len(_) => Read::Len(0),
                Read::Front(_) if after_len && kind == DrawKind::Bytes => Read::Front(Vec::new()),
                Read::Front(bytes) => Read::Front(vec![0; bytes.len()]),
            };
            after_len = kind == DrawKind::Len;
            (simple, kind)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::typed_properties::{decode, encode_value, Recorder, Ty, Val};
    use crate::reduce::{run_pass, ReduceOptions, Verdict};

    /// `(E, u8)` with `enum E { A(String, Option<u16>), B(u16, Vec<u8>), C }`.
    fn ty() -> Ty {
        let e = Ty::Enum(
            "E".into(),
            vec![vec![Ty::Str, Ty::Opt(Box::new(Ty::Int(2)))], vec![Ty::Int(2), Ty::Vec(Box::new(Ty::Int(1)))], vec![]],
        );
        Ty::Struct("T".into(), vec![e, Ty::Int(1)])
    }

    /// Runs the pass alone from `e` then 7, interesting while the last field is 7.
    fn switched(e: Val, recording: bool) -> Val {
        let ty = ty();
        let input = encode_value(&Val::Struct(vec![e, Val::Int(7)]), &ty, &[]);
        let holds = |v: &Val| matches!(v, Val::Struct(f) if f[1] == Val::Int(7));
        let initial = TestCase::new(input.clone(), decode(&ty, &input).1);
        let options = ReduceOptions::default();
        let result = if recording {
            run_pass("switch-variants", initial, Recorder::new(&ty, holds), &options)
        } else {
            let oracle = |s: &[u8]| {
                let (value, examples) = decode(&ty, s);
                if holds(&value) {
                    Verdict::Interesting(examples)
                } else {
                    Verdict::Boring
                }
            };
            run_pass("switch-variants", initial, oracle, &options)
        };
        decode(&ty, &result.expect("a known pass").best.bytes).0
    }

    #[test]
    fn an_enum_becomes_its_first_variant_with_the_fields_a_run_read_at_their_simplest() {
        let b = Val::Enum(1, vec![Val::Int(300), Val::Vec(vec![Val::Int(5), Val::Int(6)])]);
        let first = Val::Enum(0, vec![Val::Str(Vec::new()), Val::Opt(None)]);
        assert_eq!(switched(b.clone(), true), Val::Struct(vec![first, Val::Int(7)]));
        // Without what a boring run recorded, the fields of `A` read the 7 and no switch is left.
        assert_eq!(switched(b.clone(), false), Val::Struct(vec![b, Val::Int(7)]));
    }

    #[test]
    fn a_variant_without_fields_goes_to_the_first_with_none_and_no_further() {
        let c = Val::Enum(2, Vec::new());
        assert_eq!(switched(c, true), Val::Struct(vec![Val::Enum(2, Vec::new()), Val::Int(7)]), "A and B are longer");
    }

    #[test]
    fn the_earlier_tags_are_every_variants_first_below_the_tag() {
        // Variant 1 of 2: the firsts below a half.
        let half = earlier_tags(1 << 31);
        assert_eq!(half[0], 0);
        assert!(half.contains(&0x5555_5556) && half.contains(&0x4000_0000), "a third, a quarter");
        assert!(half.iter().all(|&y| y < 1 << 31));
        // Variant 9 of 10: variants 0 to 8 of 10 among them.
        let tag = u32::try_from(first_tag(9, 10)).unwrap();
        let tenths = earlier_tags(tag);
        assert!((0..9).all(|w| tenths.contains(&u32::try_from(first_tag(w, 10)).unwrap())));
    }
}
