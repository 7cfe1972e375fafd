//! TLV1 files: names, tables, indexes into them, padding, checksums and unknown chunks; then `END`, an error or the file's end.

use planted::tlv;

use super::{fill, Records};
use crate::mutate::Rng;
use crate::text::text;

/// Bytes kept for the ending: an `END` chunk and a little junk after it, or a cut-off chunk.
const ENDING: usize = 8;

/// A file being written, with the state the parser keeps: the last table's length and the previous payload's sum.
#[derive(Debug)]
struct File {
    out: Vec<u8>,
    table: Option<usize>,
    sum: u32,
}

/// A TLV1 file of at most `len` bytes.
pub(crate) fn draw(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut file = File { out: tlv::MAGIC.to_vec(), table: None, sum: 0 };
    if fill::<6>(rng, &mut file, len, ENDING, 8) {
        file.cut(rng);
    } else {
        file.end(rng);
    }
    file.out
}

impl File {
    fn chunk(&mut self, tag: u8, payload: &[u8]) {
        self.out.push(tag);
        self.out.extend((payload.len() as u16).to_le_bytes());
        self.out.extend(payload);
        self.sum = payload.iter().map(|&b| u32::from(b)).sum();
    }

    /// A clean ending: an `END` chunk (with junk after it, never read) or just the end of the file.
    fn end(&mut self, rng: &mut Rng) {
        if rng.one_in(3) {
            return;
        }
        self.chunk(tlv::END, &[]);
        let junk = rng.below(ENDING - 2);
        self.out.extend(rng.bytes(junk));
    }

    /// An ending cut off mid-chunk: a truncated header, or a payload shorter than its length says.
    fn cut(&mut self, rng: &mut Rng) {
        self.out.push(rng.range(1, 255) as u8);
        if rng.one_in(2) {
            let junk = rng.below(2);
            self.out.extend(rng.bytes(junk));
        } else {
            let declared = rng.range(8, 0xffff);
            self.out.extend((declared as u16).to_le_bytes());
            let some = rng.below(ENDING - 3);
            self.out.extend(rng.bytes(some));
        }
    }
}

impl Records for File {
    fn written(&self) -> usize {
        self.out.len()
    }

    /// A chunk the parser accepts, of `kind`, at most `room` (8 or more) bytes long with its header.
    fn accepted(&mut self, rng: &mut Rng, kind: usize, room: usize) {
        let most = room - 3;
        match kind {
            0 => self.chunk(tlv::NAME, text(rng, most.min(48)).as_bytes()),
            1 => {
                let count = rng.below(((most - 1) / 4).min(255) + 1);
                let values: Vec<u8> = (0..count).flat_map(|_| value(rng).to_le_bytes()).collect();
                self.chunk(tlv::TABLE, &[&[count as u8], values.as_slice()].concat());
                self.table = Some(count);
            }
            2 if self.table.is_some_and(|len| len > 0) => {
                let len = self.table.unwrap_or(1);
                let indices: Vec<u8> = (0..rng.range(1, most.min(64))).map(|_| rng.below(len) as u8).collect();
                self.chunk(tlv::INDEX, &indices);
            }
            3 => self.chunk(tlv::CHECK, &self.sum.to_le_bytes()),
            4 => {
                let n = rng.below(most.min(256) + 1);
                let padding = if rng.one_in(2) { vec![0; n] } else { rng.bytes(n) };
                self.chunk(tlv::PAD, &padding);
            }
            _ => {
                let tag = rng.range(usize::from(tlv::CHECK) + 1, 255) as u8;
                let n = rng.below(most.min(64) + 1);
                let payload = rng.bytes(n);
                self.chunk(tag, &payload);
            }
        }
    }

    /// A chunk the parser rejects, which stops it (never an index equal to the table's length: that is the bug).
    fn rejected(&mut self, rng: &mut Rng) {
        match (rng.below(6), self.table) {
            (0, _) => self.chunk(tlv::TABLE, &[]),
            (1, _) => {
                let count = rng.range(1, 8);
                let extra = rng.range(1, 3);
                let payload = [&[count as u8], rng.bytes(4 * count + extra).as_slice()].concat();
                self.chunk(tlv::TABLE, &payload);
            }
            (2, _) => {
                let bad: &[u8] = [&b"\xff"[..], b"\xc3", b"\xed\xa0\x80", b"\x80abc"][rng.below(4)];
                self.chunk(tlv::NAME, &[text(rng, 16).as_bytes(), bad].concat());
            }
            (3, None) => {
                let n = rng.range(1, 4);
                self.chunk(tlv::INDEX, &rng.bytes(n));
            }
            (3, Some(len)) if len < 255 => self.chunk(tlv::INDEX, &[rng.range(len + 1, 255) as u8]),
            (4, _) => {
                let n = [0, 1, 2, 3, 5, 8][rng.below(6)];
                self.chunk(tlv::CHECK, &rng.bytes(n));
            }
            _ => {
                let wrong = self.sum.wrapping_add(rng.range(1, 1000) as u32);
                self.chunk(tlv::CHECK, &wrong.to_le_bytes());
            }
        }
    }
}

/// A table value: small, a round number, or any.
fn value(rng: &mut Rng) -> u32 {
    match rng.below(3) {
        0 => rng.below(100) as u32,
        1 => 1 << rng.below(32),
        _ => rng.next_u64() as u32,
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::outcomes;

    #[test]
    fn files_stay_within_their_length_and_reach_many_outcomes() {
        let outcomes = outcomes("tlv", 5, 64);
        assert!(outcomes.len() >= 8, "{outcomes:?}");
    }
}
