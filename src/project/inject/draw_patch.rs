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
//! Each method's exact signature is the anchor: it is renamed in place to a
//! private `__cmc_<name>` (its body untouched, on the same lines), and one
//! appended `impl` block defines the method again, with the same signature,
//! as a wrapper that reports the cursor before and after the original body to
//! `cmc_runtime::examples` under a fixed label ([`LABELS`]).
//!
//! A wrapper adds no branch of its own (the runtime, compiled uninstrumented,
//! picks a `fill_buffer`'s label from its width and an `int_in_range`'s from
//! the range's ends, handed over as their bytes) and makes one call, which
//! cannot unwind (`extern "C"`: a call, not an `invoke` that ends a block):
//! after the read, or for `fill_buffer`, whose extent is known in advance,
//! before it, since a call after it turned the zero-filling of a short tail
//! into a branch of its own. The coverage build (`--cfg cmc_coverage`)
//! compiles the wrappers without that call: its instrumented code must be
//! what `cargo fuzz build` instruments, and a coverage harness's examples and
//! draws come from a run of the crash build, `crate::corpus::worker::runner`
//! (decision 0077).
//!
//! Four more methods answer questions about the data without being draws:
//! `len`, `is_empty`, `peek_bytes` and `take_rest`. They and the four reads
//! hand their answers (a read's result, not its bytes) to
//! `cmc_runtime::values::answer`, which hashes them into the run's value key
//! (see the runtime's `values` module): two inputs with equal answers build
//! the same value. `is_empty` answers from the cursor rather than through
//! `len` (every derived value asks it; its original is left uncalled, hence
//! the `#[allow(dead_code)]` on each renamed method). The coverage build
//! (`--cfg cmc_coverage`) leaves the answers out and calls `is_empty`'s
//! original: a coverage harness has no known values, and their code (an
//! `Option` made of each `Result`) added counters that `cargo fuzz build`
//! does not have (decision 0077).
//!
//! A source where any anchor is missing or occurs twice is left alone
//! ([`patch`] returns `None`): the build goes on without draws.

/// The file of the `arbitrary` source that defines `Unstructured`.
pub const UNSTRUCTURED: &str = "src/unstructured.rs";

/// Every label a draw is recorded with (the reducer parses them: keep in step
/// with `src/reduce/draws.rs`). `fill_buffer` gives `draw:le:<width>` for the
/// widths of Rust's integers and `draw:le` for any other buffer length (the
/// runtime's `draw_fill` takes them from `cmc_protocol::layout::fill_label`;
/// `int_in_range` gives `draw:range:<bounds>`, from the runtime's
/// `draw_range` and `cmc_protocol::layout::RangeBounds`, and `draw:range`
/// where the label table has no room for them; the others are in
/// [`WRAPPERS`]).
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

const WRAPPED: [Wrapped; 8] = [
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
    Wrapped { name: "len", declaration: "    pub fn len(&self) -> usize {\n" },
    Wrapped { name: "is_empty", declaration: "    pub fn is_empty(&self) -> bool {\n" },
    Wrapped { name: "peek_bytes", declaration: "    pub fn peek_bytes(&self, size: usize) -> Option<&'a [u8]> {\n" },
    Wrapped { name: "take_rest", declaration: "    pub fn take_rest(mut self) -> &'a [u8] {\n" },
];

/// What the appended wrappers rely on besides the wrapped methods.
const REQUIRED: [&str; 2] =
    ["pub struct Unstructured<'a> {\n    data: &'a [u8],\n}\n", "impl<'a> Unstructured<'a> {\n"];

/// The appended wrappers, after their comment: the cursor helper and the
/// methods, whose signatures repeat the anchors in [`WRAPPED`].
const WRAPPERS: &str = super::text(include_str!("files/draw_wrappers.rs"));

/// `unstructured.rs` with each wrapped method renamed and the wrappers
/// appended; `None` when the source is not of the expected form (an anchor
/// missing or repeated, or already patched).
pub fn patch(source: &str) -> Option<String> {
    let once = |text: &str| source.matches(text).count() == 1;
    let expected = WRAPPED.iter().all(|w| once(w.declaration)) && REQUIRED.iter().all(|text| once(text));
    if !expected || source.contains("__cmc_") {
        return None;
    }
    // In place, on the declaration's own lines: every line number stays.
    let mut patched = source.to_string();
    for wrapped in &WRAPPED {
        let name = wrapped.name;
        let private = wrapped.declaration.replacen(&format!("fn {name}("), &format!("fn __cmc_{name}("), 1);
        let private = private.replacen(&format!("fn {name}<"), &format!("fn __cmc_{name}<"), 1);
        // `is_empty`'s wrapper does not call its original: no dead-code error
        // under the crate's `#![deny(unused)]`.
        let private = format!("    #[allow(dead_code)] {}", private.trim_start().trim_start_matches("pub "));
        patched = patched.replacen(wrapped.declaration, &private, 1);
    }
    patched.push_str("\n\n");
    patched.push_str(WRAPPERS);
    Some(patched)
}

