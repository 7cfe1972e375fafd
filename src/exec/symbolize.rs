//! Symbolizing a crashing child's raw frames in the parent: one long-running `llvm-symbolizer` (else `addr2line`), cached per address.
//!
//! A child that dies by a signal leaves raw addresses in shared memory (see
//! `cmc_runtime`'s signal handlers); symbolizing in the child would cost
//! every crashing test (decision 0060). Here each address is made
//! module-relative (the executable's load base subtracted: PIE), looked up
//! once, and remembered: a reduction that hits the same crash thousands of
//! times symbolizes its frames once. Addresses outside the executable (libc,
//! the loader) are not looked up.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::protocol::CrashFrames;
use crate::trace::parse::{Frame, TraceFrame};

/// The tools, in order of preference.
const LLVM_SYMBOLIZER: &str = "llvm-symbolizer";
const ADDR2LINE: &str = "addr2line";

/// A running `llvm-symbolizer --obj=BIN`: one address per line in, frames and a blank line out.
#[derive(Debug)]
struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// How addresses are looked up.
#[derive(Debug)]
enum Tool {
    /// Not started yet.
    Unknown,
    Llvm(Running),
    /// `addr2line -a -f -C -i -e BIN ADDR...`, once per batch of new addresses.
    Addr2line,
    /// Neither tool exists (said once): no frames.
    Missing,
}

/// The symbolizer of one executable, with its cache.
#[derive(Debug)]
pub struct Symbolizer {
    binary: PathBuf,
    /// `binary` canonicalized (how a sanitizer names it), at the first need.
    canonical: Option<PathBuf>,
    tool: Tool,
    /// Module-relative lookup address -> its frames, innermost (inlined) first.
    cache: HashMap<u64, Vec<Frame>>,
}

impl Symbolizer {
    /// A symbolizer for `binary`; nothing starts until the first lookup.
    pub fn new(binary: &Path) -> Symbolizer {
        Symbolizer { binary: binary.to_owned(), canonical: None, tool: Tool::Unknown, cache: HashMap::new() }
    }

    /// The frames of a crash, outermost last; `None` when no tool could symbolize them.
    pub fn frames(&mut self, crash: &CrashFrames) -> Option<Vec<Frame>> {
        // The first address is the interrupted instruction; the others are
        // return addresses, looked up one byte back (inside the call).
        let lookups: Vec<Option<u64>> = crash
            .addresses
            .iter()
            .enumerate()
            .map(|(i, &address)| {
                let offset = address.checked_sub(crash.image_base)?;
                (offset < crash.image_len).then(|| offset - u64::from(i > 0 && offset > 0))
            })
            .collect();
        self.resolve(lookups)
    }

    /// The frames of a sanitizer's report in `text` (a process's stderr),
    /// looked up as [`Symbolizer::trace_frames`] does; `None` without a report.
    pub fn report_frames(&mut self, text: &str) -> Option<Vec<Frame>> {
        crate::trace::parse::sanitizer(text)?;
        self.trace_frames(&crate::trace::parse::trace(text))
    }

    /// The frames of a sanitizer's unsymbolized trace (`symbolize=0`), the
    /// executable's `(module+offset)` frames looked up; other modules' frames
    /// are `<unknown>` (runtime frames to the signature). `None` when no
    /// frame is unsymbolized or no tool could symbolize them.
    pub fn trace_frames(&mut self, trace: &[TraceFrame]) -> Option<Vec<Frame>> {
        if !trace.iter().any(|frame| matches!(frame, TraceFrame::Module { .. })) {
            return None;
        }
        let unknown = || Frame { function: String::from("<unknown>"), file: None };
        let mut lookups = Vec::new();
        let mut frames: Vec<Option<Frame>> = Vec::new();
        for frame in trace {
            match frame {
                TraceFrame::Module { path, offset } if self.is_binary(path) => {
                    lookups.push(Some(*offset));
                    frames.push(None);
                }
                TraceFrame::Symbolized(frame) => frames.push(Some(frame.clone())),
                TraceFrame::Module { .. } | TraceFrame::Unknown => frames.push(Some(unknown())),
            }
        }
        let mut looked_up = self.resolve_each(lookups)?.into_iter();
        Some(
            frames
                .into_iter()
                .flat_map(|frame| frame.map_or_else(|| looked_up.next().unwrap_or_default(), |f| vec![f]))
                .collect(),
        )
    }

