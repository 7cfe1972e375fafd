//! Crash signatures: what "the same bug" means, from a process's outcome, compared at four levels.
//!
//! A signature is a *kind* (panic, stack overflow, sanitizer bug type,
//! libFuzzer's deadly signal, out of memory, timeout, signal, exit code), a
//! *location* when one is known (the panic's `file:line:col`; the top frame of
//! the program's own code in a sanitizer or libFuzzer stack trace), and a
//! *message* with its numbers masked. The levels:
//!
//! - `strict`: kind, location and message;
//! - `default`: kind and location (messages hold input-dependent numbers and
//!   differ between toolchains);
//! - `loose`: kind only (with its signal, exit code or sanitizer bug type);
//! - `any`: any crash, timeouts included.
//!
//! Exit code 0 is no crash, whatever was printed. A timeout is its own kind,
//! so a hang can be minimized on purpose and a crash never turns into a hang.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::exec::{signal_name, Outcome, Status};
use crate::trace::{parse, path, recursion};

/// How many frames of user code locate a crash by signal (innermost first).
pub const SIGNAL_FRAMES: usize = 2;

/// How closely a candidate's crash must match the original's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Kind, location and message (numbers masked).
    Strict,
    /// Kind and location.
    #[default]
    Default,
    /// Kind only.
    Loose,
    /// Any crash or timeout.
    Any,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Strict => "strict",
            Level::Default => "default",
            Level::Loose => "loose",
            Level::Any => "any",
        })
    }
}

/// What kind of failure a process had.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Kind {
    /// A Rust panic.
    Panic,
    /// Rust's "has overflowed its stack".
    StackOverflow,
    /// A sanitizer report.
    Sanitizer {
        /// `AddressSanitizer`, ...
        sanitizer: String,
        /// `heap-buffer-overflow`, ...
        bug: String,
    },
    /// libFuzzer caught a fatal signal (it does not say which).
    DeadlySignal,
    /// libFuzzer's out-of-memory report.
    OutOfMemory,
    /// Another libFuzzer error (`fuzz target exited`, ...).
    LibFuzzer {
        /// The error, as libFuzzer put it.
        event: String,
    },
    /// Ran past the time limit (ours or libFuzzer's).
    Timeout,
    /// Killed by a signal, with nothing recognisable printed.
    Signal {
        /// The signal number.
        signal: i32,
    },
    /// Exited with a non-zero code, with nothing recognisable printed.
    Exit {
        /// The exit code.
        code: i32,
    },
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Panic => f.write_str("panic"),
            Kind::StackOverflow => f.write_str("stack overflow"),
            Kind::Sanitizer { sanitizer, bug } => write!(f, "{sanitizer}: {bug}"),
            Kind::DeadlySignal => f.write_str("libFuzzer: deadly signal"),
            Kind::OutOfMemory => f.write_str("out of memory"),
            Kind::LibFuzzer { event } => write!(f, "libFuzzer: {event}"),
            Kind::Timeout => f.write_str("timeout"),
            Kind::Signal { signal } => write!(f, "signal {signal} ({})", signal_name(*signal)),
            Kind::Exit { code } => write!(f, "exit code {code}"),
        }
    }
}

/// What identifies a crash.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Signature {
    /// The kind of failure.
    #[serde(flatten)]
    pub kind: Kind,
    /// Where, when known.
    pub location: Option<String>,
    /// What it said, numbers masked, when it said something.
    pub message: Option<String>,
    /// Where in the standard library a panic was raised, when it was there
    /// (`core/src/slice/index.rs:1031:55`): `location` is then its first
    /// caller outside the standard library, which names the bug on any
    /// toolchain. A `cargo fuzz build` binary prints no frames, so the
    /// libFuzzer cross-check compares this instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raised_in: Option<String>,
}

