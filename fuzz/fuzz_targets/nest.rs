#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    planted::count::tick();
    // Rejected inputs are fine; the planted bug panics, loops or kills the process.
    let _ = planted::nest::parse(data);
});
