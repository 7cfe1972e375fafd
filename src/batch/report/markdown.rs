//! `report.md`: the batch report as GitHub-flavoured Markdown for `$GITHUB_STEP_SUMMARY`, under its 1 MiB limit, long lists cut with an "and N more" line.
//!
//! Everything that came from a crash, a file name or a user (paths, messages,
//! values, commands) is put in a code span or a fenced block, so it cannot
//! turn into markup; table cells also escape `|`.

use crate::batch::model::{BatchReport, Bug, BugStatus, FoundBy, SkipReason, SkippedInput};

use super::{count, status_text};
use crate::session::progress::byte_size;

/// GitHub's limit on one step's summary; a larger one is not shown at all.
const SUMMARY_LIMIT: usize = 1024 * 1024;
/// Room kept for the lines that say what was left out.
const RESERVE: usize = 4 * 1024;
/// Bugs in the table and in sections, before "and N more".
const MAX_BUGS: usize = 100;
/// Duplicates listed per bug, before "and N more".
const MAX_DUPLICATES: usize = 50;
/// Skipped inputs listed, before "and N more".
const MAX_SKIPPED: usize = 100;
/// Lines of a reproducer's `{:#?}` value shown.
const MAX_VALUE_LINES: usize = 50;
/// Characters of one table cell, list item or value line, before `…`.
const MAX_LINE: usize = 300;

/// The report as Markdown: a heading, a one-line verdict, a table of bugs, a
/// section per bug (signature, reproduce command, value, duplicates) and the
/// skipped inputs with their reasons. At most 1 MiB, GitHub's limit for a
/// step summary: bugs that do not fit are counted in an "and N more" line.
pub fn markdown(report: &BatchReport) -> String {
    let mut out = header(report);
    if !report.bugs.is_empty() {
        out.push_str(&table(&report.bugs));
        out.push_str("\n## Bugs\n");
    }
    let tail = skipped_section(&report.skipped);
    let budget = SUMMARY_LIMIT.saturating_sub(tail.len() + RESERVE);
    let mut shown = 0;
    for bug in report.bugs.iter().take(MAX_BUGS) {
        let section = bug_section(bug);
        if out.len() + section.len() > budget {
            break;
        }
        out.push_str(&section);
        shown += 1;
    }
    if shown < report.bugs.len() {
        let why = if shown < MAX_BUGS { "the summary is capped at 1 MiB" } else { "sections are shown for 100 bugs" };
        out.push_str(&format!("\n{}\n", more(report.bugs.len() - shown, "bug", "bugs", why)));
    }
    out.push_str(&tail);
    out
}

/// The heading and the verdict.
fn header(report: &BatchReport) -> String {
    let shard = report.shard.map(|s| format!(", shard {}/{}", s.index, s.count)).unwrap_or_default();
    let mut out = format!("# Crash triage\n\n{} {}{shard}. ", text(&report.tool.name), text(&report.tool.version));
    let totals = &report.totals;
    if report.bugs.is_empty() {
        out.push_str(&format!("**No crash** in {}.", count(totals.inputs, "input", "inputs")));
    } else {
        let bugs = count(report.bugs.len(), "bug", "bugs");
        let crashing = count(totals.crashing, "crashing input", "crashing inputs");
        out.push_str(&format!("**{bugs}** in {crashing} of {}", totals.inputs));
        out.push_str(&format!(": {} minimized, {} not reproducible", totals.minimized, totals.not_reproducible));
        if totals.skipped > 0 {
            out.push_str(&format!("; {} skipped", count(totals.skipped, "input", "inputs")));
        }
        out.push('.');
    }
    if report.interrupted {
        out.push_str(" The run was **interrupted**: bugs not minimized yet say so.");
    }
    out.push('\n');
    out
}

/// The table of bugs, one row each (the first [`MAX_BUGS`]).
fn table(bugs: &[Bug]) -> String {
    let mut out = String::from("\n| Bug | Target | Kind | Location | Reproducer | Duplicates | Status |\n");
    out.push_str("| --- | --- | --- | --- | --- | ---: | --- |\n");
    for bug in bugs.iter().take(MAX_BUGS) {
        let location = match (&bug.location, &bug.signature.location) {
            (Some(l), _) => code(&position(&l.path, l.line, l.column)),
            (None, Some(raw)) => code(raw.split(" <- ").next().unwrap_or(raw)),
            (None, None) => "–".into(),
        };
        let reproducer = format!("{} → {}", size(bug.original_size), bug.reproducer_size.map_or("–".into(), size));
        let status = match &bug.found_by {
            FoundBy::Input => status(&bug.status),
            FoundBy::Slip { .. } => format!("{} (slip)", status(&bug.status)),
        };
        let cells = [code(&bug.id), code(&bug.target), text(&bug.signature.kind.to_string()), location, reproducer];
        let cells = cells.map(|c| cell(&c));
        out.push_str(&format!("| {} | {} | {} |\n", cells.join(" | "), bug.duplicates.len(), cell(&status)));
    }
    if bugs.len() > MAX_BUGS {
        out.push_str(&format!("\n{}\n", more(bugs.len() - MAX_BUGS, "bug", "bugs", "the table shows 100")));
    }
    out
}

