//! Marked inputs ("UAF!" and a note): a use after free that
//! AddressSanitizer reports only while it holds freed memory back.
//!
//! An input is the magic, a mark (`!` or `#`), then a note of any bytes,
//! which nothing reads. Both marks take a live buffer and the address of a
//! freed one through the same calls (so the same stack depth). The planted
//! bug: a `!` whose note is shorter than [`SHORT_NOTE`] reads the freed
//! buffer. AddressSanitizer's default build keeps freed memory out of use
//! for a while (its quarantine), so the read is a heap-use-after-free; with
//! `quarantine_size_mb=0` the allocator hands the same memory to the live
//! buffer at once, the read sees it, and nothing is reported. The choice
//! is made without a branch, so a `!` input covers the same code with the
//! bug or without.

use std::hint::black_box;

use crate::{Error, Result};

/// The file's first three bytes.
pub const MAGIC: &[u8; 3] = b"UAF";

/// A `!` with a note shorter than this is the planted bug.
pub const SHORT_NOTE: usize = 8;

/// The first byte of the buffer the input picks (see the module's doc).
pub fn mark(data: &[u8]) -> Result<u8> {
    let rest = data.strip_prefix(MAGIC).ok_or(Error("freed: bad magic"))?;
    let (&mark, note) = rest.split_first().ok_or(Error("freed: no mark"))?;
    let (live, freed) = buffers();
    match mark {
        b'!' => {
            // The planted bug: with a short note, the freed buffer is read.
            let source = black_box([live.as_ptr(), freed])[usize::from(note.len() < SHORT_NOTE)];
            // SAFETY: not quite: see above.
            Ok(unsafe { source.read_volatile() })
        }
        b'#' => Ok(live[0]),
        _ => Err(Error("freed: not a mark")),
    }
}

/// A live buffer, and the address of one freed just before it was made.
#[inline(never)]
fn buffers() -> (Vec<u8>, *const u8) {
    let scratch = black_box(vec![0u8; 48]);
    let freed = scratch.as_ptr();
    drop(scratch);
    (black_box(vec![1u8; 48]), freed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_input_reads_the_live_buffer_unless_it_is_the_planted_bug() {
        assert_eq!(mark(b"UAF!a long note"), Ok(1));
        assert_eq!(mark(b"UAF#"), Ok(1));
        assert_eq!(mark(b"UAF?"), Err(Error("freed: not a mark")));
        assert_eq!(mark(b"UAF"), Err(Error("freed: no mark")));
        assert_eq!(mark(b"IDX1"), Err(Error("freed: bad magic")));
    }
}
