//! RLE1 streams: literals, runs, back-references, jumps over junk and detours back into skipped blocks; some end in an error.
//!
//! No `COPY` from distance 0 (the planted panic) and no jump that comes back
//! to where it was (the planted hang): a detour jumps over a block, jumps back
//! into it from just past it, and leaves it by a jump past the back jump.

use planted::rle;

use super::{fill, Records};
use crate::mutate::{self, Rng};

/// Bytes kept for the ending: a cut-off op.
const ENDING: usize = 8;

/// A stream being written: its bytes and how much output its ops make.
#[derive(Debug)]
struct Stream {
    out: Vec<u8>,
    produced: usize,
}

/// An RLE1 stream of at most `len` bytes.
pub(crate) fn draw(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut stream = Stream { out: rle::MAGIC.to_vec(), produced: 0 };
    if fill::<5>(rng, &mut stream, len, ENDING, 16) {
        stream.cut(rng);
    }
    stream.out
}

impl Records for Stream {
    fn written(&self) -> usize {
        self.out.len()
    }

    fn accepted(&mut self, rng: &mut Rng, kind: usize, room: usize) {
        self.op(rng, kind, room);
    }

    /// An op the decoder rejects mid-stream: an unknown op, a copy from before the start, a jump before the start.
    fn rejected(&mut self, rng: &mut Rng) {
        let pos = self.out.len() - rle::MAGIC.len();
        let feasible = [true, self.produced < 255, pos < 128];
        let kinds: Vec<usize> = (0..3).filter(|&kind| feasible[kind]).collect();
        match kinds[rng.below(kinds.len())] {
            1 => {
                let distance = rng.range(self.produced + 1, 255);
                self.out.extend([rle::COPY, distance as u8, rng.byte()]);
            }
            2 => {
                let back = rng.range(pos + 1, 128);
                self.out.extend([rle::JUMP, (-(back as i16)) as u8]);
            }
            _ => {
                let unknown = [0, 4, 6, 0x7f, 0x80, 0xff][rng.below(6)];
                self.out.push(unknown);
            }
        }
    }
}

impl Stream {
    /// An op the decoder accepts, of `kind`, at most `room` (16 or more) bytes long.
    fn op(&mut self, rng: &mut Rng, kind: usize, room: usize) {
        match kind {
            0 => {
                let n = rng.range(1, (room - 2).min(255));
                self.out.extend([rle::LIT, n as u8]);
                self.out.extend(mutate::noise(rng, n));
                self.produced += n;
            }
            2 if self.produced > 0 => {
                let (distance, n) = (rng.range(1, self.produced.min(255)), rng.range(1, 255));
                self.out.extend([rle::COPY, distance as u8, n as u8]);
                self.produced += n;
            }
            3 => {
                let offset = rng.range(2, room.min(127));
                self.out.extend([rle::JUMP, offset as u8]);
                self.out.extend(rng.bytes(offset - 2));
            }
            4 => self.detour(rng, room),
            _ => {
                let n = rng.range(1, 255);
                self.out.extend([rle::RUN, n as u8, rng.byte()]);
                self.produced += n;
            }
        }
    }

    /// `JUMP` over a block to a `JUMP` back into it; the block ends in a `JUMP` past that one.
    fn detour(&mut self, rng: &mut Rng, room: usize) {
        let mut block = Stream { out: Vec::new(), produced: self.produced };
        let most = (room - 6).min(100);
        while block.out.len() + 6 <= most {
            let kind = rng.below(3);
            block.op(rng, kind, most - block.out.len());
        }
        let size = block.out.len() + 2;
        self.out.extend([rle::JUMP, (2 + size) as u8]);
        self.out.extend(block.out);
        self.out.extend([rle::JUMP, 4, rle::JUMP, (-(size as i8)) as u8]);
        self.produced = block.produced;
    }

    /// An ending cut off mid-op: an op without its arguments, or a literal shorter than its count.
    fn cut(&mut self, rng: &mut Rng) {
        let cut: Vec<u8> = match rng.below(5) {
            0 => vec![[rle::LIT, rle::RUN, rle::COPY, rle::JUMP][rng.below(4)]],
            1 => vec![rle::RUN, rng.byte()],
            2 => vec![rle::COPY, 1],
            _ => {
                let (n, some) = (rng.range(ENDING, 255), rng.below(ENDING - 2));
                [vec![rle::LIT, n as u8], rng.bytes(some)].concat()
            }
        };
        self.out.extend(cut);
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::outcomes;

    #[test]
    fn streams_are_safe_stay_within_their_length_and_reach_many_outcomes() {
        let outcomes = outcomes("rle", 8, 64);
        assert_eq!(outcomes.len(), 6, "{outcomes:?}");
    }
}