/// One bug's section: what it is, where its reproducer is, how to run it, its
/// value and its duplicates.
fn bug_section(bug: &Bug) -> String {
    let mut out = format!("\n### {}\n\n", code(&bug.id));
    out.push_str(&format!("- **Signature:** {}\n", code(&bug.signature.to_string())));
    let verified = match bug.verified {
        Some(true) => ", verified",
        Some(false) => ", did not reproduce when run again",
        None => "",
    };
    out.push_str(&format!("- **Status:** {}{verified}\n", status(&bug.status)));
    if let Some(check) = &bug.libfuzzer {
        out.push_str(&format!("- **libFuzzer cross-check:** {}\n", code(&check.to_string())));
    }
    if let FoundBy::Slip { while_minimizing } = &bug.found_by {
        out.push_str(&format!("- **Found** while minimizing {} (a slip)\n", code(while_minimizing)));
    }
    let input = format!("{} ({})", code(&bug.representative), size(bug.original_size));
    out.push_str(&match (&bug.reproducer, bug.reproducer_size) {
        (Some(path), Some(bytes)) => format!(
            "- **Reproducer:** {} ({}), from {input}, in {} tests and {:.1} s\n",
            code(path),
            size(bytes),
            bug.tests,
            bug.seconds
        ),
        _ => format!("- **Reproducer:** not minimized; the input is {input}\n"),
    });
    out.push_str(&format!("- **Fingerprint:** {}\n", code(&bug.fingerprint)));
    out.push_str(&format!("\nReproduce:\n\n{}", fenced("sh", &bug.reproduce)));
    if let Some(value) = &bug.value {
        out.push_str(&format!("\nThe reproducer's value:\n\n{}", fenced("text", &value_excerpt(value))));
    }
    out.push_str(&duplicates(bug));
    out
}

/// The duplicates, collapsed (the first [`MAX_DUPLICATES`]), each with its own
/// reproducer when `--each` minimized it.
fn duplicates(bug: &Bug) -> String {
    let paths = &bug.duplicates;
    if paths.is_empty() {
        return String::new();
    }
    let summary = count(paths.len(), "other input with this crash", "other inputs with this crash");
    let mut out = format!("\n<details><summary>{summary}</summary>\n\n");
    for path in paths.iter().take(MAX_DUPLICATES) {
        let own = bug.minimized_duplicates.iter().find(|m| m.input == *path);
        match own.and_then(|m| Some((m.reproducer.as_ref()?, m.reproducer_size?))) {
            Some((file, bytes)) => out.push_str(&format!("- {} → {} ({})\n", code(path), code(file), size(bytes))),
            None => out.push_str(&format!("- {}\n", code(path))),
        }
    }
    if paths.len() > MAX_DUPLICATES {
        out.push_str(&format!("\n{}\n", more(paths.len() - MAX_DUPLICATES, "input", "inputs", "50 are listed")));
    }
    out.push_str("\n</details>\n");
    out
}

/// The skipped inputs and why (the first [`MAX_SKIPPED`]).
fn skipped_section(skipped: &[SkippedInput]) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let mut out = format!("\n## Skipped inputs ({})\n\n", skipped.len());
    for input in skipped.iter().take(MAX_SKIPPED) {
        let reason = match &input.reason {
            SkipReason::NoCrash => "no crash".to_string(),
            SkipReason::Empty => "empty".to_string(),
            SkipReason::Unreadable { error } => format!("unreadable: {}", code(error)),
            SkipReason::Failed { error } => format!("running the target failed: {}", code(error)),
        };
        out.push_str(&format!("- {}: {reason}\n", code(&input.path)));
    }
    if skipped.len() > MAX_SKIPPED {
        out.push_str(&format!("\n{}\n", more(skipped.len() - MAX_SKIPPED, "input", "inputs", "100 are listed")));
    }
    out
}

