//! Bugs in flight: how many of each bug's jobs are still out, and its entry waiting for its duplicates' own reproducers (`--each`), so a bug is saved and reported once, complete.

use std::collections::HashMap;

use crate::batch::model::{Bug, MinimizedInput};

/// Every bug with jobs still out.
#[derive(Debug, Default)]
pub struct Ledger {
    open: HashMap<String, Open>,
}

#[derive(Debug, Default)]
struct Open {
    bug: Option<Bug>,
    outstanding: usize,
    each: Vec<MinimizedInput>,
}

impl Ledger {
    /// `jobs` more jobs of bug `id` were sent; `entry` is its entry when it
    /// needs no reduction of its own (finished in an earlier run).
    pub fn expect(&mut self, id: &str, jobs: usize, entry: Option<Bug>) {
        let open = self.open.entry(id.to_owned()).or_default();
        open.outstanding += jobs;
        if entry.is_some() {
            open.bug = entry;
        }
    }

    /// The bug's own reduction finished; returns the bug when nothing else is out.
    pub fn bug_done(&mut self, bug: Bug) -> Option<Bug> {
        let id = bug.id.clone();
        let open = self.open.entry(id.clone()).or_default();
        open.bug = Some(bug);
        self.one_done(&id)
    }

    /// One of the bug's duplicates was minimized; returns the bug when nothing else is out.
    pub fn duplicate_done(&mut self, id: &str, input: MinimizedInput) -> Option<Bug> {
        self.open.entry(id.to_owned()).or_default().each.push(input);
        self.one_done(id)
    }

    fn one_done(&mut self, id: &str) -> Option<Bug> {
        let open = self.open.get_mut(id)?;
        open.outstanding = open.outstanding.saturating_sub(1);
        if open.outstanding > 0 || open.bug.is_none() {
            return None;
        }
        let open = self.open.remove(id)?;
        let mut bug = open.bug?;
        let representative = bug.representative.clone();
        bug.minimized_duplicates.extend(open.each.into_iter().filter(|m| m.input != representative));
        bug.minimized_duplicates.sort_by(|a, b| a.input.cmp(&b.input));
        bug.minimized_duplicates.dedup_by(|a, b| a.input == b.input);
        Some(bug)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::model::BugStatus;

    fn bug() -> Bug {
        Bug::example("b", "crash-1", &["crash-2", "crash-3"])
    }

    fn minimized(input: &str) -> MinimizedInput {
        MinimizedInput { input: input.into(), reproducer: None, reproducer_size: Some(1), status: BugStatus::Minimized }
    }

    #[test]
    fn a_bug_completes_when_its_own_and_its_duplicates_reductions_are_all_done() {
        let mut ledger = Ledger::default();
        ledger.expect("b", 4, None);
        assert!(ledger.duplicate_done("b", minimized("crash-3")).is_none());
        assert!(ledger.bug_done(bug()).is_none());
        // The representative's own duplicate job (it was not known to be the representative) is dropped.
        assert!(ledger.duplicate_done("b", minimized("crash-1")).is_none());
        let done = ledger.duplicate_done("b", minimized("crash-2")).expect("complete");
        let inputs: Vec<&str> = done.minimized_duplicates.iter().map(|m| m.input.as_str()).collect();
        assert_eq!(inputs, ["crash-2", "crash-3"]);
    }

    #[test]
    fn a_bug_without_duplicate_jobs_completes_with_its_own() {
        let mut ledger = Ledger::default();
        ledger.expect("b", 1, None);
        assert_eq!(ledger.bug_done(bug()), Some(bug()));
    }
}
