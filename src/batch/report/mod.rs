//! The batch reports: `report.json` (the model, serialized), `report.md` (for `$GITHUB_STEP_SUMMARY`), `report.sarif` (code scanning) and GitHub annotations.
