//! What we inject into the user's build: the `libfuzzer-sys` stand-in ([`standin`]), the `arbitrary` stand-in ([`arbitrary_shim`]) and its recording patch ([`draw_patch`]), the runtime and protocol crates ([`embedded`]); whole injected sources are real files in `files/` (included as text, never compiled as modules of this crate).
//!
//! Each file of `src/project/inject/files/` starts with a note for this crate's
//! readers (`//!` lines saying where the text is injected and why, up to the
//! first empty line), which [`text`] strips; the rest is injected byte for
//! byte. The files are in no `mod` tree, so `cargo fmt` and clippy do not
//! see them: [`tests`] runs rustfmt on them, and the harness builds of
//! `tests/cli.rs` compile them for real.

pub mod arbitrary_shim;
pub mod draw_patch;
pub mod embedded;
pub mod standin;

/// What `file` (an `include_str!` of a file in `files/`) injects: everything
/// after its note, the leading `//!` lines up to the first empty line.
/// Evaluated in a `const`, so a file without its note does not compile.
pub(super) const fn text(file: &'static str) -> &'static str {
    let bytes = file.as_bytes();
    let mut at = 0;
    loop {
        let note_line = at + 3 <= bytes.len() && bytes[at] == b'/' && bytes[at + 1] == b'/' && bytes[at + 2] == b'!';
        if !note_line {
            panic!("a file of src/project/inject/files/ starts with `//!` lines and an empty line");
        }
        while at < bytes.len() && bytes[at] != b'\n' {
            at += 1;
        }
        at += 1;
        if at < bytes.len() && bytes[at] == b'\n' {
            at += 1;
            break;
        }
    }
    match core::str::from_utf8(bytes.split_at(at).1) {
        Ok(text) => text,
        Err(_) => panic!("a file of src/project/inject/files/ is UTF-8"),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::*;

    fn project_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/project/inject")
    }

    /// Every file of `src/project/inject/files/`, sorted.
    fn inject_files() -> Vec<PathBuf> {
        let dir = project_dir().join("files");
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no files in {}", dir.display());
        files
    }

    #[test]
    fn the_note_is_stripped_up_to_the_first_empty_line() {
        assert_eq!(text("//! Where.\n//!\n//! Why.\n\n//! Injected.\nfn f() {}\n"), "//! Injected.\nfn f() {}\n");
        assert_eq!(text("//! Where and why.\n\n\nfn f() {}\n"), "\nfn f() {}\n");
    }

    /// Each file is Rust with its note, and some module of `src/project/`
    /// includes it: a file nobody injects is a stale copy.
    #[test]
    fn every_injected_file_has_its_note_and_is_included() {
        let mut modules = String::new();
        for entry in fs::read_dir(project_dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                modules.push_str(&fs::read_to_string(&path).unwrap());
            }
        }
        for file in inject_files() {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.ends_with(".rs"), "{}: only Rust sources belong in files/", file.display());
            let contents = fs::read_to_string(&file).unwrap();
            let (note, injected) = contents.split_once("\n\n").unwrap_or_else(|| panic!("{name}: no empty line"));
            assert!(note.lines().all(|line| line.starts_with("//!")), "{name}: the note is `//!` lines");
            assert!(!injected.trim().is_empty(), "{name}: nothing after the note");
            let include = format!("include_str!(\"files/{name}\")");
            assert!(modules.contains(&include), "no module of src/project/ has {include}");
        }
    }

    /// rustfmt parses each file (a syntax error fails here, not in a user's
    /// harness build) and finds it formatted as `cargo fmt` would, with the
    /// workspace's `rustfmt.toml`.
    #[test]
    fn every_injected_file_parses_and_is_formatted() {
        const MISSING: &str = "install rustfmt (`rustup component add rustfmt`): it checks src/project/inject/files/";
        for file in inject_files() {
            let mut rustfmt = Command::new("rustfmt");
            rustfmt.args(["--check", "--color", "never", "--edition", "2021"]).arg(&file);
            let output = rustfmt.output().unwrap_or_else(|e| panic!("cannot run rustfmt ({e}): {MISSING}"));
            assert!(
                output.status.success(),
                "{} does not parse or is not formatted; run `rustfmt --edition 2021 {}`:\n{}{}",
                file.display(),
                file.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}
