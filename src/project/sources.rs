//! What a fuzz crate's own sources say: the environment variables they read (`env::var("FUZZER")`, `var_os`), for the hint when an input does not crash (a target that picks what it does from the environment does nothing the crash needs without it: wasm-tools' `run` target and `FUZZER`); and whether they build an `Unstructured` by hand (a `&[u8]` target that feeds a generator such as wasm-smith), so that losing structure is said for it too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How deep the search goes below the fuzz directory (its `target/` and
/// hidden directories skipped).
const MOST_DEPTH: usize = 4;

/// Each variable name read with `env::var("NAME")` or `env::var_os("NAME")`
/// in a `.rs` file under `fuzz_dir`, with the first file that reads it
/// (relative to `fuzz_dir`).
fn read_by(fuzz_dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    sources(fuzz_dir, 0, &mut files);
    files.sort();
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for name in names_in(&text) {
            if seen.insert(name.clone()) {
                found.push((name, file.strip_prefix(fuzz_dir).unwrap_or(&file).to_path_buf()));
            }
        }
    }
    found
}

/// Whether the target at `target` (a file under `fuzz_dir`), or a source
/// of the fuzz crate that is not another target's, names `Unstructured`:
/// the target builds typed values by hand from its bytes.
pub(crate) fn builds_unstructured(fuzz_dir: &Path, target: &Path) -> bool {
    let mut files = Vec::new();
    sources(fuzz_dir, 0, &mut files);
    let targets = fuzz_dir.join("fuzz_targets");
    let its_own = |file: &PathBuf| file == target || !file.starts_with(&targets);
    files.iter().filter(|f| its_own(f)).any(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("Unstructured")))
}

/// The `.rs` files under `dir`, `depth` levels below the fuzz directory.
fn sources(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let skipped = name == "target" || name.to_string_lossy().starts_with('.');
        if path.is_dir() && !skipped && depth < MOST_DEPTH {
            sources(&path, depth + 1, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names in `env::var("NAME")` and `env::var_os("NAME")` calls in `text`.
fn names_in(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for call in ["env::var(\"", "env::var_os(\""] {
        for (at, _) in text.match_indices(call) {
            let rest = &text[at + call.len()..];
            let name: String = rest.chars().take_while(|&c| c.is_ascii_alphanumeric() || c == '_').collect();
            if !name.is_empty() && rest[name.len()..].starts_with('"') {
                names.push(name);
            }
        }
    }
    names
}

/// A sentence on the variables `fuzz_dir`'s sources read, and whether each
/// is set here; empty when they read none.
pub(crate) fn hint(fuzz_dir: &Path) -> String {
    let read = read_by(fuzz_dir);
    if read.is_empty() {
        return String::new();
    }
    let described: Vec<String> = read
        .iter()
        .map(|(name, file)| {
            let value = std::env::var_os(name).map_or_else(|| "unset here".into(), |v| format!("here {v:?}"));
            format!("{name} ({}; {value})", file.display())
        })
        .collect();
    format!(
        " The fuzz crate reads {} from the environment: set each as the run that crashed had it.",
        described.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variables_a_fuzz_crate_reads_are_found_with_the_file_that_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let targets = dir.path().join("fuzz_targets");
        std::fs::create_dir_all(&targets).unwrap();
        std::fs::create_dir_all(dir.path().join("target/debug")).unwrap();
        let run = "let which = std::env::var(\"FUZZER\").unwrap();\nlet _ = env::var_os(\"EXTRA_2\");\n";
        std::fs::write(targets.join("run.rs"), run).unwrap();
        std::fs::write(dir.path().join("target/debug/build.rs"), "env::var(\"NOT_OURS\")").unwrap();
        std::fs::write(targets.join("other.rs"), "env::var(name); env::var(\"FUZZER\")").unwrap();
        let found = read_by(dir.path());
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["FUZZER", "EXTRA_2"], "{found:?}");
        assert_eq!(found[1].1, Path::new("fuzz_targets/run.rs"));
        let hint = hint(dir.path());
        assert!(
            hint.contains("FUZZER (fuzz_targets/") && hint.contains("EXTRA_2 (fuzz_targets/run.rs; unset here)"),
            "{hint}"
        );
        assert_eq!(super::hint(&targets.join("nothing")), "", "no sources, no sentence");
        let (run, other) = (targets.join("run.rs"), targets.join("other.rs"));
        assert!(!builds_unstructured(dir.path(), &run));
        std::fs::write(&other, "let mut u = arbitrary::Unstructured::new(data);").unwrap();
        assert!(builds_unstructured(dir.path(), &other), "a generator's input");
        assert!(!builds_unstructured(dir.path(), &run), "another target's");
        std::fs::write(dir.path().join("lib.rs"), "pub fn generate(u: &mut Unstructured) {}").unwrap();
        assert!(builds_unstructured(dir.path(), &run), "the fuzz crate's library");
    }
}
