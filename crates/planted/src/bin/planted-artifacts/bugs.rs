//! The bugs of the `triage` target that artifacts are made for: each one's name, seeds and expected replay.

use planted::triage;

use crate::formats;
use crate::mutate::{self, Rng};

/// Selector byte and magic: mutations leave them alone (changing them only makes inputs that get rejected).
const KEEP: usize = 5;

/// Seeds shorter than this get junk appended: artifacts padded with noise, not minimal triggers.
const MIN_SEED: usize = 24;

/// What replaying one of a bug's artifacts must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Exit 101 with a panic in this source file, at the location the bug's minimal input gives.
    Panic(&'static str),
    /// Killed by this signal.
    Signal(i32),
    /// Still running at the hang check's time limit.
    Hang,
    /// Exit 0: the input does not crash (a stale artifact).
    Clean,
}

/// One bug (or non-bug) of the `triage` target.
#[derive(Debug)]
pub(crate) struct Bug {
    /// The short name the manifest gives each of its files.
    pub name: &'static str,
    /// What a replay of its files must show.
    pub expect: Expect,
    /// The parser behind the selector byte.
    parser: &'static str,
    /// A big crash sample from `corpus-samples/` with this bug, if there is one.
    corpus: Option<&'static [u8]>,
    /// A hand-built input with the trigger after `units` of harmless structure (no selector).
    build: fn(&mut Rng, usize) -> Vec<u8>,
}

macro_rules! sample {
    ($path:literal) => {
        Some(include_bytes!(concat!("../../../../../corpus-samples/", $path)))
    };
}

/// The crash bugs, each with its own kind and location.
pub(crate) const CRASHES: [Bug; 5] = [
    Bug {
        name: "tlv-index",
        expect: Expect::Panic("crates/planted/src/tlv.rs"),
        parser: "tlv",
        corpus: sample!("tlv/crash-a5d745a34e1c4ab6c754e74ce7ab6bb62040a215"),
        build: formats::tlv_index,
    },
    Bug {
        name: "image-overflow",
        expect: Expect::Panic("crates/planted/src/image.rs"),
        parser: "image",
        corpus: sample!("image/crash-0472c8f2d08c35d13119e8f47d0915e0341fe067"),
        build: formats::image_overflow,
    },
    Bug {
        name: "vm-double-free",
        expect: Expect::Signal(6),
        parser: "vm",
        corpus: sample!("vm/crash-befac9a2ca287c6b0f3ef7e8c6b081f8c07aa806"),
        build: formats::vm_double_free,
    },
    Bug {
        name: "vm-wild-write",
        expect: Expect::Signal(11),
        parser: "vm",
        corpus: None,
        build: formats::vm_wild_write,
    },
    Bug {
        name: "rle-zero-distance",
        expect: Expect::Panic("crates/planted/src/rle.rs"),
        parser: "rle",
        corpus: None,
        build: formats::rle_zero_distance,
    },
];

/// The hang: rle's endless loop.
pub(crate) const HANG: Bug = Bug {
    name: "rle-hang",
    expect: Expect::Hang,
    parser: "rle",
    corpus: sample!("rle/crash-b04acc29b69e4d09b75344d0dfa152102675146e"),
    build: formats::rle_hang,
};

/// A stale artifact: a valid TLV file that parses fine.
pub(crate) const NO_CRASH: Bug =
    Bug { name: "no-crash", expect: Expect::Clean, parser: "tlv", corpus: None, build: formats::tlv_valid };

impl Bug {
    /// libFuzzer's file name prefix for it: `timeout` for a hang, `crash` for the rest.
    pub(crate) fn prefix(&self) -> &'static str {
        if self.expect == Expect::Hang {
            "timeout"
        } else {
            "crash"
        }
    }

    /// Its smallest hand-built input: the selector, the magic and the trigger.
    pub(crate) fn minimal(&self) -> Vec<u8> {
        let mut input = vec![self.selector(&mut Rng::new(0), false)];
        input.extend((self.build)(&mut Rng::new(0), 0));
        input
    }

    /// The selector byte: the smallest, or (as often) another that picks the same parser.
    fn selector(&self, rng: &mut Rng, vary: bool) -> u8 {
        let smallest = triage::selector(self.parser).expect("a triage parser");
        if vary && rng.one_in(2) {
            smallest + 4 * rng.below(64) as u8
        } else {
            smallest
        }
    }

    /// A seed: the corpus sample (half the time, when there is one) or a hand-built trigger after
    /// harmless structure, then (half the time, and always when short) junk of any size.
    fn seed(&self, rng: &mut Rng) -> Vec<u8> {
        let mut input = vec![self.selector(rng, true)];
        match self.corpus {
            Some(sample) if rng.one_in(2) => input.extend(sample),
            _ => {
                let units = 1 + rng.log_uniform(8);
                input.extend((self.build)(rng, units));
            }
        }
        let short = MIN_SEED.saturating_sub(input.len());
        if short > 0 || rng.one_in(2) {
            let floor = if short > 0 { short + rng.below(MIN_SEED) } else { 0 };
            let n = rng.log_uniform(11).max(floor);
            input.extend(mutate::noise(rng, n));
        }
        input
    }

    /// A candidate artifact: a seed with up to `max_mutations` fuzzer mutations (to be checked by a replay).
    pub(crate) fn variant(&self, rng: &mut Rng, max_mutations: usize) -> Vec<u8> {
        let mut input = self.seed(rng);
        for _ in 0..rng.range(0, max_mutations) {
            mutate::mutate(rng, &mut input, KEEP);
        }
        input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_the_same_for_the_same_seed() {
        let draw = |seed| {
            let mut rng = Rng::new(seed);
            CRASHES.iter().map(|bug| bug.variant(&mut rng, 3)).collect::<Vec<_>>()
        };
        assert_eq!(draw(11), draw(11));
        assert_ne!(draw(11), draw(12));
    }

    #[test]
    fn variants_keep_a_selector_for_their_parser_and_its_magic() {
        let mut rng = Rng::new(4);
        for bug in CRASHES.iter().chain([&HANG, &NO_CRASH]) {
            let variant = bug.variant(&mut rng, 3);
            assert_eq!(triage::parser(variant[0]).name, bug.parser, "{}", bug.name);
            assert_eq!(variant[1..KEEP], bug.minimal()[1..KEEP], "{}", bug.name);
        }
    }

    #[test]
    fn the_corpus_samples_are_raw_inputs_of_their_parser() {
        for bug in CRASHES.iter().chain([&HANG]).filter(|bug| bug.corpus.is_some()) {
            let sample = bug.corpus.unwrap_or_default();
            assert_eq!(sample[..4], bug.minimal()[1..KEEP], "{}", bug.name);
        }
    }

    #[test]
    fn only_the_hang_is_named_as_a_timeout() {
        assert_eq!(HANG.prefix(), "timeout");
        assert!(CRASHES.iter().chain([&NO_CRASH]).all(|bug| bug.prefix() == "crash"));
    }
}
