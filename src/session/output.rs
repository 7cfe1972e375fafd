//! The output file: its default name, never the crash file itself, written atomically.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

/// The SHA-1 of `bytes` in hex, as libFuzzer and cargo-fuzz name their files.
pub fn sha1_hex(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

/// `minimized-from-<sha1 of the original>` next to the crash file (cargo-fuzz's naming).
pub fn default_path(crash: &Path, original: &[u8]) -> PathBuf {
    let name = format!("minimized-from-{}", sha1_hex(original));
    match crash.parent() {
        Some(dir) => dir.join(name),
        None => PathBuf::from(name),
    }
}

/// The harness mode's default: `<fuzz dir>/artifacts/<target>/minimized-from-<sha1 of the original>`,
/// where `cargo fuzz tmin` puts its results.
pub fn artifact_path(fuzz_dir: &Path, target: &str, original: &[u8]) -> PathBuf {
    fuzz_dir.join("artifacts").join(target).join(format!("minimized-from-{}", sha1_hex(original)))
}

/// Where `-o PATH` puts the result of minimizing `original`: PATH, or when
/// PATH is a directory, `minimized-from-<sha1 of the original>` inside it
/// (as `cp` puts a file into a directory).
pub fn resolve(output: PathBuf, original: &[u8]) -> PathBuf {
    if output.is_dir() {
        output.join(format!("minimized-from-{}", sha1_hex(original)))
    } else {
        output
    }
}

/// Fails when `output` is the crash file (or a link to it), or its directory
/// does not exist or cannot take a new file: checked before any work, so a
/// reduction never ends with nowhere to put its result.
pub fn check_output_path(output: &Path, crash: &Path) -> anyhow::Result<()> {
    if let (Ok(out), Ok(original)) = (fs::metadata(output), fs::metadata(crash)) {
        if out.dev() == original.dev() && out.ino() == original.ino() {
            bail!(
                "the output {} is the crash file itself, which is never overwritten; choose another --output",
                output.display()
            );
        }
    }
    let dir = parent_dir(output);
    if !dir.is_dir() {
        bail!("the output's directory {} does not exist; create it or choose another --output", dir.display());
    }
    if output.is_dir() {
        bail!("the output {} is a directory; choose another --output", output.display());
    }
    // The result is written as a temporary file renamed into place: try one now.
    tempfile::Builder::new().prefix(".minimize-crash-").tempfile_in(dir).with_context(|| {
        format!("cannot write in the output's directory {}; choose another --output", dir.display())
    })?;
    Ok(())
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Replaces `path` with `bytes` in one rename: a reader (or a crash, or
/// Ctrl-C) sees the old contents or the new, never a partial file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = parent_dir(path);
    let mut file = tempfile::Builder::new()
        .prefix(".minimize-crash-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    file.write_all(bytes).with_context(|| format!("cannot write {}", file.path().display()))?;
    // tempfile creates files readable by the owner only; a result is an ordinary file.
    file.as_file().set_permissions(fs::Permissions::from_mode(0o644)).ok();
    file.persist(path).with_context(|| format!("cannot move the result into place at {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_name_is_the_original_hash_next_to_it() {
        let path = default_path(Path::new("fuzz/artifacts/t/crash-1"), b"abc");
        assert_eq!(path, Path::new("fuzz/artifacts/t/minimized-from-a9993e364706816aba3e25717850c26c9cd0d89d"));
        assert_eq!(default_path(Path::new("crash-1"), b"abc").parent(), Some(Path::new("")));
        assert_eq!(
            artifact_path(Path::new("/p/fuzz"), "tlv", b"abc"),
            Path::new("/p/fuzz/artifacts/tlv/minimized-from-a9993e364706816aba3e25717850c26c9cd0d89d")
        );
    }

    #[test]
    fn the_crash_file_is_never_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let crash = dir.path().join("crash");
        fs::write(&crash, b"x").unwrap();
        assert!(check_output_path(&crash, &crash).is_err());
        std::os::unix::fs::symlink(&crash, dir.path().join("link")).unwrap();
        assert!(check_output_path(&dir.path().join("link"), &crash).is_err());
        assert!(check_output_path(&dir.path().join("out"), &crash).is_ok());
        assert!(check_output_path(&dir.path().join("nope/out"), &crash).is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2, "the check leaves no file behind");
    }

    #[test]
    fn a_directory_given_as_output_takes_the_default_name_inside() {
        let dir = tempfile::tempdir().unwrap();
        let inside = resolve(dir.path().to_path_buf(), b"abc");
        assert_eq!(inside, dir.path().join("minimized-from-a9993e364706816aba3e25717850c26c9cd0d89d"));
        assert_eq!(resolve(inside.clone(), b"abc"), inside, "a file path stays as it is");
        let error = check_output_path(dir.path(), Path::new("crash")).unwrap_err().to_string();
        assert!(error.contains("is a directory"), "{error}");
    }

    #[test]
    fn writes_replace_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        write_atomically(&out, b"first").unwrap();
        write_atomically(&out, b"2nd").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"2nd");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left behind");
    }
}