/// The first [`MAX_VALUE_LINES`] lines of a value, and how many more there are.
fn value_excerpt(value: &str) -> String {
    let lines: Vec<&str> = value.lines().collect();
    let mut out: Vec<String> = lines.iter().take(MAX_VALUE_LINES).map(|l| shorten(l, MAX_LINE)).collect();
    if lines.len() > MAX_VALUE_LINES {
        out.push(format!("… {} more lines (the whole value is in report.json)", lines.len() - MAX_VALUE_LINES));
    }
    out.join("\n")
}

/// A status in words, an error in a code span.
fn status(status: &BugStatus) -> String {
    match status {
        BugStatus::Failed { error } => format!("failed: {}", code(error)),
        other => status_text(other),
    }
}

/// `and N more bugs (why; all of them are in report.json)`, in italics.
fn more(n: usize, singular: &str, plural: &str, why: &str) -> String {
    let noun = if n == 1 { singular } else { plural };
    format!("*… and {n} more {noun} ({why}; all of them are in `report.json`)*")
}

/// `path:line:col`, or `path:line` without a column.
fn position(path: &str, line: u32, column: Option<u32>) -> String {
    match column {
        Some(column) => format!("{path}:{line}:{column}"),
        None => format!("{path}:{line}"),
    }
}

/// `1 B`, `2.1 KiB`, `1.4 MiB`.
fn size(bytes: usize) -> String {
    byte_size(bytes as u64)
}

/// A table cell: `|` escaped (GitHub honours `\|` inside code spans too).
fn cell(markdown: &str) -> String {
    markdown.replace('|', "\\|")
}