/// The shape of arbitrary 1.5.0's `src/unstructured.rs`, bodies shortened (for tests here and in `arbitrary_shim`).
#[cfg(test)]
pub(super) const FAKE_UNSTRUCTURED: &str = super::text(include_str!("files/fake_unstructured.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with each wrapped method's declaration as both builds compile it (in place, same lines).
    fn renamed(text: &str) -> String {
        let allowed = "    #[allow(dead_code)] fn __cmc_";
        text.replace("    fn arbitrary_byte_size(", &format!("{allowed}arbitrary_byte_size("))
            .replace("    pub fn int_in_range<T>(", &format!("{allowed}int_in_range<T>("))
            .replace("    pub fn fill_buffer(", &format!("{allowed}fill_buffer("))
            .replace("    pub fn bytes(", &format!("{allowed}bytes("))
            .replace("    pub fn len(", &format!("{allowed}len("))
            .replace("    pub fn is_empty(", &format!("{allowed}is_empty("))
            .replace("    pub fn peek_bytes(", &format!("{allowed}peek_bytes("))
            .replace("    pub fn take_rest(", &format!("{allowed}take_rest("))
    }

    #[test]
    fn each_read_is_renamed_in_place_and_wrapped_in_an_appended_impl() {
        let patched = patch(FAKE_UNSTRUCTURED).expect("the expected form");
        let (original, wrappers) = patched.split_at(patched.find("\n\n// Appended by cargo-minimize-crash").unwrap());
        // The bodies stay where they were, under private names, each declaration
        // on its own line(s): every line number of the file is kept.
        assert_eq!(original, renamed(FAKE_UNSTRUCTURED));
        assert_eq!(original.lines().count(), FAKE_UNSTRUCTURED.lines().count());
        // The wrappers have the original signatures and call the original
        // bodies (`is_empty`, whose original asks `len`, a wrapper too, only
        // in the coverage build).
        assert!(wrappers.contains("\n#[allow(warnings, unused)]\nimpl<'a> Unstructured<'a> {\n"));
        for wrapped in &WRAPPED {
            assert!(wrappers.contains(&wrapped.declaration.replace("(mut self)", "(self)")), "{}", wrapped.name);
            assert!(wrappers.contains(&format!("self.__cmc_{}(", wrapped.name)), "{}", wrapped.name);
        }
        assert!(wrappers.contains("#[cfg(cmc_coverage)]\n        return self.__cmc_is_empty();"));
        // Each read's answer goes into the value key once (a fill's in the
        // runtime), none in the coverage build: its code is not cargo fuzz
        // build's, and a coverage harness has no known values.
        assert_eq!(wrappers.matches("cmc_runtime::values::answer(").count(), 7);
        // Nor any draw: the coverage build records nothing.
        // (`int_in_range`'s copy of the range's ends is one more, its draw and answer one block.)
        assert_eq!(wrappers.matches("#[cfg(not(cmc_coverage))]").count(), 7 + 4);
        assert_eq!(wrappers.matches("#[cfg(not(cmc_coverage))]\n        cmc_runtime::examples::draw").count(), 3);
        // One call each to the runtime, with the fixed labels (a fill's chosen
        // by the runtime from its width, a range's from its ends), and no
        // branch of their own.
        let range = "cmc_runtime::examples::draw_range((front, len), after, bytes(&start), bytes(&end));";
        assert_eq!(wrappers.matches(range).count(), 1);
        for label in ["draw:len", "draw:bytes"] {
            assert_eq!(
                wrappers
                    .matches(&format!("cmc_runtime::examples::draw(front, len, after.0, after.1, \"{label}\")"))
                    .count(),
                1,
                "{label}"
            );
        }
        assert_eq!(wrappers.matches("cmc_runtime::examples::draw_fill(self.data, buffer.len())").count(), 1);
        for branch in ["match ", "if ", "?", "map_or"] {
            assert!(!wrappers.contains(branch), "{branch}");
        }
    }

    /// Every label the reducer parses is spelled where a draw is recorded:
    /// in the wrappers, or for a fill (labelled by its width) by
    /// `layout::fill_label`, which the runtime's `draw_fill` calls, or for a
    /// range by the runtime (its bounds, or plainly).
    #[test]
    fn every_label_is_recorded_by_the_wrappers_or_the_runtime() {
        let (_, runtime) =
            super::super::embedded::RUNTIME.files.iter().find(|(name, _)| *name == "examples.rs").unwrap();
        assert!(runtime.contains("layout::fill_label(width)"));
        assert!(runtime.contains("RangeBounds::of(start, end)"));
        let fills: Vec<&str> = (0..=32).map(crate::protocol::layout::fill_label).collect();
        for label in LABELS {
            let quoted = format!("\"{label}\"");
            assert!(WRAPPERS.contains(&quoted) || fills.contains(&label) || runtime.contains(&quoted), "{label}");
        }
    }

    #[test]
    fn a_source_of_another_form_is_left_alone() {
        let missing = FAKE_UNSTRUCTURED
            .replace("    pub fn bytes(&mut self, size: usize)", "    pub fn bytes(&mut self, n: usize)");
        assert_eq!(patch(&missing), None);
        let twice = format!("{FAKE_UNSTRUCTURED}\nimpl<'a> Unstructured<'a> {{\n}}\n");
        assert_eq!(patch(&twice), None);
        let no_data = FAKE_UNSTRUCTURED.replace("    data: &'a [u8],", "    bytes: &'a [u8],");
        assert_eq!(patch(&no_data), None);
        let patched = patch(FAKE_UNSTRUCTURED).unwrap();
        assert_eq!(patch(&patched), None, "patched once");
    }
}
