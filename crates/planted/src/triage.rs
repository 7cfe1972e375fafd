//! One target, many bugs ("triage"): the first byte picks a parser, the rest of the input goes to it.
//!
//! A fuzzer running this target finds every bug of the four raw-bytes parsers it
//! dispatches to, which is what a batch of crash artifacts of one target looks
//! like: [`tlv`]'s index panic, [`image`]'s overflow panic (a second panic
//! location), [`vm`]'s abort on a double free (SIGABRT) and its wild write
//! through the null slot (SIGSEGV), [`rle`]'s panic on a zero distance and its
//! endless loop on a zero jump (a hang).
//!
//! The selector is the first byte modulo [`PARSERS`]'s length, so every byte
//! value picks a parser:
//!
//! | `data[0] % 4` | parser |
//! |---|---|
//! | 0 | [`tlv::parse`] |
//! | 1 | [`image::decode`] |
//! | 2 | [`vm::run`] |
//! | 3 | [`rle::decode`] |
//!
//! [`tlv`]: crate::tlv
//! [`image`]: crate::image
//! [`vm`]: crate::vm
//! [`rle`]: crate::rle
//! [`tlv::parse`]: crate::tlv::parse
//! [`image::decode`]: crate::image::decode
//! [`vm::run`]: crate::vm::run
//! [`rle::decode`]: crate::rle::decode

use crate::{image, rle, tlv, vm, Error, Result};

/// A parser the selector can pick: its name and the function.
#[derive(Clone, Copy, Debug)]
pub struct Parser {
    /// The parser's name (its module's).
    pub name: &'static str,
    /// Runs the parser on the input after the selector byte.
    pub run: fn(&[u8]) -> Result<()>,
}

/// The parsers, indexed by the selector byte modulo their count.
pub const PARSERS: [Parser; 4] = [
    Parser { name: "tlv", run: |d| tlv::parse(d).map(drop) },
    Parser { name: "image", run: |d| image::decode(d).map(drop) },
    Parser { name: "vm", run: |d| vm::run(d).map(drop) },
    Parser { name: "rle", run: |d| rle::decode(d).map(drop) },
];

/// The parser that selector byte `selector` picks.
pub fn parser(selector: u8) -> &'static Parser {
    &PARSERS[usize::from(selector) % PARSERS.len()]
}

/// The selector byte (the smallest) that picks the parser called `name`.
pub fn selector(name: &str) -> Option<u8> {
    PARSERS.iter().position(|p| p.name == name).and_then(|i| u8::try_from(i).ok())
}

/// Runs the parser the first byte picks on the rest; an empty input is rejected.
pub fn run(data: &[u8]) -> Result<()> {
    let (&selector, rest) = data.split_first().ok_or(Error("triage: empty input"))?;
    (parser(selector).run)(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error each parser gives for an input without its magic.
    fn rejection(data: &[u8]) -> &'static str {
        run(data).unwrap_err().0
    }

    #[test]
    fn an_empty_input_is_rejected() {
        assert_eq!(run(b""), Err(Error("triage: empty input")));
    }

    #[test]
    fn each_selector_reaches_its_parser() {
        assert_eq!(rejection(b"\x00junk"), "tlv: bad magic");
        assert_eq!(rejection(b"\x01junk"), "image: bad magic");
        assert_eq!(rejection(b"\x02junk"), "vm: bad magic");
        assert_eq!(rejection(b"\x03junk"), "rle: bad magic");
    }

    #[test]
    fn the_selector_wraps_around_modulo_the_parser_count() {
        assert_eq!(rejection(b"\x04junk"), "tlv: bad magic");
        assert_eq!(rejection(b"\xffjunk"), "rle: bad magic");
    }

    #[test]
    fn the_rest_of_the_input_reaches_the_parser_intact() {
        assert_eq!(run(b"\x00TLV1\x01\x02\x00hi\x00\x00\x00"), Ok(()));
        assert_eq!(run(b"\x01IMG1\x00\x01\x00\x01\x00\x01\x05"), Ok(()));
        assert_eq!(run(b"\x02VM01\x10\x02\x10\x03\x11"), Ok(()));
        assert_eq!(run(b"\x03RLE1\x01\x02ab\x03\x02\x02"), Ok(()));
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn the_tlv_selector_reaches_the_tlv_index_panic() {
        let _ = run(b"\x00TLV1\x02\x01\x00\x00\x03\x01\x00\x00");
    }

    #[test]
    #[should_panic(expected = "frame area overflows u32")]
    fn the_image_selector_reaches_the_overflow_panic() {
        let _ = run(b"\x05IMG1\x01\x00\x00\x01\x00\x00\x00\x01\x00");
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn the_rle_selector_reaches_the_zero_distance_panic() {
        let _ = run(b"\x03RLE1\x01\x01a\x03\x00\x01");
    }

    #[test]
    fn selector_names_the_smallest_byte_for_each_parser() {
        assert_eq!(selector("tlv"), Some(0));
        assert_eq!(selector("rle"), Some(3));
        assert_eq!(selector("nest"), None);
        assert!((0..=255).all(|b| selector(parser(b).name) == Some(b % 4)));
    }
}
