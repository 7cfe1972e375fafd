//! Parsers for what crashing processes print: Rust panics (both message
//! formats), stack overflows, sanitizer reports, libFuzzer's errors and
//! stack frames.

/// A Rust panic: where, and what it said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    /// `file:line:col`.
    pub location: String,
    /// The panic message (may span lines).
    pub message: String,
}

/// The first panic in `stderr`.
///
/// Since Rust 1.73: `thread 'main' panicked at src/lib.rs:10:5:` then the
/// message on the next lines; since 1.89 the thread id follows the name
/// (`thread 'main' (4242) panicked at ...`). Before 1.73: `thread 'main'
/// panicked at 'message', src/lib.rs:10:5` (the message may span lines).
pub fn panic(stderr: &str) -> Option<Panic> {
    let lines: Vec<&str> = stderr.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(start) = line.find("thread '") else { continue };
        let Some(at) = line[start..].find(" panicked at ") else { continue };
        let rest = &line[start + at + " panicked at ".len()..];
        if let Some(quoted) = rest.strip_prefix('\'') {
            // Old format: the location ends the line where the quoted message ends.
            let mut message = String::new();
            let mut text = quoted.to_owned();
            for next in lines[i + 1..].iter().map(|l| l.to_string()).chain(std::iter::once(String::new())) {
                if let Some(split) = text.rfind("', ") {
                    let location = &text[split + 3..];
                    if is_location(location) {
                        message.push_str(&text[..split]);
                        return Some(Panic { location: location.to_owned(), message });
                    }
                }
                message.push_str(&text);
                message.push('\n');
                text = next;
            }
            return None;
        }
        // New format: `FILE:LINE:COL:` ends the line; the message follows.
        let location = rest.strip_suffix(':').unwrap_or(rest);
        if !is_location(location) {
            continue;
        }
        let message: Vec<&str> = lines[i + 1..].iter().copied().take_while(|l| !ends_panic_message(l)).collect();
        return Some(Panic { location: location.to_owned(), message: message.join("\n") });
    }
    None
}

/// Lines that follow a panic message rather than belong to it.
fn ends_panic_message(line: &str) -> bool {
    line.starts_with("note: run with `RUST_BACKTRACE")
        || line.starts_with("note: Some details are omitted")
        || line.starts_with("stack backtrace:")
        || line.starts_with("thread '")
        || line.starts_with("==")
        || line.starts_with("fatal runtime error")
        || line.starts_with("panicked at ")
        || line.starts_with("MS: ")
}