/// `text` as an inline code span on one line: a fence of backticks longer than
/// any run inside, padded when it starts or ends with one.
fn code(text: &str) -> String {
    let text = shorten(&text.replace(['\r', '\n'], " "), MAX_LINE);
    let fence = "`".repeat(longest_run(&text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as a fenced code block, its fence longer than any backtick run inside.
fn fenced(language: &str, text: &str) -> String {
    let fence = "`".repeat((longest_run(text, '`') + 1).max(3));
    format!("{fence}{language}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

/// Plain text with Markdown's punctuation backslash-escaped.
fn text(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len());
    for c in plain.chars() {
        if "\\`*_[]<>|~#!&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn longest_run(text: &str, c: char) -> usize {
    text.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

/// At most `max` characters, the last one `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((end, _)) if text[end..].chars().count() > 1 => format!("{}…", &text[..end]),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::report::sample::report;

    #[test]
    fn the_verdict_counts_bugs_in_crashing_inputs_of_all() {
        let md = markdown(&report());
        assert!(md.starts_with(
            "# Crash triage\n\ncargo-minimize-crash 0.1.0. **3 bugs** in 5 crashing inputs of 8: 2 minimized, \
             0 not reproducible; 3 inputs skipped. The run was **interrupted**: bugs not minimized yet say so.\n\n| Bug"
        ));
    }

    #[test]
    fn no_bugs_is_no_crash() {
        let mut empty = report();
        empty.bugs.clear();
        empty.skipped.clear();
        empty.interrupted = false;
        assert_eq!(markdown(&empty), "# Crash triage\n\ncargo-minimize-crash 0.1.0. **No crash** in 8 inputs.\n");
    }

    #[test]
    fn the_table_has_a_row_per_bug_with_sizes_and_pipes_escaped() {
        let md = markdown(&report());
        let rows = [
            "| Bug | Target | Kind | Location | Reproducer | Duplicates | Status |",
            "| --- | --- | --- | --- | --- | ---: | --- |",
            "| `tlv-panic-3f2a9c0b1d` | `tlv` | panic | `crates/planted/src/tlv.rs:143:5` | 120 B → 3 B | 2 | minimized |",
            "| `vm-signal-8e41d07c55` | `vm` | signal 11 (SIGSEGV) | `crates/planted/src/vm.rs:120` | 1.4 MiB → 2.1 KiB | 1 | minimized |",
            "| `vm-timeout-c0ffee1234` | `vm` | timeout | – | 40 B → – | 0 | interrupted (slip) |",
        ];
        assert!(md.contains(&rows.join("\n")), "{md}");
        assert_eq!(cell("`a|b`"), "`a\\|b`");
    }

    #[test]
    fn a_duplicate_minimized_on_its_own_links_its_reproducer() {
        let mut report = report();
        let bug = &mut report.bugs[0];
        let input = bug.duplicates[0].clone();
        bug.minimized_duplicates.push(crate::batch::model::MinimizedInput {
            input: input.clone(),
            reproducer: Some(format!("{}/minimized-from-00", bug.id)),
            reproducer_size: Some(5),
            status: BugStatus::Minimized,
        });
        let md = markdown(&report);
        let line = format!("- `{input}` → `tlv-panic-3f2a9c0b1d/minimized-from-00` (5 B)\n");
        assert!(md.contains(&line), "{md}");
    }

    #[test]
    fn a_bug_section_has_its_signature_reproducer_command_and_duplicates() {
        let md = markdown(&report());
        let section = "\n### `tlv-panic-3f2a9c0b1d`\n\n\
            - **Signature:** `panic at crates/planted/src/tlv.rs:143:5: index out of bounds: the len is N but the index is N`\n\
            - **Status:** minimized, verified\n\
            - **libFuzzer cross-check:** `yes (crashed the same way)`\n\
            - **Reproducer:** `tlv-panic-3f2a9c0b1d/reproducer` (3 B), from `corpus/tlv/crash-1` (120 B), in 412 tests and 1.5 s\n\
            - **Fingerprint:** `3f2a9c0b1d000000000000000000000000000000`\n\
            \nReproduce:\n\n```sh\ncargo fuzz run tlv /ci/out/tlv-panic-3f2a9c0b1d/reproducer\n```\n\
            \n<details><summary>2 other inputs with this crash</summary>\n\n\
            - `corpus/tlv/crash-2`\n- `corpus/tlv/crash|3`\n\n</details>\n";
        assert!(md.contains(section), "{md}");
    }

    #[test]
    fn a_long_value_is_cut_to_fifty_lines() {
        let md = markdown(&report());
        assert!(md.contains("The reproducer's value:\n\n```text\n[\n    Op::Free(0),\n"));
        assert!(md.contains("    Op::Free(48),\n… 12 more lines (the whole value is in report.json)\n```\n"), "{md}");
        assert!(!md.contains("Op::Free(49)"));
    }

    #[test]
    fn a_slip_without_a_reproducer_says_so() {
        let md = markdown(&report());
        assert!(md.contains(
            "- **Status:** interrupted\n\
             - **Found** while minimizing `vm-signal-8e41d07c55` (a slip)\n\
             - **Reproducer:** not minimized; the input is `vm-signal-8e41d07c55/slips/timeout-1` (40 B)\n"
        ));
    }

    #[test]
    fn skipped_inputs_are_listed_with_their_reasons() {
        assert!(markdown(&report()).ends_with(
            "\n## Skipped inputs (3)\n\n- `corpus/tlv/ok-1`: no crash\n- `corpus/vm/empty`: empty\n\
             - `corpus/vm/locked`: unreadable: `Permission denied (os error 13)`\n"
        ));
    }

    #[test]
    fn long_lists_end_with_an_and_n_more_line() {
        let mut many = report();
        many.bugs[0].duplicates = (0..60).map(|i| format!("corpus/d{i}")).collect();
        many.skipped = (0..130).map(|i| SkippedInput { path: format!("s{i}"), reason: SkipReason::Empty }).collect();
        let md = markdown(&many);
        assert!(
            md.contains("- `corpus/d49`\n\n*… and 10 more inputs (50 are listed; all of them are in `report.json`)*\n")
        );
        assert!(md.contains("- `s99`: empty\n\n*… and 30 more inputs (100 are listed;"));
    }

    #[test]
    fn a_huge_report_stays_under_a_mebibyte_and_counts_what_it_left_out() {
        let mut huge = report();
        let mut bug = huge.bugs[1].clone();
        bug.value = Some(("x".repeat(299) + "\n").repeat(50));
        bug.duplicates = vec!["d".repeat(290); 50];
        huge.bugs = vec![bug; 150];
        let md = markdown(&huge);
        assert!(md.len() <= SUMMARY_LIMIT, "{} bytes", md.len());
        assert!(md.contains(" more bugs (the summary is capped at 1 MiB; all of them are in `report.json`)*\n"));
        assert!(md.ends_with("- `corpus/vm/locked`: unreadable: `Permission denied (os error 13)`\n"));
    }

    #[test]
    fn user_text_cannot_become_markup() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("two\nlines"), "`two lines`");
        assert_eq!(fenced("text", "```\nx"), "````text\n```\nx\n````\n");
        assert_eq!(text("<b>*x*</b>"), "\\<b\\>\\*x\\*\\</b\\>");
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(
            [size(0), size(1023), size(1024), size(2100), size(1_500_000)],
            ["0 B", "1023 B", "1.0 KiB", "2.1 KiB", "1.4 MiB"]
        );
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abcd", 4), "abcd");
    }
}
