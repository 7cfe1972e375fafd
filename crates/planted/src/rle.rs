//! A tiny run-length / back-reference decompressor ("RLE1").
//!
//! Ops: `LIT n bytes..` copies n bytes; `RUN n b` repeats b n times; `COPY d n`
//! copies n bytes from d bytes back in the output; `JUMP o` moves the read
//! position by the signed offset o, counted from the `JUMP` op itself (for
//! chained blocks). Output is capped at [`MAX_OUTPUT`].
//!
//! Two planted bugs: a `JUMP` whose offset is 0 (or a cycle of jumps that
//! writes nothing) loops forever; a `COPY` with distance 0 reads one past the
//! end of the output and panics.

use crate::{Error, Result};

/// The file's first four bytes.
pub const MAGIC: &[u8; 4] = b"RLE1";
/// Copy literal bytes.
pub const LIT: u8 = 0x01;
/// Repeat one byte.
pub const RUN: u8 = 0x02;
/// Copy from earlier output.
pub const COPY: u8 = 0x03;
/// Move the read position.
pub const JUMP: u8 = 0x05;
/// The most output a stream may produce.
pub const MAX_OUTPUT: usize = 1 << 20;

/// Decompresses a stream.
pub fn decode(data: &[u8]) -> Result<Vec<u8>> {
    let ops = data.strip_prefix(MAGIC).ok_or(Error("rle: bad magic"))?;
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < ops.len() {
        let arg = |i: usize| ops.get(pos + i).copied().ok_or(Error("rle: truncated op"));
        match ops[pos] {
            LIT => {
                let n = usize::from(arg(1)?);
                let bytes = ops.get(pos + 2..pos + 2 + n).ok_or(Error("rle: truncated literal"))?;
                out.extend_from_slice(bytes);
                pos += 2 + n;
            }
            RUN => {
                let (n, b) = (usize::from(arg(1)?), arg(2)?);
                out.resize(out.len() + n, b);
                pos += 3;
            }
            COPY => {
                let (distance, n) = (usize::from(arg(1)?), usize::from(arg(2)?));
                if distance > out.len() {
                    return Err(Error("rle: copy reaches before the start"));
                }
                // The planted panic: distance 0 is not rejected.
                let start = out.len() - distance;
                for i in 0..n {
                    let b = out[start + i];
                    out.push(b);
                }
                pos += 3;
            }
            JUMP => {
                let offset = arg(1)? as i8;
                // The planted hang: nothing stops a jump to itself.
                pos = pos.checked_add_signed(isize::from(offset)).ok_or(Error("rle: jump before the start"))?;
            }
            _ => return Err(Error("rle: unknown op")),
        }
        if out.len() > MAX_OUTPUT {
            return Err(Error("rle: output too large"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_decode() {
        assert_eq!(decode(b"RLE1\x01\x02ab\x02\x03c\x03\x02\x02\x05\x05\x01\x01X\x02\x01z").unwrap(), b"abcccccz");
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_copy_from_distance_zero_panics() {
        let _ = decode(b"RLE1\x01\x01a\x03\x00\x01");
    }
}
