//! Places in the user's repository: a signature's location string turned into a repository-relative file, line and column, and a fuzz target's own source.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

use crate::batch::model::SourceLocation;
use crate::project::locate::normalize;

/// How deep under the repository root [`target_source`] looks for `fuzz_targets/`
/// (`crates/parser/fuzz/fuzz_targets` is depth 4).
const TARGET_SEARCH_DEPTH: usize = 4;

/// How many directories [`target_source`] reads at most, so a huge monorepo costs little.
const TARGET_SEARCH_DIRECTORIES: usize = 2_000;

/// The place in the repository that `location`, a signature's location, names;
/// `None` when it names no file under `repository_root` (the standard library's
/// `/rustc/...`, a registry crate, a file that is not there).
///
/// The forms signatures have:
/// - a panic's `path:line:col`, where the path is absolute, relative to the fuzz
///   directory (the harness builds with `--remap-path-prefix=<fuzz dir>/=`), or
///   relative to the workspace;
/// - a crash by signal's `fn at path:line:col <- fn at path:line:col` (the first
///   frame is the innermost, so it is the one taken);
/// - a sanitizer's `fn at path:line:col`, or its summary's `path:line:col in fn`
///   or `path:line`.
///
/// A relative path is looked up in `fuzz_dir` first, then in `repository_root`:
/// the first that exists wins.
pub fn source_location(location: &str, repository_root: &Path, fuzz_dir: &Path) -> Option<SourceLocation> {
    let (file, line, column) = split_position(file_position(location))?;
    let file = Path::new(file);
    let candidates = if file.is_absolute() {
        vec![file.to_path_buf()]
    } else {
        vec![fuzz_dir.join(file), repository_root.join(file)]
    };
    let path = candidates.iter().filter(|c| c.is_file()).find_map(|c| relative_to(repository_root, c))?;
    Some(SourceLocation { path, line, column })
}

/// The source of fuzz target `target`, found by cargo-fuzz's layout
/// (`fuzz_targets/<target>.rs`, in the repository's first few levels), at its
/// `fuzz_target!` line (else line 1); `None` when there is no such file.
pub fn target_source(repository_root: &Path, target: &str) -> Option<SourceLocation> {
    let name_is_plain = !target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !name_is_plain {
        return None; // an `--exec` label, not a file name
    }
    let file = format!("{target}.rs");
    let found = find_fuzz_targets_dirs(repository_root).into_iter().map(|dir| dir.join(&file)).find(|f| f.is_file())?;
    let path = relative_to(repository_root, &found)?;
    let text = std::fs::read_to_string(&found).unwrap_or_default();
    let line = text.lines().position(|l| l.contains("fuzz_target!")).map_or(1, |i| i + 1);
    Some(SourceLocation { path, line: u32::try_from(line).unwrap_or(1), column: None })
}

/// Directories named `fuzz_targets` under `root`, shallowest first (then by
/// name), skipping hidden directories and build output.
fn find_fuzz_targets_dirs(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut queue = VecDeque::from([(root.to_path_buf(), 0)]);
    let mut read = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        if dir.file_name().is_some_and(|n| n == "fuzz_targets") {
            found.push(dir.clone());
        }
        if depth == TARGET_SEARCH_DEPTH || read == TARGET_SEARCH_DIRECTORIES {
            continue;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut children: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                !name.starts_with('.') && name != "target" && name != "node_modules"
            })
            .map(|e| e.path())
            .collect();
        children.sort();
        queue.extend(children.into_iter().map(|child| (child, depth + 1)));
    }
    found
}

/// The `path:line[:col]` part of a location: the first frame of `a <- b`, the
/// file after a frame's `fn at `, the file before a sanitizer summary's ` in fn`.
fn file_position(location: &str) -> &str {
    let frame = location.split(" <- ").next().unwrap_or(location);
    let frame = frame.rsplit_once(" at ").map_or(frame, |(_function, file)| file);
    frame.split_once(" in ").map_or(frame, |(file, _function)| file).trim()
}

/// `path:line:col` or `path:line` -> the path, the line and the column (a
/// zero column is unknown; a zero line is no position).
fn split_position(text: &str) -> Option<(&str, u32, Option<u32>)> {
    let (head, last) = text.rsplit_once(':')?;
    let last = number(last)?;
    let (file, line, column) = match head.rsplit_once(':') {
        Some((file, line)) if number(line).is_some() => (file, number(line)?, Some(last)),
        _ => (head, last, None),
    };
    (!file.is_empty() && line > 0).then_some((file, line, column.filter(|&c| c > 0)))
}

fn number(text: &str) -> Option<u32> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

