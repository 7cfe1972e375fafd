//! What the corpus benches count the same way (shared through `#[path]`): a corpus copied for cmin, a corpus directory's files and bytes, libFuzzer's own `cov:`/`ft:` of corpora (and whether ours holds the original's), and the figures' formatting.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The host triple (`rustc -vV`), where `cargo fuzz build` puts its binaries.
pub(crate) fn host_triple() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("run rustc -vV");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).expect("a host line in rustc -vV").trim().to_owned()
}

/// The last lines of a process's stderr, for a note.
pub(crate) fn tail(stderr: &[u8]) -> String {
    let stderr = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = stderr.lines().rev().take(3).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" / ")
}

/// Files and bytes under `dir`, recursively, as libFuzzer reads a corpus;
/// files that go while it is counted (a run replacing them) are skipped.
pub(crate) fn size(dir: &Path) -> (usize, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else { return (0, 0) };
    let mut total = (0, 0);
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            let (files, bytes) = size(&entry.path());
            total = (total.0 + files, total.1 + bytes);
        } else if meta.is_file() {
            total = (total.0 + 1, total.1 + meta.len());
        }
    }
    total
}

/// One side's new corpus: where, how large, how long it took.
pub(crate) struct Minimized {
    /// Its directory (`benches/corpus.rs` removes it once its row is measured).
    pub dir: PathBuf,
    pub files: usize,
    pub bytes: u64,
    pub time: Duration,
}

/// Every file of `corpus` copied into `copy` (created; it must not exist),
/// for `cargo fuzz cmin`, which rewrites the directory it is given.
pub(crate) fn copy_corpus(corpus: &Path, copy: &Path) {
    std::fs::create_dir(copy).expect("create cmin's copy");
    for entry in std::fs::read_dir(corpus).expect("read the corpus") {
        let path = entry.expect("a corpus entry").path();
        std::fs::copy(&path, copy.join(path.file_name().expect("a file name"))).expect("copy a corpus file");
    }
}

/// libFuzzer's coverage: (`cov:`, `ft:`) of the `INITED` line.
pub(crate) type Counts = (u64, u64);

/// `BINARY -runs=0 DIRS...`, run in `scratch` (an artifact, if any, lands there).
pub(crate) fn counts(binary: &Path, dirs: &[&Path], scratch: &Path) -> Result<Counts, String> {
    let out = Command::new(binary)
        .current_dir(scratch)
        .arg("-runs=0")
        .args(dirs)
        .output()
        .map_err(|e| format!("{} did not run: {e}", binary.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().find(|l| l.contains("INITED"));
    let line = line.ok_or_else(|| format!("-runs=0 printed no INITED line ({}): {}", out.status, tail(&out.stderr)))?;
    let count = |key: &str| -> Result<u64, String> {
        let at = line.find(key).ok_or_else(|| format!("no {key} in {line}"))?;
        let number = line[at + key.len()..].split_whitespace().next().unwrap_or_default();
        number.parse().map_err(|e| format!("{key} {number:?} in {line}: {e}"))
    };
    Ok((count("cov: ")?, count("ft: ")?))
}

/// What libFuzzer counts in each corpus, and whether the original adds anything to ours.
pub(crate) struct Libfuzzer {
    pub original: Result<Counts, String>,
    pub cmin: Result<Counts, String>,
    pub ours: Result<Counts, String>,
    /// `-runs=0 OURS ORIGINAL`: ours ⊇ original when it counts no more than `again`.
    pub both: Result<Counts, String>,
    /// `-runs=0 OURS COPY-OF-OURS...` with at least as many runs as `both`
    /// ([`counts_again`]): what more runs in one process add alone, where
    /// coverage varies from run to run (pulldown-cmark's random `HashMap`
    /// keys: a second pass over ours counts 3 `cov` more than one).
    pub again: Result<Counts, String>,
}

/// `-runs=0 DIR COPY...` ([`counts`]): `dir` and copies of its files made
/// in `scratch`, as many as make at least as many runs as `DIR ORIGINAL`.
pub(crate) fn counts_again(binary: &Path, dir: &Path, original: &Path, scratch: &Path) -> Result<Counts, String> {
    let copies = size(original).0.div_ceil(size(dir).0.max(1)).max(1);
    let dirs: Vec<PathBuf> = (0..copies).map(|i| scratch.join(format!("again-{i}"))).collect();
    for copy in &dirs {
        let _ = std::fs::remove_dir_all(copy);
        copy_corpus(dir, copy);
    }
    let all: Vec<&Path> = std::iter::once(dir).chain(dirs.iter().map(PathBuf::as_path)).collect();
    let counted = counts(binary, &all, scratch);
    for copy in &dirs {
        let _ = std::fs::remove_dir_all(copy);
    }
    counted
}

impl Libfuzzer {
    /// Whether the original adds nothing to ours that as many more runs of
    /// ours do not (by `-runs=0 OURS` alone when `again` failed).
    pub(crate) fn superset(&self) -> Result<bool, &String> {
        let both = self.both.as_ref()?;
        let again = self.again.as_ref().or(self.ours.as_ref())?;
        Ok(both.0 <= again.0 && both.1 <= again.1)
    }

    /// Notes on the counts of corpus `name`: each count that failed, and
    /// (loudly) each corpus libFuzzer counts fewer features in than the original.
    pub(crate) fn failures_and_losses(&self, name: &str) -> Vec<String> {
        let mut notes = Vec::new();
        let runs = [
            ("original", &self.original),
            ("cmin", &self.cmin),
            ("ours", &self.ours),
            ("ours then original", &self.both),
        ];
        for (what, counts) in runs {
            match (counts, &self.original) {
                (Err(e), _) => notes.push(format!("{name}: libFuzzer -runs=0 on {what}: {e}")),
                (Ok(c), Ok(o)) if c.0 < o.0 || c.1 < o.1 => {
                    let (cov, ft) = c;
                    notes.push(format!(
                        "**{name}: libFuzzer counts fewer in {what} ({cov}/{ft}) than in the original**"
                    ));
                }
                _ => {}
            }
        }
        notes
    }
}
