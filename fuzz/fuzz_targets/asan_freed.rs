#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The planted bug is a use after free that AddressSanitizer reports only
    // with its quarantine of freed memory on (its default).
    let _ = planted::freed::mark(data);
});
