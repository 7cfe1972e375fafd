//! Plausible inputs for the parsers behind `triage`: valid chunks, frames and ops around each planted trigger.
//!
//! Every builder takes a number of `units` of harmless structure to put before
//! the trigger (0 gives a near-minimal trigger) and returns the parser's input,
//! magic included, without the selector byte.

use planted::{image, rle, tlv, vm};

use crate::frame;
use crate::mutate::Rng;

/// A short lowercase word, as a name chunk would hold.
fn word(rng: &mut Rng) -> Vec<u8> {
    let len = rng.range(1, 12);
    (0..len).map(|_| b'a' + rng.below(26) as u8).collect()
}

/// TLV chunks, with the state the parser keeps: the last table's length and the previous payload's sum.
struct Tlv {
    out: Vec<u8>,
    table: Option<usize>,
    sum: u32,
}

impl Tlv {
    fn new() -> Self {
        Tlv { out: tlv::MAGIC.to_vec(), table: None, sum: 0 }
    }

    fn chunk(&mut self, tag: u8, payload: &[u8]) {
        self.out.push(tag);
        self.out.extend((payload.len() as u16).to_le_bytes());
        self.out.extend(payload);
        self.sum = payload.iter().map(|&b| u32::from(b)).sum();
    }

    fn table(&mut self, rng: &mut Rng, len: usize) {
        let mut payload = vec![len as u8];
        payload.extend(rng.bytes(4 * len));
        self.chunk(tlv::TABLE, &payload);
        self.table = Some(len);
    }

    /// One chunk the parser accepts; a new table only if `tables` (the trigger's table must stay the last).
    fn noise(&mut self, rng: &mut Rng, tables: bool) {
        match rng.below(6) {
            0 => {
                let name = word(rng);
                self.chunk(tlv::NAME, &name);
            }
            1 => {
                let n = rng.range(1, 24);
                let tag = rng.range(usize::from(tlv::CHECK) + 1, 255) as u8;
                let payload = rng.bytes(n);
                self.chunk(tag, &payload);
            }
            2 if tables => {
                let len = rng.range(1, 8);
                self.table(rng, len);
            }
            3 if self.table.is_some_and(|len| len > 0) => {
                let len = self.table.unwrap_or(1);
                let indices: Vec<u8> = (0..rng.range(1, 6)).map(|_| rng.below(len) as u8).collect();
                self.chunk(tlv::INDEX, &indices);
            }
            4 => self.chunk(tlv::CHECK, &self.sum.to_le_bytes()),
            _ => {
                let n = rng.below(32);
                let padding = vec![0; n];
                self.chunk(tlv::PAD, &padding);
            }
        }
    }
}

/// A TLV file whose last `INDEX` chunk holds an index equal to its table's length (tlv's index panic).
pub(crate) fn tlv_index(rng: &mut Rng, units: usize) -> Vec<u8> {
    let mut file = Tlv::new();
    let before = rng.range(0, units);
    for _ in 0..before {
        file.noise(rng, true);
    }
    let len = rng.below(8);
    file.table(rng, len);
    for _ in before..units {
        file.noise(rng, false);
    }
    let mut indices: Vec<u8> = (0..rng.below(4)).filter(|_| len > 0).map(|_| rng.below(len) as u8).collect();
    indices.push(len as u8);
    let junk = rng.below(3);
    indices.extend(rng.bytes(junk));
    file.chunk(tlv::INDEX, &indices);
    file.out
}

/// A TLV file that parses: harmless chunks, then an `END` chunk (a stale artifact).
pub(crate) fn tlv_valid(rng: &mut Rng, units: usize) -> Vec<u8> {
    let mut file = Tlv::new();
    for _ in 0..units.max(1) {
        file.noise(rng, true);
    }
    file.chunk(tlv::END, &[]);
    file.out
}

/// A small image frame the decoder accepts (u16 or u32 dimensions, 1 to 4 channels).
fn image_frame(rng: &mut Rng, out: &mut Vec<u8>) {
    let (wide, noise) = (rng.one_in(4), rng.byte());
    let (width, height) = (rng.below(7) as u32, rng.below(7) as u32);
    let channels = rng.range(1, 4) as u8;
    frame::header(out, noise, wide, (width, height), channels);
    out.extend(rng.bytes((width * height) as usize * usize::from(channels)));
}

/// Frames, then a `WIDE` frame whose area overflows u32 (image's overflow panic).
pub(crate) fn image_overflow(rng: &mut Rng, units: usize) -> Vec<u8> {
    let mut out = image::MAGIC.to_vec();
    for _ in 0..units {
        image_frame(rng, &mut out);
    }
    let width = rng.range(0x1_0000, 0xffff_ffff) as u64;
    let height = rng.range((1u64 << 32).div_ceil(width) as usize, 0xffff_ffff) as u64;
    out.push(rng.byte() | image::WIDE);
    out.extend((width as u32).to_le_bytes());
    out.extend((height as u32).to_le_bytes());
    out
}

/// Stack-machine code that leaves the stack and the slots as it found them.
fn vm_snippet(rng: &mut Rng) -> Vec<u8> {
    let (a, b, v) = (rng.byte(), rng.byte(), rng.byte());
    match rng.below(5) {
        0 => vec![vm::PUSH, a, vm::PUSH, b, vm::ADD, vm::DROP],
        1 => vec![vm::PUSH, a, vm::DUP, vm::ADD, vm::DROP],
        2 => vec![vm::PUSH, a, vm::PUSH, b, vm::SWAP, vm::DROP, vm::DROP],
        3 => vec![vm::ALLOC, vm::FREE],
        _ => vec![vm::ALLOC, vm::DUP, vm::PUSH, v, vm::WRITE, vm::DUP, vm::READ, vm::DROP, vm::FREE],
    }
}

