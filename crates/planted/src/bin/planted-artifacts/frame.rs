//! An IMG1 frame's header as both generators write it (shared with planted-corpus): flags, the sides, the channel count.

use planted::image;

/// Writes a frame header: `noise` as the flags with the `WIDE` bit set as `wide` says, the sides as u32 when
/// `wide` (else u16), then `channels`.
pub(crate) fn header(out: &mut Vec<u8>, noise: u8, wide: bool, (width, height): (u32, u32), channels: u8) {
    out.push(if wide { noise | image::WIDE } else { noise & !image::WIDE });
    for side in [width, height] {
        if wide {
            out.extend(side.to_le_bytes());
        } else {
            out.extend((side as u16).to_le_bytes());
        }
    }
    out.push(channels);
}
