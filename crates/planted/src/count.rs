//! An execution counter for the benchmarks: every fuzz target in `fuzz/` calls
//! [`tick`] first, which appends one byte to the file named by
//! `PLANTED_COUNT_FILE` (when set), so the file's size is the number of times
//! the target ran, whoever ran it: libFuzzer's in-process loop, `cargo fuzz
//! tmin`'s child processes, or a fork server's children.
//!
//! Each tick is one `write` to a file opened with `O_APPEND`, so concurrent
//! processes never overwrite each other's bytes, and a byte written before a
//! crash or a hang is already counted (no buffer to lose). The file is opened
//! on the first tick and cached in a `static`: a fork server's parent never
//! runs the target, so each forked child opens its own; a process that ticked
//! before forking shares the descriptor with its children, which `O_APPEND`
//! makes just as correct. Unset, a tick costs one check of an initialized
//! `OnceLock`.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::OnceLock;

/// The environment variable naming the counter file.
pub const VAR: &str = "PLANTED_COUNT_FILE";

/// The counter file, opened for appending, or nothing (the variable unset, or
/// the file could not be opened: counting must never change what the target
/// does, so that is silent, and a reader sees a count of zero).
#[derive(Debug)]
struct Counter(Option<File>);

impl Counter {
    fn open(path: Option<OsString>) -> Counter {
        Counter(path.and_then(|path| OpenOptions::new().append(true).create(true).open(path).ok()))
    }

    fn tick(&self) {
        if let Some(mut file) = self.0.as_ref() {
            // One byte, one `write`: the file's size is the count.
            let _ = file.write(b".");
        }
    }
}

static COUNTER: OnceLock<Counter> = OnceLock::new();

/// Counts one execution of a fuzz target: appends a byte to the file named by
/// `PLANTED_COUNT_FILE`, if set (read once per process).
pub fn tick() {
    COUNTER.get_or_init(|| Counter::open(std::env::var_os(VAR))).tick();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tick_appends_one_byte_and_no_file_counts_nothing() {
        let path = std::env::temp_dir().join(format!("planted-count-test-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let counter = Counter::open(Some(path.clone().into()));
        let again = Counter::open(Some(path.clone().into()));
        counter.tick();
        again.tick();
        counter.tick();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 3);
        std::fs::remove_file(&path).unwrap();
        Counter::open(None).tick();
        assert!(Counter::open(None).0.is_none());
    }
}
