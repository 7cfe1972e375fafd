#![no_main]

//! A typed target: `arbitrary` builds a program, a vector of an enum of
//! commands with integer, string and vector fields, which the interpreter runs.

use libfuzzer_sys::fuzz_target;
use planted::commands::{run, Op};

fuzz_target!(|ops: Vec<Op>| {
    planted::count::tick();
    let _ = run(&ops);
});
