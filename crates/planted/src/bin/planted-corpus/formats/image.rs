//! IMG1 files: frames of every shape (empty, thin, small, large; u16 or `WIDE` u32 sides; 1 to 4 channels), some ending in an error.

use planted::image;

use super::{fill, Records};
use crate::frame;
use crate::mutate::{self, Rng};

/// The longest frame header: flags, two u32 sides, channels.
const HEADER: usize = 10;
/// Bytes kept for an ending cut off mid-frame.
const CUT: usize = 10;

/// An IMG1 file of at most `len` bytes.
pub(crate) fn draw(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut frames = Frames(image::MAGIC.to_vec());
    if fill::<4>(rng, &mut frames, len, CUT, HEADER + 8) {
        cut(rng, &mut frames.0);
    }
    frames.0
}

/// The file's frames so far.
#[derive(Debug)]
struct Frames(Vec<u8>);

impl Records for Frames {
    fn written(&self) -> usize {
        self.0.len()
    }

    fn accepted(&mut self, rng: &mut Rng, shape: usize, room: usize) {
        frame(rng, &mut self.0, shape, room);
    }

    fn rejected(&mut self, rng: &mut Rng) {
        rejected(rng, &mut self.0);
    }
}

/// A frame header: flags (the `WIDE` bit as asked, the others noise), the sides, the channel count.
fn header(rng: &mut Rng, out: &mut Vec<u8>, wide: bool, sides: (u32, u32), channels: u8) {
    let noise = rng.byte();
    frame::header(out, noise, wide, sides, channels);
}

/// A frame the decoder accepts, of `shape` (0 empty, 1 thin, 2 small, 3 large), at most `room` bytes long.
fn frame(rng: &mut Rng, out: &mut Vec<u8>, shape: usize, room: usize) {
    let channels = rng.range(1, 4);
    let most = (room - HEADER) / channels;
    let (width, height) = match shape {
        0 => (0, rng.below(image::MAX_SIDE as usize + 1)),
        1 => (rng.range(1, most.min(image::MAX_SIDE as usize)), 1),
        2 => {
            let width = rng.range(1, most.min(8));
            (width, rng.range(1, (most / width).min(8)))
        }
        _ => {
            let width = rng.range(1, most.min(64));
            (width, rng.range(1, (most / width).min(64)))
        }
    };
    let (width, height) = if rng.one_in(2) { (width, height) } else { (height, width) };
    let wide = rng.one_in(4);
    header(rng, out, wide, (width as u32, height as u32), channels as u8);
    out.extend(mutate::noise(rng, width * height * channels));
}

/// A frame the decoder rejects: a u16 side over the limit, a bad channel count, or a `WIDE` frame larger than the
/// file (its area still fits u32: an overflowing one is the planted bug).
fn rejected(rng: &mut Rng, out: &mut Vec<u8>) {
    match rng.below(3) {
        0 => {
            let large = rng.range(image::MAX_SIDE as usize + 1, 0xffff) as u32;
            let sides = if rng.one_in(2) { (large, rng.below(0x1_0000) as u32) } else { (1, large) };
            let channels = rng.range(1, 4) as u8;
            header(rng, out, false, sides, channels);
        }
        1 => {
            let channels = if rng.one_in(2) { 0 } else { rng.range(5, 255) as u8 };
            let (wide, sides) = (rng.one_in(2), (rng.range(1, 8) as u32, rng.range(1, 8) as u32));
            header(rng, out, wide, sides, channels);
        }
        _ => {
            let width = rng.range(0x1_0000, 0x10_0000) as u32;
            let height = rng.range(1, (u32::MAX / width) as usize) as u32;
            let channels = rng.range(1, 4) as u8;
            header(rng, out, true, (width, height), channels);
        }
    }
}

/// An ending cut off mid-frame: in the header, before the channel count, or in the pixels.
fn cut(rng: &mut Rng, out: &mut Vec<u8>) {
    let mut frame = Vec::new();
    let (sides, channels) = ((rng.range(3, 9) as u32, rng.range(3, 9) as u32), rng.range(1, 4) as u8);
    header(rng, &mut frame, false, sides, channels);
    let keep = match rng.below(3) {
        0 => rng.range(1, 4),
        1 => 5,
        _ => frame.len() + rng.below(CUT - frame.len()),
    };
    let fill = rng.byte();
    frame.resize(keep, fill);
    out.extend(frame);
}

#[cfg(test)]
mod tests {
    use crate::formats::outcomes;

    #[test]
    fn files_stay_within_their_length_and_reach_many_outcomes() {
        let outcomes = outcomes("image", 6, 64);
        assert_eq!(outcomes.len(), 6, "{outcomes:?}");
    }
}
