//! The wire format between cargo-minimize-crash (the client) and the fork server in a harness binary.
//!
//! A harness is the user's fuzz target linked with `cmc_runtime`, whose `main`
//! is a fork server. Everything both sides must agree on lives here, as
//! fixed-size little-endian records with encode and decode functions, so the
//! two sides cannot drift apart. This crate has no dependencies: it is compiled
//! into users' fuzz targets, resolved against their lockfile.
//!
//! # Start-up ([`start`])
//!
//! The client creates two pipes and a shared-memory file, then starts the
//! harness with [`ENV_VAR`] set to a [`StartInfo`]: the protocol version, the
//! file descriptor the server reads requests from (*control*), the one it
//! writes responses to (*status*), where the children's stderr goes (*output*,
//! or nowhere) and the path of the shared-memory file. Without the variable a
//! harness is a plain replay tool (`harness FILE...`).
//!
//! # Conversation ([`message`])
//!
//! Every message is [`MESSAGE_LEN`] bytes: a 4-byte tag, then four
//! little-endian 32-bit fields. The server speaks first:
//!
//! ```text
//! server -> client  Hello { version, pid, threads }     tag "cmcH" (the magic)
//! client -> server  Run { seq }                         tag "cmcR"  (input already in shared memory)
//! server -> client  Started { seq, pid }                tag "cmcS"  (right after fork: the child's pid = its process group)
//! server -> client  Finished { seq, wait_status,        tag "cmcW"  (the raw waitpid status, the
//!                    max_rss_kib, cpu_micros }                 child's peak RSS from wait4, 0 = unknown,
//!                                                              and its CPU time, user and system)
//!               or  ForkFailed { seq, errno }           tag "cmcE"
//! ```
//!
//! The client checks the handshake's tag and version, so a binary that is not a
//! harness (it exits, stays silent or writes something else) is detected at
//! once. Closing the control pipe stops the server. The client enforces the
//! timeout: it kills the child's process group (SIGKILL) and still reads the
//! `Finished` message.
//!
//! # Shared memory ([`shm`])
//!
//! ```text
//! 0        header (64 bytes): magic "cmc-shm\0", version, input / example / label capacities, input length,
//!          feature capacity (0 = no coverage), known-value capacity, known values on
//! 64       result (5,472 bytes): kind, panic line and column, lengths, flags, example and label counts,
//!          frame count, signal, feature count, counters, max stack offset, value and look-alike keys, panic message
//!          (4,096 bytes), panic file (1,024 bytes), crash frames (image base, image length, 32 raw addresses)
//! 5,536    examples: example_capacity records of 24 bytes (front span, back span, label id, depth)
//! ...      labels: label_capacity bytes of (u16 length, name) entries; a label id is an entry's index
//! ...      features: feature_capacity u32 entries (8-aligned), the run's coverage features, ascending
//! ...      known values: known_capacity u64 value keys (8-aligned; see [`known`])
//! ...      input: input_capacity bytes (8-aligned), the candidate
//! ```
//!
//! The client writes the input and clears the result before each `Run`; the
//! child copies the input out, runs the target and writes its result; the
//! client reads the result after `Finished`. The pipes order these steps, so
//! the two sides never touch the same bytes at the same time.
//!
//! # `arbitrary`'s layout ([`layout`])
//!
//! Not part of the wire, but agreed on by everyone who reads or writes typed
//! inputs: the width of a size field read from the back, and how it reads.
//! The reducer, its tests and the sample generators take it from here.

#![deny(missing_docs)]

// cargo-minimize-crash compiles these same files as its `protocol` module
// (`#[path]`, so that its package carries them): name this crate's root
// `super::` in the submodules, never `crate::`.
pub mod known;
pub mod layout;
pub mod message;
pub mod shm;
pub mod start;

use std::fmt;

pub use message::{Hello, Request, Response, MESSAGE_LEN};
pub use shm::{ChildResult, CoverageRecord, CrashFrames, ExampleRecord, Layout, PanicRecord, ResultKind, OPEN_END};
pub use start::StartInfo;

/// The protocol version; both sides must speak the same one.
pub const VERSION: u32 = 8;

/// The environment variable that turns a harness into a fork server; its value is a [`StartInfo`].
pub const ENV_VAR: &str = "CARGO_MINIMIZE_CRASH_FORKSERVER";

/// Why bytes could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// Fewer bytes than the record needs.
    Truncated {
        /// What was being decoded.
        what: &'static str,
        /// How many bytes it needs.
        needed: usize,
        /// How many there were.
        got: usize,
    },
    /// The magic bytes are wrong: this is not our format.
    BadMagic {
        /// What was being decoded.
        what: &'static str,
    },
    /// A message tag neither side defines.
    UnknownTag {
        /// The tag found.
        tag: [u8; 4],
    },
    /// The other side speaks another protocol version.
    UnsupportedVersion {
        /// The version found.
        found: u32,
        /// The version this side speaks.
        expected: u32,
    },
    /// A length, count or kind outside what the layout allows.
    OutOfRange {
        /// Which field.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The largest allowed value.
        limit: u64,
    },
    /// Text that does not follow the format.
    Malformed {
        /// What was being decoded.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { what, needed, got } => {
                write!(f, "truncated {what}: needs {needed} bytes, got {got}")
            }
            DecodeError::BadMagic { what } => write!(f, "not a cargo-minimize-crash {what} (wrong magic bytes)"),
            DecodeError::UnknownTag { tag } => write!(f, "unknown message tag {:?}", String::from_utf8_lossy(tag)),
            DecodeError::UnsupportedVersion { found, expected } => {
                write!(f, "protocol version {found}, expected {expected}")
            }
            DecodeError::OutOfRange { what, value, limit } => write!(f, "{what} is {value}, more than {limit}"),
            DecodeError::Malformed { what, detail } => write!(f, "malformed {what}: {detail}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Reads the little-endian `u32` at `at` (the caller checked the length).
fn get_u32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// Writes `value` little-endian at `at` (the caller checked the length).
fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Fails with [`DecodeError::Truncated`] unless `bytes` has at least `needed` bytes.
fn need(bytes: &[u8], needed: usize, what: &'static str) -> Result<(), DecodeError> {
    if bytes.len() < needed {
        return Err(DecodeError::Truncated { what, needed, got: bytes.len() });
    }
    Ok(())
}
