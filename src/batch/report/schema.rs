//! The JSON Schema of `report.json`, generated from the model in tests only (`schemars` is a dev-dependency); `docs/report.schema.json` is the committed copy that users validate against, and this test keeps it equal.

use crate::batch::model::BatchReport;

/// The JSON Schema of [`BatchReport`] (draft 2020-12), pretty-printed, with a trailing newline.
fn schema() -> String {
    let schema = schemars::schema_for!(BatchReport);
    let mut text = serde_json::to_string_pretty(&schema).expect("a JSON Schema is plain JSON");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_committed_schema_is_the_generated_one() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json");
        let generated = schema();
        if std::env::var_os("UPDATE_SCHEMA").is_some_and(|v| v == "1") {
            std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is not the schema of the report's model (src/batch/model.rs); if the model changed on purpose, \
             regenerate it with `UPDATE_SCHEMA=1 cargo test --lib batch::report::schema`, review the diff, and \
             bump REPORT_VERSION when a field changed meaning or went away",
            path.display()
        );
    }

    #[test]
    fn the_schema_describes_a_batch_report() {
        let value: serde_json::Value = serde_json::from_str(&schema()).unwrap();
        assert_eq!(value["title"], "BatchReport");
        assert!(value["properties"]["bugs"].is_object());
        assert!(schema().ends_with("}\n"));
    }
}
