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
//!
//! `PLANTED_WORK_MS` makes every target slow for the parallel-testing
//! benchmark: each tick then spins until its thread has used that many
//! milliseconds of CPU time (not wall time: under contention it takes
//! longer, as a real slow parser would).

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable naming the counter file.
pub const VAR: &str = "PLANTED_COUNT_FILE";

/// The environment variable giving the CPU time each execution spends first, in milliseconds.
pub const WORK_VAR: &str = "PLANTED_WORK_MS";

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
static WORK: OnceLock<Option<Duration>> = OnceLock::new();

/// Counts one execution of a fuzz target: appends a byte to the file named by
/// `PLANTED_COUNT_FILE`, if set, then spends `PLANTED_WORK_MS` of CPU time, if
/// set (both read once per process).
pub fn tick() {
    COUNTER.get_or_init(|| Counter::open(std::env::var_os(VAR))).tick();
    let work = WORK.get_or_init(|| {
        let ms = std::env::var(WORK_VAR).ok()?.parse::<f64>().ok().filter(|ms| *ms > 0.0)?;
        Some(Duration::from_secs_f64(ms / 1000.0))
    });
    if let Some(work) = *work {
        spin(work);
    }
}

/// Busy work until this thread has used `work` more CPU time.
fn spin(work: Duration) {
    let start = thread_cpu_time();
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    while thread_cpu_time().saturating_sub(start) < work {
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        std::hint::black_box(x);
    }
}

/// The CPU time this thread has used (Linux's `CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_time() -> Duration {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, now: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut now = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid, writable timespec for the call's duration.
    unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
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

    #[test]
    fn spinning_uses_the_cpu_time_asked_for() {
        let start = thread_cpu_time();
        spin(Duration::from_millis(20));
        let used = thread_cpu_time() - start;
        assert!(used >= Duration::from_millis(20), "{used:?}");
    }
}
