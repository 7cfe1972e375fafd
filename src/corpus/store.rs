//! The new corpus directory: each finished input written at once under its SHA-1 (libFuzzer's naming), a journal of what is done so a rerun resumes, never a file we did not write touched.
//!
//! The journal lives in the harness's scratch directory (not in the corpus
//! directory, which libFuzzer reads recursively): one JSON line per saved
//! input, written after the file is in place, naming the harness build, the
//! original's SHA-1 and the result's. Beside it, a copy of every result: a
//! result that a later round shrank on, or that the final cover dropped, is
//! gone from the output directory, and a rerun takes it from there.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use serde::{Deserialize, Serialize};

use crate::session::output::{sha1_hex, write_atomically};

/// One journal line.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    build: String,
    original: String,
    result: String,
    /// The shrink ran to its end (not cut short by Ctrl-C).
    #[serde(default = "complete_by_default")]
    complete: bool,
}

fn complete_by_default() -> bool {
    true
}

/// A result an earlier run saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether its shrink ran to the end (else a rerun goes on shrinking it).
    pub complete: bool,
}

/// The output directory and its journal.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    journal: PathBuf,
    copies: PathBuf,
    build: String,
    done: HashMap<String, (String, bool)>,
    ours: HashSet<String>,
}

impl Store {
    /// Opens (creating it) the output directory `dir` for the corpus in
    /// `source`, with its journal under `scratch`, for harness build `build`.
    /// Fails when `dir` is, contains or lies in `source`, or holds files
    /// this tool did not write.
    pub fn open(dir: &Path, source: &Path, scratch: &Path, build: &str) -> anyhow::Result<Store> {
        let source = fs::canonicalize(source).with_context(|| format!("cannot read {}", source.display()))?;
        let resolved = resolve(dir)?;
        if resolved.starts_with(&source) || source.starts_with(&resolved) {
            bail!(
                "the output directory {} must be apart from the corpus {} (the corpus is never written)",
                dir.display(),
                source.display()
            );
        }
        fs::create_dir_all(dir).with_context(|| format!("cannot create the output directory {}", dir.display()))?;
        let dir = fs::canonicalize(dir).with_context(|| format!("cannot read {}", dir.display()))?;
        let state = scratch.join("corpus").join(sha1_hex(dir.as_os_str().as_encoded_bytes()));
        let (journal, copies) = (state.join("journal"), state.join("results"));
        let entries = read_journal(&journal)?;
        let ours: HashSet<String> = entries.iter().map(|e| e.result.clone()).collect();
        let done =
            entries.into_iter().filter(|e| e.build == build).map(|e| (e.original, (e.result, e.complete))).collect();
        let store = Store { dir, journal, copies, build: build.to_owned(), done, ours };
        store.check_only_ours()?;
        Ok(store)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The result saved for the original with this SHA-1 by this build, when
    /// it is still there intact (in the output directory or among the copies).
    pub fn finished(&self, original: &str) -> Option<Saved> {
        let (result, complete) = self.done.get(original)?;
        let intact = |dir: &Path| fs::read(dir.join(result)).ok().filter(|bytes| sha1_hex(bytes) == *result);
        let bytes = intact(&self.dir).or_else(|| intact(&self.copies))?;
        Some(Saved { bytes, complete: *complete })
    }

    /// Puts an earlier run's result back in the output directory when it is
    /// not there (a later round or the final cover had removed it); returns its name.
    pub fn restore(&self, bytes: &[u8]) -> anyhow::Result<String> {
        let name = sha1_hex(bytes);
        let path = self.dir.join(&name);
        if !path.exists() {
            write_atomically(&path, bytes)?;
        }
        Ok(name)
    }

    /// Writes `bytes` as the result for `original` (`complete`: its shrink
    /// ran to the end); returns its file name. The copy first, then the
    /// journal line, then the file in the output directory: a kill at any
    /// point leaves no file there that the journal does not name, and a
    /// journal line whose file is missing is read from the copy.
    pub fn save(&mut self, original: &str, bytes: &[u8], complete: bool) -> anyhow::Result<String> {
        let name = self.save_aside(original, bytes, complete)?;
        write_atomically(&self.dir.join(&name), bytes)?;
        Ok(name)
    }

    /// Writes `bytes` as the result for `original` among the copies only (a
    /// result not kept, which a rerun need not work out again); returns its name.
    pub fn save_aside(&mut self, original: &str, bytes: &[u8], complete: bool) -> anyhow::Result<String> {
        let name = sha1_hex(bytes);
        fs::create_dir_all(&self.copies).with_context(|| format!("cannot create {}", self.copies.display()))?;
        write_atomically(&self.copies.join(&name), bytes)?;
        let (build, original_name, result) = (self.build.clone(), original.to_owned(), name.clone());
        let entry = Entry { build, original: original_name, result, complete };
        let line = serde_json::to_string(&entry)? + "\n";
        let parent = self.journal.parent().expect("the journal is in a directory");
        fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        let mut journal = fs::OpenOptions::new().create(true).append(true).open(&self.journal)?;
        journal.write_all(line.as_bytes()).with_context(|| format!("cannot write {}", self.journal.display()))?;
        self.done.insert(original.to_owned(), (name.clone(), complete));
        self.ours.insert(name.clone());
        Ok(name)
    }

    /// Removes the files this tool wrote that are not in `keep`; returns how many went.
    pub fn prune(&self, keep: &HashSet<String>) -> anyhow::Result<usize> {
        let mut removed = 0;
        for name in self.names()? {
            if self.ours.contains(&name) && !keep.contains(&name) {
                let path = self.dir.join(&name);
                fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Fails on a file this tool did not write (a temporary file of ours left by a kill is removed).
    fn check_only_ours(&self) -> anyhow::Result<()> {
        for name in self.names()? {
            if name.starts_with(".minimize-crash-") {
                let _ = fs::remove_file(self.dir.join(&name));
            } else if !self.ours.contains(&name) {
                return Err(anyhow!(
                    "the output directory {} holds {name}, which this tool did not write; give a new or empty \
                     directory (or the output of an earlier corpus run of this tool)",
                    self.dir.display()
                ));
            }
        }
        Ok(())
    }

    fn names(&self) -> anyhow::Result<Vec<String>> {
        let entries = fs::read_dir(&self.dir).with_context(|| format!("cannot list {}", self.dir.display()))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", self.dir.display()))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }
}

/// `dir` with links resolved, for the part of it that exists.
fn resolve(dir: &Path) -> anyhow::Result<PathBuf> {
    let absolute = std::path::absolute(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(existing.file_name().unwrap_or_default().to_owned());
        existing = existing.parent().unwrap_or(Path::new("/"));
    }
    let mut resolved = fs::canonicalize(existing).with_context(|| format!("cannot read {}", existing.display()))?;
    resolved.extend(rest.iter().rev());
    Ok(resolved)
}

/// The journal's entries (none when it does not exist; a torn last line is skipped).
fn read_journal(path: &Path) -> anyhow::Result<Vec<Entry>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_named_by_hash_resumed_by_build_and_pruned_only_when_ours() {
        let root = tempfile::tempdir().unwrap();
        let (source, out, scratch) = (root.path().join("corpus"), root.path().join("new"), root.path().join("s"));
        fs::create_dir(&source).unwrap();
        let mut store = Store::open(&out, &source, &scratch, "build-1").unwrap();
        let name = store.save("orig-a", b"small", true).unwrap();
        assert_eq!(name, sha1_hex(b"small"));
        store.save("orig-b", b"other", false).unwrap();
        let again = Store::open(&out, &source, &scratch, "build-1").unwrap();
        assert_eq!(again.finished("orig-a"), Some(Saved { bytes: b"small".to_vec(), complete: true }));
        assert_eq!(again.finished("orig-b").map(|s| s.complete), Some(false), "cut short: shrunk on");
        assert_eq!(Store::open(&out, &source, &scratch, "build-2").unwrap().finished("orig-a"), None);
        assert_eq!(again.prune(&HashSet::from([name.clone()])).unwrap(), 1);
        assert_eq!(fs::read_dir(&out).unwrap().count(), 1);
        let pruned = again.finished("orig-b").expect("a pruned result is read from its copy");
        assert_eq!(pruned.bytes, b"other");
        assert_eq!(again.restore(&pruned.bytes).unwrap(), sha1_hex(b"other"));
        assert_eq!(fs::read(out.join(sha1_hex(b"other"))).unwrap(), b"other", "put back");
        assert_eq!(again.prune(&HashSet::from([name.clone()])).unwrap(), 1);
        fs::write(out.join("theirs"), "x").unwrap();
        let error = Store::open(&out, &source, &scratch, "build-1").unwrap_err().to_string();
        assert!(error.contains("did not write"), "{error}");
        let inside = Store::open(&source.join("new"), &source, &scratch, "b").unwrap_err().to_string();
        assert!(inside.contains("apart from the corpus"), "{inside}");
        assert!(!source.join("new").exists(), "nothing is created in the corpus");
    }
}
