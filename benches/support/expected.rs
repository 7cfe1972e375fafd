//! What the benchmarks read from a sample's `expected.toml` (shared through `#[path]`).

use std::collections::HashMap;

/// The subset of TOML that `expected.toml` uses: `key = "string"` and `key = 123`.
pub(crate) fn parse_expected(text: &str) -> HashMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().trim_matches('"').to_owned()))
        .collect()
}

/// A folder of `corpus-samples/`: its path, its `expected.toml`, its `crash-*` file.
pub(crate) struct SampleDir {
    /// The folder.
    pub dir: std::path::PathBuf,
    /// Its `expected.toml`.
    pub expected: HashMap<String, String>,
    /// Its crash input.
    pub crash: std::path::PathBuf,
}

/// Every folder of `root/corpus-samples` with an `expected.toml` and a `crash-*` file.
pub(crate) fn sample_dirs(root: &std::path::Path) -> Vec<SampleDir> {
    std::fs::read_dir(root.join("corpus-samples"))
        .expect("read corpus-samples/")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|dir| dir.is_dir())
        .filter_map(|dir| {
            let expected = parse_expected(&std::fs::read_to_string(dir.join("expected.toml")).ok()?);
            let crash = std::fs::read_dir(&dir)
                .ok()?
                .map(|e| e.expect("a directory entry").path())
                .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("crash-")))?;
            Some(SampleDir { dir, expected, crash })
        })
        .collect()
}
