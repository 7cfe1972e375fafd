//! `planted-server`: a cargo-minimize-crash harness (`cmc_runtime::serve`) over planted behaviours, for the fork-server tests and benchmark.
//!
//! An input is `NAME` or `NAME:PAYLOAD`:
//!
//! | name | what the target does |
//! |---|---|
//! | `ok` | returns 0 |
//! | `reject` | returns -1 (`Corpus::Reject`) |
//! | `panic` | panics at a known line (marked `PANIC-LINE`) |
//! | `abort` | calls `abort()` |
//! | `segv` | writes through a null pointer (SIGSEGV) |
//! | `segv-other` | writes through another wild pointer, in another function (a different SIGSEGV) |
//! | `hang` | loops forever |
//! | `recurse` | recurses without bound (stack overflow) |
//! | `exit:CODE` | calls `exit(CODE)` |
//! | `sleep:MS` | sleeps, then returns 0 |
//! | `alloc:MB` | allocates and touches MB MiB, then returns 0 |
//! | `alloc-hang:MB` | allocates and touches MB MiB, then loops forever |
//! | `print:N` | writes N bytes to stderr, then `end`, then returns 0 |
//! | `spawn-hang:PIDFILE` | starts `sleep 1000` in its group, writes its pid to PIDFILE, loops forever |
//! | a planted target (`tlv`, `image`, `nest`, `rle`, `vm`) | runs it on PAYLOAD; `Err` is a rejection |
//!
//! Anything else is rejected. Without the fork server's variable it replays
//! files: `planted-server FILE...`.

use std::hint::black_box;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

fn main() {
    cmc_runtime::serve(entry)
}

/// The target as libFuzzer calls it.
unsafe fn entry(data: *const u8, size: usize) -> i32 {
    // SAFETY: the runtime passes an input and its length.
    test_one(unsafe { std::slice::from_raw_parts(data, size) })
}

fn test_one(data: &[u8]) -> i32 {
    let (name, payload) = match data.iter().position(|&b| b == b':') {
        Some(colon) => (&data[..colon], &data[colon + 1..]),
        None => (data, &data[data.len()..]),
    };
    let text = || String::from_utf8_lossy(payload).into_owned();
    let number = || text().trim().parse::<u64>().unwrap_or(0);
    match name {
        b"ok" => 0,
        b"reject" => -1,
        b"panic" => planted_panic(payload),
        b"abort" => std::process::abort(),
        b"segv" => {
            // SAFETY: none; a planted wild write. `black_box` hides the null from the compiler.
            unsafe { black_box(std::ptr::null_mut::<u8>()).write_volatile(1) };
            0
        }
        b"segv-other" => wild_write(payload.len()),
        b"hang" => loop {
            black_box(0);
        },
        b"recurse" => black_box(recurse(0)) as i32,
        b"exit" => std::process::exit(number() as i32),
        b"sleep" => {
            std::thread::sleep(Duration::from_millis(number()));
            0
        }
        b"alloc" => {
            black_box(touched(number()));
            0
        }
        b"alloc-hang" => {
            let memory = touched(number());
            loop {
                black_box(&memory);
            }
        }
        b"print" => {
            let mut stderr = std::io::stderr().lock();
            let chunk = [b'.'; 8192];
            let mut left = number() as usize;
            while left > 0 {
                let n = left.min(chunk.len());
                stderr.write_all(&chunk[..n]).unwrap();
                left -= n;
            }
            stderr.write_all(b"end").unwrap();
            0
        }
        b"spawn-hang" => {
            // Never waited for on purpose: the test checks that the group kill takes it.
            #[allow(clippy::zombie_processes)]
            let child = Command::new("sleep")
                .arg("1000")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start `sleep`");
            std::fs::write(text(), child.id().to_string()).expect("write the pid file");
            loop {
                black_box(0);
            }
        }
        _ => {
            let target = std::str::from_utf8(name).ok().and_then(planted::target);
            match target.map(|t| (t.run)(payload)) {
                Some(Ok(())) => 0,
                Some(Err(_)) | None => -1,
            }
        }
    }
}

/// `mb` MiB, every page written, so it counts in the resident set.
fn touched(mb: u64) -> Vec<u8> {
    let mut memory = vec![0u8; (mb as usize) << 20];
    for page in memory.chunks_mut(4096) {
        page[0] = 1;
    }
    black_box(memory)
}

#[inline(never)]
fn planted_panic(payload: &[u8]) -> i32 {
    panic!("planted panic after {} payload bytes", payload.len()); // PANIC-LINE
}

/// A second, different segfault: a write far past a null base, in a function of its own.
#[inline(never)]
fn wild_write(offset: usize) -> i32 {
    // SAFETY: none; a planted wild write.
    unsafe { black_box(std::ptr::null_mut::<u32>()).wrapping_add(offset + 16).write_volatile(7) }; // SEGV-OTHER-LINE
    0
}

/// Recurses until the stack runs out (the frame holds a buffer so it does so quickly).
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth; 32]);
    if black_box(depth) == u64::MAX {
        return frame[0];
    }
    recurse(depth + 1).wrapping_add(frame[1])
}
