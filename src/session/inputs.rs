//! The batch's inputs: files and directories as given, a target's artifacts directory (libFuzzer's crash-, timeout-, oom-, leak-, slow-unit- files), read once, shard by content hash.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::options::Shard;
use crate::session::output::sha1_hex;

/// The prefixes libFuzzer gives the inputs it saves (`-artifact_prefix` files).
pub const ARTIFACT_PREFIXES: [&str; 5] = ["crash-", "timeout-", "oom-", "leak-", "slow-unit-"];

/// One input file.
#[derive(Clone, Debug)]
pub struct Input {
    /// The path as given or found, for reports.
    pub name: String,
    /// Its contents; the error when it could not be read.
    pub bytes: Result<Vec<u8>, String>,
}

impl Input {
    /// Reads `path`; a failure is kept as the input's state, not an error.
    pub fn read(path: &Path) -> Input {
        let bytes = crate::session::input::read_input(path).map_err(|e| format!("{e:#}"));
        Input { name: path.display().to_string(), bytes }
    }

    /// The contents' SHA-1 in hex (of nothing, when unreadable).
    pub fn sha1(&self) -> String {
        sha1_hex(self.bytes.as_deref().unwrap_or_default())
    }

    /// Whether it belongs to `shard` (every input does without one).
    pub fn in_shard(&self, shard: Option<Shard>) -> bool {
        let Some(shard) = shard else { return true };
        let digest = sha1_smol::Sha1::from(self.bytes.as_deref().unwrap_or_default()).digest().bytes();
        let value = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"));
        value % u64::from(shard.count) == u64::from(shard.index - 1)
    }
}

/// Every input: each file given, every file in each directory given (not
/// recursively, hidden files and our own outputs left out), and the artifacts
/// of `artifact_dirs`; each path once, in a stable order (directories sorted
/// by name).
pub fn collect(paths: &[PathBuf], artifact_dirs: &[PathBuf]) -> anyhow::Result<Vec<Input>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(list(path, |_| true)?);
        } else {
            // A missing file is listed: it is reported as unreadable.
            files.push(path.clone());
        }
    }
    for dir in artifact_dirs {
        if dir.is_dir() {
            files.extend(list(dir, |name| ARTIFACT_PREFIXES.iter().any(|p| name.starts_with(p)))?);
        }
    }
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    Ok(files.iter().map(|f| Input::read(f)).collect())
}

/// The regular files directly in `dir` whose names pass `keep`, sorted.
fn list(dir: &Path, keep: impl Fn(&str) -> bool) -> anyhow::Result<Vec<PathBuf>> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot list the inputs in {}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list the inputs in {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file() || (t.is_symlink() && entry.path().is_file()));
        if is_file && !name.starts_with('.') && !is_our_output(&name) && keep(&name) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// Files this tool writes next to crashes: never inputs.
fn is_our_output(name: &str) -> bool {
    name.starts_with("minimized-from-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_give_their_files_and_artifact_directories_only_libfuzzer_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        let (given, artifacts) = (dir.path().join("given"), dir.path().join("artifacts"));
        fs::create_dir_all(given.join("sub")).unwrap();
        fs::create_dir_all(&artifacts).unwrap();
        for name in ["b", "a", ".hidden", "minimized-from-00", "sub/c"] {
            fs::write(given.join(name), name).unwrap();
        }
        for name in ["crash-1", "timeout-2", "oom-3", "leak-4", "slow-unit-5", "notes.txt", "minimized-from-1"] {
            fs::write(artifacts.join(name), name).unwrap();
        }
        let single = dir.path().join("single");
        fs::write(&single, "x").unwrap();
        let inputs =
            collect(&[given.clone(), single.clone(), given.join("a")], std::slice::from_ref(&artifacts)).unwrap();
        let names: Vec<String> =
            inputs.iter().map(|i| Path::new(&i.name).strip_prefix(dir.path()).unwrap().display().to_string()).collect();
        assert_eq!(
            names,
            [
                "given/a",
                "given/b",
                "single",
                "artifacts/crash-1",
                "artifacts/leak-4",
                "artifacts/oom-3",
                "artifacts/slow-unit-5",
                "artifacts/timeout-2"
            ]
        );
        assert_eq!(inputs[0].bytes.as_deref().unwrap(), b"a");
    }

    #[test]
    fn a_missing_file_is_an_unreadable_input_and_a_missing_artifacts_directory_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = collect(&[dir.path().join("gone")], &[dir.path().join("no-artifacts")]).unwrap();
        assert_eq!(inputs.len(), 1);
        assert!(inputs[0].bytes.as_ref().unwrap_err().contains("No such file"), "{:?}", inputs[0].bytes);
    }

    #[test]
    fn shards_split_inputs_by_content_into_disjoint_covering_parts() {
        let inputs: Vec<Input> =
            (0..200u32).map(|i| Input { name: i.to_string(), bytes: Ok(i.to_le_bytes().to_vec()) }).collect();
        let count = 3;
        let mut seen = 0;
        for index in 1..=count {
            let part = inputs.iter().filter(|i| i.in_shard(Some(Shard { index, count }))).count();
            assert!(part > 40, "shard {index} has {part} of 200");
            seen += part;
        }
        assert_eq!(seen, inputs.len(), "every input is in exactly one shard");
        assert!(inputs.iter().all(|i| i.in_shard(None)));
    }
}
