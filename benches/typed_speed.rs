//! Tests per second on large inputs, typed and raw, side by side: whether the tool's own work per candidate grows with the input only as the input does.
//!
//! ```text
//! cargo bench --bench typed_speed              # 1, 10, 100 and 1,000 KB
//! cargo bench --bench typed_speed -- 100       # one size (KB)
//! BENCH_BIN=/path/to/cargo-minimize-crash cargo bench --bench typed_speed   # another build of the tool
//! BENCH_KEEP=/tmp/inputs cargo bench --bench typed_speed   # keep the inputs there (to profile a run)
//! ```
//!
//! - **typed**: the `doc` target (`planted::doc`, a derived `Doc` of blocks
//!   rendered and parsed back) on a document of random paragraphs, headings
//!   and lists with its bug (a loose definition after a one-letter term) in
//!   the middle, every byte read: written as `arbitrary` 1.5 reads it
//!   (`reduce::tape::write`), so lengths are one, two or
//!   four bytes wide by the size.
//! - **raw**: the `tlv` sample with random bytes appended to the same size.
//! - **generator**: the `generator` target (`planted::generator`, a module of
//!   20 functions built by hand through an `Unstructured`: no derive, every
//!   read a draw and nothing else) on a module of random instructions and
//!   blocks with its bug (a call past the last function, two blocks deep) in
//!   the middle function, every byte read: hundreds to tens of thousands of
//!   draws, as a wasm-smith input has (issue 48).
//!
//! Each is minimized once by the real binary in harness mode from the
//! repository root (`--json`, `--max-time 120`); the figures come from its
//! summary: tests, the reduction's seconds, tests per second, the result's
//! size. Goal (issue 37): at least 500 tests/s at 100 KB typed, on this
//! 2-core machine, for a target that takes well under a millisecond. Run
//! without `--bench` (as `cargo test --benches` does) it only checks the
//! inputs it would write.

#[path = "support/summary.rs"]
mod summary;

use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_minimize_crash::protocol::layout;
use cargo_minimize_crash::reduce::tape::{self, Read};
use serde_json::Value;

const SIZES_KB: [usize; 4] = [1, 10, 100, 1000];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn binary() -> PathBuf {
    std::env::var_os("BENCH_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cargo-minimize-crash")), PathBuf::from)
}

/// The bytes that `arbitrary` reads as `reads` (`tape::write`: each
/// length as narrow as its room allows).
fn write(reads: &[Read]) -> Vec<u8> {
    tape::write(reads).expect("every length fits its room")
}

fn string(reads: &mut Vec<Read>, text: &str) {
    reads.push(Read::Len(text.len() as u64));
    reads.push(Read::Front(text.as_bytes().to_vec()));
}

fn words(rng: &mut fastrand::Rng, n: usize) -> String {
    const WORDS: [&str; 8] = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"];
    (0..n).map(|_| WORDS[rng.usize(..WORDS.len())]).collect::<Vec<_>>().join(" ")
}

/// A noise block: a paragraph, a heading or a list (variant tags 0 to 2 of 4).
fn noise_block(rng: &mut fastrand::Rng, reads: &mut Vec<Read>) {
    reads.push(Read::Front(vec![1]));
    let variant = rng.u32(..3);
    reads.push(Read::Front((variant << 30).to_le_bytes().to_vec()));
    match variant {
        0 => {
            let n = rng.usize(3..40);
            string(reads, &words(rng, n));
        }
        1 => {
            reads.push(Read::Front(vec![rng.u8(..6)]));
            let n = rng.usize(1..6);
            string(reads, &words(rng, n));
        }
        _ => {
            for _ in 0..rng.usize(1..6) {
                reads.push(Read::Front(vec![1]));
                let n = rng.usize(1..8);
                string(reads, &words(rng, n));
            }
            reads.push(Read::Front(vec![0]));
        }
    }
}

/// A `Doc` of about `size` bytes, every byte read, with the bug in the middle.
fn typed_input(size: usize) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(37);
    let mut reads = vec![Read::Front(4096u32.to_le_bytes().to_vec()), Read::Front(vec![0])];
    let mut bug = false;
    // Each block's bytes: its reads, and each length's field as wide as at the input's size.
    let field = layout::len_width(size);
    let mut written = 5;
    while written < size {
        let before = reads.len();
        if !bug && written >= size / 2 {
            bug = true;
            reads.extend([Read::Front(vec![1]), Read::Front(0xc000_0000u32.to_le_bytes().to_vec())]);
            string(&mut reads, "a");
            reads.push(Read::Front(vec![1]));
            string(&mut reads, "x\n\ny");
            reads.push(Read::Front(vec![0]));
        } else {
            noise_block(&mut rng, &mut reads);
        }
        written += reads[before..].iter().map(|r| if let Read::Front(b) = r { b.len() } else { field }).sum::<usize>();
    }
    reads.push(Read::Front(vec![0]));
    write(&reads)
}

