#![no_main]

//! A typed target: `arbitrary` builds a document of blocks (strings, an enum,
//! nested vectors), which is rendered to text and parsed back, as a markdown
//! crate's round-trip target does.

use libfuzzer_sys::fuzz_target;
use planted::doc::{parse, render, Doc};

fuzz_target!(|doc: Doc| {
    planted::count::tick();
    parse(&render(&doc), doc.options);
});
