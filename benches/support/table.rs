//! A Markdown table on stdout, as the benches print their results (shared through `#[path]`).

/// Prints `headers`, an alignment row (the first column left, the others
/// right) and one row per item of `rows`, after a blank line.
pub(crate) fn print(headers: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    println!("\n| {} |", headers.join(" | "));
    let align: Vec<&str> = headers.iter().enumerate().map(|(i, _)| if i == 0 { "---" } else { "--:" }).collect();
    println!("|{}|", align.join("|"));
    for cells in rows {
        println!("| {} |", cells.join(" | "));
    }
}

/// 1234567 as "1,234,567".
#[allow(dead_code)] // not every bench that prints a table prints large numbers
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