impl Signature {
    /// The crash in `outcome`, or `None` when it did not crash (exit code 0).
    pub fn of(outcome: &Outcome) -> Option<Signature> {
        let stderr = outcome.stderr_text();
        let plain = |kind| Signature { kind, location: None, message: None, raised_in: None };
        match outcome.status {
            Status::Timeout => return Some(plain(Kind::Timeout)),
            Status::OutOfMemory => return Some(plain(Kind::OutOfMemory)),
            Status::Exited(0) => return None,
            Status::Exited(_) | Status::Signaled(_) => {}
        }
        // The target's own report first: it does not depend on what else was printed.
        if let Some(panic) = &outcome.panic {
            let message = Some(parse::normalize_message(&panic.message)).filter(|m| !m.is_empty());
            let (location, raised_in) = panic_location(panic.location.as_deref(), outcome.frames.as_deref());
            return Some(Signature { kind: Kind::Panic, location, message, raised_in });
        }
        if let Some(panic) = parse::panic(&stderr) {
            let message = Some(parse::normalize_message(&panic.message)).filter(|m| !m.is_empty());
            let (location, raised_in) = panic_location(Some(&panic.location), outcome.frames.as_deref());
            return Some(Signature { kind: Kind::Panic, location, message, raised_in });
        }
        if parse::stack_overflow(&stderr) {
            // Rust's own handler said so (the harness's frames came first):
            // the recursion, as for a harness that died by the fault.
            let location = outcome.frames.as_deref().and_then(overflow_location);
            return Some(Signature { location, ..plain(Kind::StackOverflow) });
        }
        if let Some(report) = parse::sanitizer(&stderr) {
            return Some(Signature::of_sanitizer(report, outcome, &stderr));
        }
        if let Some(event) = parse::libfuzzer(&stderr) {
            let kind = libfuzzer_kind(&event);
            let location = parse::top_user_frame(&stderr).map(|f| f.to_string());
            return Some(Signature { kind, location, message: None, raised_in: None });
        }
        Some(Signature::of_status(outcome))
    }

    /// The crash a sanitizer `report` in `stderr` (the outcome's) describes:
    /// where is its recursion when it is a stack overflow, else the top frame
    /// of user code (in the report, else as the fork server looked it up),
    /// else the report's summary line.
    fn of_sanitizer(report: parse::SanitizerReport, outcome: &Outcome, stderr: &str) -> Signature {
        let top_frame = || parse::top_user_frame(stderr).map(|f| f.to_string());
        // Unsymbolized in the report (`symbolize=0`): the frames the fork server looked up.
        let looked_up = || parse::first_user_frame(outcome.frames.as_deref()?).map(|f| f.to_string());
        // A stack overflow is its recursion, not the frame it ran out in.
        let recursion = || {
            if report.bug != "stack-overflow" {
                return None;
            }
            match outcome.frames.as_deref() {
                Some(looked_up) => overflow_location(looked_up),
                None => overflow_location(&parse::frames(stderr)),
            }
        };
        Signature {
            location: recursion()
                .or_else(top_frame)
                .or_else(looked_up)
                .or(report.summary_location.map(|l| path::normalize(&l).into_owned())),
            message: Some(parse::normalize_message(&report.message)),
            kind: Kind::Sanitizer { sanitizer: report.sanitizer, bug: report.bug },
            raised_in: None,
        }
    }

    /// The crash of an `outcome` that exited or died by a signal with nothing
    /// recognisable printed: its status, located by the harness's own frames.
    fn of_status(outcome: &Outcome) -> Signature {
        let plain = |kind| Signature { kind, location: None, message: None, raised_in: None };
        match outcome.status {
            Status::Signaled(_) if outcome.stack_overflow => {
                let location = overflow_location(outcome.frames.as_deref().unwrap_or_default());
                Signature { kind: Kind::StackOverflow, location, message: None, raised_in: None }
            }
            Status::Signaled(signal) => {
                // The harness's own frames (a fork server records them): the top frames of user code.
                let location = top_user_frames(outcome.frames.as_deref().unwrap_or_default());
                Signature { kind: Kind::Signal { signal }, location, message: None, raised_in: None }
            }
            Status::Exited(code) => plain(Kind::Exit { code }),
            Status::Timeout | Status::OutOfMemory => unreachable!("handled by `Signature::of`"),
        }
    }

