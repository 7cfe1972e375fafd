//! The new corpus directory, a complete corpus at every moment: first the inputs the cover keeps, as they are (staged, then moved in at once); then each one replaced by its result as it finishes (the result written before what it replaces goes), every file under its SHA-1 (libFuzzer's naming); a journal of what is done so a rerun resumes; never a file we did not write touched.
//!
//! The files the corpus needs now are *held*, counted by name: the first
//! cover's inputs, then each result saved; a file goes when nothing holds it
//! any longer ([`Store::release`]). Every feature is held by one kept input at
//! a time, so the held files cover every feature whenever a kill comes
//! (decision 0086).
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
    /// An input of the first cover written as it is: the file is ours, but
    /// no result of `original`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    seed: bool,
    /// The run ended by itself here (no input named): its results are
    /// final, and a rerun keeps them as they are.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    finished: bool,
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
    /// The files the corpus needs now: how many kept inputs hold each, and its size.
    held: HashMap<String, (usize, u64)>,
    /// The files the directory held when opened: an earlier output, and
    /// whether each is done (a result, not an input written as it was).
    previous: Vec<(PathBuf, bool)>,
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
        let mut entries = read_journal(&journal)?;
        // The last run's results are final only when it ended by itself (not
        // Ctrl-C, `--max-time`, a kill): else they are inputs shrunk on.
        let finished = entries.last().is_some_and(|e| e.finished);
        entries.retain(|e| !e.finished);
        let ours: HashSet<String> = entries.iter().map(|e| e.result.clone()).collect();
        let results: HashSet<String> =
            entries.iter().filter(|e| finished && !e.seed).map(|e| e.result.clone()).collect();
        let done = entries
            .into_iter()
            .filter(|e| e.build == build && !e.seed)
            .map(|e| (e.original, (e.result, e.complete)))
            .collect();
        let build = build.to_owned();
        let (held, previous) = (HashMap::new(), Vec::new());
        let mut store = Store { dir, journal, copies, build, done, ours, held, previous };
        store.adopt_previous(&results)?;
        let _ = fs::remove_dir_all(store.staging());
        Ok(store)
    }

    /// Writes the first cover: each input as it is, held. Into an empty
    /// directory they go at once (written to a staging directory beside it,
    /// which is then renamed onto it), so the directory is empty or complete;
    /// into an earlier run's directory one by one (it is complete already).
    pub fn seed<'a>(&mut self, inputs: impl IntoIterator<Item = &'a [u8]>) -> anyhow::Result<()> {
        let inputs: Vec<&[u8]> = inputs.into_iter().collect();
        for bytes in &inputs {
            let name = sha1_hex(bytes);
            if !self.ours.contains(&name) {
                self.journal_line(Entry { original: name.clone(), result: name.clone(), seed: true, ..self.entry() })?;
                self.ours.insert(name);
            }
        }
        let staged = self.names()?.is_empty();
        let target = if staged { self.staging() } else { self.dir.clone() };
        fs::create_dir_all(&target).with_context(|| format!("cannot create {}", target.display()))?;
        for bytes in &inputs {
            let name = sha1_hex(bytes);
            if !target.join(&name).exists() {
                write_atomically(&target.join(&name), bytes)?;
            }
            self.hold(&name, bytes.len());
        }
        if staged {
            fs::rename(&target, &self.dir)
                .with_context(|| format!("cannot move {} onto {}", target.display(), self.dir.display()))?;
        }
        Ok(())
    }

    /// Where the first cover is written before it is moved in.
    fn staging(&self) -> PathBuf {
        let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
        self.dir.with_file_name(format!(".{name}.minimize-crash-staging"))
    }

    /// One more kept input holds the file `name` (of `size` bytes).
    fn hold(&mut self, name: &str, size: usize) {
        self.held.entry(name.to_owned()).or_insert((0, size as u64)).0 += 1;
    }

    /// A kept input no longer holds the file `name` (its result is in place,
    /// or the cover dropped it): the file goes when nothing holds it.
    pub fn release(&mut self, name: &str) -> anyhow::Result<()> {
        let Some((count, _)) = self.held.get_mut(name) else { return Ok(()) };
        *count -= 1;
        if *count == 0 {
            self.held.remove(name);
            let path = self.dir.join(name);
            fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
        Ok(())
    }

    /// The files held now and their bytes.
    pub fn size(&self) -> (usize, u64) {
        (self.held.len(), self.held.values().map(|(_, size)| size).sum())
    }

    /// The names of the files held now.
    pub fn held(&self) -> HashSet<String> {
        self.held.keys().cloned().collect()
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
    pub fn restore(&mut self, bytes: &[u8]) -> anyhow::Result<String> {
        let name = sha1_hex(bytes);
        let path = self.dir.join(&name);
        if !path.exists() {
            write_atomically(&path, bytes)?;
        }
        self.hold(&name, bytes.len());
        Ok(name)
    }

    /// Writes `bytes` as the result for `original` (`complete`: its shrink
    /// ran to the end); returns its file name. The copy first, then the
    /// journal line, then the file in the output directory: a kill at any
    /// point leaves no file there that the journal does not name, and a
    /// journal line whose file is missing is read from the copy. The file is held.
    pub fn save(&mut self, original: &str, bytes: &[u8], complete: bool) -> anyhow::Result<String> {
        let name = self.save_aside(original, bytes, complete)?;
        write_atomically(&self.dir.join(&name), bytes)?;
        self.hold(&name, bytes.len());
        Ok(name)
    }

    /// Writes `bytes` as the result for `original` among the copies only (a
    /// result not kept, which a rerun need not work out again); returns its name.
    pub fn save_aside(&mut self, original: &str, bytes: &[u8], complete: bool) -> anyhow::Result<String> {
        let name = sha1_hex(bytes);
        fs::create_dir_all(&self.copies).with_context(|| format!("cannot create {}", self.copies.display()))?;
        write_atomically(&self.copies.join(&name), bytes)?;
        self.journal_line(Entry { original: original.to_owned(), result: name.clone(), complete, ..self.entry() })?;
        self.done.insert(original.to_owned(), (name.clone(), complete));
        self.ours.insert(name.clone());
        Ok(name)
    }

    /// A journal line of this build (fields to fill in).
    fn entry(&self) -> Entry {
        let build = self.build.clone();
        Entry { build, original: String::new(), result: String::new(), complete: true, seed: false, finished: false }
    }

    /// Journals that the run ended by itself: a rerun keeps its results as
    /// they are (an incremental run); without this line it shrinks them on.
    pub fn finish(&self) -> anyhow::Result<()> {
        self.journal_line(Entry { finished: true, ..self.entry() })
    }

    /// Appends `entry` to the journal.
    fn journal_line(&self, entry: Entry) -> anyhow::Result<()> {
        let line = serde_json::to_string(&entry)? + "\n";
        let parent = self.journal.parent().expect("the journal is in a directory");
        fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        let mut journal = fs::OpenOptions::new().create(true).append(true).open(&self.journal)?;
        journal.write_all(line.as_bytes()).with_context(|| format!("cannot write {}", self.journal.display()))
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

    /// Takes the directory's files as an earlier output: ours (the journal
    /// names them), or named by the SHA-1 of their contents as libFuzzer and
    /// this tool name them (a minimized corpus from another machine: taken
    /// as done, copied beside the journal, and journaled as ours). Fails on any other file, before
    /// anything is written; a temporary file of ours left by a kill is removed.
    fn adopt_previous(&mut self, results: &HashSet<String>) -> anyhow::Result<()> {
        let mut adopted = Vec::new();
        for name in self.names()? {
            let path = self.dir.join(&name);
            if name.starts_with(".minimize-crash-") {
                let _ = fs::remove_file(&path);
            } else if self.ours.contains(&name) {
                self.previous.push((path, results.contains(&name)));
            } else if fs::read(&path).is_ok_and(|bytes| sha1_hex(&bytes) == name) {
                adopted.push(name);
            } else {
                return Err(anyhow!(
                    "the output directory {} holds {name}, which this tool did not write and is not named by the \
                     SHA-1 of its contents; give a new or empty directory, an earlier output of this tool, or a \
                     corpus whose files libFuzzer named",
                    self.dir.display()
                ));
            }
        }
        for name in adopted {
            // A copy first: a file adopted and later dropped is never lost.
            fs::create_dir_all(&self.copies).with_context(|| format!("cannot create {}", self.copies.display()))?;
            fs::copy(self.dir.join(&name), self.copies.join(&name))
                .with_context(|| format!("cannot copy {} into {}", name, self.copies.display()))?;
            self.journal_line(Entry { original: name.clone(), result: name.clone(), ..self.entry() })?;
            self.ours.insert(name.clone());
            self.previous.push((self.dir.join(name), true));
        }
        Ok(())
    }

    /// The files the directory held when opened (an earlier output), each
    /// with whether it is done: a result, not an input written as it was.
    pub fn previous(&self) -> &[(PathBuf, bool)] {
        &self.previous
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
        let mut again = Store::open(&out, &source, &scratch, "build-1").unwrap();
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
        fs::remove_file(out.join("theirs")).unwrap();
        fs::write(out.join(sha1_hex(b"found")), "found").unwrap();
        let adopting = Store::open(&out, &source, &scratch, "build-1").unwrap();
        let mut previous: Vec<(String, bool)> = adopting
            .previous()
            .iter()
            .map(|(path, done)| (path.file_name().unwrap().to_string_lossy().into_owned(), *done))
            .collect();
        previous.sort();
        let mut expected = [(sha1_hex(b"found"), true), (name.clone(), false)];
        expected.sort();
        assert_eq!(previous, expected, "a file libFuzzer named is taken; ours are shrunk on (no run finished)");
        let copy =
            scratch.join("corpus").join(sha1_hex(fs::canonicalize(&out).unwrap().as_os_str().as_encoded_bytes()));
        assert_eq!(fs::read(copy.join("results").join(sha1_hex(b"found"))).unwrap(), b"found", "and kept aside");
        let inside = Store::open(&source.join("new"), &source, &scratch, "b").unwrap_err().to_string();
        assert!(inside.contains("apart from the corpus"), "{inside}");
        assert!(!source.join("new").exists(), "nothing is created in the corpus");
    }

    #[test]
    fn a_rerun_keeps_the_results_as_they_are_only_when_the_last_run_finished() {
        let root = tempfile::tempdir().unwrap();
        let (source, out, scratch) = (root.path().join("corpus"), root.path().join("new"), root.path().join("s"));
        fs::create_dir(&source).unwrap();
        let done = |store: &Store| store.previous().iter().map(|(_, done)| *done).collect::<Vec<bool>>();
        Store::open(&out, &source, &scratch, "build-1").unwrap().seed([&b"seed"[..]]).unwrap();
        let mut store = Store::open(&out, &source, &scratch, "build-1").unwrap();
        store.save("orig", b"result", true).unwrap();
        store.finish().unwrap();
        let mut store = Store::open(&out, &source, &scratch, "build-1").unwrap();
        let mut previous = done(&store);
        previous.sort();
        assert_eq!(previous, [false, true], "a finished run's result is done, a seed written as it was is not");
        store.save("orig-2", b"result-2", true).unwrap();
        let stopped = Store::open(&out, &source, &scratch, "build-1").unwrap();
        assert!(done(&stopped).iter().all(|d| !d), "a run stopped after the finished one: every result shrunk on");
        assert_eq!(stopped.finished("orig-2").map(|s| s.bytes), Some(b"result-2".to_vec()), "its saved results replay");
    }

    #[test]
    fn the_first_cover_moves_in_at_once_and_a_file_goes_when_nothing_holds_it() {
        let root = tempfile::tempdir().unwrap();
        let (source, out, scratch) = (root.path().join("corpus"), root.path().join("new"), root.path().join("s"));
        fs::create_dir(&source).unwrap();
        let mut store = Store::open(&out, &source, &scratch, "b").unwrap();
        store.seed([&b"one"[..], b"two"]).unwrap();
        assert_eq!(store.size(), (2, 6));
        assert!(!root.path().join(".new.minimize-crash-staging").exists(), "the staging directory was moved in");
        let result = store.save(&sha1_hex(b"one"), b"1", true).unwrap();
        store.save(&sha1_hex(b"two"), b"1", true).unwrap();
        store.release(&sha1_hex(b"one")).unwrap();
        assert!(!out.join(sha1_hex(b"one")).exists(), "replaced by its result");
        store.release(&result).unwrap();
        assert!(out.join(&result).exists(), "still held by the other input's result");
        assert_eq!(store.held(), HashSet::from([result.clone(), sha1_hex(b"two")]));
        store.finish().unwrap();
        let mut again = Store::open(&out, &source, &scratch, "b").unwrap();
        let done: Vec<bool> = again.previous().iter().map(|(_, done)| *done).collect();
        assert_eq!(done.len(), 2);
        assert_eq!(done.iter().filter(|d| **d).count(), 1, "the result is done, the input written as it was is not");
        again.seed([&b"three"[..]]).unwrap();
        assert!(out.join(sha1_hex(b"three")).exists(), "into an earlier output, one by one");
    }
}
