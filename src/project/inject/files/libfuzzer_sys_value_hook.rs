//! Appended to the crate root of the `libfuzzer-sys` stand-in (`standin.rs`, `VALUE_HOOK`): `fuzz_target!`'s decoding line, hooked, calls it to hand the decoded value to the runtime for the look-alike key.
//!
//! It compiles only there (`cmc_runtime`). This note, up to the blank line, is
//! not appended.

// cargo-minimize-crash: the decoded value, for the look-alike key.
#[doc(hidden)]
#[inline(always)]
pub fn __cmc_value<T: ::core::fmt::Debug>(value: &T) {
    // Not in the coverage build: its counters must be `cargo fuzz build`'s.
    #[cfg(not(cmc_coverage))]
    cmc_runtime::values::value(value)
}