/// `FILE:LINE:COL` with numeric line and column.
fn is_location(s: &str) -> bool {
    let mut parts = s.rsplitn(3, ':');
    let (Some(col), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else { return false };
    !file.is_empty() && is_number(line) && is_number(col)
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether Rust reported a stack overflow (`thread 'x' has overflowed its stack`).
pub fn stack_overflow(stderr: &str) -> bool {
    stderr.contains("has overflowed its stack")
}

/// A sanitizer's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SanitizerReport {
    /// `AddressSanitizer`, `MemorySanitizer`, ...
    pub sanitizer: String,
    /// The bug type: `heap-buffer-overflow`, `SEGV`, `memory-leak`, ...
    pub bug: String,
    /// The rest of the report's first line.
    pub message: String,
    /// `file:line:col in function` from the `SUMMARY:` line, when there is one.
    pub summary_location: Option<String>,
}

/// The first sanitizer report: `==42==ERROR: AddressSanitizer: heap-buffer-overflow on ...`,
/// `WARNING: MemorySanitizer: use-of-uninitialized-value`, `SUMMARY: UndefinedBehaviorSanitizer: ...`.
pub fn sanitizer(stderr: &str) -> Option<SanitizerReport> {
    let mut report: Option<SanitizerReport> = None;
    for line in stderr.lines() {
        let body = strip_pid_prefix(line);
        if let Some(summary) = body.strip_prefix("SUMMARY: ") {
            let Some((sanitizer, rest)) = split_sanitizer(summary) else { continue };
            let (bug, location) = rest.split_once(' ').map_or((rest, None), |(b, l)| (b, Some(l.trim().to_owned())));
            match &mut report {
                Some(r) if r.sanitizer == sanitizer => {
                    if r.summary_location.is_none() {
                        r.summary_location = location;
                    }
                }
                Some(_) => {}
                None => {
                    report = Some(SanitizerReport {
                        sanitizer: sanitizer.to_owned(),
                        bug: bug.to_owned(),
                        message: rest.to_owned(),
                        summary_location: location,
                    })
                }
            }
            continue;
        }
        if report.is_some() {
            continue;
        }
        let Some(body) = body.strip_prefix("ERROR: ").or_else(|| body.strip_prefix("WARNING: ")) else { continue };
        let Some((sanitizer, rest)) = split_sanitizer(body) else { continue };
        let bug = if sanitizer == "LeakSanitizer" {
            "memory-leak"
        } else {
            rest.split_whitespace().next().unwrap_or("unknown")
        };
        report = Some(SanitizerReport {
            sanitizer: sanitizer.to_owned(),
            bug: bug.to_owned(),
            message: rest.to_owned(),
            summary_location: None,
        });
    }
    report
}

/// `XSanitizer: rest` -> (`XSanitizer`, `rest`).
fn split_sanitizer(text: &str) -> Option<(&str, &str)> {
    let (name, rest) = text.split_once(": ")?;
    (name.ends_with("Sanitizer") && !name.contains(' ')).then_some((name, rest.trim()))
}

/// Strips the `==1234==` (or `==1234== `) prefix sanitizers and libFuzzer put on their lines.
fn strip_pid_prefix(line: &str) -> &str {
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix("==") {
        if let Some(end) = rest.find("==") {
            if is_number(&rest[..end]) {
                return rest[end + 2..].trim_start();
            }
        }
    }
    trimmed
}

/// libFuzzer's own error line: `==42== ERROR: libFuzzer: deadly signal` -> `deadly signal`.
pub fn libfuzzer(stderr: &str) -> Option<String> {
    stderr.lines().find_map(|line| {
        let event = strip_pid_prefix(line).strip_prefix("ERROR: libFuzzer: ")?;
        Some(event.trim().to_owned())
    })
}

/// One frame of a sanitizer or libFuzzer stack trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The function, without Rust's `::h0123...` hash suffix.
    pub function: String,
    /// `file:line:col`, when symbolized with debug info.
    pub file: Option<String>,
}

impl Frame {
    /// Whether the frame is the program's, its dependencies' or the standard
    /// library's, with a source file: not the sanitizer's, libFuzzer's, libc's,
    /// the panic machinery's or our runtime's.
    pub(crate) fn is_compiled_code(&self) -> bool {
        self.file.as_deref().is_some_and(|file| !file.contains("crates/runtime/src/"))
            && !is_runtime_frame(&self.function)
            && !self.function.starts_with("cmc_runtime::")
    }

    /// Whether the debug info gave this frame a real line: a frame at line 0
    /// (an instruction an optimized build shares between call sites, or
    /// made up) or without a file has none, and is told by its function alone.
    pub fn has_line(&self) -> bool {
        self.file.as_deref().and_then(line_of).is_some_and(|line| line != 0)
    }
}

impl std::fmt::Display for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Displayed as signatures hold it: the file as it reads on any
        // machine; line 0 is never a location.
        match &self.file {
            Some(file) if self.has_line() => write!(f, "{} at {}", self.function, super::path::normalize(file)),
            _ => f.write_str(&self.function),
        }
    }
}

/// One line of a sanitizer or libFuzzer stack trace, as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceFrame {
    /// `#3 0x55d0c0a1 in crate::f::h0123456789abcdef /src/lib.rs:10:5`.
    Symbolized(Frame),
    /// `#0 0x55d0c1a2b3c4  (/path/to/binary+0x1234)` (`symbolize=0`): the
    /// module and the module-relative address (already one byte back for
    /// return addresses: ready to look up).
    Module {
        /// The module's path (the executable, a shared library).
        path: String,
        /// The address in the module.
        offset: u64,
    },
    /// Neither: no name and no module.
    Unknown,
}

