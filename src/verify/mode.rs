//! Whether the binary `cargo fuzz build` made was built with `-O` (no debug assertions), read from cargo's fingerprint of the build that made it (decision 0119).
//!
//! cargo links `<profile dir>/TARGET` to the file it built,
//! `<profile dir>/deps/TARGET-HASH` (a hard link, or a copy), and records
//! how it built that file in `<profile dir>/.fingerprint/PACKAGE-HASH/
//! bin-TARGET.json`, the `RUSTFLAGS` among it. cargo-fuzz passes
//! `-Cdebug-assertions` there unless `-O`. Builds with and without it get
//! different hashes, so both stay in `deps/`; only the link says which one
//! the user has. A binary's own bytes do not tell: a small target has no
//! overflow-checked arithmetic to leave a panic message behind.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Whether the binary at `binary` was built with `-O`: `None` when cargo's
/// records do not say (no binary, no file in `deps/` that is it, no
/// fingerprint, one that cannot be read).
pub(crate) fn built_with_o(binary: &Path) -> Option<bool> {
    let hash = deps_hash(binary)?;
    let fingerprints = binary.parent()?.join(".fingerprint");
    let suffix = format!("-{hash}");
    let dir = fs::read_dir(fingerprints)
        .ok()?
        .flatten()
        .find(|entry| entry.file_name().to_string_lossy().ends_with(&suffix))?;
    let record = fs::read_dir(dir.path()).ok()?.flatten().find(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        name.starts_with("bin-") && name.ends_with(".json")
    })?;
    let record: serde_json::Value = serde_json::from_slice(&fs::read(record.path()).ok()?).ok()?;
    let flags: Vec<&str> = record.get("rustflags")?.as_array()?.iter().filter_map(|flag| flag.as_str()).collect();
    Some(!debug_assertions_in(&flags))
}

/// The HASH of the file in `deps/` that `binary` is: the same inode (cargo's
/// hard link), else the same length and bytes (its copy; the binary read
/// once, and only for a file of its length).
fn deps_hash(binary: &Path) -> Option<String> {
    let meta = fs::metadata(binary).ok()?;
    let mut bytes: Option<Option<Vec<u8>>> = None;
    let mut same = |path: &Path, other: &fs::Metadata| {
        if other.ino() == meta.ino() && other.dev() == meta.dev() {
            return true;
        }
        let own = bytes.get_or_insert_with(|| fs::read(binary).ok());
        own.is_some() && fs::read(path).ok() == *own
    };
    let entries = fs::read_dir(binary.parent()?.join("deps")).ok()?.flatten();
    let found = entries.into_iter().find(|entry| {
        entry.metadata().is_ok_and(|other| other.is_file() && other.len() == meta.len() && same(&entry.path(), &other))
    })?;
    let name = found.file_name().to_string_lossy().into_owned();
    let (_, hash) = name.rsplit_once('-')?;
    hash.chars().all(|c| c.is_ascii_hexdigit()).then(|| hash.to_string())
}

/// Whether `rustflags` turn debug assertions on: `-Cdebug-assertions[=..]`
/// or `-C debug-assertions[=..]`, the last one deciding (`=no`/`=off`/`=n`/`=false` turn them off).
fn debug_assertions_in(rustflags: &[&str]) -> bool {
    let mut on = false;
    for (at, flag) in rustflags.iter().enumerate() {
        let setting = match flag.strip_prefix("-C") {
            Some("") => rustflags.get(at + 1).copied().unwrap_or(""),
            Some(rest) => rest,
            None => continue,
        };
        if let Some(value) = setting.strip_prefix("debug-assertions") {
            on = !matches!(value, "=no" | "=off" | "=n" | "=false");
        }
    }
    on
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Lays out in `profile` what cargo leaves for two builds of `target`,
    /// with and without debug assertions: `deps/TARGET-HASH` and its
    /// fingerprint each; the two files' paths, with and without.
    pub(in crate::verify) fn two_builds(profile: &Path, target: &str) -> [std::path::PathBuf; 2] {
        std::fs::create_dir_all(profile.join("deps")).unwrap();
        let builds = [("0123456789abcdef", "\"-Cdebug-assertions\""), ("fedcba9876543210", "\"-Copt-level=3\"")];
        builds.map(|(hash, flags)| {
            let file = profile.join(format!("deps/{target}-{hash}"));
            std::fs::write(&file, format!("a binary built with {flags}")).unwrap();
            let fingerprint = profile.join(format!(".fingerprint/{target}-fuzz-{hash}"));
            std::fs::create_dir_all(&fingerprint).unwrap();
            let record = format!("{{\"rustc\":1,\"rustflags\":[\"--cfg\",\"fuzzing\",{flags}]}}");
            std::fs::write(fingerprint.join(format!("bin-{target}.json")), record).unwrap();
            file
        })
    }

    /// `bug` a hard link to the build with debug assertions, a copy of the
    /// one without, or a file cargo did not make.
    #[test]
    fn the_fingerprint_of_the_file_the_binary_is_says_how_it_was_built() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("bug");
        assert_eq!(built_with_o(&binary), None, "no binary");
        let [with, without] = two_builds(dir.path(), "bug");
        std::fs::hard_link(with, &binary).unwrap();
        assert_eq!(built_with_o(&binary), Some(false), "linked to the build with debug assertions");
        std::fs::remove_file(&binary).unwrap();
        std::fs::copy(without, &binary).unwrap();
        assert_eq!(built_with_o(&binary), Some(true), "a copy of the build without");
        std::fs::write(&binary, "a binary cargo did not make").unwrap();
        assert_eq!(built_with_o(&binary), None, "no file in deps/ is it");
    }

    #[test]
    fn debug_assertions_are_read_from_either_spelling_the_last_one_deciding() {
        assert!(debug_assertions_in(&["--cfg", "fuzzing", "-Cdebug-assertions", "-Ccodegen-units=1"]));
        assert!(debug_assertions_in(&["-C", "debug-assertions=yes"]));
        assert!(!debug_assertions_in(&["-Cdebug-assertions", "-C", "debug-assertions=off"]));
        assert!(!debug_assertions_in(&["-Copt-level=3", "-C", "overflow-checks"]));
        assert!(!debug_assertions_in(&["-C"]));
    }
}
