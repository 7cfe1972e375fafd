//! A scratch directory for a generator's files, shared by the integration tests (`mod scratch;`).

use std::collections::BTreeMap;
use std::path::PathBuf;

/// A fresh directory under the system's temporary directory, named for the test binary, the process and `name`;
/// removed when dropped.
pub(crate) struct Scratch(pub PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Self {
        let test = env!("CARGO_CRATE_NAME");
        let dir = std::env::temp_dir().join(format!("planted-{test}-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    /// Every file in the directory, by name.
    pub(crate) fn files(&self) -> BTreeMap<String, Vec<u8>> {
        let entries = std::fs::read_dir(&self.0).unwrap().map(|entry| entry.unwrap());
        entries.map(|entry| (entry.file_name().into_string().unwrap(), std::fs::read(entry.path()).unwrap())).collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
