//! docs/ARCHITECTURE.md must name every source file, so the map cannot drift from the code.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string());
        }
    }
}

#[test]
fn the_architecture_document_lists_every_source_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let missing: Vec<&String> = files.iter().filter(|f| !doc.contains(&format!("`{f}`"))).collect();
    assert!(missing.is_empty(), "docs/ARCHITECTURE.md does not list: {missing:?}");
}