    /// Whether a sanitizer's module path is the executable.
    fn is_binary(&mut self, path: &str) -> bool {
        let canonical = self
            .canonical
            .get_or_insert_with(|| std::fs::canonicalize(&self.binary).unwrap_or_else(|_| self.binary.clone()));
        Path::new(path) == canonical.as_path() || Path::new(path) == self.binary
    }

    /// Looks up the `lookups` (module-relative addresses; `None` is not in the executable): all their frames.
    fn resolve(&mut self, lookups: Vec<Option<u64>>) -> Option<Vec<Frame>> {
        Some(self.resolve_each(lookups)?.into_iter().flatten().collect())
    }

    /// Each lookup's frames, innermost first (one `<unknown>` for an unknown one).
    fn resolve_each(&mut self, lookups: Vec<Option<u64>>) -> Option<Vec<Vec<Frame>>> {
        let new: Vec<u64> = lookups.iter().flatten().copied().filter(|a| !self.cache.contains_key(a)).collect();
        if !new.is_empty() {
            self.look_up(&new)?;
        }
        let unknown = || Frame { function: String::from("<unknown>"), file: None };
        let mut frames = Vec::new();
        for lookup in lookups {
            match lookup.and_then(|a| self.cache.get(&a)) {
                Some(found) if !found.is_empty() => frames.push(found.clone()),
                _ => frames.push(vec![unknown()]),
            }
        }
        Some(frames)
    }

    /// Looks up `addresses` and caches what was found; `None` when there is no tool.
    fn look_up(&mut self, addresses: &[u64]) -> Option<()> {
        if matches!(self.tool, Tool::Unknown) {
            self.tool = self.start();
        }
        match &mut self.tool {
            Tool::Llvm(running) => {
                for &address in addresses {
                    match llvm_lookup(running, address) {
                        Ok(frames) => {
                            self.cache.insert(address, frames);
                        }
                        Err(_) => {
                            // It died: start afresh next time; these stay unknown.
                            self.tool = Tool::Unknown;
                            return Some(());
                        }
                    }
                }
            }
            Tool::Addr2line => {
                let found = addr2line(&self.binary, addresses);
                for &address in addresses {
                    self.cache.insert(address, found.get(&address).cloned().unwrap_or_default());
                }
            }
            Tool::Missing => return None,
            Tool::Unknown => unreachable!("started above"),
        }
        Some(())
    }

    fn start(&self) -> Tool {
        let llvm = Command::new(LLVM_SYMBOLIZER)
            .arg(format!("--obj={}", self.binary.display()))
            .args(["--functions=linkage", "--demangle", "--inlining"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        if let Ok(mut child) = llvm {
            if let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) {
                return Tool::Llvm(Running { child, stdin, stdout: BufReader::new(stdout) });
            }
        }
        let addr2line_works = Command::new(ADDR2LINE)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if addr2line_works {
            return Tool::Addr2line;
        }
        eprintln!(
            "warning: neither llvm-symbolizer nor addr2line was found: crashes by signal are compared by signal \
             alone, without their frames"
        );
        Tool::Missing
    }
}

impl Drop for Symbolizer {
    fn drop(&mut self) {
        if let Tool::Llvm(running) = &mut self.tool {
            let _ = running.child.kill();
            let _ = running.child.wait();
        }
    }
}

/// One address through a running `llvm-symbolizer`: pairs of lines (function,
/// `file:line:col`), innermost first, ended by a blank line.
fn llvm_lookup(running: &mut Running, address: u64) -> std::io::Result<Vec<Frame>> {
    writeln!(running.stdin, "0x{address:x}")?;
    running.stdin.flush()?;
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if running.stdout.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        lines.push(line.to_owned());
    }
    Ok(frames_of_pairs(&lines))
}