    /// Whether `libfuzzer`, the crash a plain libFuzzer build of the target had,
    /// is the harness's crash `self` at `level`. As [`Signature::matches`],
    /// except that libFuzzer's "deadly signal" does not say which signal (nor,
    /// without a sanitizer's stack trace, where), so it stands for any signal,
    /// and a signal with no frames stands for the same signal at any frames:
    /// only the harness records frames of a crash by signal.
    pub fn matches_libfuzzer(&self, libfuzzer: &Signature, level: Level) -> bool {
        // A plain signal there has no frames either (ours come from the harness's handler).
        // A stack overflow kills a `cargo fuzz build` binary by SIGSEGV (or
        // SIGBUS) before libFuzzer's handler can say more, or Rust says so itself.
        let overflowed = self.kind == Kind::StackOverflow
            && matches!(libfuzzer.kind, Kind::Signal { signal: 7 | 11 } | Kind::StackOverflow);
        let same_signal = (libfuzzer.kind == self.kind || overflowed) && libfuzzer.location.is_none();
        self.matches(libfuzzer, level)
            || (matches!(self.kind, Kind::Signal { .. } | Kind::StackOverflow)
                && (libfuzzer.kind == Kind::DeadlySignal || same_signal)
                && level != Level::Strict)
    }

    /// Only what `level` compares, the rest cleared: two signatures match at
    /// `level` exactly when these are equal, so it keys a map of bugs. Under
    /// `any` every crash is one bug, keyed by exit code 0 (never a crash).
    pub fn at_level(&self, level: Level) -> Signature {
        let kind = self.kind.clone();
        match level {
            Level::Strict => self.clone(),
            Level::Default => Signature { kind, location: self.location.clone(), message: None, raised_in: None },
            Level::Loose => Signature { kind, location: None, message: None, raised_in: None },
            Level::Any => Signature { kind: Kind::Exit { code: 0 }, location: None, message: None, raised_in: None },
        }
    }

    /// Whether `other` is the same crash as `self` at `level`.
    pub fn matches(&self, other: &Signature, level: Level) -> bool {
        match level {
            Level::Any => true,
            Level::Loose => self.kind == other.kind,
            Level::Default => self.kind == other.kind && self.location == other.location,
            Level::Strict => self == other,
        }
    }
}

/// The kind of crash libFuzzer's own report line names.
fn libfuzzer_kind(event: &str) -> Kind {
    if event.starts_with("deadly signal") {
        Kind::DeadlySignal
    } else if event.starts_with("timeout") {
        Kind::Timeout
    } else if event.starts_with("out-of-memory") {
        Kind::OutOfMemory
    } else {
        Kind::LibFuzzer { event: parse::normalize_message(event) }
    }
}

/// Where a stack overflow is: its recursion, else (a deep stack that does
/// not repeat) the top frames of user code.
fn overflow_location(frames: &[parse::Frame]) -> Option<String> {
    recursion::recursion(frames).or_else(|| top_user_frames(frames))
}

/// The top [`SIGNAL_FRAMES`] frames of user code, innermost first (`a <- b`).
fn top_user_frames(frames: &[parse::Frame]) -> Option<String> {
    let top: Vec<String> = parse::user_frames(frames).take(SIGNAL_FRAMES).map(|f| f.to_string()).collect();
    (!top.is_empty()).then(|| top.join(" <- "))
}