/// The `tlv` sample with random bytes appended up to `size`.
fn raw_input(size: usize) -> Vec<u8> {
    let dir = root().join("corpus-samples/tlv");
    let crash = std::fs::read_dir(&dir)
        .expect("corpus-samples/tlv")
        .map(|e| e.expect("an entry").path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("crash-")))
        .expect("the tlv sample");
    let mut bytes = std::fs::read(crash).expect("read the tlv sample");
    let mut rng = fastrand::Rng::with_seed(37);
    while bytes.len() < size {
        bytes.push(rng.u8(..));
    }
    bytes
}

/// The bytes `planted::generator::module` reads as one instruction of
/// noise (a call only to a function that exists; blocks of noise).
fn noise_instruction(rng: &mut fastrand::Rng, depth: u32, out: &mut Vec<u8>) {
    out.push(1);
    match rng.u8(..4) {
        0 => out.extend([&[0][..], &rng.i64(..).to_le_bytes()].concat()),
        1 => out.push(1),
        2 => out.extend([&[2][..], &rng.u32(..20).to_le_bytes()].concat()),
        _ => {
            out.push(3);
            if depth < 3 {
                for _ in 0..rng.usize(..4) {
                    noise_instruction(rng, depth + 1, out);
                }
            }
            out.push(0);
        }
    }
}

/// A module of 20 functions of about `size` bytes in all, every byte read,
/// with `block { block { call 20 } }` in the middle function, the bug.
fn generator_input(size: usize) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(37);
    let mut out = vec![20];
    for f in 0..20 {
        let end = (size * (f + 1) / 20).max(out.len());
        if f == 10 {
            out.extend([1, 3, 1, 3, 1, 2, 20, 0, 0, 0, 0, 0]);
        }
        while out.len() < end {
            noise_instruction(&mut rng, 0, &mut out);
        }
        out.push(0);
    }
    out
}

fn minimize(target: &str, input: &[u8]) -> Value {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let crash = dir.path().join("crash");
    std::fs::write(&crash, input).expect("write the input");
    if let Some(keep) = std::env::var_os("BENCH_KEEP").filter(|dir| !dir.is_empty()) {
        std::fs::write(Path::new(&keep).join(format!("{target}-{}", input.len())), input).expect("keep the input");
    }
    let out = Command::new(binary())
        .current_dir(root())
        .args(["--json", "-q", "--no-verify-libfuzzer", "--max-time", "120", "-o"])
        .arg(dir.path().join("min"))
        .arg(target)
        .arg(&crash)
        .output()
        .expect("run cargo-minimize-crash");
    summary::json_summary(&out, &format!("minimizing {target} ({} bytes)", input.len()))
}

fn row(kind: &str, size_kb: usize, summary: &Value) -> String {
    let (tests, seconds) = (summary["tests"].as_u64().unwrap_or(0), summary["seconds"].as_f64().unwrap_or(0.0));
    format!(
        "| {kind} | {size_kb} | {} | {tests} | {seconds:.2} | {:.0} | {} | {} |",
        summary["initial_size"],
        tests as f64 / seconds.max(1e-6),
        summary["final_size"],
        summary["stop_reason"].as_str().unwrap_or("?"),
    )
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let filter: Option<usize> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).find_map(|a| a.parse().ok());
    let sizes: Vec<usize> = SIZES_KB.into_iter().filter(|s| filter.map_or(true, |f| f == *s)).collect();
    for &kb in &sizes {
        let typed = typed_input(kb * 1024);
        assert!(typed.len().abs_diff(kb * 1024) < kb * 1024 / 20 + 512, "{kb} KB: {} bytes", typed.len());
        let generated = generator_input(kb * 1024);
        let module = planted::generator::module(&mut arbitrary::Unstructured::new(&generated)).expect("a module");
        assert!(planted::generator::calls_past_the_end_nested(&module), "{kb} KB: the generator input has its bug");
        assert!(generated.len().abs_diff(kb * 1024) < 512, "{kb} KB: {} bytes", generated.len());
    }
    if !benching {
        println!("typed_speed: inputs of {sizes:?} KB checked; run with `cargo bench --bench typed_speed`");
        return;
    }
    println!("| input | KB | bytes | tests | seconds | tests/s | result | stop |");
    println!("|---|--:|--:|--:|--:|--:|--:|---|");
    for &kb in &sizes {
        println!("{}", row("typed (doc)", kb, &minimize("doc", &typed_input(kb * 1024))));
        println!("{}", row("raw (tlv)", kb, &minimize("tlv", &raw_input(kb * 1024))));
        println!("{}", row("generator", kb, &minimize("generator", &generator_input(kb * 1024))));
    }
}
