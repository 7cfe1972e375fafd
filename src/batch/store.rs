//! The output directory: a folder per bug (reproducer, `{:#?}` rendering, a state file written last), the triage cache and the reports, every file written atomically so a kill loses nothing finished and a rerun skips what is done.
//!
//! ```text
//!     DIR/report.json, report.md, report.sarif
//!     DIR/<bug id>/reproducer        the minimized input
//!     DIR/<bug id>/value.txt         a typed target's rendering
//!     DIR/<bug id>/original          a slip's input (it has no file of its own)
//!     DIR/<bug id>/bug.json          the bug's report entry and its cache key: the bug is done
//!     DIR/.minimize-crash/triage-<key>.json   each input's crash, by content hash
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::batch::model::{BatchReport, Bug};
use crate::session::output::{sha1_hex, write_atomically};
use crate::signature::{Level, Signature};

/// A bug's state file: its entry, and what it was made with.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    key: String,
    bug: Bug,
}

/// Each input's crash by content hash, for one build and tool version.
pub type TriageCache = BTreeMap<String, Option<Signature>>;

/// The output directory.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// Creates the directory if needed.
    pub fn open(dir: &Path) -> anyhow::Result<Store> {
        fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the output directory {}; choose another with -o", dir.display()))?;
        Ok(Store { dir: dir.to_path_buf() })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cache key of a finished bug: it is reused only by the same tool
    /// version, build and signature level.
    pub fn bug_key(build_id: &str, level: Level, fingerprint: &str) -> String {
        sha1_hex(format!("{}\n{build_id}\n{level}\n{fingerprint}", env!("CARGO_PKG_VERSION")).as_bytes())
    }

    /// The bug's folder, created.
    pub fn bug_dir(&self, id: &str) -> anyhow::Result<PathBuf> {
        let dir = self.dir.join(id);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir)
    }

    /// Where the bug's reproducer goes (its folder created).
    pub fn reproducer(&self, id: &str) -> anyhow::Result<PathBuf> {
        Ok(self.bug_dir(id)?.join("reproducer"))
    }

    /// Saves a slip's input in the bug's folder; returns its name relative to the directory.
    pub fn save_original(&self, id: &str, bytes: &[u8]) -> anyhow::Result<String> {
        write_atomically(&self.bug_dir(id)?.join("original"), bytes)?;
        Ok(format!("{id}/original"))
    }

    /// A finished bug of an earlier run with the same key, if any.
    pub fn finished(&self, id: &str, key: &str) -> Option<Bug> {
        let text = fs::read(self.dir.join(id).join("bug.json")).ok()?;
        let state: State = serde_json::from_slice(&text).ok()?;
        let reproducer_there = state.bug.reproducer.as_ref().map_or(true, |r| self.dir.join(r).is_file());
        (state.key == key && reproducer_there).then_some(state.bug)
    }

    /// Marks the bug finished: its rendering, then its state file (last: its presence means done).
    pub fn finish(&self, bug: &Bug, key: &str) -> anyhow::Result<()> {
        let dir = self.bug_dir(&bug.id)?;
        if let Some(value) = &bug.value {
            write_atomically(&dir.join("value.txt"), format!("{value}\n").as_bytes())?;
        }
        let state = State { key: key.to_owned(), bug: bug.clone() };
        let json = serde_json::to_vec_pretty(&state).expect("a bug serializes");
        write_atomically(&dir.join("bug.json"), &json)
    }

    fn triage_path(&self, build_id: &str) -> PathBuf {
        let key = sha1_hex(format!("{}\n{build_id}", env!("CARGO_PKG_VERSION")).as_bytes());
        self.dir.join(".minimize-crash").join(format!("triage-{}.json", &key[..16]))
    }

    /// The crashes of inputs run before with this build.
    pub fn triage_cache(&self, build_id: &str) -> TriageCache {
        fs::read(self.triage_path(build_id)).ok().and_then(|t| serde_json::from_slice(&t).ok()).unwrap_or_default()
    }

    /// Saves the crashes of the inputs run with this build.
    pub fn save_triage_cache(&self, build_id: &str, cache: &TriageCache) -> anyhow::Result<()> {
        let path = self.triage_path(build_id);
        let dir = path.parent().expect("a directory");
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_atomically(&path, &serde_json::to_vec(cache).expect("a cache serializes"))
    }

    /// Writes `report.json`, `report.md` and `report.sarif`.
    pub fn write_reports(&self, report: &BatchReport) -> anyhow::Result<()> {
        crate::batch::report::write_reports(&self.dir, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::Kind;

    fn bug(id: &str) -> Bug {
        Bug { value: Some("Foo".into()), ..Bug::example(id, "crash-1", &[]) }
    }

    #[test]
    fn a_finished_bug_is_found_again_only_with_the_same_key_and_its_reproducer() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("out")).unwrap();
        let b = bug("t-timeout-0123456789");
        assert!(store.finished(&b.id, "k").is_none());
        write_atomically(&store.reproducer(&b.id).unwrap(), b"x").unwrap();
        store.finish(&b, "k").unwrap();
        assert_eq!(store.finished(&b.id, "k"), Some(b.clone()));
        assert!(store.finished(&b.id, "other build").is_none());
        assert_eq!(fs::read_to_string(store.dir().join(&b.id).join("value.txt")).unwrap(), "Foo\n");
        fs::remove_file(store.reproducer(&b.id).unwrap()).unwrap();
        assert!(store.finished(&b.id, "k").is_none(), "a reproducer deleted by hand is made again");
    }

    #[test]
    fn the_triage_cache_is_per_build() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut cache = TriageCache::new();
        cache.insert(
            "abc".into(),
            Some(Signature { kind: Kind::Panic, location: None, message: None, raised_in: None }),
        );
        cache.insert("def".into(), None);
        store.save_triage_cache("build-1", &cache).unwrap();
        assert_eq!(store.triage_cache("build-1"), cache);
        assert!(store.triage_cache("build-2").is_empty());
    }
}
