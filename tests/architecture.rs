//! docs/ARCHITECTURE.md must name every source file and the pass order and stay a short map, and every decision record must be complete and reachable from it, so the docs cannot drift from the code; and the layout the map draws holds: no job imports another, no import cycle between `src/`'s modules, the corpus workers (`src/corpus/worker/`) and the plan (`src/corpus/plan/`) import nothing of each other.

use std::path::{Path, PathBuf};

/// The map's length limit: a newcomer reads it in ten minutes.
const MAX_LINES: usize = 400;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Every `.rs` file under `dir`, recursively, as a path relative to the
/// repository root; build output (`target/`) is skipped.
fn rust_files(dir: &Path, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root()).unwrap().display().to_string());
        }
    }
}

/// The source files the map must list: `src/`, `crates/` (every crate's
/// sources, build scripts, tests and benches), `tests/` and `benches/`.
fn source_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.sort();
    files
}

/// The decision records: every file in `docs/decisions/` but its index.
fn decision_files() -> Vec<String> {
    let dir: PathBuf = root().join("docs/decisions");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "README.md")
        .collect();
    names.sort();
    names
}

#[test]
fn the_architecture_document_lists_every_source_file() {
    let doc = read("docs/ARCHITECTURE.md");
    let files = source_files();
    assert!(files.iter().any(|f| f.starts_with("crates/")), "no crate sources found: {files:?}");
    let missing: Vec<&String> = files.iter().filter(|f| !doc.contains(&format!("`{f}`"))).collect();
    assert!(missing.is_empty(), "docs/ARCHITECTURE.md does not list (in backquotes): {missing:?}");
}

#[test]
fn the_architecture_document_gives_the_pass_order_of_the_pass_table() {
    let doc = read("docs/ARCHITECTURE.md");
    let start = doc.find("The pass order").expect("docs/ARCHITECTURE.md has a paragraph \"The pass order\"");
    let end = start + doc[start..].find("\n## ").expect("a section after the pass order");
    let names = cargo_minimize_crash::reduce::passes::names();
    let listed: Vec<&str> = doc[start..end].split('`').skip(1).step_by(2).filter(|word| names.contains(word)).collect();
    assert_eq!(listed, names, "docs/ARCHITECTURE.md's pass order differs from PASSES in src/reduce/passes/mod.rs");
}

#[test]
fn the_architecture_document_is_under_four_hundred_lines() {
    let lines = read("docs/ARCHITECTURE.md").lines().count();
    assert!(
        lines < MAX_LINES,
        "docs/ARCHITECTURE.md has {lines} lines, at most {} allowed: move measured detail to docs/decisions/",
        MAX_LINES - 1
    );
}

#[test]
fn every_decision_is_linked_from_the_map_or_the_decisions_index() {
    let map = read("docs/ARCHITECTURE.md");
    let index = read("docs/decisions/README.md");
    let decisions = decision_files();
    assert!(!decisions.is_empty(), "docs/decisions/ holds no decision");
    let unlinked: Vec<&String> = decisions
        .iter()
        .filter(|name| !map.contains(&format!("](decisions/{name})")) && !index.contains(&format!("]({name})")))
        .collect();
    assert!(unlinked.is_empty(), "neither docs/ARCHITECTURE.md nor docs/decisions/README.md links: {unlinked:?}");
}

#[test]
fn every_link_to_a_decision_names_an_existing_file() {
    let decisions = decision_files();
    let mut broken = Vec::new();
    for (doc, prefix) in [("docs/ARCHITECTURE.md", "](decisions/"), ("docs/decisions/README.md", "](")] {
        let text = read(doc);
        for (at, _) in text.match_indices(prefix) {
            let target = &text[at + prefix.len()..];
            let Some(end) = target.find(')') else { continue };
            let name = &target[..end];
            if name.ends_with(".md")
                && name != "README.md"
                && !name.contains('/')
                && !decisions.iter().any(|d| d == name)
            {
                broken.push(format!("{doc}: {name}"));
            }
        }
    }
    assert!(broken.is_empty(), "links to decisions that do not exist: {broken:?}");
}