/// A panic's location and, when it was raised in the standard library,
/// where: the location is then the first frame outside it (`frames`, taken
/// by the harness's panic hook only then), else the standard library's.
fn panic_location(raw: Option<&str>, frames: Option<&[parse::Frame]>) -> (Option<String>, Option<String>) {
    let Some(raw) = raw else { return (None, None) };
    let normalized = path::normalize(raw).into_owned();
    if !path::is_standard_library(raw) {
        return (Some(normalized), None);
    }
    let caller = frames.and_then(parse::caller_outside_std);
    let location = caller.map_or_else(|| normalized.clone(), |place| path::normalize(&place).into_owned());
    (Some(location), Some(normalized))
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(location) = &self.location {
            write!(f, " at {location}")?;
        }
        if let Some(raised_in) = self.raised_in.as_ref().filter(|r| Some(*r) != self.location.as_ref()) {
            write!(f, " (raised in {raised_in})")?;
        }
        if let Some(message) = &self.message {
            let first = message.lines().next().unwrap_or("");
            write!(f, ": {first}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn outcome(status: Status, stderr: &str) -> Outcome {
        Outcome::new(status, stderr.as_bytes().to_vec(), Duration::ZERO)
    }

    fn sig(status: Status, stderr: &str) -> Signature {
        Signature::of(&outcome(status, stderr)).expect("a crash")
    }

    const PANIC_A: &str = "\nthread 'fuzz-target' (11) panicked at crates/planted/src/tlv.rs:143:5:\nindex out of bounds: the len is 3 but the index is 3\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
    const PANIC_B: &str = "\nthread 'fuzz-target' (99) panicked at crates/planted/src/tlv.rs:143:5:\nindex out of bounds: the len is 0 but the index is 0\n";
    const PANIC_ELSEWHERE: &str =
        "thread 'main' panicked at crates/planted/src/image.rs:80:29:\nframe area overflows u32\n";

    #[test]
    fn the_targets_own_panic_report_wins_over_its_stderr() {
        let panic = crate::exec::Panic {
            message: "index out of bounds: the len is 7 but the index is 9".into(),
            location: Some("src/lib.rs:3:4".into()),
        };
        let reported = Outcome { panic: Some(panic), ..outcome(Status::Signaled(6), PANIC_ELSEWHERE) };
        let s = Signature::of(&reported).unwrap();
        assert_eq!((s.kind, s.location.as_deref()), (Kind::Panic, Some("src/lib.rs:3:4")));
        assert_eq!(s.message.as_deref(), Some("index out of bounds: the len is N but the index is N"));
    }

    #[test]
    fn exit_code_zero_is_no_crash_whatever_was_printed() {
        assert_eq!(Signature::of(&outcome(Status::Exited(0), PANIC_A)), None);
    }

    #[test]
    fn a_panic_has_its_location_and_a_masked_message() {
        let s = sig(Status::Exited(101), PANIC_A);
        assert_eq!(s.kind, Kind::Panic);
        assert_eq!(s.location.as_deref(), Some("crates/planted/src/tlv.rs:143:5"));
        assert_eq!(s.message.as_deref(), Some("index out of bounds: the len is N but the index is N"));
        assert_eq!(
            s.to_string(),
            "panic at crates/planted/src/tlv.rs:143:5: index out of bounds: the len is N but the index is N"
        );
    }

    #[test]
    fn the_same_panic_location_matches_by_default_whatever_the_numbers() {
        let (a, b) = (sig(Status::Exited(101), PANIC_A), sig(Status::Signaled(6), PANIC_B));
        assert!(a.matches(&b, Level::Default));
        assert!(a.matches(&b, Level::Strict));
        let elsewhere = sig(Status::Exited(101), PANIC_ELSEWHERE);
        assert!(!a.matches(&elsewhere, Level::Default));
        assert!(a.matches(&elsewhere, Level::Loose));
    }

    #[test]
    fn strict_compares_messages() {
        let a = sig(Status::Exited(101), "thread 'main' panicked at src/a.rs:1:1:\nbad tag 7\n");
        let b = sig(Status::Exited(101), "thread 'main' panicked at src/a.rs:1:1:\nbad length 7\n");
        assert!(a.matches(&b, Level::Default));
        assert!(!a.matches(&b, Level::Strict));
    }

    #[test]
    fn timeouts_are_their_own_kind() {
        let hang = sig(Status::Timeout, "");
        let panic = sig(Status::Exited(101), PANIC_A);
        assert_eq!(hang.kind, Kind::Timeout);
        assert!(!hang.matches(&panic, Level::Loose));
        assert!(hang.matches(&panic, Level::Any));
        let libfuzzer = sig(Status::Exited(70), "==5== ERROR: libFuzzer: timeout after 1 seconds\n");
        assert!(hang.matches(&libfuzzer, Level::Default));
    }

    #[test]
    fn signals_and_exit_codes_compare_by_number() {
        let abort = sig(Status::Signaled(6), "vm: double free of handle 1\n");
        let segv = sig(Status::Signaled(11), "");
        assert_eq!(abort.to_string(), "signal 6 (SIGABRT)");
        assert!(!abort.matches(&segv, Level::Loose));
        assert!(abort.matches(&sig(Status::Signaled(6), ""), Level::Strict));
        assert_ne!(sig(Status::Exited(1), "").kind, sig(Status::Exited(2), "").kind);
    }

    #[test]
    fn a_stack_overflow_is_recognised_despite_the_abort() {
        let s = sig(
            Status::Signaled(6),
            "\nthread 'fuzz-target' has overflowed its stack\nfatal runtime error: stack overflow, aborting\n",
        );
        assert_eq!(s.kind, Kind::StackOverflow);
        assert!(!s.matches(&sig(Status::Signaled(6), ""), Level::Loose));
    }

    #[test]
    fn a_libfuzzer_deadly_signal_is_located_by_its_top_user_frame() {
        let stderr = "==4== ERROR: libFuzzer: deadly signal\n    #0 0x5 in __sanitizer_print_stack_trace /llvm/asan_stack.cpp:87:3\n    #1 0x6 in fuzzer::PrintStackTrace() /llvm/FuzzerUtil.cpp:210:5\n    #2 0xa in planted::vm::Slots::free::h00112233aabbccdd /src/vm.rs:120:13\n\n";
        let s = sig(Status::Exited(77), stderr);
        assert_eq!(s.kind, Kind::DeadlySignal);
        assert_eq!(s.location.as_deref(), Some("planted::vm::Slots::free at /src/vm.rs:120:13"));
    }

    #[test]
    fn an_address_sanitizer_report_is_kind_bug_type_and_frame() {
        let stderr = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000001 (pc 0x55 bp 0x7f sp 0x7f T0)\n==1==The signal is caused by a WRITE memory access.\n    #0 0x55 in planted::vm::Slots::write /src/vm.rs:140:18\n\nSUMMARY: AddressSanitizer: SEGV /src/vm.rs:140:18 in planted::vm::Slots::write\n";
        let s = sig(Status::Exited(1), stderr);
        assert_eq!(s.kind, Kind::Sanitizer { sanitizer: "AddressSanitizer".into(), bug: "SEGV".into() });
        assert_eq!(s.location.as_deref(), Some("planted::vm::Slots::write at /src/vm.rs:140:18"));
    }

    #[test]
    fn out_of_memory_is_its_own_kind_in_the_harness_and_in_libfuzzer() {
        let harness = sig(Status::OutOfMemory, "");
        assert_eq!(harness.kind, Kind::OutOfMemory);
        let libfuzzer =
            sig(Status::Exited(71), "==9== ERROR: libFuzzer: out-of-memory (used: 2100Mb; exceeds: 2048Mb)\n");
        assert!(harness.matches(&libfuzzer, Level::Default));
        assert!(!harness.matches(&sig(Status::Timeout, ""), Level::Loose));
    }

    #[test]
    fn a_libfuzzer_deadly_signal_stands_for_the_harness_signal() {
        let abort = sig(Status::Signaled(6), "vm: double free\n");
        let deadly = sig(Status::Exited(77), "==4== ERROR: libFuzzer: deadly signal\n");
        assert!(!abort.matches(&deadly, Level::Default));
        assert!(abort.matches_libfuzzer(&deadly, Level::Default));
        assert!(abort.matches_libfuzzer(&sig(Status::Signaled(6), ""), Level::Default));
        assert!(!sig(Status::Exited(101), PANIC_A).matches_libfuzzer(&deadly, Level::Default));
    }

    #[test]
    fn a_harness_signal_is_located_by_its_top_user_frames_and_libfuzzer_still_agrees() {
        use crate::trace::parse::Frame;
        let frame =
            |function: &str, file: Option<&str>| Frame { function: function.into(), file: file.map(Into::into) };
        let frames = |top: &str| {
            vec![
                frame("__pthread_kill_implementation", None),
                frame(
                    "std::sys::pal::unix::abort_internal",
                    Some("/rustc/abc/library/std/src/sys/pal/unix/mod.rs:1:1"),
                ),
                frame("cmc_runtime::child::run", Some("/w/crates/runtime/src/child.rs:9:9")),
                frame(
                    "<u8 as arbitrary::Arbitrary>::arbitrary",
                    Some("/h/.cargo/registry/src/x/arbitrary/src/lib.rs:5:5"),
                ),
                frame(top, Some("src/vm.rs:128:13")),
                frame("planted::vm::run", Some("src/vm.rs:71:26")),
                frame("planted::target", Some("src/lib.rs:3:3")),
            ]
        };
        let with = |top: &str| Outcome { frames: Some(frames(top)), ..outcome(Status::Signaled(6), "") };
        let free = Signature::of(&with("free")).unwrap();
        assert_eq!(free.location.as_deref(), Some("free at src/vm.rs:128:13 <- planted::vm::run at src/vm.rs:71:26"));
        assert_eq!(Signature::of(&with("free")), Some(free.clone()));
        let write = Signature::of(&with("write")).unwrap();
        assert!(!free.matches(&write, Level::Default));
        assert!(free.matches(&write, Level::Loose));
        let deadly = sig(Status::Exited(77), "==4== ERROR: libFuzzer: deadly signal\n");
        assert!(free.matches_libfuzzer(&deadly, Level::Default));
        assert!(free.matches_libfuzzer(&sig(Status::Signaled(6), ""), Level::Default));
        assert!(!free.matches_libfuzzer(&sig(Status::Signaled(11), ""), Level::Default));
    }

    #[test]
    fn signatures_serialize_flat() {
        let s = sig(Status::Signaled(6), "");
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"kind":"signal","signal":6,"location":null,"message":null}"#
        );
    }

    /// A panic raised inside the standard library is located by its first
    /// caller outside it (the frames the harness's hook took only then), its
    /// function when the optimized build left that call without a line; the
    /// standard library's place, without the toolchain's commit, is kept
    /// aside. Without frames (a `cargo fuzz build` binary) it stays there.
    #[test]
    fn a_panic_raised_in_the_standard_library_is_located_by_its_caller() {
        use crate::trace::parse::Frame;
        let std_file = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/slice/index.rs:1031:55";
        let frame = |function: &str, file: &str| Frame { function: function.into(), file: Some(file.into()) };
        let panic =
            crate::exec::Panic { message: "range end index 9 out of range".into(), location: Some(std_file.into()) };
        let frames = vec![
            frame("std::panicking::panic_with_hook", "/rustc/abc/library/std/src/panicking.rs:835:5"),
            frame("core::slice::index::slice_index_fail", "/rustc/abc/library/core/src/panic.rs:177:9"),
            frame("drain", "/rustc/abc/library/alloc/src/vec/mod.rs:2710:21"),
            frame("stdpanics::cut", "fuzz_targets/stdpanics.rs:6:7"),
            frame("rust_fuzzer_test_input", "/x/libfuzzer-sys-0.4.13/src/lib.rs:277:60"),
        ];
        let crashed = |frames: Option<Vec<Frame>>| Outcome {
            panic: Some(panic.clone()),
            frames,
            ..outcome(Status::Signaled(6), "")
        };
        let located = Signature::of(&crashed(Some(frames.clone()))).unwrap();
        assert_eq!(located.location.as_deref(), Some("fuzz_targets/stdpanics.rs:6:7"));
        assert_eq!(located.raised_in.as_deref(), Some("core/src/slice/index.rs:1031:55"));
        assert_eq!(
            located.to_string(),
            "panic at fuzz_targets/stdpanics.rs:6:7 (raised in core/src/slice/index.rs:1031:55): range end index N out of range"
        );
        let mut merged = frames.clone();
        merged[3] = frame("stdpanics::_::__libfuzzer_sys_run", "/rustc/abc/library/alloc/src/raw_vec/mod.rs:0:25");
        let by_function = Signature::of(&crashed(Some(merged))).unwrap();
        assert_eq!(by_function.location.as_deref(), Some("stdpanics::_::__libfuzzer_sys_run"));
        let unlocated = Signature::of(&crashed(None)).unwrap();
        assert_eq!(unlocated.location.as_deref(), Some("core/src/slice/index.rs:1031:55"));
        assert_eq!(unlocated.raised_in, unlocated.location, "where it was raised, which the cross-check compares");
        // The level's key forgets where in the standard library: it moves with the toolchain.
        assert_eq!(located.at_level(Level::Default).raised_in, None);
    }
}
