//! Corpus inputs for the raw-bytes parsers behind `triage`: well-formed records up to a length, some broken by an error.
//!
//! Each builder writes its magic, then records the parser accepts (their kinds
//! weighted differently in each input, so inputs differ in which branches they
//! take and how often), until the input is about `len` bytes long. About half
//! the inputs hold one record the parser rejects, somewhere: the parser stops
//! there, and what follows is never read, as in a fuzzer's corpus. None holds
//! a planted bug's trigger; the generator checks that anyway.

pub(crate) mod image;
pub(crate) mod rle;
pub(crate) mod tlv;
pub(crate) mod vm;

use crate::mutate::Rng;

/// The parser called `parser`'s input (magic included) of at most about `len` bytes.
pub(crate) fn draw(parser: &str, rng: &mut Rng, len: usize) -> Vec<u8> {
    match parser {
        "tlv" => tlv::draw(rng, len),
        "image" => image::draw(rng, len),
        "vm" => vm::draw(rng, len),
        "rle" => rle::draw(rng, len),
        _ => unreachable!("no corpus builder for {parser}"),
    }
}

/// An input being written record by record, by [`fill`].
pub(crate) trait Records {
    /// Bytes written so far.
    fn written(&self) -> usize;
    /// A record the parser accepts, of `kind`, at most `room` bytes long.
    fn accepted(&mut self, rng: &mut Rng, kind: usize, room: usize);
    /// A record the parser rejects: it stops there.
    fn rejected(&mut self, rng: &mut Rng);
}

/// Writes `records` until fewer than `ending + least` bytes of `len` are left: records of `N` kinds in the input's
/// own [`mix`], and the rejected one at its [`break_point`]. Returns whether the input is to end cut off mid-record
/// (its break point lay past the last record); `room` leaves `ending` bytes for that.
pub(crate) fn fill<const N: usize>(
    rng: &mut Rng,
    records: &mut impl Records,
    len: usize,
    ending: usize,
    least: usize,
) -> bool {
    let weights = mix::<N>(rng);
    let broken_at = break_point(rng, len);
    let mut broken = false;
    while records.written() + ending + least <= len {
        if !broken && broken_at.is_some_and(|at| records.written() >= at) {
            records.rejected(rng);
            broken = true;
            continue;
        }
        let room = len - ending - records.written();
        let kind = pick(rng, &weights);
        records.accepted(rng, kind, room);
    }
    broken_at.is_some() && !broken
}

/// Where an input of `len` bytes gets its rejected record: nowhere (40%), cut off at the end (`usize::MAX`, never
/// reached: 20%), in the second half (20%), anywhere (10%) or among the first records (10%).
fn break_point(rng: &mut Rng, len: usize) -> Option<usize> {
    match rng.below(10) {
        0..=3 => None,
        4..=5 => Some(usize::MAX),
        6..=7 => Some(rng.range(len / 2, len)),
        8 => Some(rng.below(len + 1)),
        _ => Some(rng.below(len.min(100) + 1)),
    }
}

/// An input's mix of record kinds: a weight from 0 to 4 for each of `N` kinds, one at least 1.
pub(crate) fn mix<const N: usize>(rng: &mut Rng) -> [usize; N] {
    let mut weights = std::array::from_fn(|_| rng.below(5));
    weights[rng.below(N)] += 1;
    weights
}

/// A kind drawn by its weight in `weights` (which do not sum to 0).
pub(crate) fn pick(rng: &mut Rng, weights: &[usize]) -> usize {
    let mut at = rng.below(weights.iter().sum());
    for (kind, &weight) in weights.iter().enumerate() {
        if at < weight {
            return kind;
        }
        at -= weight;
    }
    unreachable!("the weights sum to more than the draw")
}

/// The outcomes of 300 inputs for the parser called `parser`, of `min_len` to 4096 bytes, each checked to stay within
/// its length and to pass the guard.
#[cfg(test)]
pub(crate) fn outcomes(parser: &str, seed: u64, min_len: usize) -> std::collections::BTreeSet<&'static str> {
    let run = planted::target(parser).expect("a planted raw-bytes target").run;
    let mut rng = Rng::new(seed);
    let mut outcomes = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let len = rng.range(min_len, 4096);
        let input = draw(parser, &mut rng, len);
        assert!(input.len() <= len, "{} > {len}", input.len());
        assert_eq!(crate::guard::check(parser, &input), None);
        outcomes.insert(run(&input).map(|()| "ok").unwrap_or_else(|e| e.0));
    }
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_follow_the_weights_and_skip_zero_weights() {
        let mut rng = Rng::new(1);
        let mut counts = [0; 3];
        for _ in 0..1000 {
            counts[pick(&mut rng, &[1, 0, 3])] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!(counts[2] > 2 * counts[0], "{counts:?}");
    }

    #[test]
    fn a_mix_always_has_a_kind_to_pick() {
        let mut rng = Rng::new(2);
        for _ in 0..100 {
            assert!(mix::<4>(&mut rng).iter().sum::<usize>() > 0);
        }
    }
}