/// The first stack trace, symbolized or not.
pub fn trace(stderr: &str) -> Vec<TraceFrame> {
    let mut frames = Vec::new();
    for line in stderr.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix('#') else {
            if !frames.is_empty() && !line.is_empty() {
                break; // the first trace ended
            }
            continue;
        };
        let Some((index, rest)) = rest.split_once(' ') else { continue };
        if !is_number(index) {
            continue;
        }
        if index == "0" && !frames.is_empty() {
            break;
        }
        let Some((_address, rest)) = rest.split_once(" in ") else {
            // An unsymbolized frame: `#4 0x... (/path/bin+0x1234)`, maybe `(BuildId: ...)` after it.
            frames.push(module_frame(rest).unwrap_or(TraceFrame::Unknown));
            continue;
        };
        let (function, file) = match rest.rsplit_once(' ') {
            Some((function, file)) if !file.starts_with('(') && is_location(file) => (function, Some(file.to_owned())),
            Some((function, module)) if module.starts_with('(') => (function, None),
            _ => (rest, None),
        };
        frames.push(TraceFrame::Symbolized(Frame { function: super::symbol::canonical(function), file }));
    }
    frames
}

/// `0x55d0c1a2b3c4  (/path/to/binary+0x1234)` -> the module and its offset.
fn module_frame(rest: &str) -> Option<TraceFrame> {
    let (_address, rest) = rest.split_once(' ')?;
    let inner = rest.trim_start().strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    let (path, offset) = inner.rsplit_once("+0x")?;
    let offset = u64::from_str_radix(offset, 16).ok()?;
    (!path.is_empty()).then(|| TraceFrame::Module { path: path.to_owned(), offset })
}

/// Frames of the first stack trace: `    #3 0x55d0c0a1 in crate::f::h0123456789abcdef /src/lib.rs:10:5`;
/// unsymbolized ones are `<unknown>`.
pub fn frames(stderr: &str) -> Vec<Frame> {
    trace(stderr)
        .into_iter()
        .map(|frame| match frame {
            TraceFrame::Symbolized(frame) => frame,
            TraceFrame::Module { .. } | TraceFrame::Unknown => {
                Frame { function: String::from("<unknown>"), file: None }
            }
        })
        .collect()
}

/// The first frame that is the program's own code, not the sanitizer,
/// libFuzzer, libc or Rust's panic and abort machinery.
pub fn top_user_frame(stderr: &str) -> Option<Frame> {
    first_user_frame(&frames(stderr)).cloned()
}

/// The first of `frames` that is the program's own code (as [`top_user_frame`]).
pub fn first_user_frame(frames: &[Frame]) -> Option<&Frame> {
    frames.iter().find(|f| !is_runtime_frame(&f.function))
}

/// The frames of a crash by signal that are the program's own code, its
/// dependencies' included wherever `CARGO_HOME` is: not the toolchain's
/// sources (std, core, alloc), not `arbitrary` or `libfuzzer-sys`, not our
/// runtime, not libc or the loader (no source file).
pub fn user_frames(frames: &[Frame]) -> impl Iterator<Item = &Frame> {
    frames.iter().filter(|frame| {
        let Some(file) = &frame.file else { return false };
        frame.is_compiled_code() && !super::path::is_standard_library(file) && !super::path::is_fuzzing_machinery(file)
    })
}

/// Where the first of `frames` outside the standard library (a registry
/// crate's counts), our runtime and the panic machinery is: the caller a
/// panic raised inside the standard library is located by. Its
/// `file:line:col`; where the debug info gave it no line (an optimized build
/// shares a call between several paths, and the merged instruction reads
/// line 0, in the program's file or the standard library's), its function
/// and the frames it was inlined into, up to the first with a line:
/// `stdpanics::cut <- stdpanics::run at fuzz_targets/stdpanics.rs:20:5`.
pub fn caller_outside_std(frames: &[Frame]) -> Option<String> {
    let in_std =
        |frame: &Frame| frame.file.as_deref().is_some_and(super::path::is_standard_library) && frame.has_line();
    let at = frames.iter().position(|frame| frame.is_compiled_code() && !in_std(frame))?;
    if frames[at].has_line() {
        return frames[at].file.as_deref().map(|file| super::path::normalize(file).into_owned());
    }
    let mut names = Vec::new();
    for frame in frames[at..].iter().take_while(|frame| frame.is_compiled_code()) {
        names.push(frame.function.as_str());
        if frame.has_line() {
            return Some(format!("{} at {}", names.join(" <- "), super::path::normalize(frame.file.as_deref()?)));
        }
    }
    Some(names.join(" <- "))
}

