//! The text patch that makes the real `arbitrary` copy's `Unstructured` record each primitive read (a *draw*) as a leaf example labelled `draw:*`, except in the coverage build (`--cfg cmc_coverage`), where it compiles to the crate's own methods.
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
//! Each method's exact signature is the anchor: it is renamed in place to a
//! private `__cmc_<name>` (its body untouched, on the same lines), and one
//! appended `impl` block defines the method again, with the same signature,
//! as a wrapper that reports the cursor before and after the original body to
//! `cmc_runtime::examples`, under a fixed label ([`LABELS`]).
//!
//! The crash build and the coverage build share this file, and the coverage
//! build must be instrumented as `cargo fuzz build` instruments the user's
//! `arbitrary`: instrumented wrappers add edges and hit counts libFuzzer
//! never sees (config's corpus: 543 features against 533), and corpus mode
//! does not use draws. So the renamed methods and the wrappers are compiled
//! only without [`COVERAGE_CFG`], which only the coverage build passes
//! (`super::harness::rustflags`); with it, a second appended block holds the
//! four methods as the crate writes them, copied verbatim (doc comments and
//! attributes included), so that build has the crate's own functions and
//! nothing else (only their place in the file differs). One file for both
//! builds: neither rewrites what the other compiles.
//!
//! A source where any anchor is missing or occurs twice, or a method whose
//! extent is not plain (attributes on one line each, the body indented
//! deeper than its closing brace), is left alone ([`patch`] returns `None`):
//! the build goes on without draws.

use std::ops::Range;

/// The file of the `arbitrary` source that defines `Unstructured`.
pub const UNSTRUCTURED: &str = "src/unstructured.rs";

/// The `--cfg` of the coverage build: the patched file then compiles to the
/// crate's own four methods, with no renaming and no wrapper.
pub const COVERAGE_CFG: &str = "cmc_coverage";

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

/// The appended wrappers: the cursor helpers and the four methods, whose
/// signatures repeat the anchors in [`WRAPPED`] (preceded by their comment
/// and `#[cfg(not(cmc_coverage))]` in [`patch`]).
const WRAPPERS: &str = r#"#[allow(warnings)]
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
/// appended (both only without [`COVERAGE_CFG`]), and the original methods
/// appended verbatim for the coverage build; `None` when the source is not of
/// the expected form (an anchor missing or repeated, a method's extent not
/// plain, or already patched).
pub fn patch(source: &str) -> Option<String> {
    let once = |text: &str| source.matches(text).count() == 1;
    let expected = WRAPPED.iter().all(|w| once(w.declaration)) && REQUIRED.iter().all(|text| once(text));
    if !expected || source.contains("__cmc_") {
        return None;
    }
    let mut items = WRAPPED.iter().map(|w| item(source, w.declaration)).collect::<Option<Vec<_>>>()?;
    items.sort_by_key(|item| item.start);

    // In place, on the declaration's own lines: every line number stays.
    let mut patched = source.to_string();
    for wrapped in &WRAPPED {
        let name = wrapped.name;
        let private = wrapped.declaration.replacen(&format!("fn {name}("), &format!("fn __cmc_{name}("), 1);
        let private = private.replacen(&format!("fn {name}<"), &format!("fn __cmc_{name}<"), 1);
        let private = private.trim_start().trim_start_matches("pub ");
        let private = format!("    #[cfg(not({COVERAGE_CFG}))] {private}");
        patched = patched.replacen(wrapped.declaration, &private, 1);
    }
    patched.push_str(&format!(
        "\n\n// Appended by cargo-minimize-crash: every primitive read reports the bytes it\n\
         // took to the harness runtime as a leaf example labelled `draw:*`. The\n\
         // original bodies are the `__cmc_*` methods above, unchanged. (The crate's\n\
         // own `#![deny(..)]` lines come after our `#![allow(warnings)]` and win there.)\n\
         #[cfg(not({COVERAGE_CFG}))]\n{WRAPPERS}"
    ));
    patched.push_str(&format!(
        "\n// Appended by cargo-minimize-crash: the coverage build (`--cfg {COVERAGE_CFG}`)\n\
         // records no draws and compiles the four methods as the crate defines them,\n\
         // copied here verbatim, so it is instrumented as `cargo fuzz build` instruments it.\n\
         #[cfg({COVERAGE_CFG})]\nimpl<'a> Unstructured<'a> {{\n"
    ));
    let copies: Vec<&str> = items.iter().map(|item| &source[item.clone()]).collect();
    patched.push_str(&copies.join("\n"));
    patched.push_str("}\n");
    Some(patched)
}

