//! Writing into the scratch directory: a file is replaced only when its contents change, in one rename.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

use super::ProjectError;

/// Writes `contents` to `path` unless it already holds exactly that: an
/// unchanged file keeps its modification time, so cargo does not rebuild.
/// The write goes through a temporary file and a rename, so a concurrent run
/// never sees half a file. Returns whether it wrote.
pub fn write_if_changed(path: &Path, contents: &[u8]) -> Result<bool, ProjectError> {
    if fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut file =
        tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    file.write_all(contents).with_context(|| format!("cannot write {}", path.display()))?;
    file.persist(path).map_err(|e| anyhow::Error::new(e.error).context(format!("cannot write {}", path.display())))?;
    Ok(true)
}
