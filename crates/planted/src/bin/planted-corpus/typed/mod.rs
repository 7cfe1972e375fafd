//! The typed targets (`fuzz_target!(|x: T| ..)`): values of varied shape written for `arbitrary`, decoded back as libfuzzer-sys does.
//!
//! Each generator writes a value through the [`Encoder`](crate::encode::Encoder)
//! while it builds it, and returns both, so its tests check that `arbitrary`
//! reads back exactly that value. Each input gets its own style (how many
//! elements, how nested, how often the interesting values come up), so the
//! corpus holds values of very different shapes.

pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod scene;

use std::panic::UnwindSafe;

use arbitrary::{Arbitrary, Unstructured};

use crate::check::{self, Verdict};
use crate::encode::Encoder;
use crate::targets::Target;

/// The typed targets.
pub(crate) const TARGETS: [Target; 3] = [
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
pub(crate) fn decode<T: for<'a> Arbitrary<'a>>(data: &[u8]) -> Result<T, String> {
    if data.len() < T::size_hint(0).0 {
        return Err("shorter than the type's size hint".to_string());
    }
    T::arbitrary_take_rest(Unstructured::new(data)).map_err(|e| format!("arbitrary: {e}"))
}

/// A typed fuzz target's run on `data`, under `catch_unwind`: [`decode`]d (a rejection is the outcome), then `then`.
pub(crate) fn run_decoded<T: for<'a> Arbitrary<'a>>(
    data: &[u8],
    then: impl FnOnce(T) -> Verdict + UnwindSafe,
) -> Verdict {
    check::catching(|| match decode::<T>(data) {
        Ok(value) => then(value),
        Err(why) => Verdict::Runs(why),
    })
}

/// A count as an order of magnitude, for the summary: `0`, `1`, `2-9`, `10-99`, `100+`.
pub(crate) fn bucket(n: usize) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        2..=9 => "2-9",
        10..=99 => "10-99",
        _ => "100+",
    }
}

/// A `Vec` of up to `wanted` elements (fewer when the input is full), each written by `element`.
pub(crate) fn list<T>(enc: &mut Encoder, wanted: usize, mut element: impl FnMut(&mut Encoder) -> T) -> Vec<T> {
    let mut items = Vec::new();
    while items.len() < wanted && enc.room() {
        enc.bool(true);
        items.push(element(enc));
    }
    enc.bool(false);
    items
}

/// What the typed generators' tests check of each: values read back as written, and the outcomes they reach.
#[cfg(test)]
pub(crate) mod checks {
    use std::collections::BTreeSet;
    use std::fmt::Debug;

    use arbitrary::Arbitrary;

    use super::decode;
    use crate::check::Verdict;
    use crate::mutate::Rng;

    /// A generator: an input of exactly the given length, and the value `arbitrary` reads from it.
    pub(crate) type Build<T> = fn(&mut Rng, usize) -> (Vec<u8>, T);

    /// `arbitrary` reads back the value `build` wrote, `per_len` times for each length in `lens`.
    pub(crate) fn assert_read_back<T>(seed: u64, lens: &[usize], per_len: usize, build: Build<T>)
    where
        T: for<'a> Arbitrary<'a> + PartialEq + Debug,
    {
        let mut rng = Rng::new(seed);
        for &len in lens {
            for _ in 0..per_len {
                let (data, value) = build(&mut rng, len);
                assert_eq!(data.len(), len);
                assert_eq!(decode::<T>(&data), Ok(value));
            }
        }
    }

    /// The outcomes of `count` inputs of 1 to 8 KiB from `build`, run by `run`; each must run (no panic, nothing unsafe).
    pub(crate) fn outcomes<T>(seed: u64, count: usize, build: Build<T>, run: fn(&[u8]) -> Verdict) -> BTreeSet<String> {
        let mut rng = Rng::new(seed);
        let mut outcomes = BTreeSet::new();
        for _ in 0..count {
            let len = rng.range(1024, 8192);
            match run(&build(&mut rng, len).0) {
                Verdict::Runs(outcome) => outcomes.insert(outcome),
                other => panic!("{other:?}"),
            };
        }
        outcomes
    }
}
