//! The recursion a stack overflow ran out in, named by its functions alone, so that every input of one recursion reads the same wherever its stack ran out.
//!
//! A stack overflow's frames (innermost first, inlined frames included) are
//! a window on the top of a deep stack: a few frames where the stack ran out
//! (a stack probe, a `memcpy`, a callee inlined at that one level), then the
//! recursion, cut wherever the window ends. A function found twice in the
//! window called itself, directly or through others: the recursion is the
//! set of those functions, sorted, `recursion: list, value`. Lines are not
//! compared (a function recurses from several lines, and an optimized build
//! leaves some at line 0), only names; nor is the order the functions call
//! each other in: where the input drives the recursion (rustc-demangle's
//! back-references, a parser's nesting) the cycle is as long and as
//! irregular as the input makes it, so its order (and which function the
//! stack ran out in) moves with the input and the stack's size, while the
//! set of functions does not.
//!
//! The program's own frames are read first (the standard library's inlined
//! helpers, such as `Result::and_then` around a closure, repeat only where a
//! call site has them); where nothing repeats there, all frames are (a
//! recursion inside the standard library: `drop_in_place` of a deeply nested
//! value).

use std::collections::BTreeMap;

use super::parse::Frame;
use super::path;

/// The recursion in `frames`, or `None` when nothing repeats.
pub fn recursion(frames: &[Frame]) -> Option<String> {
    let program: Vec<&str> = frames.iter().filter(|f| is_program(f)).map(|f| f.function.as_str()).collect();
    let all: Vec<&str> = frames.iter().map(|f| f.function.as_str()).collect();
    let functions = steady(&program).or_else(|| steady(&all))?;
    Some(format!("recursion: {}", functions.join(", ")))
}

/// The functions that repeat in the window's deeper half, where the
/// recursion that filled the stack runs; in all of it when none repeats
/// there. The top half may hold a call that recursed a level or two only at
/// the moment the stack ran out (rustc-demangle's `Parser::skip_path`
/// inside its printer's recursion at a 2 MiB stack, not at 8 MiB), which is
/// where the stack ran out, not the recursion.
fn steady<'a>(names: &[&'a str]) -> Option<Vec<&'a str>> {
    repeated(&names[names.len() / 2..]).or_else(|| repeated(names))
}

/// Whether a frame is the program's (its dependencies' included), not the
/// runtime's or the standard library's.
fn is_program(frame: &Frame) -> bool {
    frame.is_compiled_code() && !frame.file.as_deref().is_some_and(path::is_standard_library)
}

