//! A typed input as the reads `arbitrary` made from it, in order, and written back out: the same reads in new bytes, every length spelled for where it now sits.
//!
//! `arbitrary` reads most values from the front of what is left and the
//! lengths of strings and collections from the back, each modulo what is
//! left then, one or two bytes wide by that room (see [`super::respell`]).
//! So an input is a sequence of reads ([`Read`]): bytes taken from the front,
//! and length values taken from the back. Written out ([`write`]), the front
//! reads follow one another from the start and the lengths go from the end
//! towards the front, each in the bytes that read its value at its new room.
//! Reads can then be moved between inputs: [`super::join`] puts one input's
//! collection elements into another's.

use super::draws::{Draw, DrawKind};
use super::respell::{encode, len_value, width};
use super::testcase::TestCase;

/// One read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    /// Bytes taken from the front, as they were.
    Front(Vec<u8>),
    /// A length taken from the back: its value.
    Len(u64),
}

/// The reads `tc`'s draws made, in order; `None` when a length field does
/// not fit the model (four bytes wide, or not as wide as its room says). A
/// fixed-width integer read short at the end of the input is completed with
/// zeros (`arbitrary` reads the missing bytes as zeros), so it reads the
/// same wherever more bytes follow it.
pub fn reads(tc: &TestCase) -> Option<Vec<Read>> {
    tc.draws.iter().map(|draw| read(&tc.bytes, draw)).collect()
}

fn read(bytes: &[u8], draw: &Draw) -> Option<Read> {
    let field = bytes.get(draw.span.clone())?;
    match draw.kind {
        DrawKind::Len => len_value(bytes, draw).map(Read::Len),
        DrawKind::Int { width } => {
            let mut field = field.to_vec();
            field.resize(field.len().max(usize::from(width)), 0);
            Some(Read::Front(field))
        }
        DrawKind::Range | DrawKind::Bytes => Some(Read::Front(field.to_vec())),
    }
}

/// Bytes that `arbitrary` reads as `reads`, in order: front reads one after
/// another from the start, each length from the back at the width its room
/// gives, holding its value. `None` when a length does not fit its room or
/// needs a four-byte field.
pub fn write(reads: &[Read]) -> Option<Vec<u8>> {
    let (widths, total) = settle(reads)?;
    let mut out = vec![0u8; total];
    let (mut cursor, mut end, mut lens) = (0, total, widths.iter());
    for read in reads {
        match read {
            Read::Front(bytes) => {
                out[cursor..cursor + bytes.len()].copy_from_slice(bytes);
                cursor += bytes.len();
            }
            Read::Len(value) => {
                let w = *lens.next()?;
                let max = (end - cursor - w) as u64;
                if *value > max {
                    return None;
                }
                out[end - w..end].copy_from_slice(&encode(*value, w, max));
                end -= w;
            }
        }
    }
    Some(out)
}

fn front_len(read: &Read) -> usize {
    match read {
        Read::Front(bytes) => bytes.len(),
        Read::Len(_) => 0,
    }
}

/// Each length's width once every field is as wide as its room says (the
/// room counts the fields after it, so until nothing changes), and the
/// input's size then.
fn settle(reads: &[Read]) -> Option<(Vec<usize>, usize)> {
    let front: usize = reads.iter().map(front_len).sum();
    let count = reads.iter().filter(|r| matches!(r, Read::Len(_))).count();
    let mut widths = vec![1; count];
    for _ in 0..8 {
        let total = front + widths.iter().sum::<usize>();
        // Rooms from the widths assumed, so that they add up to the total.
        let (mut taken, mut assumed, mut settled) = (0, widths.iter(), Vec::with_capacity(count));
        for read in reads {
            match read {
                Read::Front(bytes) => taken += bytes.len(),
                Read::Len(_) => {
                    settled.push(width(total - taken)?);
                    taken += assumed.next()?;
                }
            }
        }
        if settled == widths {
            return Some((widths, total));
        }
        widths = settled;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::respell::decode;
    use crate::reduce::Example;

    #[test]
    fn reads_written_out_read_the_same() {
        // "ab" then "cde": lengths 2 and 3 at the back, one byte each.
        let reads = vec![Read::Len(2), Read::Front(b"ab".to_vec()), Read::Len(3), Read::Front(b"cde".to_vec())];
        let bytes = write(&reads).expect("fits");
        assert_eq!(bytes, b"abcde\x03\x02");
        let examples = vec![
            Example::new(0..0, 6..7, "draw:len", 1),
            Example::new(0..2, 6..6, "draw:bytes", 1),
            Example::new(2..2, 5..6, "draw:len", 1),
            Example::new(2..5, 5..5, "draw:bytes", 1),
        ];
        assert_eq!(super::reads(&TestCase::new(bytes, examples)), Some(reads));
    }

    #[test]
    fn lengths_widen_with_the_room_and_must_fit_it() {
        let reads = vec![Read::Len(300), Read::Front(vec![7; 300])];
        let bytes = write(&reads).expect("fits");
        assert_eq!(bytes.len(), 302, "a two-byte field: 301 bytes were left");
        assert_eq!(&bytes[300..], [0x01, 0x2c]);
        assert_eq!(write(&[Read::Len(5), Read::Front(vec![1; 3])]), None, "5 does not fit in 3");
    }

    #[test]
    fn fields_after_a_widened_one_take_their_rooms_from_it() {
        // Two lengths then their contents, 300 bytes: both fields two bytes wide.
        let reads = vec![Read::Len(3), Read::Len(297), Read::Front(vec![1; 3]), Read::Front(vec![2; 297])];
        let bytes = write(&reads).expect("fits");
        assert_eq!(bytes.len(), 304);
        // Read back as `arbitrary` does: 304 bytes left, then 302.
        assert_eq!(decode(&bytes[302..304], 302), 3);
        assert_eq!(decode(&bytes[300..302], 300), 297);
        // Many fields crossing the one-byte limit as they widen.
        let many: Vec<Read> = (0..40).map(|_| Read::Len(0)).chain([Read::Front(vec![0; 230])]).collect();
        let bytes = write(&many).expect("fits");
        // Read back: each field as wide as what is left says, and the last ends where the contents do.
        let mut left = bytes.len();
        for _ in 0..40 {
            let w = width(left).expect("small");
            assert_eq!(decode(&bytes[left - w..left], (left - w) as u64), 0);
            left -= w;
        }
        assert_eq!(left, 230);
        assert_eq!(bytes.len(), 230 + 40 + 14, "the first 14 fields see more than 256 bytes left");
    }

    #[test]
    fn a_short_integer_read_is_completed_with_zeros() {
        let tc = TestCase::new(vec![9, 8], vec![Example::new(0..2, 2..2, "draw:le:4", 1)]);
        assert_eq!(super::reads(&tc), Some(vec![Read::Front(vec![9, 8, 0, 0])]));
    }
}
