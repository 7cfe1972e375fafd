//! A typed input as the reads `arbitrary` made from it, in order, and written back out: the same reads in new bytes, every length spelled for where it now sits.
//!
//! `arbitrary` reads most values from the front of what is left and the
//! lengths of strings and collections from the back, each modulo what is
//! left then, as wide as that room says (`crate::protocol::layout`).
//! So an input is a sequence of reads ([`Read`]): bytes taken from the front,
//! and length values taken from the back. Written out ([`write`]), the front
//! reads follow one another from the start and the lengths go from the end
//! towards the front, each in the bytes that read its value at its new room.
//! [`shortest`] writes an input's reads in the fewest bytes: no byte the
//! target never read, no zeros at the end that running out of input reads
//! anyway, every length as narrow as its room allows. Reads can also be
//! moved between inputs: [`super::join`] puts one input's collection
//! elements into another's.

use super::draws::{Draw, DrawKind};
use super::respell::len_value;
use super::testcase::TestCase;
use crate::protocol::layout;

/// One read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    /// Bytes taken from the front, as they were.
    Front(Vec<u8>),
    /// A length taken from the back: its value.
    Len(u64),
}

/// The reads `tc`'s draws made, in order; `None` when a length field is
/// not as wide as its room says. A
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

/// A read borrowed for writing: [`write_views`] writes these without copying
/// any read's bytes first (a move on the reads deletes a few and keeps the
/// rest as they are).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View<'a> {
    /// Bytes taken from the front.
    Front(&'a [u8]),
    /// A length taken from the back: its value.
    Len(u64),
}

impl Read {
    /// The read, borrowed.
    pub fn view(&self) -> View<'_> {
        match self {
            Read::Front(bytes) => View::Front(bytes),
            Read::Len(value) => View::Len(*value),
        }
    }
}

/// `reads` borrowed, for a move written with [`write_shortest_views`].
pub fn views(reads: &[Read]) -> Vec<View<'_>> {
    reads.iter().map(Read::view).collect()
}

/// Bytes that `arbitrary` reads as `reads`, in order: front reads one after
/// another from the start, each length from the back at the width its room
/// gives, holding its value. `None` when a length does not fit its room.
pub fn write(reads: &[Read]) -> Option<Vec<u8>> {
    write_views(&views(reads), &[])
}

/// [`write`] with `pad` between the last front read and the first length
/// field: bytes nobody reads, which count in every length's room (tests
/// build a value's padded inputs with it).
pub fn write_padded(reads: &[Read], pad: &[u8]) -> Option<Vec<u8>> {
    write_views(&views(reads), pad)
}