/// A program of harmless snippets ending in `trigger`.
fn vm_program(rng: &mut Rng, units: usize, trigger: &[u8]) -> Vec<u8> {
    let mut out = vm::MAGIC.to_vec();
    for _ in 0..units {
        out.extend(vm_snippet(rng));
    }
    out.extend(trigger);
    out
}

/// A program that frees a slot twice, or one never allocated (vm's abort).
pub(crate) fn vm_double_free(rng: &mut Rng, units: usize) -> Vec<u8> {
    let trigger = match rng.below(2) {
        0 => vec![vm::ALLOC, vm::DUP, vm::FREE, vm::FREE],
        _ => vec![vm::PUSH, rng.range(1, 15) as u8, vm::FREE],
    };
    vm_program(rng, units, &trigger)
}

/// A program that writes through handle 0, the null slot (vm's wild write).
pub(crate) fn vm_wild_write(rng: &mut Rng, units: usize) -> Vec<u8> {
    let (a, v) = (rng.range(1, 255) as u8, rng.byte());
    let trigger = match rng.below(2) {
        0 => vec![vm::PUSH, 0, vm::PUSH, v, vm::WRITE],
        _ => vec![vm::PUSH, a, vm::PUSH, a.wrapping_neg(), vm::ADD, vm::PUSH, v, vm::WRITE],
    };
    vm_program(rng, units, &trigger)
}

/// An RLE op the decoder accepts, given the output's length so far; returns the new length.
fn rle_op(rng: &mut Rng, out: &mut Vec<u8>, produced: usize) -> usize {
    match rng.below(4) {
        0 => {
            let n = rng.range(1, 16);
            out.extend([rle::LIT, n as u8]);
            out.extend(rng.bytes(n));
            produced + n
        }
        1 => {
            let n = rng.range(1, 64);
            out.extend([rle::RUN, n as u8, rng.byte()]);
            produced + n
        }
        2 if produced > 0 => {
            let n = rng.range(1, 32);
            out.extend([rle::COPY, rng.range(1, produced.min(255)) as u8, n as u8]);
            produced + n
        }
        _ => {
            // A forward jump over junk that is never read.
            let offset = rng.range(2, 12);
            out.extend([rle::JUMP, offset as u8]);
            out.extend(rng.bytes(offset - 2));
            produced
        }
    }
}

/// A stream of harmless ops ending in `trigger`.
fn rle_stream(rng: &mut Rng, units: usize, trigger: &[u8]) -> Vec<u8> {
    let mut out = rle::MAGIC.to_vec();
    let mut produced = 0;
    for _ in 0..units {
        produced = rle_op(rng, &mut out, produced);
    }
    out.extend(trigger);
    out
}

/// A stream with a `COPY` from distance 0 (rle's panic).
pub(crate) fn rle_zero_distance(rng: &mut Rng, units: usize) -> Vec<u8> {
    let trigger = [rle::COPY, 0, rng.range(1, 255) as u8];
    rle_stream(rng, units, &trigger)
}

/// A stream with a jump to itself, or a cycle of two jumps (rle's endless loop).
pub(crate) fn rle_hang(rng: &mut Rng, units: usize) -> Vec<u8> {
    let trigger = match rng.below(2) {
        0 => vec![rle::JUMP, 0],
        _ => vec![rle::JUMP, 2, rle::JUMP, (-2i8) as u8],
    };
    rle_stream(rng, units, &trigger)
}

#[cfg(test)]
mod tests {
    use std::panic;

    use super::*;

    /// The panic message of `f`, or None if it returned.
    fn panic_message(f: impl FnOnce() + panic::UnwindSafe) -> Option<String> {
        let payload = panic::catch_unwind(f).err()?;
        payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
    }

    #[test]
    fn harmless_structure_is_accepted_by_each_parser() {
        let mut rng = Rng::new(5);
        for units in [0, 1, 10, 200] {
            assert_eq!(tlv::parse(&tlv_valid(&mut rng, units)).map(drop), Ok(()));
            assert!(vm::run(&vm_program(&mut rng, units, &[])).is_ok_and(|stack| stack.is_empty()));
            assert!(rle::decode(&rle_stream(&mut rng, units, &[])).is_ok());
            let mut frames = image::MAGIC.to_vec();
            (0..units).for_each(|_| image_frame(&mut rng, &mut frames));
            assert_eq!(image::decode(&frames).map(|f| f.len()), Ok(units));
        }
    }

    #[test]
    fn the_panic_triggers_panic_with_their_planted_messages() {
        panic::set_hook(Box::new(|_| {}));
        for seed in 0..30 {
            let mut rng = Rng::new(seed);
            let units = rng.log_uniform(7);
            let tlv_input = tlv_index(&mut rng, units);
            let image_input = image_overflow(&mut rng, units);
            let rle_input = rle_zero_distance(&mut rng, units);
            assert!(
                panic_message(|| drop(tlv::parse(&tlv_input))).is_some_and(|m| m.starts_with("index out of bounds"))
            );
            assert_eq!(
                panic_message(|| drop(image::decode(&image_input))).as_deref(),
                Some("frame area overflows u32")
            );
            assert!(
                panic_message(|| drop(rle::decode(&rle_input))).is_some_and(|m| m.starts_with("index out of bounds"))
            );
        }
        let _ = panic::take_hook();
    }

    #[test]
    fn units_make_inputs_from_tens_of_bytes_to_kilobytes() {
        let mut rng = Rng::new(9);
        assert!(vm_wild_write(&mut rng, 0).len() < 16);
        assert!(rle_zero_distance(&mut rng, 300).len() > 1000);
        assert!(tlv_index(&mut rng, 300).len() > 1000);
    }
}