/// `addr2line -a -f -C -i`: each address's line, then its (function, `file:line`) pairs.
fn addr2line(binary: &Path, addresses: &[u64]) -> HashMap<u64, Vec<Frame>> {
    let output = Command::new(ADDR2LINE)
        .args(["-a", "-f", "-C", "-i", "-e"])
        .arg(binary)
        .args(addresses.iter().map(|a| format!("0x{a:x}")))
        .stderr(Stdio::null())
        .output();
    let Ok(output) = output else { return HashMap::new() };
    let text = String::from_utf8_lossy(&output.stdout);
    let mut found: HashMap<u64, Vec<String>> = HashMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(hex) = line.strip_prefix("0x") {
            current = u64::from_str_radix(hex, 16).ok();
            continue;
        }
        if let Some(address) = current {
            found.entry(address).or_default().push(line.to_owned());
        }
    }
    found.into_iter().map(|(address, lines)| (address, frames_of_pairs(&lines))).collect()
}

/// (function, location) line pairs as frames; `??` and `??:0` are unknown.
fn frames_of_pairs(lines: &[String]) -> Vec<Frame> {
    lines
        .chunks(2)
        .filter(|pair| pair.len() == 2)
        .map(|pair| {
            let function = crate::trace::symbol::canonical(&pair[0]);
            let location = pair[1].trim();
            let file = (!location.starts_with("??")).then(|| location.to_owned());
            Frame { function, file }
        })
        .filter(|frame| frame.function != "??" || frame.file.is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_pairs_become_frames_and_unknowns_are_dropped() {
        let lines: Vec<String> = [
            "planted::vm::Slots::write::h00112233aabbccdd",
            "crates/planted/src/vm.rs:140:18",
            "planted::vm::run",
            "crates/planted/src/vm.rs:60:0",
            "??",
            "??:0",
        ]
        .map(String::from)
        .into();
        let frames = frames_of_pairs(&lines);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].to_string(), "planted::vm::Slots::write at crates/planted/src/vm.rs:140:18");
        assert_eq!(frames[1].file.as_deref(), Some("crates/planted/src/vm.rs:60:0"));
    }

    #[test]
    fn addresses_outside_the_executable_are_unknown_without_a_lookup() {
        let mut symbolizer = Symbolizer::new(Path::new("/no/such/binary"));
        let crash = CrashFrames { signal: 11, image_base: 0x1000, image_len: 0x100, addresses: vec![0x10, 0x9000] };
        let frames = symbolizer.frames(&crash).expect("nothing to look up");
        assert_eq!(frames.len(), 2);
        assert!(frames.iter().all(|f| f.function == "<unknown>"));
    }

    #[test]
    fn a_sanitizer_trace_keeps_its_names_and_other_modules_stay_unknown() {
        let mut symbolizer = Symbolizer::new(Path::new("/no/such/binary"));
        let named = Frame { function: String::from("f"), file: Some(String::from("/a.rs:1:2")) };
        let symbolized = vec![TraceFrame::Symbolized(named.clone())];
        assert_eq!(symbolizer.trace_frames(&symbolized), None, "nothing to look up");
        let trace = [
            TraceFrame::Module { path: String::from("/lib/libc.so.6"), offset: 0x10 },
            TraceFrame::Symbolized(named.clone()),
            TraceFrame::Unknown,
        ];
        let frames = symbolizer.trace_frames(&trace).expect("no lookup needed");
        assert_eq!(frames.len(), 3);
        assert_eq!(
            (frames[0].function.as_str(), &frames[1], frames[2].function.as_str()),
            ("<unknown>", &named, "<unknown>")
        );
    }
}
