//! The typed targets (`fuzz_target!(|x: T| ..)`): values of varied shape written for `arbitrary`, decoded back as libfuzzer-sys does.
//!
//! Each generator writes a value through the [`Encoder`](crate::encode::Encoder)
//! while it builds it, and returns both, so its tests check that `arbitrary`
//! reads back exactly that value. Each input gets its own style (how many
//! elements, how nested, how often the interesting values come up), so the
//! corpus holds values of very different shapes.

pub mod commands;
pub mod config;
pub mod scene;

use arbitrary::{Arbitrary, Unstructured};

use crate::encode::Encoder;
use crate::targets::Target;

/// The typed targets.
pub const TARGETS: [Target; 3] = [
    Target {
        name: "scene",
        about: "a title and layers of fills, texts and nested groups under every blend",
        draw: |rng, len| scene::build(rng, len).0,
        run: scene::run,
        keep: 0,
    },
    Target {
        name: "config",
        about: "a service's hosts, ports, key and TLS flags",
        draw: |rng, len| config::build(rng, len).0,
        run: config::run,
        keep: 0,
    },
    Target {
        name: "commands",
        about: "programs of pushes, pops, adds, names, blobs and calls",
        draw: |rng, len| commands::build(rng, len).0,
        run: commands::run,
        keep: 0,
    },
];

/// `data` decoded as `fuzz_target!` decodes its argument: too short for the type's size hint, or an
/// `arbitrary` error, is a rejection (the message).
pub fn decode<T: for<'a> Arbitrary<'a>>(data: &[u8]) -> Result<T, String> {
    if data.len() < T::size_hint(0).0 {
        return Err("shorter than the type's size hint".to_string());
    }
    T::arbitrary_take_rest(Unstructured::new(data)).map_err(|e| format!("arbitrary: {e}"))
}

/// A count as an order of magnitude, for the summary: `0`, `1`, `2-9`, `10-99`, `100+`.
pub fn bucket(n: usize) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        2..=9 => "2-9",
        10..=99 => "10-99",
        _ => "100+",
    }
}

/// A `Vec` of up to `wanted` elements (fewer when the input is full), each written by `element`.
pub fn list<T>(enc: &mut Encoder, wanted: usize, mut element: impl FnMut(&mut Encoder) -> T) -> Vec<T> {
    let mut items = Vec::new();
    while items.len() < wanted && enc.room() {
        enc.bool(true);
        items.push(element(enc));
    }
    enc.bool(false);
    items
}
