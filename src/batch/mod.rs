//! Many inputs at once: collect them, triage (run each once, group by signature), minimize one representative per bug on parallel workers, write each bug's folder and the reports as bugs finish.

pub mod model;
pub mod report;