#[test]
fn every_decision_has_a_title_context_decision_measurements_and_rejected() {
    let mut incomplete = Vec::new();
    for name in decision_files() {
        let text = read(&format!("docs/decisions/{name}"));
        let mut lacks: Vec<&str> = ["## Context", "## Decision", "## Measurements", "## Rejected"]
            .into_iter()
            .filter(|heading| !text.lines().any(|line| line.trim_end() == *heading))
            .collect();
        if !text.starts_with("# ") {
            lacks.insert(0, "a `# ` title on the first line");
        }
        if !lacks.is_empty() {
            incomplete.push(format!("{name} lacks {lacks:?}"));
        }
    }
    assert!(incomplete.is_empty(), "decision records missing a part: {incomplete:?}");
}

/// `file`'s code: its `#[cfg(test)] mod tests` and its comments left out.
fn code(file: &str) -> String {
    let text = read(file);
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The `crate::` module paths `file`'s [`code`] names, as `(first, second)` segments.
fn crate_paths(file: &str) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for line in code(file).lines() {
        for (at, _) in line.match_indices("crate::") {
            let mut words = line[at + "crate::".len()..]
                .split("::")
                .map(|w| w.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>());
            let first = words.next().unwrap_or_default();
            paths.push((first, words.next().unwrap_or_default()));
        }
    }
    paths
}

/// `src/`'s top-level module of `file` (`src/corpus/plan/join.rs` -> `corpus`).
fn top_module(file: &str) -> String {
    let rest = file.strip_prefix("src/").expect("a file of src/");
    rest.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_string()
}

/// The modules each top-level module of `src/` names in its code.
fn module_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut graph = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    for file in files.iter().filter(|f| !f.contains("/inject/files/")) {
        let module = top_module(file);
        let names = graph.entry(module.clone()).or_default();
        names.extend(crate_paths(file).into_iter().map(|(first, _)| first).filter(|m| *m != module));
    }
    graph
}

/// Whether `to` is reachable from `from` in `graph`.
fn reaches(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    from: &str,
    to: &str,
) -> bool {
    let (mut seen, mut stack) = (std::collections::BTreeSet::new(), vec![from.to_string()]);
    while let Some(at) = stack.pop() {
        for next in graph.get(&at).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn no_job_imports_another_and_src_has_no_import_cycle() {
    let graph = module_graph();
    const JOBS: [&str; 4] = ["minimize", "batch", "corpus", "run"];
    for job in &JOBS[..3] {
        let named: Vec<&String> = graph[*job].iter().filter(|m| JOBS.contains(&m.as_str())).collect();
        assert!(named.is_empty(), "src/{job}/ imports the job modules {named:?}: move what they share to src/session/");
    }
    let cycles: Vec<(&String, &String)> = graph
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter(|(from, to)| from < to && reaches(&graph, to, from))
        .collect();
    assert!(cycles.is_empty(), "import cycles between src/'s modules: {cycles:?}");
}

/// Whether `file`'s [`code`] has `module` as a segment of a path: besides
/// `crate::corpus::module` (what [`crate_paths`] reads), a relative or grouped
/// one (`super::super::module`, `crate::corpus::{module::..}`).
fn names_module(file: &str, module: &str) -> bool {
    let code = code(file);
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(module).any(|(at, _)| {
        let (before, after) = (&code[..at], &code[at + module.len()..]);
        let word = !before.ends_with(ident) && !after.starts_with(ident);
        word && (before.ends_with("::") || after.starts_with("::"))
    })
}

#[test]
fn the_corpus_workers_and_the_plan_import_nothing_of_each_other() {
    let mut importing = Vec::new();
    for (folder, other) in [("worker", "plan"), ("plan", "worker")] {
        let mut files = Vec::new();
        rust_files(&root().join("src/corpus").join(folder), &mut files);
        assert!(!files.is_empty(), "src/corpus/{folder}/ holds no file");
        let named = files.into_iter().filter(|file| names_module(file, other));
        importing.extend(named.map(|file| format!("{file} -> {other}/")));
    }
    assert!(importing.is_empty(), "{importing:?}: what both need goes to src/corpus/ (jobs.rs, features.rs)");
}
