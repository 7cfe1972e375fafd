//! The tallies of one run, printed on stderr: files and lengths, candidates dropped and why, what the files do.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use crate::generate::Kept;

/// What a run wrote and dropped.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    /// Files written.
    pub files: usize,
    /// Their total length.
    pub bytes: usize,
    /// The shortest and the longest.
    pub shortest: Option<usize>,
    pub longest: usize,
    /// Files made by mutating a drawn input.
    pub mutated: usize,
    /// Candidates drawn.
    pub candidates: usize,
    /// Dropped: outside `--min-len..=--max-len`.
    pub off_length: usize,
    /// Dropped: the same bytes as a file already written.
    pub duplicates: usize,
    /// Dropped: panics, by message (numbers masked).
    pub panics: BTreeMap<String, usize>,
    /// Dropped before running: aborts, wild writes and hangs, by kind.
    pub unsafe_: BTreeMap<&'static str, usize>,
    /// What the files do when run, and how many do it.
    pub outcomes: BTreeMap<String, usize>,
}

impl Summary {
    /// Counts a file written.
    pub(crate) fn keep(&mut self, kept: &Kept) {
        let len = kept.data.len();
        self.files += 1;
        self.bytes += len;
        self.shortest = Some(self.shortest.map_or(len, |s| s.min(len)));
        self.longest = self.longest.max(len);
        self.mutated += usize::from(kept.mutated);
        *self.outcomes.entry(kept.outcome.clone()).or_default() += 1;
    }

    /// Counts a candidate that panicked, grouped by its message with the numbers masked.
    pub(crate) fn panicked(&mut self, message: &str) {
        let mut masked = String::new();
        let mut in_word = false;
        for c in message.chars() {
            if c.is_ascii_digit() && !in_word {
                if !masked.ends_with('N') {
                    masked.push('N');
                }
                continue;
            }
            in_word = c.is_alphanumeric();
            masked.push(c);
        }
        *self.panics.entry(masked).or_default() += 1;
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mean = self.bytes / self.files.max(1);
        writeln!(
            f,
            "{} files, {} bytes ({} to {}, mean {mean}), {} of them mutated",
            self.files,
            self.bytes,
            self.shortest.unwrap_or(0),
            self.longest,
            self.mutated
        )?;
        let panics: usize = self.panics.values().sum();
        let unsafe_: usize = self.unsafe_.values().sum();
        writeln!(
            f,
            "{} candidates: dropped {panics} that panicked, {unsafe_} that would abort or hang, {} duplicates, {} off length",
            self.candidates, self.duplicates, self.off_length
        )?;
        let dropped = self.panics.iter().map(|(k, v)| (k.as_str(), v)).chain(self.unsafe_.iter().map(|(k, v)| (*k, v)));
        f.write_str(&table("dropped", dropped))?;
        f.write_str(&table("outcomes", self.outcomes.iter().map(|(k, v)| (k.as_str(), v))))
    }
}

/// A heading and one indented `count  what` line per entry, most frequent first.
fn table<'a>(heading: &str, entries: impl Iterator<Item = (&'a str, &'a usize)>) -> String {
    let mut entries: Vec<_> = entries.collect();
    entries.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut out = String::new();
    if !entries.is_empty() {
        let _ = writeln!(out, "{heading} ({} kinds):", entries.len());
    }
    for (what, count) in entries {
        let _ = writeln!(out, "  {count:5}  {what}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_are_grouped_with_their_numbers_masked() {
        let mut summary = Summary::default();
        summary.panicked("index out of bounds: the len is 3 but the index is 3");
        summary.panicked("index out of bounds: the len is 12 but the index is 12");
        summary.panicked("frame area overflows u32");
        assert_eq!(summary.panics.len(), 2);
        assert!(summary.panics.contains_key("frame area overflows u32"));
        assert!(summary.to_string().contains("    2  index out of bounds: the len is N but the index is N"));
    }
}
