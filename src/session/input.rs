//! Reading one input the user named (a crash file, a batch input): a regular file, no larger than a fuzzer's input could be.

use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use anyhow::{bail, Context};

/// The largest input read: 64 times libFuzzer's own ceiling (it writes inputs
/// of at most `-max_len` bytes, which it sets to at most 1 MiB unless told
/// otherwise). Larger files are not fuzzer inputs, and a reduction of one
/// would take days.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The contents of `path`, which must be a regular file (or a link to one)
/// of at most [`MAX_INPUT_BYTES`]: a device (`/dev/zero`), a FIFO or a
/// directory is an error that says so, and nothing is read from it. The
/// messages leave the path to the caller's context.
pub fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
    let metadata = fs::metadata(path).context("check the path")?;
    let kind = metadata.file_type();
    if !kind.is_file() {
        bail!("it is {}, not a regular file: give the input file itself", describe(&kind));
    }
    if metadata.len() > MAX_INPUT_BYTES {
        bail!(too_large(metadata.len()));
    }
    let file = File::open(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // A file that grows while it is read stops at the limit, and is refused.
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        bail!(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_large(size: u64) -> String {
    format!(
        "it is {size} bytes, past the limit of {} MiB: libFuzzer writes inputs of at most -max_len bytes \
         (1 MiB unless told otherwise), so this is not a fuzzer's input; cut it down first",
        MAX_INPUT_BYTES >> 20
    )
}

fn describe(kind: &fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crash");
        fs::write(&path, b"abc").unwrap();
        assert_eq!(read_input(&path).unwrap(), b"abc");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(read_input(&link).unwrap(), b"abc");
    }

    #[test]
    fn devices_directories_and_missing_files_are_refused_with_what_they_are() {
        let error = read_input(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(error.contains("it is a character device, not a regular file"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let error = read_input(dir.path()).unwrap_err().to_string();
        assert!(error.contains("it is a directory, not a regular file"), "{error}");
        let error = format!("{:#}", read_input(&dir.path().join("missing")).unwrap_err());
        assert!(error.contains("check the path") && error.contains("No such file"), "{error}");
    }

    #[test]
    fn a_file_past_the_limit_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge");
        // Sparse: no data is written, and none is read.
        File::create(&path).unwrap().set_len(MAX_INPUT_BYTES + 1).unwrap();
        let error = read_input(&path).unwrap_err().to_string();
        assert!(error.contains(&format!("{} bytes, past the limit of 64 MiB", MAX_INPUT_BYTES + 1)), "{error}");
    }
}
