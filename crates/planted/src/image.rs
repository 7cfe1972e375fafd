//! A multi-frame raw image format ("IMG1").
//!
//! Each frame: a flags byte, then width and height (u16 each, or u32 each when
//! the `WIDE` flag is set), a channel count (1 to 4), then width x height x
//! channels bytes of pixels.
//!
//! The bug: dimensions are limited to [`MAX_SIDE`] only on the u16 path, so a
//! `WIDE` frame can make the area overflow u32; the code assumed it could not
//! and panics. (Written as a checked multiplication so the bug fires in release
//! builds too, as `w * h` would with overflow checks on.)

use crate::{Error, Result};

/// The file's first four bytes.
pub const MAGIC: &[u8; 4] = b"IMG1";
/// Flag: the frame's dimensions are u32, not u16.
pub const WIDE: u8 = 0x01;
/// The largest side a u16 frame may have.
pub const MAX_SIDE: u32 = 4096;

/// One decoded frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Channels per pixel.
    pub channels: u8,
    /// Sum of the pixel bytes (standing in for real decoding).
    pub checksum: u64,
}

/// Decodes every frame.
pub fn decode(data: &[u8]) -> Result<Vec<Frame>> {
    let mut input = data.strip_prefix(MAGIC).ok_or(Error("image: bad magic"))?;
    let mut frames = Vec::new();
    while !input.is_empty() {
        let (frame, rest) = decode_frame(input)?;
        frames.push(frame);
        input = rest;
    }
    Ok(frames)
}

fn decode_frame(input: &[u8]) -> Result<(Frame, &[u8])> {
    let (&flags, input) = input.split_first().ok_or(Error("image: truncated frame"))?;
    let (width, height, input) = if flags & WIDE != 0 {
        let (w, input) = take_u32(input)?;
        let (h, input) = take_u32(input)?;
        (w, h, input)
    } else {
        let (w, input) = take_u16(input)?;
        let (h, input) = take_u16(input)?;
        if w > MAX_SIDE || h > MAX_SIDE {
            return Err(Error("image: frame too large"));
        }
        (w, h, input)
    };
    let area = pixel_count(width, height);
    let (&channels, input) = input.split_first().ok_or(Error("image: truncated frame"))?;
    if !(1..=4).contains(&channels) {
        return Err(Error("image: bad channel count"));
    }
    let len = usize::try_from(u64::from(area) * u64::from(channels)).map_err(|_| Error("image: frame too large"))?;
    if input.len() < len {
        return Err(Error("image: truncated pixels"));
    }
    let (pixels, rest) = input.split_at(len);
    let checksum = pixels.iter().map(|&b| u64::from(b)).sum();
    Ok((Frame { width, height, channels, checksum }, rest))
}

fn pixel_count(width: u32, height: u32) -> u32 {
    // The planted bug: this holds for u16 frames only.
    width.checked_mul(height).expect("frame area overflows u32")
}

fn take_u16(input: &[u8]) -> Result<(u32, &[u8])> {
    match input {
        [a, b, rest @ ..] => Ok((u32::from(u16::from_le_bytes([*a, *b])), rest)),
        _ => Err(Error("image: truncated header")),
    }
}

fn take_u32(input: &[u8]) -> Result<(u32, &[u8])> {
    match input {
        [a, b, c, d, rest @ ..] => Ok((u32::from_le_bytes([*a, *b, *c, *d]), rest)),
        _ => Err(Error("image: truncated header")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_frame_decodes() {
        let frames = decode(b"IMG1\x00\x02\x00\x01\x00\x01\x05\x06").unwrap();
        assert_eq!(frames[0].checksum, 11);
    }

    #[test]
    #[should_panic(expected = "frame area overflows u32")]
    fn a_wide_frame_with_a_huge_area_panics() {
        let _ = decode(b"IMG1\x01\x00\x00\x01\x00\x00\x00\x01\x00");
    }
}
