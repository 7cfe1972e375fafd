//! The corpus's inputs: every regular file under the directory, recursively, as libFuzzer reads a corpus; each content once.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::session::inputs::Input;
use crate::session::output::sha1_hex;

/// One distinct content of the corpus.
#[derive(Clone, Debug)]
pub struct CorpusInput {
    /// The first file with this content (sorted by path).
    pub input: Input,
    /// Its SHA-1 (libFuzzer's name for it).
    pub sha1: String,
    /// Other files with the same content.
    pub duplicates: Vec<String>,
    /// A file of an earlier output has this content and is a result: it is
    /// kept as it is, never shrunk again.
    pub done: bool,
    /// Only a file of an earlier output that is not done has this content (a
    /// stopped run's result): shrunk on, covered for before the corpus's
    /// inputs (decision 0114).
    pub from_output: bool,
}

impl CorpusInput {
    /// Its bytes (empty when unreadable).
    pub fn bytes(&self) -> &[u8] {
        self.input.bytes.as_deref().unwrap_or_default()
    }
}

/// Every file under `dir` (symbolic links followed to files, not to
/// directories), sorted by path, grouped by content.
pub fn collect(dir: &Path) -> anyhow::Result<Vec<CorpusInput>> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut by_hash: HashMap<String, usize> = HashMap::new();
    let mut inputs: Vec<CorpusInput> = Vec::new();
    for file in files {
        let input = Input::read(&file);
        let sha1 = input.bytes.as_ref().map_or_else(|e| format!("unreadable: {e}"), |b| sha1_hex(b));
        match by_hash.get(&sha1) {
            Some(&first) => inputs[first].duplicates.push(input.name),
            None => {
                by_hash.insert(sha1.clone(), inputs.len());
                inputs.push(CorpusInput { input, sha1, duplicates: Vec::new(), done: false, from_output: false });
            }
        }
    }
    Ok(inputs)
}

/// Adds an earlier output's files (`previous`: each path with whether it is
/// a result) to `inputs`: a content the corpus has is marked done when that
/// file is a result; a new one is an input of its own.
pub fn add_previous(inputs: &mut Vec<CorpusInput>, previous: &[(PathBuf, bool)]) {
    let by_hash: HashMap<String, usize> = inputs.iter().enumerate().map(|(i, input)| (input.sha1.clone(), i)).collect();
    for (path, done) in previous {
        let input = Input::read(path);
        let Ok(bytes) = &input.bytes else { continue };
        let sha1 = sha1_hex(bytes);
        match by_hash.get(&sha1) {
            Some(&at) => inputs[at].done |= done,
            None => {
                let (done, from_output) = (*done, !done);
                inputs.push(CorpusInput { input, sha1, duplicates: Vec::new(), done, from_output });
            }
        }
    }
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot list the corpus directory {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list the corpus directory {}", dir.display()))?;
        let kind = entry.file_type().with_context(|| format!("cannot read {}", entry.path().display()))?;
        if kind.is_dir() {
            walk(&entry.path(), files)?;
        } else if kind.is_file() || (kind.is_symlink() && entry.path().is_file()) {
            files.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_recursively_and_grouped_by_content() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
        for (name, content) in [("b", "x"), ("a", "y"), ("sub/c", "x"), ("sub/deeper/d", ""), (".hidden", "z")] {
            fs::write(dir.path().join(name), content).unwrap();
        }
        let inputs = collect(dir.path()).unwrap();
        let names: Vec<String> = inputs
            .iter()
            .map(|i| Path::new(&i.input.name).strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(names, [".hidden", "a", "b", "sub/deeper/d"]);
        assert_eq!(inputs[2].duplicates, [dir.path().join("sub/c").display().to_string()]);
        assert_eq!(inputs[2].sha1, sha1_hex(b"x"));
        assert!(collect(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn an_earlier_outputs_files_join_the_inputs_done_when_results_and_from_the_output_when_only_it_has_them() {
        let (corpus, output) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fs::write(corpus.path().join("a"), "in both").unwrap();
        fs::write(corpus.path().join("b"), "shrunk, in both").unwrap();
        let mut inputs = collect(corpus.path()).unwrap();
        let file = |name: &str, content: &str| {
            fs::write(output.path().join(name), content).unwrap();
            output.path().join(name)
        };
        let previous = [
            (file("1", "in both"), false),
            (file("2", "shrunk, in both"), true),
            (file("3", "a stopped run's result"), false),
            (file("4", "a finished run's result"), true),
        ];
        add_previous(&mut inputs, &previous);
        let marks: Vec<(bool, bool)> = inputs.iter().map(|i| (i.done, i.from_output)).collect();
        assert_eq!(marks, [(false, false), (true, false), (false, true), (true, false)]);
    }
}
