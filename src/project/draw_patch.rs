//! The text patch that makes the real `arbitrary` copy's `Unstructured` record each primitive read (a *draw*) as a leaf example labelled `draw:*`.
//!
//! Four methods of `Unstructured` (in `src/unstructured.rs`) are where every
//! byte a value is built from gets read in arbitrary 1.4.2 to 1.5.x (the file
//! is the same in both): `fill_buffer` (every fixed-width integer, and
//! through them `bool`, `char`, floats and enum tags), the public
//! `int_in_range` (`choose`, `ratio`, `arbitrary_loop`, ranges, `Duration`),
//! `arbitrary_byte_size` (collection and string lengths, from the back) and
//! `bytes` (string and byte-slice contents). None of them calls another: the
//! private `int_in_range_impl`, which both `int_in_range` and
//! `arbitrary_byte_size` use, is not wrapped, so a draw is always a leaf.
//!
//! Each method's exact signature is the anchor: it is renamed to a private
//! `__cmc_<name>` (its body untouched), and one appended `impl` block defines
//! the method again, with the same signature, as a wrapper that reports the
//! cursor before and after the original body to `cmc_runtime::examples`, under
//! a fixed label ([`LABELS`]). A source where any anchor is missing or occurs
//! twice is left alone ([`patch`] returns `None`): the build goes on without
//! draws.

/// The file of the `arbitrary` source that defines `Unstructured`.
pub const UNSTRUCTURED: &str = "src/unstructured.rs";

/// Every label a draw is recorded with (the reducer parses them: keep in step
/// with `src/reduce/draws.rs`). `fill_buffer` gives `draw:le:<width>` for the
/// widths of Rust's integers and `draw:le` for any other buffer length.
pub const LABELS: [&str; 9] = [
    "draw:le:1",
    "draw:le:2",
    "draw:le:4",
    "draw:le:8",
    "draw:le:16",
    "draw:le",
    "draw:range",
    "draw:len",
    "draw:bytes",
];

/// A wrapped method: its name (the body moves to `__cmc_<name>`) and its
/// declaration as 1.4.2 to 1.5.x write it, indentation and line breaks included.
struct Wrapped {
    name: &'static str,
    declaration: &'static str,
}

const WRAPPED: [Wrapped; 4] = [
    Wrapped {
        name: "fill_buffer",
        declaration: "    pub fn fill_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {\n",
    },
    Wrapped {
        name: "int_in_range",
        declaration: "    pub fn int_in_range<T>(&mut self, range: ops::RangeInclusive<T>) -> Result<T>\n    \
                      where\n        T: Int,\n    {\n",
    },
    Wrapped { name: "arbitrary_byte_size", declaration: "    fn arbitrary_byte_size(&mut self) -> Result<usize> {\n" },
    Wrapped { name: "bytes", declaration: "    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {\n" },
];

/// What the appended wrappers rely on besides the wrapped methods.
const REQUIRED: [&str; 3] = [
    "impl<'a> Unstructured<'a> {\n",
    "    pub fn len(&self) -> usize {\n",
    "    pub fn peek_bytes(&self, size: usize) -> Option<&'a [u8]> {\n",
];

/// The appended block: the cursor helpers and the four wrappers, whose
/// signatures repeat the anchors in [`WRAPPED`].
const WRAPPERS: &str = r#"

// Appended by cargo-minimize-crash: every primitive read reports the bytes it
// took to the harness runtime as a leaf example labelled `draw:*`. The
// original bodies are the `__cmc_*` methods above, unchanged. (The crate's
// own `#![deny(..)]` lines come after our `#![allow(warnings)]` and win there.)
#[allow(warnings)]
impl<'a> Unstructured<'a> {
    /// The pointer to the first unread byte and the number of bytes left.
    #[inline]
    fn __cmc_cursor(&self) -> (*const u8, usize) {
        let front = self.peek_bytes(0).map_or(core::ptr::null(), |bytes| bytes.as_ptr());
        (front, self.len())
    }

    /// Reports the cursor before a read of kind `label`.
    #[inline]
    fn __cmc_enter(&self, label: &'static str) -> cmc_runtime::examples::Token {
        let (front, len) = self.__cmc_cursor();
        cmc_runtime::examples::enter(front, len, label)
    }

    /// Reports the cursor after the read `token` was entered for.
    #[inline]
    fn __cmc_exit(&self, token: cmc_runtime::examples::Token) {
        cmc_runtime::examples::exit(token, Some(self.__cmc_cursor()));
    }

    /// Fills `buffer` from the front of the data, zeros past its end: recorded as `draw:le:<width>`.
    pub fn fill_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {
        let label = match buffer.len() {
            1 => "draw:le:1",
            2 => "draw:le:2",
            4 => "draw:le:4",
            8 => "draw:le:8",
            16 => "draw:le:16",
            _ => "draw:le",
        };
        let token = self.__cmc_enter(label);
        let result = self.__cmc_fill_buffer(buffer);
        self.__cmc_exit(token);
        result
    }