/// [`write_padded`] on borrowed reads.
fn write_views(reads: &[View<'_>], pad: &[u8]) -> Option<Vec<u8>> {
    let (widths, total) = settle(reads, pad.len())?;
    let mut out = vec![0u8; total];
    let (mut cursor, mut end, mut lens) = (0, total, widths.iter());
    for read in reads {
        match *read {
            View::Front(bytes) => {
                out[cursor..cursor + bytes.len()].copy_from_slice(bytes);
                cursor += bytes.len();
            }
            View::Len(value) => {
                let w = *lens.next()?;
                let max = (end - cursor - w) as u64;
                if value > max {
                    return None;
                }
                out[end - w..end].copy_from_slice(&layout::encode_len(value, w, max));
                end -= w;
            }
        }
    }
    out[cursor..end].copy_from_slice(pad);
    Some(out)
}

fn front_len(read: &View<'_>) -> usize {
    match read {
        View::Front(bytes) => bytes.len(),
        View::Len(_) => 0,
    }
}

/// Each length's width once every field is as wide as its room says, the
/// narrowest such widths (from none up: the room counts the fields after
/// it, and a wider field only widens those before it), and the input's
/// size then, with `pad` unread bytes between the front reads and the fields.
fn settle(reads: &[View<'_>], pad: usize) -> Option<(Vec<usize>, usize)> {
    let front = reads.iter().map(front_len).sum::<usize>() + pad;
    let count = reads.iter().filter(|r| matches!(r, View::Len(_))).count();
    let mut widths = vec![0; count];
    for _ in 0..64 {
        let total = front + widths.iter().sum::<usize>();
        // Rooms from the widths assumed, so that they add up to the total.
        let (mut taken, mut assumed, mut settled) = (0, widths.iter(), Vec::with_capacity(count));
        for read in reads {
            match read {
                View::Front(bytes) => taken += bytes.len(),
                View::Len(_) => {
                    settled.push(layout::len_width(total - taken));
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

/// `tc`'s reads in the fewest bytes ([`write`] after [`drop_zero_tail`]),
/// and whether that drops more than zeros at the end (bytes never read, or
/// lengths narrowed); `None` when its lengths do not fit the model.
pub fn shortest(tc: &TestCase) -> Option<(Vec<u8>, bool)> {
    let reads = reads(tc)?;
    let views = views(&reads);
    let compact = settle(&views, 0)?.1 < tc.len();
    let kinds: Vec<DrawKind> = tc.draws.iter().map(|d| d.kind).collect();
    Some((write_shortest_views(views, &kinds)?, compact))
}

/// `reads`, made by draws of `kinds` (one each), in the fewest bytes:
/// [`write`] after [`drop_zero_tail`].
pub fn write_shortest(reads: &[Read], kinds: &[DrawKind]) -> Option<Vec<u8>> {
    write_shortest_views(views(reads), kinds)
}

/// [`write_shortest`] on borrowed reads.
pub fn write_shortest_views(mut reads: Vec<View<'_>>, kinds: &[DrawKind]) -> Option<Vec<u8>> {
    drop_zero_tail(&mut reads, kinds);
    write_views(&reads, &[])
}

/// Empties the reads at the end that running out of input gives anyway:
/// integers read zeros past the end (the last one keeps only its bytes up to
/// its last non-zero one), a range reads its start, a length zero, contents
/// nothing. Stops at the first read (from the end) that needs a byte.
fn drop_zero_tail(reads: &mut [View<'_>], kinds: &[DrawKind]) {
    for (read, kind) in reads.iter_mut().zip(kinds).rev() {
        let bytes = match read {
            View::Len(0) => continue,
            View::Len(_) => return,
            View::Front(bytes) => bytes,
        };
        let zeros = bytes.iter().rev().take_while(|&&b| b == 0).count();
        match kind {
            DrawKind::Int { .. } => *bytes = &bytes[..bytes.len() - zeros],
            DrawKind::Range if zeros == bytes.len() => *bytes = &[],
            _ => {}
        }
        if !bytes.is_empty() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::Example;
    use layout::{decode_len as decode, len_width as width};

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
            let w = width(left);
            assert_eq!(decode(&bytes[left - w..left], (left - w) as u64), 0);
            left -= w;
        }
        assert_eq!(left, 230);
        assert_eq!(bytes.len(), 230 + 40 + 14, "the first 14 fields see more than 256 bytes left");
    }

    /// A `u32`, a string and a flag as `arbitrary` reads them from `bytes`,
    /// with `unread` bytes nobody reads between the front and the back.
    fn flag_after_string(text: &[u8], flag: u8, unread: usize) -> TestCase {
        let mut reads = vec![Read::Front(vec![7, 0, 0, 0]), Read::Len(text.len() as u64), Read::Front(text.to_vec())];
        reads.push(Read::Front(vec![flag]));
        let mut bytes = write(&reads).expect("fits");
        let back = bytes.split_off(4 + text.len() + 1);
        bytes.extend(std::iter::repeat_n(0xff, unread));
        // The length written again as wide as the room the unread bytes give it.
        assert_eq!(back.len(), 1);
        let width = [1, 2, 4].into_iter().find(|&w| width(bytes.len() + w - 4) == w).expect("a width");
        let field = layout::encode_len(text.len() as u64, width, (bytes.len() - 4) as u64);
        let (cursor, len) = (4, bytes.len() + width);
        bytes.extend(field);
        let examples = vec![
            Example::new(0..4, len..len, "draw:le:4", 1),
            Example::new(cursor..cursor, bytes.len() - width..bytes.len(), "draw:len", 1),
            Example::new(4..4 + text.len(), len..len, "draw:bytes", 1),
            Example::new(4 + text.len()..5 + text.len(), len..len, "draw:le:1", 1),
        ];
        TestCase::new(bytes, examples)
    }

    #[test]
    fn the_shortest_encoding_drops_unread_bytes_and_narrows_lengths_at_every_width() {
        for unread in [0, 10, 300, 70_000] {
            let tc = flag_after_string(b"ab", 1, unread);
            assert_eq!(reads(&tc).expect("fits the model")[1], Read::Len(2), "{unread} unread");
            let (shortest, compact) = shortest(&tc).expect("fits");
            assert_eq!(shortest, [7, 0, 0, 0, b'a', b'b', 1, 2], "{unread} unread");
            assert_eq!(compact, unread > 0, "{unread} unread");
        }
    }

    #[test]
    fn zeros_that_running_out_of_input_reads_are_dropped_from_the_end() {
        // The flag reads false and the integer's high bytes are zeros: both
        // read the same from an input that ends before them.
        let tc = flag_after_string(b"", 0, 0);
        assert_eq!(shortest(&tc).expect("fits").0, [7]);
        // A range's bytes stay unless all of them are zero (fewer bytes read otherwise).
        let reads = vec![Read::Front(vec![1, 0])];
        let tc = TestCase::new(vec![1, 0], vec![Example::new(0..2, 2..2, "draw:range", 1)]);
        assert_eq!(write(&reads), Some(vec![1, 0]));
        assert_eq!(shortest(&tc).expect("fits").0, [1, 0]);
    }

    #[test]
    fn a_short_integer_read_is_completed_with_zeros() {
        let tc = TestCase::new(vec![9, 8], vec![Example::new(0..2, 2..2, "draw:le:4", 1)]);
        assert_eq!(super::reads(&tc), Some(vec![Read::Front(vec![9, 8, 0, 0])]));
    }
}