/// `path` relative to `root` with `/` separators, when it is under it: compared
/// as written (made absolute, `..` resolved), then with symlinks resolved.
fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let lexical = |p: &Path| normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let relative = lexical(path).strip_prefix(lexical(root)).ok().map(Path::to_path_buf).or_else(|| {
        let (path, root) = (path.canonicalize().ok()?, root.canonicalize().ok()?);
        path.strip_prefix(root).ok().map(Path::to_path_buf)
    })?;
    let parts = relative
        .components()
        .map(|c| match c {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect::<Option<Vec<&str>>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// A repository with a workspace crate and a fuzz directory: `(temp dir, root, fuzz dir)`.
    fn repository() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        for file in ["crates/planted/src/tlv.rs", "fuzz/fuzz_targets/tlv.rs", "src/lib.rs"] {
            fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            fs::write(root.join(file), "#![no_main]\nuse x;\nfuzz_target!(|data: &[u8]| {});\n").unwrap();
        }
        let fuzz = root.join("fuzz");
        (dir, root, fuzz)
    }

    fn at(path: &str, line: u32, column: Option<u32>) -> Option<SourceLocation> {
        Some(SourceLocation { path: path.into(), line, column })
    }

    #[test]
    fn an_absolute_panic_location_in_the_repository_is_made_relative() {
        let (_dir, root, fuzz) = repository();
        let location = format!("{}/crates/planted/src/tlv.rs:140:5", root.display());
        assert_eq!(source_location(&location, &root, &fuzz), at("crates/planted/src/tlv.rs", 140, Some(5)));
    }

    #[test]
    fn a_panic_location_relative_to_the_fuzz_dir_is_found_there() {
        let (_dir, root, fuzz) = repository();
        assert_eq!(
            source_location("fuzz_targets/tlv.rs:3:5", &root, &fuzz),
            at("fuzz/fuzz_targets/tlv.rs", 3, Some(5))
        );
    }

    #[test]
    fn a_panic_location_relative_to_the_workspace_is_found_in_the_repository() {
        let (_dir, root, fuzz) = repository();
        let found = source_location("crates/planted/src/tlv.rs:140:5", &root, &fuzz);
        assert_eq!(found, at("crates/planted/src/tlv.rs", 140, Some(5)));
    }

    #[test]
    fn the_fuzz_dir_wins_when_both_have_the_file() {
        let (_dir, root, fuzz) = repository();
        fs::create_dir_all(fuzz.join("src")).unwrap();
        fs::write(fuzz.join("src/lib.rs"), "").unwrap();
        assert_eq!(source_location("src/lib.rs:1:1", &root, &fuzz), at("fuzz/src/lib.rs", 1, Some(1)));
        assert_eq!(source_location("src/lib.rs:1:1", &root, &root), at("src/lib.rs", 1, Some(1)));
    }

    #[test]
    fn a_signal_location_is_its_first_frame() {
        let (_dir, root, fuzz) = repository();
        let location = format!(
            "planted::tlv::parse at {0}/crates/planted/src/tlv.rs:140:18 <- tlv::main at {0}/fuzz/fuzz_targets/tlv.rs:3:5",
            root.display()
        );
        assert_eq!(source_location(&location, &root, &fuzz), at("crates/planted/src/tlv.rs", 140, Some(18)));
    }

    #[test]
    fn sanitizer_locations_have_a_frame_or_a_summary_form() {
        let (_dir, root, fuzz) = repository();
        let frame = "planted::vm::Slots::write at fuzz_targets/tlv.rs:2:18";
        assert_eq!(source_location(frame, &root, &fuzz), at("fuzz/fuzz_targets/tlv.rs", 2, Some(18)));
        let summary = "crates/planted/src/tlv.rs:7:3 in planted::vm::Slots::write";
        assert_eq!(source_location(summary, &root, &fuzz), at("crates/planted/src/tlv.rs", 7, Some(3)));
        assert_eq!(source_location("src/lib.rs:12", &root, &fuzz), at("src/lib.rs", 12, None));
    }

    #[test]
    fn paths_outside_the_repository_give_none() {
        let (_dir, root, fuzz) = repository();
        for location in [
            "/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs:75:14",
            "~/.cargo/registry/src/index.crates.io-6f17d22bba15001f/arbitrary-1.3.2/src/lib.rs:10:5",
            "std::panicking::begin_panic at /rustc/abc/library/std/src/panicking.rs:1:1",
            "planted::vm::f",
            "crates/planted/src/missing.rs:1:1",
            "src/lib.rs:0:0",
        ] {
            assert_eq!(source_location(location, &root, &fuzz), None, "{location}");
        }
        let outside = root.parent().unwrap().join("outside.rs");
        fs::write(&outside, "").unwrap();
        assert_eq!(source_location(&format!("{}:1:1", outside.display()), &root, &fuzz), None);
        assert_eq!(source_location("../outside.rs:1:1", &root, &root), None);
    }

    #[test]
    fn a_zero_column_is_an_unknown_column() {
        let (_dir, root, fuzz) = repository();
        assert_eq!(source_location("src/lib.rs:4:0", &root, &fuzz), at("src/lib.rs", 4, None));
    }

    #[test]
    fn a_target_source_is_found_by_the_cargo_fuzz_layout_at_its_macro_line() {
        let (_dir, root, _fuzz) = repository();
        assert_eq!(target_source(&root, "tlv"), at("fuzz/fuzz_targets/tlv.rs", 3, None));
        assert_eq!(target_source(&root, "image"), None);
        assert_eq!(target_source(&root, "../tlv"), None);
        let nested = root.join("crates/planted/fuzz/fuzz_targets");
        fs::create_dir_all(&nested).unwrap();
        fs::write(nested.join("image.rs"), "no macro here\n").unwrap();
        assert_eq!(target_source(&root, "image"), at("crates/planted/fuzz/fuzz_targets/image.rs", 1, None));
    }
}
