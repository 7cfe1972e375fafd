//! A SanitizerCoverage binary's counters function by function, read with binutils (`readelf`, `nm`): the PC table has one entry per counter, filled at load time by the binary's relative relocations.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// How many counters each function of `binary` has, by demangled name
/// without hash (copies of one function under one name are summed).
pub(crate) fn counters_per_function(binary: &Path) -> BTreeMap<String, usize> {
    let functions = functions(binary);
    let mut counts = BTreeMap::new();
    for pc in pc_table(binary) {
        let after = functions.partition_point(|(start, ..)| *start <= pc);
        let function = after.checked_sub(1).map(|i| &functions[i]).filter(|(start, size, _)| pc < start + size);
        *counts.entry(function.map_or("?", |(.., name)| name.as_str()).to_owned()).or_default() += 1;
    }
    counts
}

/// `program args binary`'s standard output; it must succeed.
fn output(program: &str, args: &[&str], binary: &Path) -> String {
    let output = Command::new(program).args(args).arg(binary).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(output.status.success(), "{program} {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn hex(text: &str) -> u64 {
    u64::from_str_radix(text, 16).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Each entry's PC (entries are (PC, flags) pairs of 8 bytes each).
fn pc_table(binary: &Path) -> Vec<u64> {
    let sections = output("readelf", &["-SW"], binary);
    let line = sections.lines().find(|l| l.contains(" __sancov_pcs ")).expect("a __sancov_pcs section");
    // `[Nr] Name Type Address Off Size ...`
    let fields: Vec<&str> = line[line.find(']').unwrap() + 1..].split_whitespace().collect();
    let (address, size) = (hex(fields[2]), hex(fields[4]));
    let mut pcs = vec![None; (size / 16) as usize];
    for line in output("readelf", &["-rW"], binary).lines().filter(|l| l.contains("R_X86_64_RELATIVE")) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let offset = hex(fields[0]);
        if (address..address + size).contains(&offset) && (offset - address) % 16 == 0 {
            pcs[((offset - address) / 16) as usize] = Some(hex(fields[fields.len() - 1]));
        }
    }
    pcs.into_iter().map(|pc| pc.expect("every PC entry is relocated")).collect()
}

/// The code symbols as (start, size, demangled name), by start.
fn functions(binary: &Path) -> Vec<(u64, u64, String)> {
    let symbols = output("nm", &["-S", "-C", "--defined-only"], binary);
    let mut functions: Vec<(u64, u64, String)> = symbols
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(4, ' ');
            let (start, size, kind, name) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
            ["t", "T", "W", "w"].contains(&kind).then(|| (hex(start), hex(size), name.to_owned()))
        })
        .collect();
    functions.sort();
    functions
}
