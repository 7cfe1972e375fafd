//! Planted bugs: small, plausible input parsers, each with one bug that a
//! fuzzer would find, for cargo-minimize-crash's bundled samples and tests.
//!
//! Every raw-bytes target is a function `fn(&[u8]) -> Result<_, Error>`: an
//! `Err` is a rejected input (a fuzz target ignores it), the bug is a panic, a
//! stack overflow, an endless loop or a killed process. The same functions are
//! called by the cargo-fuzz project in `fuzz/` and by the `planted-replay`
//! binary, which replays one input the way `./fuzz_target -runs=1 FILE` does.
//!
//! [`triage`] puts four of them behind one target: its first byte picks the
//! parser, so one fuzz target has six distinct bugs (a batch of artifacts).
//!
//! One more, [`indexed`], is not in [`TARGETS`]: its bug is a heap read one
//! past a buffer, which only AddressSanitizer reports (fuzz target
//! `asan_overread`, minimized with `--sanitizer address`); nor is [`freed`],
//! a use after free that AddressSanitizer reports only with its quarantine
//! of freed memory on (fuzz target `asan_freed`, for the corpus mode's
//! candidates, which run without it).

#![warn(missing_docs)]

pub mod commands;
pub mod config;
pub mod count;
pub mod deep_tree;
pub mod doc;
#[cfg(feature = "arbitrary")]
pub mod flat_generator;
pub mod freed;
#[cfg(feature = "arbitrary")]
pub mod generator;
pub mod image;
pub mod indexed;
pub mod lists;
pub mod nest;
pub mod orders;
pub mod rle;
pub mod scene;
pub mod tlv;
pub mod triage;
pub mod vm;

use std::fmt;

/// Why an input was rejected (not a bug: the parser said no).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub &'static str);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Error {}

/// The result of a raw-bytes target.
pub type Result<T> = std::result::Result<T, Error>;

/// A raw-bytes target: its name, what its bug does, and the function.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The name used by `planted-replay` and the fuzz target's file name.
    pub name: &'static str,
    /// The planted bug, in a few words.
    pub bug: &'static str,
    /// Runs the target on one input; `Err` means the input was rejected.
    pub run: fn(&[u8]) -> Result<()>,
}

/// Every raw-bytes target.
pub const TARGETS: &[Target] = &[
    Target { name: "tlv", bug: "index out of bounds deep in a chunk parser", run: |d| tlv::parse(d).map(drop) },
    Target { name: "image", bug: "frame area overflows u32", run: |d| image::decode(d).map(drop) },
    Target {
        name: "nest",
        bug: "unbounded recursion: stack overflow on deep brackets",
        run: |d| nest::parse(d).map(drop),
    },
    Target {
        name: "rle",
        bug: "endless loop on a zero jump (and a panic on a zero distance)",
        run: |d| rle::decode(d).map(drop),
    },
    Target {
        name: "vm",
        bug: "abort on a double free (and a wild write through a null slot)",
        run: |d| vm::run(d).map(drop),
    },
    Target {
        name: "triage",
        bug: "first byte picks tlv, image, vm or rle: all six of their bugs in one target",
        run: triage::run,
    },
];

/// The raw-bytes target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