/// The extent of the method declared by `declaration` (whole lines at four
/// spaces' indentation, ending in `{`): the doc comments and attributes above
/// it, one line each (up to a blank line, a plain comment, an opening brace or
/// the closing brace of the previous item), through the first line that is
/// its closing brace at its own indentation, every line between indented
/// deeper or blank. `None` for anything else (an attribute over several
/// lines, a body line at the method's indentation): a copy could not be
/// trusted to be the whole method.
fn item(source: &str, declaration: &str) -> Option<Range<usize>> {
    let at = source.find(declaration)?;
    let mut start = at;
    if !source[..start].is_empty() && !source[..start].ends_with('\n') {
        return None;
    }
    while let Some(above) = source[..start].strip_suffix('\n') {
        let line_start = above.rfind('\n').map_or(0, |i| i + 1);
        let line = &above[line_start..];
        if line.starts_with("    ///") || (line.starts_with("    #[") && line.ends_with(']')) {
            start = line_start;
        } else if line.trim().is_empty() || line.ends_with('{') || line == "    }" || line.starts_with("    //") {
            break;
        } else {
            return None;
        }
    }
    let mut end = at + declaration.len();
    loop {
        let line_end = end + source[end..].find('\n')? + 1;
        let line = &source[end..line_end];
        end = line_end;
        if line == "    }\n" {
            return Some(start..end);
        }
        if !(line.trim().is_empty() || line.starts_with("        ")) {
            return None;
        }
    }
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
        if self.data.is_empty() {
            Ok(0)
        } else {
            // Lengths come from the back.

            Ok(1)
        }
    }

    /// Generate an integer within the given range.
    pub fn int_in_range<T>(&mut self, range: ops::RangeInclusive<T>) -> Result<T>
    where
        T: Int,
    {
        Ok(*range.start())
    }

    /// Fill a `buffer`.
    ///
    /// Pads it with zeros.
    #[inline]
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

    /// The four wrapped methods of [`FAKE_UNSTRUCTURED`], each whole (doc
    /// comments and attributes included), in source order.
    const FAKE_ITEMS: [&str; 4] = [
        "    fn arbitrary_byte_size(&mut self) -> Result<usize> {\n        if self.data.is_empty() {\n            \
         Ok(0)\n        } else {\n            // Lengths come from the back.\n\n            Ok(1)\n        }\n    }\n",
        "    /// Generate an integer within the given range.\n    pub fn int_in_range<T>(&mut self, range: \
         ops::RangeInclusive<T>) -> Result<T>\n    where\n        T: Int,\n    {\n        Ok(*range.start())\n    }\n",
        "    /// Fill a `buffer`.\n    ///\n    /// Pads it with zeros.\n    #[inline]\n    pub fn fill_buffer(&mut self, \
         buffer: &mut [u8]) -> Result<()> {\n        Ok(())\n    }\n",
        "    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {\n        Err(Error::NotEnoughData)\n    }\n",
    ];

    /// `text` with each wrapped method's declaration as the crash build compiles it (in place, same lines).
    fn renamed(text: &str) -> String {
        let cfg = "#[cfg(not(cmc_coverage))]";
        text.replace("    fn arbitrary_byte_size(", &format!("    {cfg} fn __cmc_arbitrary_byte_size("))
            .replace("    pub fn int_in_range<T>(", &format!("    {cfg} fn __cmc_int_in_range<T>("))
            .replace("    pub fn fill_buffer(", &format!("    {cfg} fn __cmc_fill_buffer("))
            .replace("    pub fn bytes(", &format!("    {cfg} fn __cmc_bytes("))
    }

    /// The patched file: the original part (every line in its place) and the two appended blocks.
    fn parts(patched: &str) -> (&str, &str, &str) {
        let (original, appended) = patched.split_at(patched.find("\n\n// Appended by cargo-minimize-crash").unwrap());
        let (wrappers, coverage) = appended.split_at(appended.rfind("\n// Appended by cargo-minimize-crash").unwrap());
        (original, wrappers, coverage)
    }

    #[test]
    fn the_crash_build_renames_each_read_in_place_and_wraps_it_in_an_appended_impl() {
        let patched = patch(FAKE_UNSTRUCTURED).expect("the expected form");
        let (original, wrappers, _) = parts(&patched);
        // The bodies stay where they were, under private names, each declaration
        // on its own line(s): every line number of the file is kept.
        assert_eq!(original, renamed(FAKE_UNSTRUCTURED));
        assert_eq!(original.lines().count(), FAKE_UNSTRUCTURED.lines().count());
        // The wrappers have the original signatures and the fixed labels, in the crash build only.
        assert!(wrappers.contains("\n#[cfg(not(cmc_coverage))]\n#[allow(warnings)]\nimpl<'a> Unstructured<'a> {\n"));
        for wrapped in &WRAPPED {
            assert!(wrappers.contains(wrapped.declaration), "{}", wrapped.name);
            assert!(wrappers.contains(&format!("self.__cmc_{}(", wrapped.name)), "{}", wrapped.name);
        }
        for label in LABELS {
            assert!(wrappers.contains(&format!("\"{label}\"")), "{label}");
        }
        assert_eq!(patched.matches("cmc_runtime::examples::enter(").count(), 1);
    }

    /// What the coverage build compiles: every item marked
    /// `#[cfg(not(cmc_coverage))]` (the four renamed methods, the wrappers)
    /// gone, the verbatim block in: the crate's own file, the four methods
    /// moved to a second `impl` block, byte for byte the same.
    #[test]
    fn the_coverage_build_compiles_the_crates_own_methods_and_no_wrapper() {
        assert_eq!(COVERAGE_CFG, "cmc_coverage");
        let patched = patch(FAKE_UNSTRUCTURED).unwrap();
        let (original, wrappers, coverage) = parts(&patched);
        assert_eq!(patched.matches("#[cfg(not(cmc_coverage))]").count(), 5, "four methods and the wrappers");
        assert_eq!(patched.matches("#[cfg(").count(), 6, "and the verbatim block");
        assert!(wrappers.contains("\n#[cfg(not(cmc_coverage))]\n#[allow(warnings)]\nimpl<'a> Unstructured<'a> {\n"));
        let block =
            coverage.split_once("\n#[cfg(cmc_coverage)]\nimpl<'a> Unstructured<'a> {\n").expect("the verbatim block").1;
        assert_eq!(block, format!("{}}}\n", FAKE_ITEMS.join("\n")));
        let mut rest_patched = original.to_string();
        let mut rest_original = FAKE_UNSTRUCTURED.to_string();
        for item in FAKE_ITEMS {
            assert_eq!(rest_original.matches(item).count(), 1, "{item}");
            rest_original = rest_original.replacen(item, "", 1);
            rest_patched = rest_patched.replacen(&renamed(item), "", 1);
        }
        assert_eq!(rest_patched, rest_original, "nothing else differs");
        assert!(!block.contains("__cmc_") && !block.contains("cmc_runtime"));
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

    /// A copy for the coverage build must be the whole method: an attribute
    /// over several lines or a body line at the method's indentation could
    /// leave part of it out, so the source is not patched at all.
    #[test]
    fn a_method_whose_extent_is_not_plain_is_left_alone() {
        let attribute =
            FAKE_UNSTRUCTURED.replace("    #[inline]\n", "    #[cfg_attr(\n        fuzzing,\n        inline\n    )]\n");
        assert_eq!(patch(&attribute), None);
        let flat_body =
            FAKE_UNSTRUCTURED.replace("        Err(Error::NotEnoughData)\n", "    Err(Error::NotEnoughData)\n");
        assert_eq!(patch(&flat_body), None);
        let unclosed = FAKE_UNSTRUCTURED
            .replace("        Err(Error::NotEnoughData)\n    }\n", "        Err(Error::NotEnoughData)\n");
        assert_eq!(patch(&unclosed), None);
        let item_above = FAKE_UNSTRUCTURED
            .replace("\n\n    fn arbitrary_byte_size(", "\n    const X: u8 = 0;\n    fn arbitrary_byte_size(");
        assert_eq!(patch(&item_above), None);
        // Doc comments, one-line attributes and plain comments are fine.
        let commented = FAKE_UNSTRUCTURED
            .replace("\n\n    fn arbitrary_byte_size(", "\n\n    // Lengths.\n    fn arbitrary_byte_size(");
        assert!(patch(&commented).is_some());
    }
}
