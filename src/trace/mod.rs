//! Crash reports as text: the frames of a stack trace, a panic's message
//! and location, a sanitizer's report, and the file paths in them made
//! comparable across machines. The executors read frames from here to
//! symbolize them; signatures are built from what is parsed here.

pub mod parse;
pub mod path;
pub mod recursion;
pub mod symbol;