/// The line of a `file:line:col` (or `file:line`).
fn line_of(location: &str) -> Option<u32> {
    let mut parts = location.rsplitn(3, ':');
    let (last, middle) = (parts.next()?, parts.next()?);
    match parts.next() {
        Some(_) => middle.parse().ok(),
        None => last.parse().ok(),
    }
}

/// Whether `function` is the sanitizer's, libFuzzer's, libc's or Rust's
/// runtime (panic and abort machinery, `std`, `core`, `alloc`).
fn is_runtime_frame(function: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "<unknown>",
        "__sanitizer",
        "__asan",
        "__msan",
        "__tsan",
        "__ubsan",
        "__lsan",
        "__interceptor",
        "__interception",
        "fuzzer::",
        "LLVMFuzzer",
        "libfuzzer_sys::",
        "rust_fuzzer_test_input",
        "__libc",
        "__GI_",
        "__pthread",
        "pthread_kill",
        "raise",
        "abort",
        "gsignal",
        "std::",
        "core::",
        "alloc::",
        "panic_",
        "rust_panic",
        "__rust",
        "__rustc::",
    ];
    const NAMES: &[&str] = &["main", "_start", "__libc_start_main"];
    NAMES.contains(&function) || PREFIXES.iter().any(|p| function.starts_with(p)) || function.contains("::panicking::")
}