/// The names found at least twice in `names`, sorted; `None` when there are none.
fn repeated<'a>(names: &[&'a str]) -> Option<Vec<&'a str>> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for name in names {
        *counts.entry(name).or_default() += 1;
    }
    let repeated: Vec<&str> = counts.into_iter().filter(|&(_, count)| count >= 2).map(|(name, _)| name).collect();
    (!repeated.is_empty()).then_some(repeated)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: &str, file: &str) -> Frame {
        Frame { function: function.into(), file: Some(file.into()) }
    }

    fn frames(names: &[&str]) -> Vec<Frame> {
        names.iter().map(|n| frame(n, "src/lib.rs:1:1")).collect()
    }

    /// Wherever the stack ran out, one recursion reads the same: the
    /// functions that repeat; a few frames at the top (a probe, a `memcpy`)
    /// are outside it.
    #[test]
    fn a_recursion_is_named_by_the_functions_that_repeat() {
        let one = frames(&["value", "list", "value", "list", "value", "list", "value"]);
        let other = frames(&["__rust_probestack", "list", "value", "list", "value", "list", "value", "list"]);
        assert_eq!(recursion(&one).as_deref(), Some("recursion: list, value"));
        assert_eq!(recursion(&one), recursion(&other));
        let direct = frames(&["memcpy", "print_path", "print_path", "print_path"]);
        assert_eq!(recursion(&direct).as_deref(), Some("recursion: print_path"));
        assert_eq!(recursion(&frames(&["a", "b", "c", "d"])), None, "nothing repeats");
    }

    /// rustc-demangle 0.1.18's harness frames, as the symbolizer gave them:
    /// the standard library's inlined helpers and a closure at the top only,
    /// line 0 on some levels, a cycle as long and irregular as the input's
    /// back-references; and ASan's trace of another input, seven frames of
    /// `memcpy` and `String::push_str` above the recursion.
    #[test]
    fn a_recursion_is_found_under_inlined_helpers_irregular_cycles_and_lines_that_differ() {
        let std_file = "/rustc/abc/library/core/src/result.rs:1:1";
        let mut harness = vec![
            frame("rustc_demangle::v0::Parser::skip_path", "v0.rs:414:5"),
            frame("rustc_demangle::v0::Printer::print_path::{closure#7}", "v0.rs:588:3"),
            frame("core::result::Result::and_then", std_file),
            frame("rustc_demangle::v0::Printer::print_path", "v0.rs:588:3"),
        ];
        for level in 0..12 {
            harness.push(frame("rustc_demangle::v0::Printer::print_type", "v0.rs:898:22"));
            if level % 3 != 1 {
                let line = if level % 2 == 0 { "v0.rs:0:0" } else { "v0.rs:893:40" };
                harness.push(frame("rustc_demangle::v0::Printer::print_type", line));
            }
            harness.push(frame("rustc_demangle::v0::Printer::print_path", "v0.rs:743:22"));
        }
        let expected = "recursion: rustc_demangle::v0::Printer::print_path, rustc_demangle::v0::Printer::print_type";
        for top in 0..8 {
            assert_eq!(recursion(&harness[top..]).as_deref(), Some(expected), "the stack ran out {top} frames lower");
        }
        let push = "/rustc/e50/library/alloc/src/string.rs:1111:18";
        let mut asan: Vec<Frame> = ["__asan_memcpy", "copy_nonoverlapping<u8>", "append_elements<u8>", "push_str"]
            .iter()
            .map(|f| frame(f, push))
            .collect();
        asan.push(frame("<alloc::string::String as core::fmt::Write>::write_str", push));
        asan.extend((0..20).map(|_| frame("<rustc_demangle::v0::Printer>::print_path", "v0.rs:742:26")));
        assert_eq!(recursion(&asan).as_deref(), Some("recursion: <rustc_demangle::v0::Printer>::print_path"));
    }

    /// A recursion inside the standard library (dropping a deeply nested
    /// value) has no frame of the program's in the window: all frames are read.
    /// A call that recursed two levels only where the stack ran out is not
    /// the recursion: the deeper half names it.
    #[test]
    fn a_short_recursion_at_the_top_of_the_window_is_not_the_recursion() {
        let mut window = frames(&["skip_path", "skip_path", "print_path"]);
        window.extend(frames(&["print_type", "print_path"]).into_iter().cycle().take(20));
        assert_eq!(recursion(&window).as_deref(), Some("recursion: print_path, print_type"));
        let short = frames(&["skip_path", "skip_path", "print_path", "print_type"]);
        assert_eq!(recursion(&short).as_deref(), Some("recursion: skip_path"), "nothing repeats below: all of it");
    }

    #[test]
    fn a_recursion_of_the_standard_library_alone_is_named_by_its_frames() {
        let drop = frame("core::ptr::drop_in_place<planted::Node>", "/rustc/a/library/core/src/ptr/mod.rs:1:1");
        let free = Frame { function: "free".into(), file: None };
        let window: Vec<Frame> = std::iter::once(free).chain(std::iter::repeat_n(drop, 12)).collect();
        assert_eq!(recursion(&window).as_deref(), Some("recursion: core::ptr::drop_in_place<planted::Node>"));
    }
}
