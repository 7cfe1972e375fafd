//! Indexed-colour frames ("IDX1"): a palette of grey levels and one palette
//! index per pixel, decoded to grey pixels.
//!
//! After the magic, frames follow until the input ends; each is `width`,
//! `height`, `colours` (one byte each), `colours` palette bytes, then
//! `width * height` index bytes.
//!
//! The planted bug is a memory error only AddressSanitizer sees: the index
//! check is off by one (`>` instead of `>=`), and the palette is read without
//! a bounds check, so index `colours` reads one byte past the end of the
//! palette's heap buffer. Without a sanitizer that read returns whatever
//! follows the buffer and nothing crashes.

use crate::{Error, Result};

/// The file's first four bytes.
pub const MAGIC: &[u8; 4] = b"IDX1";

/// Decodes every frame to grey pixels.
pub fn decode(data: &[u8]) -> Result<Vec<Vec<u8>>> {
    let mut rest = data.strip_prefix(MAGIC).ok_or(Error("indexed: bad magic"))?;
    let mut frames = Vec::new();
    while !rest.is_empty() {
        let (frame, after) = decode_frame(rest)?;
        frames.push(frame);
        rest = after;
    }
    Ok(frames)
}

/// One frame, and the bytes after it.
fn decode_frame(data: &[u8]) -> Result<(Vec<u8>, &[u8])> {
    let [width, height, colours, rest @ ..] = data else { return Err(Error("indexed: truncated header")) };
    let (width, height, colours) = (usize::from(*width), usize::from(*height), usize::from(*colours));
    if colours == 0 {
        return Err(Error("indexed: empty palette"));
    }
    let palette = rest.get(..colours).ok_or(Error("indexed: truncated palette"))?.to_vec();
    let rest = &rest[colours..];
    let indices = rest.get(..width * height).ok_or(Error("indexed: truncated pixels"))?;
    let mut pixels = Vec::with_capacity(indices.len());
    for &index in indices {
        let index = usize::from(index);
        // The planted bug: `>` lets `index == palette.len()` through.
        if index > palette.len() {
            return Err(Error("indexed: index outside the palette"));
        }
        // SAFETY: not quite: see the check above (the planted bug).
        pixels.push(unsafe { *palette.as_ptr().add(index) });
    }
    Ok((pixels, &rest[indices.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_decode_through_their_palettes() {
        let data = b"IDX1\x02\x01\x02\x10\x20\x01\x00\x01\x01\x01\x07\x00";
        assert_eq!(decode(data), Ok(vec![vec![0x20, 0x10], vec![0x07]]));
        assert_eq!(decode(b"IDX1\x01\x01\x00\x00"), Err(Error("indexed: empty palette")));
        assert_eq!(decode(b"IDX1\x01\x01\x01\x00\x02"), Err(Error("indexed: index outside the palette")));
    }
}
