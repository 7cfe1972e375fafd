//! GitHub Actions annotations: one `::error` workflow command per bug, escaped as the runner expects.
//!
//! The runner's escaping (actions/toolkit, `command.ts`): in a message `%`, CR
//! and LF; in a property value also `:` and `,`, which separate properties.

use super::{count, status_text};
use crate::batch::model::{BatchReport, Bug};

/// One `::error` workflow command per bug: `::error
/// file=..,line=..,col=..,title=..::message` when the bug has a source
/// location, `::error title=..::message` when not. Print them on stdout in a
/// GitHub Actions job (`GITHUB_ACTIONS=true`) to annotate the run and the files.
pub fn annotations(report: &BatchReport) -> Vec<String> {
    report.bugs.iter().map(annotation).collect()
}

fn annotation(bug: &Bug) -> String {
    let mut properties = Vec::new();
    if let Some(location) = &bug.location {
        properties.push(format!("file={}", escape_property(&location.path)));
        properties.push(format!("line={}", location.line));
        if let Some(column) = location.column {
            properties.push(format!("col={column}"));
        }
    }
    properties.push(format!("title={}", escape_property(&bug.title)));
    format!("::error {}::{}", properties.join(","), escape_data(&message(bug)))
}

/// What the annotation says below its title: which bug, its reproducer and how to run it.
fn message(bug: &Bug) -> String {
    let inputs = count(bug.duplicates.len() + 1, "crashing input", "crashing inputs");
    let mut lines =
        vec![format!("Bug {} in fuzz target {}: {}, {inputs}.", bug.id, bug.target, status_text(&bug.status))];
    if let (Some(reproducer), Some(size)) = (&bug.reproducer, bug.reproducer_size) {
        lines.push(format!("Minimized reproducer: {reproducer} ({size} bytes, from {}).", bug.original_size));
    }
    lines.push(format!("Reproduce: {}", bug.reproduce));
    lines.join("\n")
}

/// A workflow command's message: `%`, CR and LF escaped.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: as a message, and `:` and `,` too.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::report::sample::report;

    #[test]
    fn messages_escape_percent_and_line_breaks_only() {
        assert_eq!(escape_data("100% done\r\nnext: a, b"), "100%25 done%0D%0Anext: a, b");
    }

    #[test]
    fn properties_also_escape_colons_and_commas() {
        assert_eq!(escape_property("panic at a.rs:3:5: x, y%\n"), "panic at a.rs%3A3%3A5%3A x%2C y%25%0A");
    }

    #[test]
    fn a_located_bug_is_annotated_on_its_file_line_and_column() {
        let lines = annotations(&report());
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "::error file=crates/planted/src/tlv.rs,line=143,col=5,\
             title=panic at crates/planted/src/tlv.rs%3A143%3A5%3A index out of bounds%3A the len is 3 but the index is 3\
             ::Bug tlv-panic-3f2a9c0b1d in fuzz target tlv: minimized, 3 crashing inputs.%0A\
             Minimized reproducer: tlv-panic-3f2a9c0b1d/reproducer (3 bytes, from 120).%0A\
             Reproduce: cargo fuzz run tlv /ci/out/tlv-panic-3f2a9c0b1d/reproducer"
        );
    }

    #[test]
    fn a_bug_without_a_column_or_a_location_leaves_them_out() {
        let lines = annotations(&report());
        assert!(lines[1].starts_with("::error file=crates/planted/src/vm.rs,line=120,title=signal 11 (SIGSEGV) at "));
        assert_eq!(
            lines[2],
            "::error title=timeout::Bug vm-timeout-c0ffee1234 in fuzz target vm: interrupted, 1 crashing input.%0A\
             Reproduce: cargo fuzz run vm /ci/out/vm-timeout-c0ffee1234/reproducer"
        );
    }
}
