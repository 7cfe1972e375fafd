//! The raw-bytes targets (`fuzz_target!(|data: &[u8]| ..)`): `triage` and the four parsers behind it, run as their fuzz targets run them.

use planted::triage;

use crate::check::{self, Verdict};
use crate::formats;
use crate::guard;
use crate::mutate::Rng;
use crate::targets::Target;

/// A parser behind `triage` as a target of its own: its inputs drawn, and run, under its name; mutations keep its
/// magic.
macro_rules! parser {
    ($name:literal, $about:literal) => {
        Target {
            name: $name,
            about: $about,
            draw: |rng, len| formats::draw($name, rng, len),
            run: |data| run_parser($name, data),
            keep: 4,
        }
    };
}

/// `triage`, then its parsers as targets of their own.
pub(crate) const TARGETS: [Target; 5] = [
    Target {
        name: "triage",
        about: "a selector byte for tlv, image, vm or rle, then that parser's input",
        draw: triage_input,
        run: run_triage,
        keep: 5,
    },
    parser!("tlv", "names, tables, indexes, padding, checksums, unknown chunks"),
    parser!("image", "frames of every shape, u16 or u32 sides, 1 to 4 channels"),
    parser!("vm", "stack-machine programs with slots allocated, written, read and freed"),
    parser!("rle", "literals, runs, back-references, jumps and detours"),
];

/// A `triage` input: a selector byte for a random parser (any of the 64 that pick it), then that parser's input.
fn triage_input(rng: &mut Rng, len: usize) -> Vec<u8> {
    let parser = rng.below(triage::PARSERS.len());
    let selector = (parser + triage::PARSERS.len() * rng.below(64)) as u8;
    let body = formats::draw(triage::PARSERS[parser].name, rng, len.saturating_sub(1));
    [vec![selector], body].concat()
}

/// `planted::triage::run(data)`, unless the guard finds an abort or a hang; the outcome names the parser.
fn run_triage(data: &[u8]) -> Verdict {
    if let Some(why) = guard::triage(data) {
        return Verdict::Unsafe(why);
    }
    match check::catching(|| check::outcome(triage::run(data))) {
        Verdict::Runs(what) if what == "ok" => Verdict::Runs(format!("{}: ok", triage::parser(data[0]).name)),
        verdict => verdict,
    }
}

/// The planted parser called `name` on `data`, unless the guard finds an abort or a hang.
fn run_parser(name: &str, data: &[u8]) -> Verdict {
    if let Some(why) = guard::check(name, data) {
        return Verdict::Unsafe(why);
    }
    let run = planted::target(name).expect("a planted raw-bytes target").run;
    check::catching(|| check::outcome(run(data)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triage_inputs_reach_every_parser_and_name_it() {
        check::silence_panics();
        let mut rng = Rng::new(4);
        let mut parsers = std::collections::BTreeSet::new();
        for _ in 0..100 {
            let input = triage_input(&mut rng, 2000);
            if let Verdict::Runs(what) = run_triage(&input) {
                parsers.insert(what.split(':').next().unwrap_or_default().to_string());
            }
        }
        let _ = std::panic::take_hook();
        assert_eq!(parsers.into_iter().collect::<Vec<_>>(), ["image", "rle", "tlv", "vm"]);
    }

    #[test]
    fn the_guard_keeps_a_hang_and_an_abort_from_running() {
        assert_eq!(run_triage(b"\x03RLE1\x05\x00"), Verdict::Unsafe("rle: a jump loops forever"));
        assert_eq!(run_parser("vm", b"VM01\x31\x13\x32\x32"), Verdict::Unsafe("vm: double free (abort)"));
        assert_eq!(run_parser("tlv", b"TLV1\x05\x00\x00"), Verdict::Runs("tlv: bad check chunk".into()));
    }
}