    /// An integer in `range`, big-endian from the front: recorded as `draw:range`.
    pub fn int_in_range<T>(&mut self, range: ops::RangeInclusive<T>) -> Result<T>
    where
        T: Int,
    {
        let token = self.__cmc_enter("draw:range");
        let result = self.__cmc_int_in_range(range);
        self.__cmc_exit(token);
        result
    }

    /// A collection's size in bytes, from the back: recorded as `draw:len`.
    fn arbitrary_byte_size(&mut self) -> Result<usize> {
        let token = self.__cmc_enter("draw:len");
        let result = self.__cmc_arbitrary_byte_size();
        self.__cmc_exit(token);
        result
    }

    /// `size` bytes from the front: recorded as `draw:bytes`.
    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {
        let token = self.__cmc_enter("draw:bytes");
        let result = self.__cmc_bytes(size);
        self.__cmc_exit(token);
        result
    }
}
"#;

/// `unstructured.rs` with each wrapped method renamed and the wrappers
/// appended, or `None` when the source is not of the expected form (an
/// anchor missing or repeated, or already patched).
pub fn patch(source: &str) -> Option<String> {
    let once = |text: &str| source.matches(text).count() == 1;
    let expected = WRAPPED.iter().all(|w| once(w.declaration)) && REQUIRED.iter().all(|text| once(text));
    if !expected || source.contains("__cmc_") {
        return None;
    }
    let mut patched = source.to_string();
    for wrapped in &WRAPPED {
        let name = wrapped.name;
        let private = wrapped.declaration.replacen(&format!("fn {name}("), &format!("fn __cmc_{name}("), 1);
        let private = private.replacen(&format!("fn {name}<"), &format!("fn __cmc_{name}<"), 1);
        patched = patched.replacen(wrapped.declaration, &private.replacen("pub fn", "fn", 1), 1);
    }
    patched.push_str(WRAPPERS);
    Some(patched)
}

/// The shape of arbitrary 1.5.0's `src/unstructured.rs`, bodies shortened (for tests here and in `arbitrary_shim`).
#[cfg(test)]
pub(super) const FAKE_UNSTRUCTURED: &str = "use std::{mem, ops};

use crate::{Error, Result};

pub struct Unstructured<'a> {
    data: &'a [u8],
}

impl<'a> Unstructured<'a> {
    pub fn len(&self) -> usize {
        self.data.len()
    }

    fn arbitrary_byte_size(&mut self) -> Result<usize> {
        Ok(0)
    }

    /// Generate an integer within the given range.
    pub fn int_in_range<T>(&mut self, range: ops::RangeInclusive<T>) -> Result<T>
    where
        T: Int,
    {
        Ok(*range.start())
    }

    pub fn fill_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {
        Ok(())
    }

    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {
        Err(Error::NotEnoughData)
    }

    pub fn peek_bytes(&self, size: usize) -> Option<&'a [u8]> {
        self.data.get(..size)
    }
}

pub trait Int {}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_read_is_renamed_in_place_and_wrapped_in_an_appended_impl() {
        let patched = patch(FAKE_UNSTRUCTURED).expect("the expected form");
        let (original, appended) = patched.split_at(patched.find("\n\n// Appended by cargo-minimize-crash").unwrap());
        // The bodies stay where they were, under private names; nothing else changes.
        let renamed = FAKE_UNSTRUCTURED
            .replace("    fn arbitrary_byte_size(", "    fn __cmc_arbitrary_byte_size(")
            .replace("    pub fn int_in_range<T>(", "    fn __cmc_int_in_range<T>(")
            .replace("    pub fn fill_buffer(", "    fn __cmc_fill_buffer(")
            .replace("    pub fn bytes(", "    fn __cmc_bytes(");
        assert_eq!(original, renamed);
        // The wrappers have the original signatures and the fixed labels.
        for wrapped in &WRAPPED {
            assert!(appended.contains(wrapped.declaration), "{}", wrapped.name);
            assert!(appended.contains(&format!("self.__cmc_{}(", wrapped.name)), "{}", wrapped.name);
        }
        for label in LABELS {
            assert!(appended.contains(&format!("\"{label}\"")), "{label}");
        }
        assert_eq!(patched.matches("cmc_runtime::examples::enter(").count(), 1);
    }

    #[test]
    fn a_source_of_another_form_is_left_alone() {
        let missing = FAKE_UNSTRUCTURED
            .replace("    pub fn bytes(&mut self, size: usize)", "    pub fn bytes(&mut self, n: usize)");
        assert_eq!(patch(&missing), None);
        let twice = format!("{FAKE_UNSTRUCTURED}\nimpl<'a> Unstructured<'a> {{\n}}\n");
        assert_eq!(patch(&twice), None);
        let no_peek = FAKE_UNSTRUCTURED.replace("pub fn peek_bytes", "pub fn peek");
        assert_eq!(patch(&no_peek), None);
        let patched = patch(FAKE_UNSTRUCTURED).unwrap();
        assert_eq!(patch(&patched), None, "patched once");
    }
}
