#![no_main]

//! A typed target: `arbitrary` builds a configuration of several collections
//! (strings, integers, bytes, optional flags), which the check turns into
//! per-host settings.

use libfuzzer_sys::fuzz_target;
use planted::config::{validate, Config};

fuzz_target!(|config: Config| {
    planted::count::tick();
    let _ = validate(&config);
});