/// A message with its input-dependent numbers masked: decimal numbers become
/// `N`, hex literals `0xN`, so "the len is 3 but the index is 7" and "the len
/// is 2 but the index is 9" compare equal. Digits that are part of a word
/// (`u32`, `utf8`, `sha1`) are kept.
pub fn normalize_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    let mut previous: Option<char> = None;
    while let Some(c) = chars.next() {
        let in_word = previous.is_some_and(|p| p.is_alphanumeric() || p == '_');
        if c.is_ascii_digit() && !in_word {
            let hex = c == '0' && chars.peek().is_some_and(|&x| x == 'x' || x == 'X');
            if hex {
                chars.next();
                out.push_str("0xN");
                while chars.next_if(char::is_ascii_hexdigit).is_some() {}
            } else {
                out.push('N');
                while chars.next_if(char::is_ascii_digit).is_some() {}
            }
            previous = Some('0');
            continue;
        }
        out.push(c);
        previous = Some(c);
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_the_current_format_with_a_thread_id_is_parsed() {
        let stderr = "\nthread 'fuzz-target' (4858) panicked at crates/planted/src/tlv.rs:143:5:\nindex out of bounds: the len is 0 but the index is 0\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let parsed = panic(stderr).unwrap();
        assert_eq!(parsed.location, "crates/planted/src/tlv.rs:143:5");
        assert_eq!(parsed.message, "index out of bounds: the len is 0 but the index is 0");
    }

    #[test]
    fn a_panic_in_the_1_73_format_with_a_multiline_message_is_parsed() {
        let stderr = "thread 'main' panicked at src/main.rs:2:5:\nboom\nsecond line\nstack backtrace:\n   0: std::x\n";
        assert_eq!(
            panic(stderr),
            Some(Panic { location: "src/main.rs:2:5".into(), message: "boom\nsecond line".into() })
        );
    }

    #[test]
    fn a_panic_in_the_old_format_is_parsed() {
        let stderr = "thread '<unnamed>' panicked at 'attempt to multiply with overflow', src/image.rs:88:17\nnote: run with `RUST_BACKTRACE=1`\n";
        let old = panic(stderr).unwrap();
        assert_eq!(old.location, "src/image.rs:88:17");
        assert_eq!(old.message, "attempt to multiply with overflow");
        let multiline = "thread 'main' panicked at 'first\nsecond, with a comma', src/a.rs:1:2\n";
        assert_eq!(panic(multiline).unwrap().message, "first\nsecond, with a comma");
        assert_eq!(panic(multiline).unwrap().location, "src/a.rs:1:2");
    }

    #[test]
    fn a_panic_under_libfuzzer_is_found_before_its_deadly_signal() {
        let stderr = "INFO: Running with entropic power schedule (0xFF, 100).\nRunning: crash-1\n\nthread '<unnamed>' panicked at fuzz_targets/tlv.rs:7:5:\nboom 17\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n==31337== ERROR: libFuzzer: deadly signal\n    #0 0x55 in __sanitizer_print_stack_trace\n";
        assert_eq!(panic(stderr).unwrap().message, "boom 17");
        assert_eq!(libfuzzer(stderr).as_deref(), Some("deadly signal"));
    }

    #[test]
    fn text_that_merely_mentions_panicking_is_not_a_panic() {
        assert_eq!(panic("the thread 'x' panicked at lunch\n"), None);
        assert_eq!(panic("all good\n"), None);
    }

    #[test]
    fn a_stack_overflow_is_recognised() {
        assert!(stack_overflow(
            "\nthread 'fuzz-target' has overflowed its stack\nfatal runtime error: stack overflow, aborting\n"
        ));
    }

    #[test]
    fn an_address_sanitizer_report_is_parsed() {
        let stderr = "=================================================================\n==12345==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011 at pc 0x55f1 bp 0x7ffd sp 0x7ffc\nREAD of size 1 at 0x602000000011 thread T0\n    #0 0x55f1a2 in planted::tlv::lookup::h0123456789abcdef /work/crates/planted/src/tlv.rs:140:5\n    #1 0x55f1b3 in planted::tlv::resolve /work/crates/planted/src/tlv.rs:133:12\n    #2 0x7f00 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x29d90)\n\nSUMMARY: AddressSanitizer: heap-buffer-overflow /work/crates/planted/src/tlv.rs:140:5 in planted::tlv::lookup::h0123456789abcdef\n";
        let report = sanitizer(stderr).unwrap();
        assert_eq!(report.sanitizer, "AddressSanitizer");
        assert_eq!(report.bug, "heap-buffer-overflow");
        assert!(report.summary_location.unwrap().starts_with("/work/crates/planted/src/tlv.rs:140:5"));
        let top = top_user_frame(stderr).unwrap();
        assert_eq!(top.to_string(), "planted::tlv::lookup at /work/crates/planted/src/tlv.rs:140:5");
    }

    #[test]
    fn leak_and_memory_sanitizer_reports_are_parsed() {
        let leak = "==7==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak of 8 byte(s) in 1 object(s) allocated from:\n";
        assert_eq!(sanitizer(leak).unwrap().bug, "memory-leak");
        let msan = "==9==WARNING: MemorySanitizer: use-of-uninitialized-value\n    #0 0x1 in f /a.rs:1:1\n";
        let report = sanitizer(msan).unwrap();
        assert_eq!((report.sanitizer.as_str(), report.bug.as_str()), ("MemorySanitizer", "use-of-uninitialized-value"));
    }

    #[test]
    fn libfuzzer_frames_skip_the_runtime() {
        let stderr = "==4== ERROR: libFuzzer: deadly signal\n    #0 0x5 in __sanitizer_print_stack_trace /llvm/compiler-rt/lib/asan/asan_stack.cpp:87:3\n    #1 0x6 in fuzzer::PrintStackTrace() /llvm/FuzzerUtil.cpp:210:5\n    #2 0x7 in fuzzer::Fuzzer::CrashCallback() /llvm/FuzzerLoop.cpp:231:3\n    #3 0x8  (/lib/x86_64-linux-gnu/libc.so.6+0x4251f)\n    #4 0x9 in raise (/lib/x86_64-linux-gnu/libc.so.6+0x969fc)\n    #5 0xa in planted::vm::Slots::free::h00112233aabbccdd /src/vm.rs:120:13\n    #6 0xb in rust_fuzzer_test_input /src/lib.rs:1:1\n\nNOTE: libFuzzer has rudimentary signal handlers.\n";
        assert_eq!(top_user_frame(stderr).unwrap().to_string(), "planted::vm::Slots::free at /src/vm.rs:120:13");
        assert_eq!(frames(stderr).len(), 7);
    }

    #[test]
    fn unsymbolized_frames_give_their_module_and_offset() {
        let stderr = "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6\n    #0 0x55d0c1a2b3c4  (/path/to/binary+0x1234)\n    #1 0x55d0c1a2b3d5  (/lib/x86_64-linux-gnu/libc.so.6+0x29d8f) (BuildId: 0a1b2c)\n    #2 0x55d0c1a2b3e6  (<unknown module>)\n\n0x6 is located 0 bytes after\n    #0 0x1  (/path/to/binary+0x99)\n";
        assert_eq!(
            trace(stderr),
            vec![
                TraceFrame::Module { path: "/path/to/binary".into(), offset: 0x1234 },
                TraceFrame::Module { path: "/lib/x86_64-linux-gnu/libc.so.6".into(), offset: 0x29d8f },
                TraceFrame::Unknown,
            ]
        );
        assert_eq!(top_user_frame(stderr), None);
    }

    #[test]
    fn numbers_in_messages_are_masked() {
        assert_eq!(
            normalize_message("index out of bounds: the len is 3 but the index is 17"),
            "index out of bounds: the len is N but the index is N"
        );
        assert_eq!(normalize_message("bad address 0x7ffdDEAD0 in é"), "bad address 0xN in é");
        assert_eq!(normalize_message("frame area overflows u32 at 12"), "frame area overflows u32 at N");
        assert_eq!(normalize_message("len=5, -3"), "len=N, -N");
    }

    /// Line 0 is what the debug info says of an instruction several lines
    /// share: never a location. A frame there reads as its function; a
    /// std-raised panic's caller there, as its function and the functions
    /// it was inlined into, up to the first with a line.
    #[test]
    fn line_zero_is_never_a_location() {
        let frame =
            |function: &str, file: Option<&str>| Frame { function: function.into(), file: file.map(Into::into) };
        assert_eq!(frame("f", Some("src/lib.rs:0:0")).to_string(), "f");
        assert_eq!(frame("f", Some("src/lib.rs:0")).to_string(), "f");
        assert_eq!(frame("f", None).to_string(), "f");
        assert_eq!(frame("f", Some("src/lib.rs:7:3")).to_string(), "f at src/lib.rs:7:3");
        assert!(!frame("f", Some("src/lib.rs:0:9")).has_line());
        let std_frame =
            frame("core::slice::index::slice_index_fail", Some("/rustc/a/library/core/src/slice/index.rs:39:5"));
        let merged = vec![
            std_frame.clone(),
            frame("ranges::cut", Some("fuzz_targets/ranges.rs:0:0")),
            frame("ranges::_::__libfuzzer_sys_run", Some("fuzz_targets/ranges.rs:0:0")),
            frame("ranges::run", Some("fuzz_targets/ranges.rs:44:9")),
        ];
        assert_eq!(
            caller_outside_std(&merged).as_deref(),
            Some("ranges::cut <- ranges::_::__libfuzzer_sys_run <- ranges::run at fuzz_targets/ranges.rs:44:9")
        );
        let at_std_line_zero = vec![
            std_frame,
            frame("ranges::_::__libfuzzer_sys_run", Some("/rustc/a/library/alloc/src/vec/mod.rs:0:25")),
            frame("rust_fuzzer_test_input", Some("libfuzzer-sys-0.4.13/src/lib.rs:277:60")),
        ];
        assert_eq!(caller_outside_std(&at_std_line_zero).as_deref(), Some("ranges::_::__libfuzzer_sys_run"));
    }

    /// A crash by signal in a dependency is located there wherever
    /// `CARGO_HOME` is (before, only `~/.cargo` was skipped, so the same
    /// crash read otherwise on a CI machine); the fuzzing machinery and the
    /// toolchain's sources are never the program's own code.
    #[test]
    fn a_dependencys_frames_are_the_programs_wherever_cargo_home_is() {
        let frame = |function: &str, file: &str| Frame { function: function.into(), file: Some(file.into()) };
        for home in ["/root/.cargo", "/builds/p/.cargo", "/cache/cargo"] {
            let frames = vec![
                frame("core::ptr::read", "/rustc/a/library/core/src/ptr/mod.rs:1:1"),
                frame(
                    "<u8 as arbitrary::Arbitrary>::arbitrary",
                    &format!("{home}/registry/src/i-1/arbitrary-1.4.2/src/lib.rs:5:5"),
                ),
                frame(
                    "dns_parser::name::Name::scan",
                    &format!("{home}/registry/src/i-1/dns-parser-0.4.0/src/name.rs:42:22"),
                ),
                frame("dns::run", "fuzz_targets/dns.rs:5:13"),
            ];
            let located: Vec<String> = user_frames(&frames).map(ToString::to_string).collect();
            assert_eq!(
                located,
                [
                    "dns_parser::name::Name::scan at dns-parser-0.4.0/src/name.rs:42:22",
                    "dns::run at fuzz_targets/dns.rs:5:13"
                ],
                "{home}"
            );
        }
    }
}
